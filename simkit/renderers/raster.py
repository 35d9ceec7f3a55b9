"""Exact per-pixel geometry of a triangle scene seen by a pinhole camera, and the dense correspondence of two
views of rigidly moving meshes.

A z-buffer over pixel-centre rays: every pixel's ray is intersected exactly with the triangles whose image
bounding box holds the pixel centre (Moller & Trumbore 1997, "Fast, minimum storage ray-triangle
intersection"), and the nearest hit is kept. The result (depth, triangle id, barycentric coordinates) is a
function of the geometry and the camera only, never of a renderer's sampling, denoising or engine; it is
vectorised numpy in float64.

Conventions (OpenCV / Hartley & Zisserman): camera coordinates x right, y down, z forward (m);
intrinsics ``K = [[f, 0, cx], [0, f, cy], [0, 0, 1]]`` in pixels; pixel ``(x, y)`` (column, row, row 0 at
the top of the image) has its centre at the integer coordinates ``(x, y)``, so the image spans
``[-0.5, W - 0.5] x [-0.5, H - 0.5]`` and the training-code normalisation ``2u/(W-1) - 1`` maps pixel
centres 0 .. W-1 to -1 .. 1. Extrinsics are world-to-camera ``[R | t]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: the nearest depth (m) a triangle may have; triangles with a corner nearer than this are skipped
NEAR = 1e-3
#: candidate (triangle, pixel) pairs tested per vectorised batch (memory bound)
BATCH = 1 << 21


def intrinsics(lens_mm: float, sensor_mm: float, width: int, height: int) -> np.ndarray:
    """(3, 3) float64 ``K`` of Blender's camera with horizontal sensor fit and square pixels:
    ``f = lens / sensor * W`` px, principal point at the image centre ``((W-1)/2, (H-1)/2)`` in the
    pixel-centre convention of this module."""
    f = float(lens_mm) / float(sensor_mm) * width
    return np.array([[f, 0.0, (width - 1) / 2], [0.0, f, (height - 1) / 2], [0.0, 0.0, 1.0]])


def extrinsics(cam_to_world_gl: np.ndarray) -> np.ndarray:
    """World-to-camera (4, 4) in the OpenCV frame from a camera-to-world matrix in Blender's/OpenGL's camera
    frame (x right, y up, looking along -z): ``R_cv = diag(1, -1, -1) R_gl^T``, ``t_cv = -R_cv c``."""
    r_gl, c = cam_to_world_gl[:3, :3], cam_to_world_gl[:3, 3]
    r = np.diag([1.0, -1.0, -1.0]) @ r_gl.T
    out = np.eye(4)
    out[:3, :3], out[:3, 3] = r, -r @ c
    return out


@dataclass
class Raster:
    """Per-pixel result of :func:`rasterize` for an (H, W) image: ``depth`` float64 z (m, ``inf`` where no
    triangle), ``triangle`` int64 index of the visible triangle (-1 none), ``bary`` float64 (H, W, 2)
    barycentric weights of the triangle's corners 1 and 2 (corner 0 has ``1 - b1 - b2``)."""

    depth: np.ndarray
    triangle: np.ndarray
    bary: np.ndarray


def _candidates(uv: np.ndarray, width: int, height: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(triangle ids, x, y) of every pixel centre inside each triangle's image bounding box."""
    x0 = np.clip(np.ceil(uv[:, :, 0].min(1)), 0, width).astype(np.int64)
    x1 = np.clip(np.floor(uv[:, :, 0].max(1)), -1, width - 1).astype(np.int64)
    y0 = np.clip(np.ceil(uv[:, :, 1].min(1)), 0, height).astype(np.int64)
    y1 = np.clip(np.floor(uv[:, :, 1].max(1)), -1, height - 1).astype(np.int64)
    nx, ny = np.maximum(x1 - x0 + 1, 0), np.maximum(y1 - y0 + 1, 0)
    n = nx * ny
    tid = np.repeat(np.arange(len(n)), n)
    start = np.repeat(np.cumsum(n) - n, n)
    k = np.arange(int(n.sum())) - start
    w = nx[tid]
    return tid, x0[tid] + k % np.maximum(w, 1), y0[tid] + k // np.maximum(w, 1)


def _intersect(tri: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Moller-Trumbore for rays from the origin along ``d`` (N, 3) against triangles ``tri`` (N, 3, 3):
    (hit mask, t, b1, b2)."""
    v0, e1, e2 = tri[:, 0], tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    p = np.cross(d, e2)
    det = np.einsum("ij,ij->i", e1, p)
    ok = np.abs(det) > 1e-18
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = -v0
    b1 = np.einsum("ij,ij->i", s, p) * inv
    q = np.cross(s, e1)
    b2 = np.einsum("ij,ij->i", d, q) * inv
    t = np.einsum("ij,ij->i", e2, q) * inv
    hit = ok & (b1 >= 0) & (b2 >= 0) & (b1 + b2 <= 1) & (t > NEAR)
    return hit, t, b1, b2


def rasterize(triangles: np.ndarray, K: np.ndarray, width: int, height: int) -> Raster:
    """Z-buffer of ``triangles`` (F, 3, 3) float (corners in OpenCV camera coordinates, m) seen through
    ``K`` at ``width`` x ``height`` px: the nearest hit of each pixel-centre ray. Ties (a pixel centre on a
    shared edge) go to the lower triangle index, so the result is deterministic. Triangles with a corner
    nearer than :data:`NEAR` are skipped (scenes keep the camera outside the objects).

    Returns: a :class:`Raster`.
    """
    tris = np.asarray(triangles, dtype=np.float64)
    depth = np.full(height * width, np.inf)
    tri_id = np.full(height * width, -1, dtype=np.int64)
    bary = np.zeros((height * width, 2))
    front = np.nonzero(tris[:, :, 2].min(1) > NEAR)[0] if len(tris) else np.zeros(0, np.int64)
    if len(front):
        proj = tris[front] @ K.T
        uv = proj[:, :, :2] / proj[:, :, 2:]
        tid, xs, ys = _candidates(uv, width, height)
        kinv = np.linalg.inv(K)
        for lo in range(0, len(tid), BATCH):
            sl = slice(lo, lo + BATCH)
            t_ids, x, y = front[tid[sl]], xs[sl], ys[sl]
            d = np.stack([x, y, np.ones_like(x)], 1).astype(np.float64) @ kinv.T
            hit, t, b1, b2 = _intersect(tris[t_ids], d)
            pix = (y * width + x)[hit]
            t, t_ids, b1, b2 = t[hit], t_ids[hit], b1[hit], b2[hit]
            order = np.lexsort((t_ids, t, pix))
            first = order[np.unique(pix[order], return_index=True)[1]]
            p = pix[first]
            better = (t[first] < depth[p]) | ((t[first] == depth[p]) & (t_ids[first] < tri_id[p]))
            p, f = p[better], first[better]
            depth[p], tri_id[p] = t[f], t_ids[f]
            bary[p, 0], bary[p, 1] = b1[f], b2[f]
    return Raster(depth.reshape(height, width), tri_id.reshape(height, width), bary.reshape(height, width, 2))


def transform(points: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Apply the (4, 4) affine ``m`` to ``points`` (..., 3)."""
    return points @ m[:3, :3].T + m[:3, 3]


def project(points_cam: np.ndarray, K: np.ndarray) -> np.ndarray:
    """Pinhole projection of OpenCV camera points (..., 3) to pixel coordinates (..., 2) (``z > 0`` assumed)."""
    p = points_cam @ K.T
    with np.errstate(divide="ignore", invalid="ignore"):
        return p[..., :2] / p[..., 2:]
