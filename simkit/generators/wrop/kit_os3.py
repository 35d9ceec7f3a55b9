"""OS-3 (object collision) helpers: piecewise-constant velocity paths on the floor, 2-D impacts, masses.

Collisions are instantaneous impulses along the line of centres (smooth bodies, no friction during the
impact): for bodies of mass m1, m2 with velocities v1, v2 and unit normal n from body 1 to body 2,
``J = (1 + e) m1 m2 / (m1 + m2) ((v1 - v2) . n)``, ``v1' = v1 - J n / m1``, ``v2' = v2 + J n / m2`` (Newton's
law of restitution; e = 1 elastic, 0 perfectly inelastic; in 1-D this is
:func:`simkit.scenes.wrop.motion.collide_1d`). Between impacts bodies move at constant velocity; after the last
one they slow down at a constant friction deceleration. Impacts are placed on whole frames, so the
``contact`` and ``momentum`` expectations (one-sided second-order differences, exact for these paths) hold
exactly. Masses are proportional to volume (one density), in m^3.
"""

from __future__ import annotations

import numpy as np

from simkit.generators.wrop.base import Look
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.spec import SceneObject

#: a camera 40 deg above the floor for collisions in the floor plane (2-D), so depth separations show
FLOOR_VIEW = {"target": (0.0, 0.3, 0.1), "distance": 6.0, "elevation_deg": 40.0}


def ball_mass(radius: float) -> float:
    """Volume (m^3) of a ball, 4/3 pi r^3: its mass at unit density."""
    return 4.0 / 3.0 * np.pi * radius**3


def box_mass(size) -> float:
    """Volume (m^3) of a box of ``size`` (sx, sy, sz)."""
    return float(np.prod(size))


def path(
    frames: int, fps: float, phases: list[tuple[int, tuple]], anchor_frame: int, anchor, decel: float = 0.0
):
    """Positions (T, D) of a body whose velocity is piecewise constant: ``phases`` [(start frame, velocity (D,)
    m/s)], the first starting at frame 0; the last phase slows down at ``decel`` m/s^2 until rest (friction). The
    path is shifted so that it passes through ``anchor`` (D,) on ``anchor_frame``."""
    anchor = np.asarray(anchor, float)
    pos = np.zeros((frames, anchor.size))
    for i, (f0, vel) in enumerate(phases):
        f1 = phases[i + 1][0] if i + 1 < len(phases) else frames - 1
        v = np.asarray(vel, float)
        t = (np.arange(f0, f1 + 1) - f0) / fps
        speed = float(np.linalg.norm(v))
        if i == len(phases) - 1 and decel > 0 and speed > 0:
            tt = np.minimum(t, speed / decel)
            disp = (speed * tt - 0.5 * decel * tt * tt)[:, None] * (v / speed)
        else:
            disp = t[:, None] * v
        pos[f0 : f1 + 1] = pos[f0] + disp
    return pos + (anchor - pos[anchor_frame])


def impulse(m1: float, v1, m2: float, v2, normal, restitution: float) -> tuple[np.ndarray, np.ndarray]:
    """Velocities after an impact along ``normal`` (from body 1 to body 2; normalised here) with restitution
    ``e`` (see the module docstring); ``v1``, ``v2`` (D,) m/s."""
    n = np.asarray(normal, float)
    n = n / np.linalg.norm(n)
    v1, v2 = np.asarray(v1, float), np.asarray(v2, float)
    j = (1 + restitution) * m1 * m2 / (m1 + m2) * float((v1 - v2) @ n)
    return v1 - j / m1 * n, v2 + j / m2 * n


def floor_ball(name: str, radius: float, look: Look, slot: str, xy: np.ndarray, fps: float) -> SceneObject:
    """A ball rolling on the floor (centre z = r) along ``xy`` (T, 2), rotation from rolling without slipping."""
    T = len(xy)
    m = Motion(T, fps, (0.0, 0.0, radius))
    m.pos[:, :2] = xy
    m.roll(radius)
    return SceneObject(name, "target", "sphere", (radius,), look.mat(slot), m.track())


def floor_block(
    name: str, size, look: Look, slot: str, x: np.ndarray, fps: float, y: float = 0.0
) -> SceneObject:
    """A box of ``size`` sliding on the floor along x = ``x`` (T,) at depth ``y``."""
    T = len(x)
    m = Motion(T, fps, (0.0, y, size[2] / 2))
    m.pos[:, 0] = x
    return SceneObject(name, "target", "box", tuple(float(v) for v in size), look.mat(slot), m.track())


def touching_dx(r1: float, r2: float) -> float:
    """Horizontal centre distance (m) of two touching balls resting on the floor: 2 sqrt(r1 r2)."""
    return 2.0 * float(np.sqrt(r1 * r2))


__all__ = [
    "FLOOR_VIEW",
    "ball_mass",
    "box_mass",
    "floor_ball",
    "floor_block",
    "impulse",
    "path",
    "touching_dx",
]
