"""Optional compiled kernels of the FOA renderer (numba), with the numpy path as the fallback.

- :func:`path_kernel` adds propagation paths to the output, doing in one pass what the numpy
  path does with temporaries: linear ramps of the four gains and of the delay between block
  edges, and a 4-point Lagrange fractional-delay read (same formulas as
  :func:`simkit.renderers.foa.render._lagrange_read`). Blocks that read only inside the signal
  take a branch-free route (sample index and fraction, then the read, then the gains, each a
  separate loop the compiler can vectorise) with the same operations and the same order of
  accumulation as the per-sample route.
- :func:`images_kernel` and :func:`gains_kernel` do the block-rate geometry (image-source
  positions relative to the listener; distance gains, SN3D gains and delays) without numpy's
  temporaries, with the same IEEE operations in the same order, so their results are
  bit-identical to the numpy expressions they replace.

Results agree with the numpy path to rounding error (tested). The kernels are used when numba
is importable and the environment variable ``SIMKIT_FOA_NUMBA`` is not ``0``; compiled code is
cached next to this module. No fastmath: IEEE order of operations keeps the bytes identical
across CPUs.
"""

from __future__ import annotations

import os
from functools import lru_cache


def _enabled() -> bool:
    if os.environ.get("SIMKIT_FOA_NUMBA", "1") == "0":
        return False
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


@lru_cache(maxsize=1)
def gains_kernel():
    """Compiled distance gains and delays of many paths at block edges, or ``None`` (see module doc).

    Signature: ``edge_gains(v (M, E, 3) listener-frame vectors in metres, amp (M,) gains at 1 m,
    r_min, c (m/s), fs (Hz), g (M, E, 4) out: SN3D gains x amp / max(r, r_min), d (M, E) out:
    delays r / c * fs in samples)``. The same IEEE operations in the same order as
    :func:`simkit.renderers.foa.render._gains` followed by ``r / c * fs``, so the results are
    bit-identical to the numpy path; it only saves the temporaries.
    """
    if not _enabled():
        return None
    import math

    import numba

    @numba.njit(cache=True, nogil=True)
    def edge_gains(v, amp, r_min, c, fs, g, d):  # pragma: no cover
        for i in range(v.shape[0]):
            a = amp[i]
            for e in range(v.shape[1]):
                x = v[i, e, 0]
                y = v[i, e, 1]
                z = v[i, e, 2]
                r = math.sqrt(x * x + y * y + z * z)
                if r > 1e-12:
                    ux = x / r
                    uy = y / r
                    uz = z / r
                else:
                    ux, uy, uz = 1.0, 0.0, 0.0
                sc = a / max(r, r_min)
                g[i, e, 0] = sc
                g[i, e, 1] = uy * sc
                g[i, e, 2] = uz * sc
                g[i, e, 3] = ux * sc
                d[i, e] = r / c * fs

    return edge_gains


@lru_cache(maxsize=1)
def images_kernel():
    """Compiled image-source positions relative to the listener, or ``None`` (see module doc).

    Signature: ``image_rel(sign (M, 3), offset (M, 3), pts (E, 3) world source positions,
    lis (E or 1, 3) world listener positions, rel (M, E, 3) out)`` with
    ``rel = (sign * pts + offset) - lis``: the image transform of
    :meth:`simkit.renderers.foa.room.ShoeboxRoom.image_transform`, the same IEEE operations as
    the numpy expression in :func:`simkit.renderers.foa.render.render_foa`.
    """
    if not _enabled():
        return None
    import numba

    @numba.njit(cache=True, nogil=True)
    def image_rel(sign, offset, pts, lis, rel):  # pragma: no cover
        n_lis = lis.shape[0]
        for i in range(sign.shape[0]):
            for e in range(pts.shape[0]):
                le = e if n_lis > 1 else 0
                for c in range(3):
                    rel[i, e, c] = (sign[i, c] * pts[e, c] + offset[i, c]) - lis[le, c]

    return image_rel


