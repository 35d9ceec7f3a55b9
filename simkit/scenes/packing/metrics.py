"""PackLab-Bench metrics and the heightmap of a physical (posed) packing.

Definitions (PackLab paper, "Benchmark and metrics", eqs. 11-13):

- success ratio  = (sum of the volumes of the objects whose geometric centre lies inside the
  container bounds) / (total volume of the case's objects, packed or not)      (eq. 11)
- compactness    = that packed volume / (container base area x maximum occupied height of the
  final heightmap)                                                               (eq. 12)
- overall score  = success ratio x compactness                                   (eq. 13)

For the Bischoff-Ratcliff sets we also report *volume utilisation* = packed volume / container
volume (the figure the container-loading literature publishes, ~94-96 % for offline methods).

The final heightmap is rasterised from the settled poses of the packed objects (so a tipped
object counts with its real top), see :func:`heightmap_from_poses`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass

import numpy as np

from simkit.core.rotations import quaternion_to_matrix
from simkit.scenes.packing.geometry import Box, Container

Pose = tuple[tuple[float, float, float], tuple[float, float, float, float]]

#: tolerance (metres) when turning a physical top height into grid cells: the settled top of a
#: resting box sits ~0.3 mm below its grid height (contact penetration), so heights within 1 mm
#: above a grid level round down to it
HEIGHT_ROUND_TOL_M = 1e-3


def centre_inside(container: Container, position) -> bool:
    """True when a centre (metres, container frame) lies inside [0,L] x [0,W] x [0,H] (eq. 11's test)."""
    L, W, H = container.size_m
    x, y, z = position
    return 0.0 <= x <= L and 0.0 <= y <= W and 0.0 <= z <= H


def heightmap_from_poses(container: Container, boxes: Iterable[tuple[Box, Pose]]) -> np.ndarray:
    """Top-down heightmap (cells) of posed boxes.

    For every grid cell the vertical ray through its centre is intersected with each oriented box
    (slab method in the box frame); the cell height is the highest exit point, converted to cells
    with :data:`HEIGHT_ROUND_TOL_M` tolerance. A box's local axes are its (l, w, h) size axes.

    Args:
        container: the container; boxes: (box, (centre m, quaternion w,x,y,z)) pairs.
    Returns:
        int32 array (L, W), cells; cells outside every box are 0.
    """
    res = container.resolution
    L, W, _ = container.size
    out = np.zeros((L, W), dtype=np.int32)
    tol = HEIGHT_ROUND_TOL_M / res
    for box, (pos, quat) in boxes:
        R = quaternion_to_matrix(quat)
        half = np.array(box.size, float) * res / 2.0
        c = np.asarray(pos, float)
        ext = np.abs(R) @ half  # AABB half extents
        i0 = max(int(math.floor((c[0] - ext[0]) / res)), 0)
        i1 = min(int(math.ceil((c[0] + ext[0]) / res)), L)
        j0 = max(int(math.floor((c[1] - ext[1]) / res)), 0)
        j1 = min(int(math.ceil((c[1] + ext[1]) / res)), W)
        if i0 >= i1 or j0 >= j1:
            continue
        gx, gy = np.meshgrid(
            (np.arange(i0, i1) + 0.5) * res - c[0], (np.arange(j0, j1) + 0.5) * res - c[1], indexing="ij"
        )
        # ray p(t) = (gx, gy, t - c_z) in the centred world frame; local = R^T p = a + t * b
        a = gx[..., None] * R[0, :] + gy[..., None] * R[1, :] - c[2] * R[2, :]
        b = R[2, :]
        lo = np.full(gx.shape, -np.inf)
        hi = np.full(gx.shape, np.inf)
        hit = np.ones(gx.shape, bool)
        for k in range(3):
            if abs(b[k]) < 1e-12:
                hit &= np.abs(a[..., k]) <= half[k]
                continue
            t1 = (-half[k] - a[..., k]) / b[k]
            t2 = (half[k] - a[..., k]) / b[k]
            lo = np.maximum(lo, np.minimum(t1, t2))
            hi = np.minimum(hi, np.maximum(t1, t2))
        hit &= lo <= hi
        top = np.where(hit, np.ceil(hi / res - tol), 0).astype(np.int32)
        np.maximum(out[i0:i1, j0:j1], np.maximum(top, 0), out=out[i0:i1, j0:j1])
    return out


@dataclass
class CaseMetrics:
    """Metrics of one finished episode (volumes in m^3, heights in m)."""

    success_ratio: float
    compactness: float
    overall: float
    utilisation: float
    packed_volume_m3: float
    total_volume_m3: float
    max_height_m: float
    n_items: int
    n_packed: int

    def to_dict(self) -> dict:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def case_metrics(
    container: Container,
    total_volume_cells: int,
    packed: list[Box],
    final_heightmap: np.ndarray,
    n_items: int,
) -> CaseMetrics:
    """Eqs. 11-13 (module docstring) for one episode.

    Args:
        container: the container.
        total_volume_cells: volume of all of the case's objects, cells^3 (denominator of eq. 11).
        packed: the objects whose geometric centre lies inside the container (:func:`centre_inside`).
        final_heightmap: (L, W) int heightmap (cells) of the packed objects.
        n_items: number of objects in the case.
    Returns:
        :class:`CaseMetrics`; compactness is 0 when nothing is packed.
    """
    res3 = container.resolution**3
    L, W, Hc = container.size
    packed_cells = sum(b.volume for b in packed)
    hmax = int(final_heightmap.max()) if final_heightmap.size else 0
    success = packed_cells / total_volume_cells if total_volume_cells > 0 else 0.0
    compact = packed_cells / (L * W * hmax) if hmax > 0 else 0.0
    compact = min(compact, 1.0)
    return CaseMetrics(
        success_ratio=float(success),
        compactness=float(compact),
        overall=float(success * compact),
        utilisation=float(packed_cells / (L * W * Hc)),
        packed_volume_m3=packed_cells * res3,
        total_volume_m3=total_volume_cells * res3,
        max_height_m=hmax * container.resolution,
        n_items=int(n_items),
        n_packed=len(packed),
    )


METRIC_KEYS = ("success_ratio", "compactness", "overall", "utilisation")


def aggregate(rows: list[dict], group_key: str = "tier") -> dict:
    """Per-group means of :data:`METRIC_KEYS` plus ``"average"``: the mean of the group means.

    PackLab reports per-tier scores and their average over the three tiers (equal weight per tier;
    with 20 cases per tier this equals the mean over all cases).

    Args:
        rows: dicts holding ``group_key`` and the metric keys.
    Returns:
        {group: {metric: mean, "cases": n}, ..., "average": {metric: mean of group means, "cases": N}}.
    """
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(str(r[group_key]), []).append(r)
    out: dict[str, dict] = {}
    for g, rs in groups.items():
        out[g] = {k: float(np.mean([r[k] for r in rs])) for k in METRIC_KEYS}
        out[g]["cases"] = len(rs)
    if groups:
        out["average"] = {k: float(np.mean([out[g][k] for g in groups])) for k in METRIC_KEYS}
        out["average"]["cases"] = len(rows)
    return out
