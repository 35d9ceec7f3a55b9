"""Dense backward correspondence and covisibility between two views of rigidly moving triangle meshes.

Task definition (FreeMatching, Sec. 3.1 problem formulation): for a source image A and a target image B,
``C(x, y) = (u, v)`` gives, for target pixel ``(x, y)``, the absolute source-pixel coordinates of the same
surface point, and ``M(x, y) in {0, 1}`` says whether that point is visible in A.

Computed analytically (never estimated): the pixel-centre ray of target pixel ``(x, y)`` hits triangle ``t``
of object ``o`` at barycentric ``(b1, b2)`` (:func:`simkit.renderers.raster.rasterize`); the object-local
point ``X = (1 - b1 - b2) V0 + b1 V1 + b2 V2`` is carried by the known object poses and camera A to
``(u, v) = pi(K_A E_A P_A(o) X)``. Covisible when all hold:

1. ``(u, v)`` lies inside image A's pixel-centre range ``[0, W-1] x [0, H-1]`` (with 1e-6 px of rounding
   slack) with depth > 0;
2. the nearest source pixel ``(round(u), round(v))`` shows the same object ``o`` in A;
3. depth test: the point is not behind the surface A shows there by more than ``tolerance`` (relative):
   ``z_A(X) <= z_plane (1 + tolerance)``, with ``z_plane`` the depth, along the ray through ``(u, v)``, of the
   plane of the triangle A shows at that nearest pixel (exact when it is the point's own triangle, a
   first-order surface depth otherwise). Default tolerance 1 % (a fold of a coarse mesh between the pixel's
   triangle and the point's own stays well inside it; self-occlusion gaps below it are not detected).

Background target pixels (no surface) get ``C = (-1, -1)`` and ``M = 0``. Everything is float64 until the
float32 outputs; the result depends on geometry, poses and cameras only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.renderers.raster import Raster, project, rasterize, transform

#: default relative depth tolerance of the covisibility test (see the module docstring)
DEPTH_TOLERANCE = 0.01
#: rounding slack (px) of the inside-the-image test
INSIDE_EPS = 1e-6


@dataclass
class View:
    """One camera view of the meshes: ``K`` (3, 3) px, ``world_to_camera`` (4, 4) OpenCV frame, ``poses``
    object-to-world (4, 4) per mesh, image ``width`` x ``height`` px."""

    K: np.ndarray
    world_to_camera: np.ndarray
    poses: list[np.ndarray]
    width: int
    height: int


@dataclass
class Correspondence:
    """Labels of a (source A, target B) pair, (H, W) images of B unless named ``_a``.

    ``flow_source`` float32 (H, W, 2) = C (px of A; -1 on background), ``covisible`` uint8 (H, W) in {0, 1},
    ``depth_a``/``depth_b`` float32 z-depth (m, 0 on background), ``object_a``/``object_b`` uint8 object index
    (0 background, k = mesh k-1), ``local_b`` float32 (H, W, 3) object-local surface point of each target
    pixel (m).
    """

    flow_source: np.ndarray
    covisible: np.ndarray
    depth_a: np.ndarray
    depth_b: np.ndarray
    object_a: np.ndarray
    object_b: np.ndarray
    local_b: np.ndarray


def _scene(meshes: list[tuple[np.ndarray, np.ndarray]], view: View) -> tuple[np.ndarray, np.ndarray]:
    """(triangles (F, 3, 3) in camera coordinates, object index of each triangle (F,))."""
    tris, owner = [], []
    for k, ((verts, faces), pose) in enumerate(zip(meshes, view.poses)):
        cam = transform(np.asarray(verts, float), view.world_to_camera @ pose)
        tris.append(cam[np.asarray(faces, np.int64)])
        owner.append(np.full(len(faces), k, dtype=np.int64))
    return np.concatenate(tris), np.concatenate(owner)


def _local_points(
    meshes, ras: Raster, owner: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(object index (H, W) -1 background, object-local points (H, W, 3)) of a raster."""
    obj = np.where(ras.triangle >= 0, owner[np.maximum(ras.triangle, 0)], -1)
    local = np.zeros((*ras.triangle.shape, 3))
    for k, (verts, faces) in enumerate(meshes):
        sel = obj == k
        if not sel.any():
            continue
        f = np.asarray(faces, np.int64)[ras.triangle[sel] - offsets[k]]
        v = np.asarray(verts, float)[f]  # (n, 3 corners, 3)
        b1, b2 = ras.bary[sel, 0:1], ras.bary[sel, 1:2]
        local[sel] = (1 - b1 - b2) * v[:, 0] + b1 * v[:, 1] + b2 * v[:, 2]
    return obj, local