@lru_cache(maxsize=1)
def _read_kernels():
    """The 4-tap Lagrange reads of :func:`_block_kernels` (inlined there by numba): along a contiguous
    run of read positions, and at arbitrary ones (gathers); call only when numba is enabled."""
    import numba

    @numba.njit(cache=True, nogil=True, inline="always")
    def lagrange_run(x, frac, tmp, nf):  # pragma: no cover
        """``tmp[g] =`` the 4-tap Lagrange read at ``x[g + 1]`` + ``frac[g]`` for 0 <= g < nf, with ``x``
        the signal from one sample before the run's first read: views indexed by loop counters only
        (no wrap-around checks, so the loop vectorises)."""
        for g in range(nf):
            d = frac[g]
            dm1 = d - 1.0
            dp1 = d + 1.0
            dm2 = d - 2.0
            a = d * dm1
            b = dp1 * dm2
            tmp[g] = (x[g] * (-a * dm2) + x[g + 3] * (a * dp1)) * (1.0 / 6.0) + (
                x[g + 1] * (b * dm1) - x[g + 2] * (b * d)
            ) * 0.5

    @numba.njit(cache=True, nogil=True, inline="always")
    def gather_read(xs, idx, frac, tmp, nf):  # pragma: no cover
        """``tmp[f] =`` the 4-tap Lagrange read of ``xs`` at ``idx[f] + f`` + ``frac[f]`` (any offsets)."""
        for f in range(nf):
            d = frac[f]
            q = idx[f] + f
            dm1 = d - 1.0
            dp1 = d + 1.0
            dm2 = d - 2.0
            a = d * dm1
            b = dp1 * dm2
            tmp[f] = (xs[q - 1] * (-a * dm2) + xs[q + 2] * (a * dp1)) * (1.0 / 6.0) + (
                xs[q] * (b * dm1) - xs[q + 1] * (b * d)
            ) * 0.5

    return lagrange_run, gather_read


@lru_cache(maxsize=1)
def _block_kernels():
    """The compiled pieces of :func:`path_kernel` (inlined there by numba): the block that reads only
    inside its signal, and the read next to a signal's ends; call only when numba is enabled."""
    import math

    import numba

    lagrange_run, gather_read = _read_kernels()

    # no fastmath: IEEE order of operations keeps the bytes identical across CPUs (README.md, determinism)
    @numba.njit(cache=True, nogil=True, inline="always")
    def interior_block(out, xs, off, base, j0, j1, d0, dd, gains, tmp, frac, idx):  # pragma: no cover
        """One block of one path that reads only inside its signal: sample index and fraction, the
        4-tap Lagrange read into a scratch buffer, then the ramped gains into ``out`` (4, n).
        ``base`` = j0 - start (integers below 2**53: exact); ``gains`` = (g0, g1, g2, g3, e0, e1, e2,
        e3), the four gains at the block's first edge and their per-sample increments. Where the read
        index advances by one sample per output sample (the delay's integer part is constant, or
        changes once, in the block), the read takes contiguous loads instead of gathers: the same
        values and operations, hence the same result."""
        g0, g1, g2, g3, e0, e1, e2, e3 = gains
        nf = j1 - j0
        q0 = int(math.floor(base - d0)) + off  # the read offset at f = 0 (pos there is base - d0)
        c = 0  # how many samples read at that offset (all of them: one contiguous run)
        for f in range(nf):
            pos = (base + f) - (d0 + dd * f)
            fi = math.floor(pos)
            v = int(fi) + off - f
            idx[f] = v
            frac[f] = pos - fi
            c += v == q0
        if c == nf:
            lagrange_run(xs[q0 - 1 : q0 + nf + 2], frac, tmp, nf)
        else:
            q1 = idx[nf - 1]
            bad = 0
            for f in range(c):  # two runs (the delay's integer part changes once)?
                bad += idx[f] != q0
            for f in range(c, nf):
                bad += idx[f] != q1
            if bad == 0:
                lagrange_run(xs[q0 - 1 : q0 + c + 2], frac, tmp, c)
                lagrange_run(xs[q1 + c - 1 : q1 + nf + 2], frac[c:], tmp[c:], nf - c)
            else:
                gather_read(xs, idx, frac, tmp, nf)
        o0 = out[0, j0:j1]
        o1 = out[1, j0:j1]
        o2 = out[2, j0:j1]
        o3 = out[3, j0:j1]
        for f in range(nf):  # views indexed from 0: no wrap-around checks, the loop vectorises
            s = tmp[f]
            o0[f] += s * (g0 + e0 * f)
            o1[f] += s * (g1 + e1 * f)
            o2[f] += s * (g2 + e2 * f)
            o3[f] += s * (g3 + e3 * f)

    @numba.njit(cache=True, nogil=True, inline="always")
    def edge_read(xs, off, m, i, d):  # pragma: no cover
        """The 4-tap Lagrange read at integer part ``i`` and fraction ``d`` of a signal of length ``m``
        starting at ``xs[off]``, next to its ends: taps outside the signal read silence."""
        dm1 = d - 1.0
        dp1 = d + 1.0
        dm2 = d - 2.0
        s = 0.0
        if 0 <= i - 1 < m:
            s += xs[off + i - 1] * (-d * dm1 * dm2 / 6.0)
        if 0 <= i < m:
            s += xs[off + i] * (dp1 * dm1 * dm2 / 2.0)
        if 0 <= i + 1 < m:
            s += xs[off + i + 1] * (-dp1 * d * dm2 / 2.0)
        if 0 <= i + 2 < m:
            s += xs[off + i + 2] * (dp1 * d * dm1 / 6.0)
        return s

    return interior_block, edge_read


