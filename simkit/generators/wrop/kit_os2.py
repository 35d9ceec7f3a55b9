"""OS-2 (object drop) helpers: supports that are pulled, opened or stopped, and the falls that follow.

Conventions as in :mod:`simkit.generators.wrop.kit`: ground top at z = 0, z up, metres, the camera looks from
-y. Every fall is a free fall (``z = z0 - g t^2 / 2``, g = 9.81 m/s^2) or a ballistic flight whose drop height
is derived from a whole number of frames (:func:`drop_time`), so landings happen exactly on a frame and the
``contact`` expectation (gap <= 12 mm on the landing frame, > 12 mm one frame earlier) is exact; a fall of at
least 2 frames at 24 fps closes more than 25 mm in its last frame.
"""

from __future__ import annotations

import numpy as np

from simkit.generators.wrop.base import Clip, Look
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion, fall_frames, fall_height
from simkit.scenes.wrop.spec import SceneObject, Track


def slab(name: str, role: str, slot: str, look: Look, frames: int, lo, hi) -> SceneObject:
    """A static box spanning world corners ``lo`` .. ``hi`` (m), coloured from ``slot``."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return SceneObject(
        name, role, "box", tuple((hi - lo).tolist()), look.mat(slot), Track.static(frames, (lo + hi) / 2)
    )


def ball(name: str, radius: float, look: Look, slot: str, track: Track | None = None) -> SceneObject:
    """A target sphere of ``radius`` m."""
    return SceneObject(name, "target", "sphere", (radius,), look.mat(slot), track)


def block(
    name: str, size, look: Look, slot: str, track: Track | None = None, role: str = "target"
) -> SceneObject:
    """A box of ``size`` (sx, sy, sz) m."""
    return SceneObject(name, role, "box", tuple(float(v) for v in size), look.mat(slot), track)


def drop_time(clip: Clip, f0: int, height: float, reserve: int = 3) -> tuple[int, float]:
    """(k, H): a free fall from rest that starts on frame ``f0`` lasts ``k`` whole frames (the frames of a drop of
    about ``height`` m, shortened so that it ends ``reserve`` frames before the clip does) and drops exactly
    H = g (k / fps)^2 / 2 m.

    Raises:
        ValueError: fewer than 2 frames are left for the fall (the generator redraws).
    """
    k = min(fall_frames(height, clip.fps), clip.frames - reserve - f0)
    if k < 2:
        raise ValueError("clip too short for the drop")
    return k, fall_height(k, clip.fps)


def yank(clip: Clip, start, f0: int, axis: int, direction: int, travel: float, pull_frames: int) -> Motion:
    """A support at ``start`` pulled along world ``axis`` by ``direction`` from frame ``f0``, at the constant speed
    that covers ``travel`` m in ``pull_frames`` frames, and on at that speed to the end (a yank)."""
    m = Motion(clip.frames, clip.fps, start)
    v = np.zeros(3)
    v[axis] = direction * travel / pull_frames * clip.fps
    m.velocity(f0, v)
    return m


def fall_checks(name: str, support: str, f_release: int, f_land: int, floor: str = "ground") -> list[dict]:
    """``name`` rests on ``support`` up to ``f_release``, lands on ``floor`` exactly at ``f_land`` and never
    penetrates either."""
    return [
        X.touching(name, support, list(range(f_release + 1))),
        X.contact(name, floor, f_land),
        X.no_penetration(name, support),
        X.no_penetration(name, floor),
    ]


def rest_between(radius: float, gap: float) -> float:
    """Height (m) of a ball's centre above two parallel edges ``gap`` m apart that it rests on (``gap < 2 r``):
    sqrt(r^2 - (gap / 2)^2) (the centre is ``r`` from both edges)."""
    return float(np.sqrt(radius * radius - (gap / 2) ** 2))


__all__ = ["ball", "block", "drop_time", "fall_checks", "rest_between", "slab", "yank"]