def _plane_depth(tri_cam: np.ndarray, K: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Depth z along the rays through ``uv`` (N, 2) of the planes of ``tri_cam`` (N, 3, 3)."""
    n = np.cross(tri_cam[:, 1] - tri_cam[:, 0], tri_cam[:, 2] - tri_cam[:, 0])
    d = np.concatenate([uv, np.ones((len(uv), 1))], 1) @ np.linalg.inv(K).T
    num = np.einsum("ij,ij->i", n, tri_cam[:, 0])
    den = np.einsum("ij,ij->i", n, d)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(den) > 1e-15, num / den, np.inf)


def dense_correspondence(
    meshes: list[tuple[np.ndarray, np.ndarray]], a: View, b: View, tolerance: float = DEPTH_TOLERANCE
) -> Correspondence:
    """Backward correspondence B -> A and covisibility of ``meshes`` (per mesh: vertices (V, 3) local m,
    triangles (F, 3) int) seen in views ``a`` and ``b`` (see the module docstring for the definition).

    Raises:
        ValueError: the two views have different image sizes, or either view does not hold one pose per mesh.
    """
    if (a.width, a.height) != (b.width, b.height) or not len(a.poses) == len(b.poses) == len(meshes):
        raise ValueError("views must share image size and have one pose per mesh")
    offsets = np.cumsum([0] + [len(f) for _, f in meshes])[:-1]
    tri_a, owner = _scene(meshes, a)
    tri_b, _ = _scene(meshes, b)
    ras_a = rasterize(tri_a, a.K, a.width, a.height)
    ras_b = rasterize(tri_b, b.K, b.width, b.height)
    obj_a = np.where(ras_a.triangle >= 0, owner[np.maximum(ras_a.triangle, 0)], -1)
    obj_b, local = _local_points(meshes, ras_b, owner, offsets)
    h, w = obj_b.shape
    flow = np.full((h, w, 2), -1.0)
    covis = np.zeros((h, w), dtype=np.uint8)
    for k in range(len(meshes)):
        sel = obj_b == k
        if not sel.any():
            continue
        pa = transform(local[sel], a.world_to_camera @ a.poses[k])
        uv = project(pa, a.K)
        flow[sel] = uv
        e = INSIDE_EPS
        inside = (pa[:, 2] > 0) & np.all((uv >= -e) & (uv <= np.array([w - 1, h - 1]) + e), axis=1)
        q = np.clip(np.rint(np.where(inside[:, None], uv, 0)), 0, [w - 1, h - 1]).astype(np.int64)
        shown = ras_a.triangle[q[:, 1], q[:, 0]]
        same = inside & (obj_a[q[:, 1], q[:, 0]] == k)
        zp = np.full(len(uv), np.inf)
        zp[same] = _plane_depth(tri_a[shown[same]], a.K, uv[same])
        covis[sel] = (same & (pa[:, 2] <= zp * (1 + tolerance))).astype(np.uint8)
    return Correspondence(
        flow.astype(np.float32),
        covis,
        np.where(np.isfinite(ras_a.depth), ras_a.depth, 0).astype(np.float32),
        np.where(np.isfinite(ras_b.depth), ras_b.depth, 0).astype(np.float32),
        (obj_a + 1).astype(np.uint8),
        (obj_b + 1).astype(np.uint8),
        local.astype(np.float32),
    )


def warp(source: np.ndarray, flow_source: np.ndarray) -> np.ndarray:
    """Backward warp ``I^_b = I_a(C)``: sample ``source`` (H, W) or (H, W, C) bilinearly at the absolute
    source-pixel coordinates ``flow_source`` (H', W', 2) (pixel centres at integers, see
    :mod:`simkit.renderers.raster`); coordinates outside the image are clamped to its border.
    Returns float64 (H', W'[, C])."""
    img = np.asarray(source, dtype=np.float64)
    h, w = img.shape[:2]
    u = np.clip(np.nan_to_num(flow_source[..., 0].astype(np.float64)), 0, w - 1)
    v = np.clip(np.nan_to_num(flow_source[..., 1].astype(np.float64)), 0, h - 1)
    x0, y0 = (
        np.minimum(np.floor(u).astype(np.int64), w - 2 if w > 1 else 0),
        np.minimum(np.floor(v).astype(np.int64), h - 2 if h > 1 else 0),
    )
    fx, fy = u - x0, v - y0
    x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
    if img.ndim == 3:
        fx, fy = fx[..., None], fy[..., None]
    top = img[y0, x0] * (1 - fx) + img[y0, x1] * fx
    bottom = img[y1, x0] * (1 - fx) + img[y1, x1] * fx
    return top * (1 - fy) + bottom * fy