@lru_cache(maxsize=1)
def path_kernel():
    """The compiled kernel, or ``None`` when numba is unavailable or disabled.

    Signature: ``add_paths(out (4, n) channel-major, xs (sum of lengths,) signals concatenated, offsets (P,),
    lengths (P,), starts (P,) output sample of each signal's first sample, gains (P, nb+1, 4),
    delays (P, nb+1) samples, use_delay (P,) bool, block)``; gains and delays are given at block
    edges and ramped linearly in between.
    """
    if not _enabled():
        return None
    import math

    import numba
    import numpy as np

    interior_block, edge_read = _block_kernels()

    # no fastmath: IEEE order of operations keeps the bytes identical across CPUs (README.md, determinism)
    @numba.njit(cache=True, nogil=True)
    def add_paths(out, xs, offsets, lengths, starts, gains, delays, use_delay, block):  # pragma: no cover
        n = out.shape[1]
        n_paths = gains.shape[0]
        nb = gains.shape[1] - 1
        inv = 1.0 / block
        tmp = np.empty(block)
        frac = np.empty(block)
        idx = np.empty(block, np.int64)
        for k in range(nb):  # blocks outermost: the output block stays in cache for all paths
            j0 = k * block
            if j0 >= n:
                break
            j1 = min(j0 + block, n)
            for p in range(n_paths):
                m = lengths[p]
                off = offsets[p]
                start = starts[p]
                d0 = delays[p, k] if use_delay[p] else 0.0
                dd = (delays[p, k + 1] - d0) * inv if use_delay[p] else 0.0
                dmin = min(d0, d0 + dd * block)
                dmax = max(d0, d0 + dd * block)
                if j1 - start - dmin < -2.0 or j0 - start - dmax > m + 1.0:
                    continue  # this block reads only silence of this path
                g0 = gains[p, k, 0]
                g1 = gains[p, k, 1]
                g2 = gains[p, k, 2]
                g3 = gains[p, k, 3]
                e0 = (gains[p, k + 1, 0] - g0) * inv
                e1 = (gains[p, k + 1, 1] - g1) * inv
                e2 = (gains[p, k + 1, 2] - g2) * inv
                e3 = (gains[p, k + 1, 3] - g3) * inv
                if j0 - start - dmax - 1.0 >= 1.0 and j1 - start - dmin + 1.0 + 2.0 < m:
                    # the whole block reads inside the signal: branch-free (vectorisable) loops; same
                    # operations and the same order of accumulation into ``out`` as the loop below
                    interior_block(
                        out,
                        xs,
                        off,
                        float(j0 - start),
                        j0,
                        j1,
                        d0,
                        dd,
                        (g0, g1, g2, g3, e0, e1, e2, e3),
                        tmp,
                        frac,
                        idx,
                    )
                    continue
                for j in range(j0, j1):
                    f = j - j0
                    pos = j - start - (d0 + dd * f)
                    fi = math.floor(pos)
                    i = int(fi)
                    d = pos - fi
                    if i >= 1 and i + 2 < m:
                        dm1 = d - 1.0
                        dp1 = d + 1.0
                        dm2 = d - 2.0
                        a = d * dm1
                        b = dp1 * dm2
                        q = off + i
                        s = (xs[q - 1] * (-a * dm2) + xs[q + 2] * (a * dp1)) * (1.0 / 6.0) + (
                            xs[q] * (b * dm1) - xs[q + 1] * (b * d)
                        ) * 0.5
                    elif i + 2 < 0 or i - 1 >= m:
                        continue
                    else:
                        s = edge_read(xs, off, m, i, d)
                    out[0, j] += s * (g0 + e0 * f)
                    out[1, j] += s * (g1 + e1 * f)
                    out[2, j] += s * (g2 + e2 * f)
                    out[3, j] += s * (g3 + e3 * f)

    return add_paths


