"""Feasible placements on a heightmap, vectorised for every footprint position at once.

A candidate is (box variant, yaw, x, y) with its drop height z = max of the heightmap over the
footprint (PackLab eq. 2). It is *feasible* when the footprint lies inside the container and the
top ``z + h`` does not exceed the container height, and *stable* when the footprint centre (the
centre of mass of a uniform box) lies inside the convex hull of the supporting cells (the
footprint cells whose height equals z) -- the static-equilibrium condition of a rigid box on
rigid supports. The hull test used here is the four-quadrant rule: the centre is inside the hull
when supporting cells reach into each of the four open quadrants around it (any half-plane
through the centre misses at least one quadrant, so no separating line exists). The rule is
sufficient, not necessary: it rejects some supports whose hull does contain the centre (e.g. a
half-footprint support plus one far corner), erring on the safe side. On the floor (z = 0)
every cell supports.

The support rule is selectable (:class:`SupportRule`, ``--support`` of ``simkit eval packing``):
``com`` is the rule above; ``area:F`` additionally requires at least the fraction F of the
footprint's cells to be supporting cells (container-loading papers commonly require full or
>= 75 % base support, e.g. Bortfeldt and Waescher, "Constraints in container loading - A
state-of-the-art review", EJOR 229(1), 2013, sec. 4.2); ``full`` requires every footprint cell
(F = 1).

Window maxima use ``scipy.ndimage.maximum_filter1d`` (separable, O(L W) per footprint), so
this stays fast on the 1 cm Bischoff-Ratcliff grids (587 x 233 cells).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simkit.core.errors import require
from simkit.scenes.packing.geometry import Box, Container
from simkit.scenes.packing.support import COM, SupportRule, parse_support

__all__ = [
    "COM",
    "Candidates",
    "SupportRule",
    "enumerate_candidates",
    "parse_support",
    "placement_supported",
    "support_maps",
    "supported_fraction",
    "window_max",
    "window_sum",
]


def window_max(H: np.ndarray, lx: int, ly: int) -> np.ndarray:
    """``out[i, j] = max(H[i:i+lx, j:j+ly])`` for every window inside ``H``.

    Args:
        H: (L, W) heightmap; lx, ly: window size (1 <= lx <= L, 1 <= ly <= W).
    Returns:
        (L - lx + 1, W - ly + 1) array of H's dtype.
    """
    nd = require("scipy.ndimage", "packing")
    L, W = H.shape
    m = H
    if lx > 1:
        m = nd.maximum_filter1d(m, size=lx, axis=0, origin=-(lx // 2), mode="nearest")
    m = m[: L - lx + 1]
    if ly > 1:
        m = nd.maximum_filter1d(m, size=ly, axis=1, origin=-(ly // 2), mode="nearest")
    return m[:, : W - ly + 1]


def window_sum(H: np.ndarray, lx: int, ly: int) -> np.ndarray:
    """``out[i, j] = sum(H[i:i+lx, j:j+ly])`` (int64), same shape rule as :func:`window_max`."""
    c = np.zeros((H.shape[0] + 1, H.shape[1] + 1), dtype=np.int64)
    c[1:, 1:] = np.cumsum(np.cumsum(H.astype(np.int64), axis=0), axis=1)
    return c[lx:, ly:] - c[:-lx, ly:] - c[lx:, :-ly] + c[:-lx, :-ly]


def support_margin(n: int, frac: float = 0.1) -> int:
    """Stability margin (cells) for a footprint side of ``n`` cells: ``ceil(frac * n / 2)``, at most ``ceil(n/2) - 1``."""
    return max(0, min(math.ceil(frac * n / 2.0 - 1e-9), (n + 1) // 2 - 1))


def support_maps(
    H: np.ndarray, lx: int, ly: int, margin_frac: float = 0.1, rule: SupportRule = COM
) -> tuple[np.ndarray, np.ndarray]:
    """Drop heights and the support rule (module docstring) for every window.

    Cell i of a footprint of length lx (local index) reaches left of the centre lx/2 when i < lx/2
    and right of it when i + 1 > lx/2, so the quadrant row ranges are [0, ceil(lx/2)) and
    [floor(lx/2), lx): both of length ceil(lx/2), and together they cover the footprint. One window
    maximum of size (ceil(lx/2), ceil(ly/2)), read at four offsets, therefore gives the four quadrant
    maxima, and their maximum is the drop height. A quadrant holds a supporting cell (a cell at the
    drop height) exactly when its maximum equals the drop height.

    Margin: the quadrants are pulled away from the centre lines by :func:`support_margin` cells
    (10 % of the half side by default), so the support must reach that far past the centre of mass
    in every quadrant. Without it, boxes balanced within one cell of a support edge were accepted
    and then tipped in pybullet (drop impact, contact compliance); with it, such placements are
    rejected before they are tried.

    ``rule`` ``area:F`` / ``full`` also requires :func:`supported_fraction` >= F.

    Returns:
        (zmax, stable): int array and bool array, both (L-lx+1, W-ly+1).
    """
    nx, ny = H.shape[0] - lx + 1, H.shape[1] - ly + 1
    if nx <= 0 or ny <= 0:
        return np.zeros((0, 0), H.dtype), np.zeros((0, 0), bool)
    qx, qy = (lx + 1) // 2, (ly + 1) // 2
    q = window_max(H, qx, qy)
    quads = [q[r0 : r0 + nx, c0 : c0 + ny] for r0 in (0, lx // 2) for c0 in (0, ly // 2)]
    zmax = np.maximum(np.maximum(quads[0], quads[1]), np.maximum(quads[2], quads[3]))
    mx, my = support_margin(lx, margin_frac), support_margin(ly, margin_frac)
    if mx or my:
        q = window_max(H, qx - mx, qy - my)
        quads = [q[r0 : r0 + nx, c0 : c0 + ny] for r0 in (0, lx // 2 + mx) for c0 in (0, ly // 2 + my)]
    stable = (quads[0] == zmax) & (quads[1] == zmax) & (quads[2] == zmax) & (quads[3] == zmax)
    if rule.kind != "com":
        stable &= supported_fraction(H, lx, ly, zmax) >= rule.fraction - 1e-9
    return zmax, stable


def supported_fraction(H: np.ndarray, lx: int, ly: int, zmax: np.ndarray | None = None) -> np.ndarray:
    """Share of each window's cells that stand at its drop height (the supporting cells), (L-lx+1, W-ly+1).

    Counted level by level: for every distinct drop height v, a window sum of ``H == v`` (cells are
    never above the window's maximum, so ``H == zmax`` is the supporting set).
    """
    if zmax is None:
        zmax = window_max(H, lx, ly)
    out = np.zeros(zmax.shape, dtype=np.float64)
    for v in np.unique(zmax):
        at = zmax == v
        out[at] = window_sum(v == H, lx, ly)[at]
    return out / float(lx * ly)


def placement_supported(H: np.ndarray, x: int, y: int, lx: int, ly: int, rule: SupportRule = COM) -> bool:
    """Whether a footprint at (x, y) of size (lx, ly) cells meets ``rule`` on heightmap ``H``."""
    _, st = support_maps(np.ascontiguousarray(H[x : x + lx, y : y + ly]), lx, ly, rule=rule)
    return bool(st.size and st[0, 0])


@dataclass
class Candidates:
    """All feasible placements of one (box variant, yaw).

    Attributes:
        box, yaw: the variant and its yaw (0/1); lx, ly: its footprint (cells); h its height.
        x, y, z: int64 arrays (K,) of footprint min corners and drop heights (cells), x-major order.
        stable: bool array (K,), the four-quadrant support rule.
    """

    box: Box
    yaw: int
    lx: int
    ly: int
    h: int
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    stable: np.ndarray


def enumerate_candidates(
    container: Container,
    H: np.ndarray,
    box: Box,
    yaw: int,
    require_stable: bool = True,
    maps: tuple[np.ndarray, np.ndarray] | None = None,
    rule: SupportRule = COM,
) -> Candidates:
    """Every feasible (x, y) of ``box`` at ``yaw`` on heightmap ``H`` (module docstring).

    Args:
        container: the container; H: (L, W) int heightmap in cells.
        require_stable: keep only stable candidates.
        maps: precomputed :func:`support_maps` of this footprint (a cache).
        rule: the support rule (when ``maps`` is not given).
    Returns:
        :class:`Candidates` (possibly empty).
    """
    lx, ly = box.footprint(yaw)
    L, W, Hc = container.size
    h = box.height
    empty = np.zeros(0, np.int64)
    if lx > L or ly > W or h > Hc:
        return Candidates(box, yaw, lx, ly, h, empty, empty, empty, np.zeros(0, bool))
    zmax, st = maps if maps is not None else support_maps(H, lx, ly, rule=rule)
    ok = zmax + h <= Hc
    if require_stable:
        ok &= st
    xs, ys = np.nonzero(ok)
    return Candidates(
        box,
        yaw,
        lx,
        ly,
        h,
        xs.astype(np.int64),
        ys.astype(np.int64),
        zmax[xs, ys].astype(np.int64),
        st[xs, ys],
    )
