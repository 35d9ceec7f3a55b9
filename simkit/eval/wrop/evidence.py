"""Image evidence of an object in a frame: projected boxes, object masks and colour presence.

The exam trajectory gives, per frame and object, the world AABB of the evaluated mesh and the camera
(position, rotation wxyz, lens, sensor, and per-frame poses of a moving camera; Blender's pinhole with horizontal sensor fit:
``u = 1/2 + (lens/sensor) x/(-z)``, ``v = 1/2 + (lens/sensor)(W/H) y/(-z)`` in camera coordinates, camera
looking along -z, image origin bottom-left; the same model as the renderer's ``image_xy``). The projected
box of an object is the pixel bounding box of its 8 AABB corners.

Object mask (on the ground-truth frame): the pixels of the box whose RGB colour is farther than
:data:`TAU_MASK` (Euclidean, RGB in [0, 1]) from every colour of a ring of pixels around the box (the local
background, which also holds the colours of occluders that reach out of the box). Presence of the object
in another frame (a prediction) at the same place: the share of mask pixels whose colour lies within
:data:`TAU_MATCH` of the ground truth's object colours there. A pixel that shows the local background is
at least ``TAU_MASK - TAU_MATCH`` away from every object colour, so it never counts as the object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

TAU_MASK = 0.12  # RGB distance separating object pixels from the local background
TAU_MATCH = 0.06  # RGB distance within which a predicted pixel counts as the object's colour
MIN_PIXELS = 6  # fewer mask pixels: the object is not measurable on that frame
MAX_COLOURS = 384  # colours kept per set (deterministic stride) to bound the distance matrices
WORK_WIDTH = 320  # frames wider than this are scaled down before measuring


def quat_matrix(q: list[float] | np.ndarray) -> np.ndarray:
    """Rotation matrix (3, 3) of a unit quaternion (w, x, y, z) (Hamilton convention, as Blender)."""
    w, x, y, z = (float(v) for v in q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def project(traj: dict[str, Any], points: np.ndarray) -> np.ndarray:
    """Normalised image coordinates (..., 2), origin bottom-left, of world points (..., 3) in metres,
    seen by the trajectory's camera (module docstring). A moving camera (``camera.track``: per-frame
    ``position`` (T, 3) and ``rotation`` (T, 4) wxyz) needs ``points`` of shape (T, ..., 3): frame t's
    points are projected with frame t's pose."""
    cam = traj["camera"]
    W, H = traj["resolution"]
    pts = np.asarray(points, float)
    track = cam.get("track")
    if track is None:
        pc = (pts - np.asarray(cam["position"], float)) @ quat_matrix(cam["rotation"])  # world -> camera
    else:
        pos = np.asarray(track["position"], float)
        R = np.stack([quat_matrix(q) for q in track["rotation"]])  # (T, 3, 3)
        if pts.ndim < 2 or pts.shape[0] != len(pos):
            raise ValueError(f"a moving camera needs points of shape (T={len(pos)}, ..., 3), got {pts.shape}")
        rel = pts - pos.reshape((len(pos),) + (1,) * (pts.ndim - 2) + (3,))
        pc = np.einsum("t...i,tij->t...j", rel, R)
    k = float(cam["lens_mm"]) / float(cam["sensor_mm"])
    depth = np.maximum(-pc[..., 2], 1e-9)
    return np.stack([0.5 + k * pc[..., 0] / depth, 0.5 + k * (W / H) * pc[..., 1] / depth], axis=-1)


def object_boxes(traj: dict[str, Any], name: str, width: int, height: int) -> np.ndarray:
    """Pixel boxes (T, 4) float ``x0, y0, x1, y1`` (origin top-left, x right, y down) of object ``name``
    on every trajectory frame, for frames of ``width`` x ``height`` pixels."""
    o = traj["objects"][name]
    lo, hi = np.asarray(o["bbox_min"], float), np.asarray(o["bbox_max"], float)  # (T, 3)
    sel = np.array([[i >> 2 & 1, i >> 1 & 1, i & 1] for i in range(8)], dtype=bool)  # (8, 3)
    corners = np.where(sel[None], hi[:, None, :], lo[:, None, :])  # (T, 8, 3)
    uv = project(traj, corners)
    x, y = uv[..., 0] * width, (1.0 - uv[..., 1]) * height
    return np.stack([x.min(1), y.min(1), x.max(1), y.max(1)], axis=1)


def _pixel_box(box: np.ndarray, width: int, height: int, pad: int = 0) -> tuple[int, int, int, int]:
    x0 = max(int(np.floor(box[0])) - pad, 0)
    y0 = max(int(np.floor(box[1])) - pad, 0)
    x1 = min(int(np.ceil(box[2])) + pad, width)
    y1 = min(int(np.ceil(box[3])) + pad, height)
    return x0, y0, x1, y1