@lru_cache(maxsize=1)
def static_kernel():
    """The compiled kernel of static paths (constant gains and delays), or ``None`` (see module doc).

    Signature: ``add_static(out (4, n) channel-major output, xp (n + span + 4,) the signal padded
    with silence, first (P,) int index into ``xp`` of the read of path p's last tap at output
    sample 0, w (P, 4) the Lagrange tap weights of each path (tap t delays by t samples more than
    tap 0), g (P, 4) the SN3D gains of each path, block)``. Output sample j of path p is
    ``g[p] * sum_t w[p, t] * xp[first[p] + 3 - t + j]``: the sparse impulse response of the static
    paths applied in the time domain, without the FFT of :func:`render._add_static_rir` (equal to
    it to rounding). Blocks of ``block`` output samples keep the output in cache for all paths.
    """
    if not _enabled():
        return None
    import numba
    import numpy as np

    @numba.njit(cache=True, nogil=True)
    def add_static(out, xp, first, w, g, block):  # pragma: no cover
        n = out.shape[1]
        tmp = np.empty(block)
        for j0 in range(0, n, block):
            nf = min(block, n - j0)
            o0 = out[0, j0 : j0 + nf]
            o1 = out[1, j0 : j0 + nf]
            o2 = out[2, j0 : j0 + nf]
            o3 = out[3, j0 : j0 + nf]
            for p in range(first.shape[0]):
                u = first[p] + j0
                x = xp[u : u + nf + 3]  # a view indexed by loop counters only: the loops vectorise
                w0 = w[p, 0]
                w1 = w[p, 1]
                w2 = w[p, 2]
                w3 = w[p, 3]
                for f in range(nf):
                    tmp[f] = x[f] * w3 + x[f + 1] * w2 + x[f + 2] * w1 + x[f + 3] * w0
                g0 = g[p, 0]
                g1 = g[p, 1]
                g2 = g[p, 2]
                g3 = g[p, 3]
                for f in range(nf):
                    s = tmp[f]
                    o0[f] += s * g0
                    o1[f] += s * g1
                    o2[f] += s * g2
                    o3[f] += s * g3

    return add_static
