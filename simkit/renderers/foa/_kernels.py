"""Optional compiled kernel of the FOA renderer (numba), with the numpy path as the fallback.

:func:`path_kernel` returns a compiled function that adds one propagation path to the output,
doing in one pass what the numpy path does with temporaries: linear ramps of the four gains
and of the delay between block edges, and a 4-point Lagrange fractional-delay read (same
formulas as :func:`simkit.renderers.foa.render._lagrange_read`). Results agree with the numpy
path to rounding error (tested). It is used when numba is importable and the environment
variable ``SIMKIT_FOA_NUMBA`` is not ``0``; compiled code is cached next to this module.
"""

from __future__ import annotations

import os
from functools import lru_cache


@lru_cache(maxsize=1)
def path_kernel():
    """The compiled kernel, or ``None`` when numba is unavailable or disabled.

    Signature: ``add_paths(out (n, 4), xs (sum of lengths,) signals concatenated, offsets (P,),
    lengths (P,), starts (P,) output sample of each signal's first sample, gains (P, nb+1, 4),
    delays (P, nb+1) samples, use_delay (P,) bool, block)``; gains and delays are given at block
    edges and ramped linearly in between.
    """
    if os.environ.get("SIMKIT_FOA_NUMBA", "1") == "0":
        return None
    try:
        import numba
    except ImportError:
        return None
    import math

    # no fastmath: IEEE order of operations keeps the bytes identical across CPUs (DESIGN.md, Contracts)
    @numba.njit(cache=True, nogil=True)
    def add_paths(out, xs, offsets, lengths, starts, gains, delays, use_delay, block):  # pragma: no cover
        n = out.shape[0]
        n_paths = gains.shape[0]
        nb = gains.shape[1] - 1
        inv = 1.0 / block
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
                for j in range(j0, j1):
                    f = j - j0
                    pos = j - start - (d0 + dd * f)
                    fi = math.floor(pos)
                    i = int(fi)
                    d = pos - fi
                    if 1 <= i and i + 2 < m:
                        dm1 = d - 1.0
                        dp1 = d + 1.0
                        dm2 = d - 2.0
                        a = d * dm1
                        b = dp1 * dm2
                        q = off + i
                        s = (xs[q - 1] * (-a * dm2) + xs[q + 2] * (a * dp1)) * (1.0 / 6.0) \
                            + (xs[q] * (b * dm1) - xs[q + 1] * (b * d)) * 0.5
                    elif i + 2 < 0 or i - 1 >= m:
                        continue
                    else:
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
                    out[j, 0] += s * (g0 + e0 * f)
                    out[j, 1] += s * (g1 + e1 * f)
                    out[j, 2] += s * (g2 + e2 * f)
                    out[j, 3] += s * (g3 + e3 * f)

    return add_paths
