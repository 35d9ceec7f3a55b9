"""Optional compiled kernels of the FOA renderer (numba), with the numpy path as the fallback.

- :func:`path_kernel` adds propagation paths to the output, doing in one pass what the numpy
  path does with temporaries: linear ramps of the four gains and of the delay between block
  edges, and a 4-point Lagrange fractional-delay read (same formulas as
  :func:`simkit.renderers.foa.render._lagrange_read`). Blocks that read only inside the signal
  take a branch-free route (sample index and fraction, then the read, each a separate loop the
  compiler can vectorise); the paths' reads of a block then go into the output four paths per
  pass, with the same operations and the same order of accumulation as the per-sample route.
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
def _edge_kernels():
    """The read of a block next to a signal's ends, for :func:`_block_kernels` (inlined there by numba);
    call only when numba is enabled."""
    import math

    import numba

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

    @numba.njit(cache=True, nogil=True, inline="always")
    def edge_row(row, xs, off, m, start, j0, nf, d0, dd):  # pragma: no cover
        """``row[f]`` = one path's signal read at output sample ``j0 + f``, sample by sample (a block
        next to the signal's ends); 0.0 where every tap lies outside the signal (adding it leaves the
        output unchanged: the output never holds -0.0, being a sum that starts at +0.0)."""
        for f in range(nf):
            pos = (j0 + f) - start - (d0 + dd * f)
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
                row[f] = (xs[q - 1] * (-a * dm2) + xs[q + 2] * (a * dp1)) * (1.0 / 6.0) + (
                    xs[q] * (b * dm1) - xs[q + 1] * (b * d)
                ) * 0.5
            elif i + 2 < 0 or i - 1 >= m:
                row[f] = 0.0
            else:
                row[f] = edge_read(xs, off, m, i, d)

    return edge_row


@lru_cache(maxsize=1)
def _block_kernels():
    """The compiled pieces of :func:`path_kernel` (inlined there by numba): one path's samples in a
    block that reads only inside its signal, the same next to a signal's ends, and the ramped gains
    of a block's paths added into the output; call only when numba is enabled."""
    import math

    import numba

    lagrange_run, gather_read = _read_kernels()
    edge_row = _edge_kernels()

    # no fastmath: IEEE order of operations keeps the bytes identical across CPUs (README.md, determinism)
    @numba.njit(cache=True, nogil=True, inline="always")
    def interior_row(row, xs, off, base, nf, d0, dd, frac, idx):  # pragma: no cover
        """``row[f]`` (f < nf) = one path's signal read in a block that reads only inside it: sample
        index and fraction, then the 4-tap Lagrange read. ``base`` = j0 - start (integers below 2**53:
        exact). Where the read index advances by one sample per output sample (the delay's integer
        part is constant, or changes once, in the block), the read takes contiguous loads instead of
        gathers: the same values and operations, hence the same result."""
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
            lagrange_run(xs[q0 - 1 : q0 + nf + 2], frac, row, nf)
            return
        q1 = idx[nf - 1]
        bad = 0
        for f in range(c):  # two runs (the delay's integer part changes once)?
            bad += idx[f] != q0
        for f in range(c, nf):
            bad += idx[f] != q1
        if bad == 0:
            lagrange_run(xs[q0 - 1 : q0 + c + 2], frac, row, c)
            lagrange_run(xs[q1 + c - 1 : q1 + nf + 2], frac[c:], row[c:], nf - c)
        else:
            gather_read(xs, idx, frac, row, nf)

    @numba.njit(cache=True, nogil=True, inline="always")
    def add_rows(out, rows, ge, na, j0, nf):  # pragma: no cover
        """``out[c, j0 + f] += rows[q, f] * (ge[q, c] + ge[q, 4 + c] * f)`` for the block's ``na`` paths
        q in order: four paths per pass over a channel's block (one load and one store of the output
        per four paths); each sample receives the paths' terms one after the other, as one pass per
        path would add them (views indexed from 0: no wrap-around checks, the loops vectorise)."""
        for c in range(4):
            o = out[c, j0 : j0 + nf]
            q = 0
            while q + 4 <= na:
                s0, s1, s2, s3 = rows[q], rows[q + 1], rows[q + 2], rows[q + 3]
                a0, a1, a2, a3 = ge[q, c], ge[q + 1, c], ge[q + 2, c], ge[q + 3, c]
                e0, e1, e2, e3 = ge[q, 4 + c], ge[q + 1, 4 + c], ge[q + 2, 4 + c], ge[q + 3, 4 + c]
                for f in range(nf):
                    t = (o[f] + s0[f] * (a0 + e0 * f)) + s1[f] * (a1 + e1 * f)
                    o[f] = (t + s2[f] * (a2 + e2 * f)) + s3[f] * (a3 + e3 * f)
                q += 4
            while q < na:
                s0 = rows[q]
                a0, e0 = ge[q, c], ge[q, 4 + c]
                for f in range(nf):
                    o[f] += s0[f] * (a0 + e0 * f)
                q += 1

    return interior_row, edge_row, add_rows


