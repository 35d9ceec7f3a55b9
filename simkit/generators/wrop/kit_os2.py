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
from simkit.scenes.wrop.motion import G, Motion, fall_frames, fall_height
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


def fall_checks(
    name: str, support: str, f_release: int, f_land: int, floor: str = "ground"
) -> list[X.Expectation]:
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


def clamp_jaws(
    clip: Clip, look: Look, held: str, half: float, centre: Motion, f_open: int, open_frames: int, gap: float
) -> tuple[list[SceneObject], list[X.Expectation]]:
    """Two jaws (role ``support``) gripping the block ``held`` of half size ``half`` at the position of
    ``centre`` (its track, followed frame by frame); from ``f_open`` they move ``gap`` m outward each over
    ``open_frames`` frames (while still following ``centre``'s motion along x). Returns (objects,
    expectations): touching the block up to ``f_open``, apart from it from ``f_open + 2`` on, never
    penetrating it."""
    T, fps = clip.frames, clip.fps
    jaw_h, jaw_t = 2 * half + 0.3, 0.08
    objs, exps = [], []
    for nm, sgn in (("jaw_left", -1), ("jaw_right", 1)):
        m = Motion(T, fps, (0.0, 0.0, 0.0))
        spread = np.zeros(T)
        fr = np.arange(T)
        spread[:] = np.clip((fr - f_open) / open_frames, 0.0, 1.0) * gap
        m.pos[:, 0] = centre.pos[:, 0] + sgn * (half + jaw_t / 2 + spread)
        m.pos[:, 1] = centre.pos[:, 1]
        m.pos[:, 2] = centre.pos[f_open, 2] + 0.1
        objs.append(block(nm, (jaw_t, 0.36, jaw_h), look, "jaws", m.track(), role="support"))
        exps += [
            X.touching(held, nm, list(range(f_open + 1))),
            X.apart(held, nm, list(range(f_open + 2, T))),
            X.no_penetration(held, nm),
        ]
    return objs, exps


#: rolling without slipping down a slope of angle theta: a = (5/7) g sin(theta) for a solid ball
#: (I = 2/5 m r^2; e.g. Kleppner & Kolenkow, "An Introduction to Mechanics", sec. 7.4)
ROLL_FACTOR = 5.0 / 7.0


def ramp(
    name: str,
    look: Look,
    slot: str,
    frames: int,
    x_low: float,
    z_base: float,
    d: int,
    height: float,
    angle: float,
) -> SceneObject:
    """A ``wedge`` ramp ``height`` m tall at slope ``angle`` (rad) standing on z = ``z_base``, descending toward
    direction ``d`` (+1: +x) with its low edge at x = ``x_low`` (turned by pi about z when ``d`` = +1)."""
    length = height / np.tan(angle)
    centre = (x_low - d * length / 2, 0.0, z_base + height / 2)
    rot = (0.0, 0.0, np.pi if d > 0 else 0.0)
    return SceneObject(
        name, "support", "wedge", (length, 0.8, height), look.mat(slot), Track.static(frames, centre, rot)
    )


def ramp_descent(
    frames: int,
    fps: float,
    radius: float,
    angle: float,
    x_low: float,
    z_base: float,
    d: int,
    f_bottom: int,
    m: int,
) -> tuple[np.ndarray, float, float]:
    """A ball released from rest on the ramp of :func:`ramp` rolls down it for ``m`` frames (a = ROLL_FACTOR g
    sin(angle)) and reaches the flat at the foot on frame ``f_bottom``. Returns (centre positions (T, 3) up to
    and including ``f_bottom``, held before the release; speed v_b (m/s) at the foot; the centre's x there).

    On the slope the centre runs on the line r above it, ending at the concave corner where it is r above both
    the slope and the flat: x = x_low + d r tan(angle / 2), z = z_base + r."""
    a = ROLL_FACTOR * G * np.sin(angle)
    k_x = x_low + d * radius * np.tan(angle / 2)
    t = np.clip((f_bottom - np.arange(frames)) / fps, 0.0, m / fps)  # time left until the foot
    u = 0.5 * a * t * t  # distance (along the slope) still to roll
    pos = np.zeros((frames, 3))
    pos[:, 0] = k_x - d * u * np.cos(angle)
    pos[:, 2] = z_base + radius + u * np.sin(angle)
    return pos, float(a * m / fps), float(k_x)


__all__ = [
    "ROLL_FACTOR",
    "ball",
    "block",
    "clamp_jaws",
    "drop_time",
    "fall_checks",
    "ramp",
    "ramp_descent",
    "rest_between",
    "slab",
    "yank",
]