def _thin(colours: np.ndarray) -> np.ndarray:
    if len(colours) <= MAX_COLOURS:
        return colours
    return colours[:: int(np.ceil(len(colours) / MAX_COLOURS))]


def _min_dist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """For each colour of ``a`` (n, 3), the distance to the nearest colour of ``b`` (m, 3)."""
    d2 = (a * a).sum(1)[:, None] - 2.0 * a @ b.T + (b * b).sum(1)[None, :]
    return np.sqrt(np.maximum(d2.min(axis=1), 0.0))


@dataclass
class ObjectMask:
    """Object pixels of one frame: the integer box ``(x0, y0, x1, y1)``, a bool mask of the box's shape,
    and the ground truth's colours there (n, 3) float in [0, 1]."""

    box: tuple[int, int, int, int]
    mask: np.ndarray
    colours: np.ndarray

    @property
    def pixels(self) -> int:
        return int(self.mask.sum())


def object_mask(
    frame: np.ndarray, box: np.ndarray, others: list[np.ndarray] | None = None
) -> ObjectMask | None:
    """The object pixels of ``box`` in a ground-truth ``frame`` (uint8 (H, W, 3)); ``others``: boxes of
    objects whose pixels must not count as background (objects that may share this object's colour).
    Returns None when fewer than :data:`MIN_PIXELS` pixels qualify (hidden, off screen, tiny)."""
    H, W = frame.shape[:2]
    bx = _pixel_box(box, W, H)
    x0, y0, x1, y1 = bx
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    pad = max(2, round(0.35 * min(x1 - x0, y1 - y0)))
    rx0, ry0, rx1, ry1 = _pixel_box(box, W, H, pad)
    ring = np.ones((ry1 - ry0, rx1 - rx0), dtype=bool)
    ring[y0 - ry0 : y1 - ry0, x0 - rx0 : x1 - rx0] = False
    for ob in others or []:
        ox0, oy0, ox1, oy1 = _pixel_box(ob, W, H)
        ring[max(oy0 - ry0, 0) : max(oy1 - ry0, 0), max(ox0 - rx0, 0) : max(ox1 - rx0, 0)] = False
    img = frame.astype(np.float64) / 255.0
    bg = _thin(img[ry0:ry1, rx0:rx1][ring])
    inside = img[y0:y1, x0:x1].reshape(-1, 3)
    if len(bg) == 0:
        return None
    mask = (_min_dist(inside, bg) > TAU_MASK).reshape(y1 - y0, x1 - x0)
    if mask.sum() < MIN_PIXELS:
        return None
    return ObjectMask(bx, mask, img[y0:y1, x0:x1][mask])


def presence(frame: np.ndarray, om: ObjectMask) -> float:
    """Share (0..1) of the mask's pixels whose colour in ``frame`` (uint8 (H, W, 3)) lies within
    :data:`TAU_MATCH` of the ground truth's object colours (module docstring)."""
    x0, y0, x1, y1 = om.box
    px = frame[y0:y1, x0:x1][om.mask].astype(np.float64) / 255.0
    return float((_min_dist(px, _thin(om.colours)) < TAU_MATCH).mean())


def ghost(frame: np.ndarray, gt_frame: np.ndarray, box: np.ndarray, seen: ObjectMask) -> float:
    """Evidence (0..1) of an object that must be hidden on this frame: the pixels of its projected ``box``
    in ``frame`` whose colour lies within :data:`TAU_MATCH` of the object's colours (``seen``: its mask on
    a frame where it is fully visible) but not within TAU_MATCH of the ground truth's own pixel there,
    counted relative to the object's visible size (``seen.pixels``), capped at 1."""
    H, W = frame.shape[:2]
    x0, y0, x1, y1 = _pixel_box(box, W, H)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    p = frame[y0:y1, x0:x1].reshape(-1, 3).astype(np.float64) / 255.0
    g = gt_frame[y0:y1, x0:x1].reshape(-1, 3).astype(np.float64) / 255.0
    like = _min_dist(p, _thin(seen.colours)) < TAU_MATCH
    as_gt = np.linalg.norm(p - g, axis=1) < TAU_MATCH
    return float(min(1.0, np.count_nonzero(like & ~as_gt) / max(seen.pixels, 1)))


def work_scale(frames: np.ndarray) -> np.ndarray:
    """Frames (T, H, W, 3) scaled down to at most :data:`WORK_WIDTH` pixels wide (unchanged if narrower)."""
    from simkit.eval.wrop.video import resize

    t, h, w = frames.shape[:3]
    if w <= WORK_WIDTH:
        return frames
    nh = max(2, round(h * WORK_WIDTH / w))
    return resize(frames, (WORK_WIDTH, nh))
