"""An independent geometric check of a packing result (no physics engine involved).

Every packing result of every policy is checked, on top of the physics verdicts, with plain
geometry on the final poses of the packed objects (those whose centre lies in the container):

- ``overlap``: two boxes interpenetrate by more than ``tol`` (default 1 mm). Penetration depth is
  the minimum overlap over the 15 separating-axis candidates of two oriented boxes (the
  separating axis theorem, Gottschalk, Lin & Manocha, "OBBTree", SIGGRAPH 1996).
- ``outside``: a box corner lies outside the container's inner volume [0,L] x [0,W] x [0,H] by more
  than ``tol``.
- ``unsupported``: an upright box (tilt under ``upright_tol``) neither rests on the floor nor has its
  centre of mass above the convex hull of its contact patches with the tops of the boxes right below
  it (boxes it touches within ``tol`` whose top face centre is within :data:`SUPPORT_TOL_M`, plus
  the height change of a face tilted like the two boxes over their horizontal distance, of its
  bottom face centre; a tilted box below contributes the points where its highest corners touch);
  a tilted box touches nothing (floor, wall or box within ``tol``). (For a tilted box only
  contact is checked, not equilibrium.)
- ``undersupported``: with a support rule ``area:F`` or ``full``, an upright box off the floor
  whose bottom face is covered by the tops of its supporters (the same contact patches, each grown
  by ``tol``; their union computed exactly) over less than F of its area.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from simkit.core.rotations import quaternion_to_matrix
from simkit.scenes.packing.geometry import Box, Container
from simkit.scenes.packing.metrics import Pose
from simkit.scenes.packing.support import COM, SupportRule

#: default interpenetration / containment / contact tolerance, metres (issue: "no interpenetration beyond 1 mm")
CHECK_TOL_M = 1e-3
#: vertical tolerance (m) between a box's bottom face and a supporter's top face, for boxes already in
#: contact (within CHECK_TOL_M): a settled box sinks ~0.3 mm and a 0.1 deg tilt of a 30 cm box moves its
#: face ends by 0.5 mm, so 1 mm would miss real supports
SUPPORT_TOL_M = 3e-3
#: a box whose local z axis is within this angle (rad) of the world z axis counts as upright
UPRIGHT_TOL_RAD = 0.05


@dataclass(frozen=True)
class Violation:
    """One problem found by :func:`check_packing`: ``kind`` (overlap/outside/unsupported), the box ids, the amount (m)."""

    kind: str
    boxes: tuple[int, ...]
    amount_m: float

    def __str__(self) -> str:
        if self.kind == "undersupported":
            return f"{self.kind} {list(self.boxes)} ({100 * self.amount_m:.0f} % of the base supported)"
        return f"{self.kind} {list(self.boxes)} ({self.amount_m * 1000:.1f} mm)"


@dataclass
class _OBB:
    id: int
    c: np.ndarray  # centre (3,)
    R: np.ndarray  # columns = local axes in world frame
    h: np.ndarray  # half extents (3,)

    # the derived quantities are read many times per check: each computed once (the arrays are not changed)

    @cached_property
    def corners(self) -> np.ndarray:
        s = np.array(list(itertools.product((-1, 1), repeat=3)), float)
        return self.c + (s * self.h) @ self.R.T

    @cached_property
    def aabb_half(self) -> np.ndarray:
        return np.abs(self.R) @ self.h

    @cached_property
    def bottom_z(self) -> float:
        """z of the centre of the face that points down (the box is upright)."""
        return float(self.c[2] - self.h[2] * abs(self.R[2, 2]))

    @cached_property
    def top_z(self) -> float:
        """z of the centre of the face that points up (the box is upright)."""
        return float(self.c[2] + self.h[2] * abs(self.R[2, 2]))

    @cached_property
    def upright_angle(self) -> float:
        return math.acos(min(1.0, abs(float(self.R[2, 2]))))


def penetration_depth(a: _OBB, b: _OBB) -> float:
    """Minimum overlap (m) of two oriented boxes over the 15 SAT axes; <= 0 means separated (gap = -value)."""
    return float(penetration_depths(a.c[None], a.R[None], a.h[None], b.c[None], b.R[None], b.h[None])[0])


def penetration_depths(
    ca: np.ndarray, Ra: np.ndarray, ha: np.ndarray, cb: np.ndarray, Rb: np.ndarray, hb: np.ndarray
) -> np.ndarray:
    """:func:`penetration_depth` of P box pairs at once: centres ``ca``/``cb`` (P, 3) m, rotations
    ``Ra``/``Rb`` (P, 3, 3) (columns = local axes in the world frame), half extents ``ha``/``hb`` (P, 3) m.

    Returns float64 (P,): per pair, the minimum over the 15 separating-axis candidates (the 6 face normals
    and the 9 edge cross products longer than 1e-6; Gottschalk, Lin & Manocha 1996) of
    ``ra + rb - |d . n|``; <= 0 means separated.
    """
    P = len(ca)
    A = np.swapaxes(Ra, 1, 2)  # rows: a's local axes
    B = np.swapaxes(Rb, 1, 2)
    u, v = (
        A[:, :, None, :],
        B[:, None, :, :],
    )  # every (a axis i, b axis j): the cross product by its components
    cross = np.stack(
        [
            u[..., 1] * v[..., 2] - u[..., 2] * v[..., 1],
            u[..., 2] * v[..., 0] - u[..., 0] * v[..., 2],
            u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0],
        ],
        axis=-1,
    ).reshape(P, 9, 3)
    nn = np.sqrt(np.einsum("pkj,pkj->pk", cross, cross))
    valid = nn > 1e-6
    cross /= np.where(valid, nn, 1.0)[..., None]
    axes = np.concatenate([A, B, cross], axis=1)  # (P, 15, 3) unit axes
    ra = np.einsum("pkj,pj->pk", np.abs(axes @ Ra), ha)  # |R^T n| . h per axis
    rb = np.einsum("pkj,pj->pk", np.abs(axes @ Rb), hb)
    sep = np.abs(np.einsum("pkj,pj->pk", axes, cb - ca))
    over = ra + rb - sep
    over[:, 6:][~valid] = np.inf  # a degenerate cross product (parallel edges) is no candidate
    return over.min(axis=1)


def _cross2(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Convex hull (Andrew's monotone chain), counter-clockwise, no collinear points."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts
    lower: list = []
    for p in pts:
        while len(lower) >= 2 and _cross2(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list = []
    for p in reversed(pts):
        while len(upper) >= 2 and _cross2(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def point_in_hull(p: tuple[float, float], hull: list[tuple[float, float]], tol: float) -> bool:
    """True when ``p`` is inside the convex polygon ``hull`` (CCW) or within ``tol`` of it."""
    if not hull:
        return False
    if len(hull) == 1:
        return math.dist(p, hull[0]) <= tol
    if len(hull) == 2:
        (x1, y1), (x2, y2) = hull
        L = math.dist(hull[0], hull[1])
        t = max(0.0, min(1.0, ((p[0] - x1) * (x2 - x1) + (p[1] - y1) * (y2 - y1)) / (L * L)))
        return math.dist(p, (x1 + t * (x2 - x1), y1 + t * (y2 - y1))) <= tol
    for i in range(len(hull)):
        a, b = hull[i], hull[(i + 1) % len(hull)]
        edge = math.dist(a, b)
        if _cross2(a, b, p) / edge < -tol:
            return False
    return True


def _touching_points(
    o: _OBB, s: _OBB, tol: float, spacing: float = 0.01, max_n: int = 64
) -> list[tuple[float, float]]:
    """xy of the points of ``o``'s bottom face (a grid, ``spacing`` m, at most ``max_n`` per side, edges
    included) that lie within ``tol`` of box ``s`` (distance from a point to an oriented box)."""
    nx = int(min(max_n, max(2, math.ceil(2 * o.h[0] / spacing) + 1)))
    ny = int(min(max_n, max(2, math.ceil(2 * o.h[1] / spacing) + 1)))
    gx, gy = np.meshgrid(np.linspace(-o.h[0], o.h[0], nx), np.linspace(-o.h[1], o.h[1], ny), indexing="ij")
    sign = 1.0 if o.R[2, 2] >= 0 else -1.0  # the face that points down
    local = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, -sign * o.h[2])], axis=1)
    world = o.c + local @ o.R.T
    q = np.abs((world - s.c) @ s.R) - s.h  # per-axis excess in s's frame
    dist = np.linalg.norm(np.maximum(q, 0.0), axis=1)
    return [(float(x), float(y)) for x, y in world[dist <= tol][:, :2]]


def _contacts(
    obbs: list[_OBB], cs: np.ndarray, hs: np.ndarray, tol: float
) -> tuple[list[list[bool]], list[Violation]]:
    """Pairs in contact (penetration > -``tol``) and overlapping (> ``tol``) among ``obbs`` (centres ``cs``,
    AABB half extents ``hs``, (n, 3) m): the separating-axis test of every pair whose AABBs come within
    ``tol``, all in one batch."""
    n = len(obbs)
    out: list[Violation] = []
    contact = [[False] * n for _ in range(n)]
    ii, jj = np.triu_indices(n, 1)
    near = np.all(np.abs(cs[jj] - cs[ii]) <= hs[jj] + hs[ii] + tol, axis=1)
    ii, jj = ii[near], jj[near]  # pairs (i < j, in order) whose AABBs come within tol
    if len(ii):
        Rs, hh = np.array([o.R for o in obbs]), np.array([o.h for o in obbs])
        depth = penetration_depths(cs[ii], Rs[ii], hh[ii], cs[jj], Rs[jj], hh[jj])
        for i, j, d in zip(ii.tolist(), jj.tolist(), depth.tolist(), strict=True):
            if d > -tol:
                contact[i][j] = contact[j][i] = True
            if d > tol:
                out.append(Violation("overlap", (obbs[i].id, obbs[j].id), d))
    return contact, out


def check_packing(
    container: Container,
    boxes: list[tuple[Box, Pose]],
    tol: float = CHECK_TOL_M,
    upright_tol: float = UPRIGHT_TOL_RAD,
    support: SupportRule = COM,
) -> list[Violation]:
    """Check posed boxes for overlap, containment and support (module docstring).

    Args:
        container: the container (metres via ``container.size_m``).
        boxes: (box, (centre m, quaternion (w,x,y,z))) for each packed box; a box's local axes are
            its (l, w, h) size axes (the pose carries the yaw).
        tol: metres; upright_tol: radians.
        support: with ``area:F`` / ``full`` also check the supported share of every base.
    Returns:
        The violations (empty when the packing passes).
    """
    res = container.resolution
    Lm, Wm, Hm = container.size_m
    obbs = [
        _OBB(b.id, np.asarray(pos, float), quaternion_to_matrix(q), np.array(b.size, float) * res / 2)
        for b, (pos, q) in boxes
    ]
    out: list[Violation] = []
    n = len(obbs)
    # pairwise interpenetration, with an AABB prefilter
    cs = np.array([o.c for o in obbs]).reshape(n, 3)
    hs = np.array([o.aabb_half for o in obbs]).reshape(n, 3)
    contact, overlaps = _contacts(obbs, cs, hs, tol)
    out += overlaps
    # containment
    for o in obbs:
        cr = o.corners
        excess = max(
            float(-cr[:, 0].min()),
            float(cr[:, 0].max() - Lm),
            float(-cr[:, 1].min()),
            float(cr[:, 1].max() - Wm),
            float(-cr[:, 2].min()),
            float(cr[:, 2].max() - Hm),
        )
        if excess > tol:
            out.append(Violation("outside", (o.id,), excess))
    # support
    for i, o in enumerate(obbs):
        cr = o.corners
        zmin = float(cr[:, 2].min())
        if zmin <= tol:
            continue  # on the floor
        if o.upright_angle > upright_tol:
            near_wall = (
                cr[:, 0].min() <= tol
                or cr[:, 0].max() >= Lm - tol
                or cr[:, 1].min() <= tol
                or cr[:, 1].max() >= Wm - tol
            )
            if not (near_wall or any(contact[i])):
                out.append(Violation("unsupported", (o.id,), zmin))
            continue
        lo_i, hi_i = o.c[:2] - o.aabb_half[:2], o.c[:2] + o.aabb_half[:2]
        pts: list[tuple[float, float]] = []
        rects: list[tuple[np.ndarray, np.ndarray]] = []
        zb = o.bottom_z
        for j, s in enumerate(obbs):
            if j == i or not contact[i][j]:
                continue
            if s.upright_angle > upright_tol:
                # a tilted box below: the points of the bottom face that touch it (sampled on a grid)
                pts += _touching_points(o, s, SUPPORT_TOL_M)
                continue
            # faces of slightly tilted (still upright) boxes are planes with slope ~ their tilt angle, so
            # face centres a horizontal distance d apart differ in height by up to d * sin(tilt)
            slope = math.sin(max(o.upright_angle, s.upright_angle)) * float(np.linalg.norm(o.c[:2] - s.c[:2]))
            if abs(s.top_z - zb) > SUPPORT_TOL_M + slope:
                continue
            lo = np.maximum(lo_i, s.c[:2] - s.aabb_half[:2])
            hi = np.minimum(hi_i, s.c[:2] + s.aabb_half[:2])
            if np.all(hi - lo > 0):
                rects.append((lo, hi))
                pts += [
                    (float(lo[0]), float(lo[1])),
                    (float(hi[0]), float(lo[1])),
                    (float(hi[0]), float(hi[1])),
                    (float(lo[0]), float(hi[1])),
                ]
        if not point_in_hull((float(o.c[0]), float(o.c[1])), _hull(pts), tol):
            out.append(Violation("unsupported", (o.id,), zmin))
        elif support.kind != "com":
            frac = _covered_fraction(lo_i, hi_i, rects, tol)
            if frac < support.fraction - 1e-6:
                out.append(Violation("undersupported", (o.id,), frac))
    return out


def _covered_fraction(lo: np.ndarray, hi: np.ndarray, rects: list, tol: float) -> float:
    """Share of the rectangle [lo, hi] (xy, m) covered by the union of the contact rectangles ``rects``
    ((lo, hi) pairs of upright supporters, each grown by ``tol``; tilted supporters count as no area),
    computed exactly on the grid of all rectangle edges (coordinate compression)."""
    if not rects:
        return 0.0
    clipped = [(np.maximum(r_lo - tol, lo), np.minimum(r_hi + tol, hi)) for r_lo, r_hi in rects]
    xs = np.unique(np.concatenate([[lo[0], hi[0]]] + [[a[0], b[0]] for a, b in clipped]))
    ys = np.unique(np.concatenate([[lo[1], hi[1]]] + [[a[1], b[1]] for a, b in clipped]))
    cx, cy = 0.5 * (xs[1:] + xs[:-1]), 0.5 * (ys[1:] + ys[:-1])
    cov = np.zeros((cx.size, cy.size), bool)
    for a, b in clipped:
        cov |= ((cx >= a[0]) & (cx <= b[0]))[:, None] & ((cy >= a[1]) & (cy <= b[1]))[None, :]
    area = np.outer(np.diff(xs), np.diff(ys))
    return float((area * cov).sum() / ((hi[0] - lo[0]) * (hi[1] - lo[1])))