@lru_cache(maxsize=1)
def path_kernel():
    """The compiled kernel, or ``None`` when numba is unavailable or disabled.

    Signature: ``add_paths(out (4, n) channel-major, xs (sum of lengths,) signals concatenated, offsets (P,),
    lengths (P,), starts (P,) output sample of each signal's first sample, gains (nb+1, P, 4),
    delays (nb+1, P) samples, use_delay (P,) bool, block)``; gains and delays are given at block
    edges (edge-major: one block's values of all paths side by side) and ramped linearly in between.
    Output sample j of path p in block k (f = j - k block) adds ``s * (g + (g' - g) / block * f)``
    per channel, ``s`` the 4-tap Lagrange read of the signal at ``j - start - (d + (d' - d) / block * f)``
    (g, d at edge k, g', d' at edge k + 1), the paths' terms added in path order.

    Per block: every path that hears the block is read into a row of a scratch (P, block) array,
    then :func:`_block_kernels`' ``add_rows`` adds the rows' ramped gains into the output, four paths
    per pass: the same operations and order of accumulation as a pass per path, with a quarter of
    the output's loads and stores.
    """
    if not _enabled():
        return None

    import numba
    import numpy as np

    interior_row, edge_row, add_rows = _block_kernels()

    # no fastmath: IEEE order of operations keeps the bytes identical across CPUs (README.md, determinism)
    @numba.njit(cache=True, nogil=True)
    def add_paths(out, xs, offsets, lengths, starts, gains, delays, use_delay, block):  # pragma: no cover
        n = out.shape[1]
        n_paths = gains.shape[1]
        nb = gains.shape[0] - 1
        inv = 1.0 / block
        rows = np.empty((n_paths, block))
        ge = np.empty((n_paths, 8))  # per heard path: the 4 gains at the block's first edge, 4 increments
        frac = np.empty(block)
        idx = np.empty(block, np.int64)
        for k in range(nb):  # blocks outermost: the output block stays in cache for all paths
            j0 = k * block
            if j0 >= n:
                break
            j1 = min(j0 + block, n)
            na = 0
            for p in range(n_paths):
                m = lengths[p]
                start = starts[p]
                d0 = delays[k, p] if use_delay[p] else 0.0
                dd = (delays[k + 1, p] - d0) * inv if use_delay[p] else 0.0
                dmin = min(d0, d0 + dd * block)
                dmax = max(d0, d0 + dd * block)
                if j1 - start - dmin < -2.0 or j0 - start - dmax > m + 1.0:
                    continue  # this block reads only silence of this path
                for c in range(4):
                    g = gains[k, p, c]
                    ge[na, c] = g
                    ge[na, 4 + c] = (gains[k + 1, p, c] - g) * inv
                if j0 - start - dmax - 1.0 >= 1.0 and j1 - start - dmin + 1.0 + 2.0 < m:
                    interior_row(rows[na], xs, offsets[p], float(j0 - start), j1 - j0, d0, dd, frac, idx)
                else:
                    edge_row(rows[na], xs, offsets[p], m, start, j0, j1 - j0, d0, dd)
                na += 1
            add_rows(out, rows, ge, na, j0, j1 - j0)

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
