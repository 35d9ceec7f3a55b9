"""Analytic keyframed motion (no rigid-body solver).

A :class:`Motion` fills a :class:`~simkit.scenes.wrop.spec.Track` frame by frame.
Each call writes frames ``f0 .. f1`` of the axes it touches and holds the end
value on every later frame, so calls are made in time order and later calls
overwrite what earlier ones held. Frames are 0-based ints, time ``t = f / fps`` s.

Formulas:

* linear / eased moves: ``p(u) = p0 + (p1 - p0) e(u)``, ``u = (f - f0)/(f1 - f0)``,
  ``e(u) = u`` (linear) or ``3u^2 - 2u^3`` (smoothstep, zero velocity at both ends);
* arcs: the eased chord plus a vertical or sideways bump ``h sin(pi u)``;
* free fall from rest (parabolic drop): ``z(t) = z0 - g t^2 / 2``, ``g = 9.81 m/s^2``;
  :func:`fall_frames` inverts it so that landings happen on an integer frame;
* 1-D collisions: conservation of momentum with a coefficient of restitution
  ``e`` (Newton's experimental law): ``v1' = (m1 v1 + m2 v2 + m2 e (v2 - v1)) / (m1 + m2)``,
  ``v2' = (m1 v1 + m2 v2 + m1 e (v1 - v2)) / (m1 + m2)`` (e = 1 elastic, e = 0 perfectly inelastic);
* rolling without slipping: rotation angle = distance / radius about the axis
  ``z x direction``.
"""

from __future__ import annotations

import numpy as np

from simkit.scenes.wrop.spec import Track

#: standard gravity (m/s^2), CGPM 1901
G = 9.81


def ease(u: np.ndarray, kind: str = "linear") -> np.ndarray:
    """Easing of ``u`` in [0, 1]: ``linear`` (u), ``smooth`` (smoothstep 3u^2 - 2u^3) or ``accelerate`` (u^2:
    constant acceleration from rest, e.g. a released trapdoor)."""
    u = np.clip(np.asarray(u, float), 0.0, 1.0)
    if kind == "linear":
        return u
    if kind == "smooth":
        return u * u * (3 - 2 * u)
    if kind == "accelerate":
        return u * u
    raise ValueError(f"unknown easing {kind!r}; use linear, smooth or accelerate")


def collide_1d(m1: float, v1: float, m2: float, v2: float, restitution: float = 1.0) -> tuple[float, float]:
    """Velocities after a 1-D collision (momentum conserved, Newton's law of restitution ``e``); m kg, v m/s."""
    p = m1 * v1 + m2 * v2
    w1 = (p + m2 * restitution * (v2 - v1)) / (m1 + m2)
    w2 = (p + m1 * restitution * (v1 - v2)) / (m1 + m2)
    return float(w1), float(w2)


def fall_frames(height: float, fps: float) -> int:
    """Frames (>= 1) a body dropped from rest needs to fall ``height`` m: round(sqrt(2h/g) fps)."""
    return max(1, int(round(np.sqrt(2 * height / G) * fps)))


def fall_height(frames: int, fps: float) -> float:
    """Height (m) a body falls from rest in exactly ``frames`` frames: g (frames/fps)^2 / 2."""
    return 0.5 * G * (frames / fps) ** 2


def flight_drop(vz: float, frames: int, fps: float) -> float:
    """Height (m) a body launched with vertical velocity ``vz`` (m/s, up positive) has lost after ``frames``
    frames of ballistic flight: ``-(vz t - g t^2 / 2)``, t = frames / fps (negative: it is higher)."""
    t = frames / fps
    return -(vz * t - 0.5 * G * t * t)


class Motion:
    """Builder of a track of ``frames`` frames starting at ``start`` (m) with Euler ``rotation`` (rad)."""

    def __init__(self, frames: int, fps: float, start, rotation=(0.0, 0.0, 0.0)):
        self.frames = int(frames)
        self.fps = float(fps)
        self.pos = np.tile(np.asarray(start, float), (self.frames, 1))
        self.rot = np.tile(np.asarray(rotation, float), (self.frames, 1))
        self.scl = np.ones((self.frames, 3))

    # -- helpers --------------------------------------------------------------------------------
    def _range(self, f0: int, f1: int) -> np.ndarray:
        if not (0 <= f0 <= f1 < self.frames):
            raise ValueError(f"frames {f0}..{f1} outside 0..{self.frames - 1}")
        return np.arange(f0, f1 + 1)

    def at(self, f: int) -> np.ndarray:
        """Position (3,) at frame ``f`` as built so far."""
        return self.pos[f].copy()

    # -- position ---------------------------------------------------------------------------------
    def move(self, f0: int, f1: int, to, easing: str = "linear") -> Motion:
        """Move from the position at ``f0`` to ``to`` by frame ``f1``; hold ``to`` afterwards."""
        fr = self._range(f0, f1)
        p0, p1 = self.pos[f0].copy(), np.asarray(to, float)
        u = (fr - f0) / max(f1 - f0, 1)
        self.pos[fr] = p0 + (p1 - p0) * ease(u, easing)[:, None]
        self.pos[f1 + 1 :] = p1
        return self

    def arc(
        self, f0: int, f1: int, to, height: float, direction=(0.0, 0.0, 1.0), easing: str = "smooth"
    ) -> Motion:
        """Eased move to ``to`` plus a bump ``height sin(pi u)`` along ``direction`` (default: up)."""
        fr = self._range(f0, f1)
        self.move(f0, f1, to, easing)
        u = (fr - f0) / max(f1 - f0, 1)
        d = np.asarray(direction, float)
        self.pos[fr] += height * np.sin(np.pi * ease(u, easing))[:, None] * d
        return self

    def velocity(self, f0: int, v, f1: int | None = None) -> Motion:
        """Constant velocity ``v`` (m/s, (3,)) from the position at ``f0`` through ``f1`` (default: last frame)."""
        f1 = self.frames - 1 if f1 is None else f1
        fr = self._range(f0, f1)
        v = np.asarray(v, float)
        self.pos[fr] = self.pos[f0] + v * ((fr - f0) / self.fps)[:, None]
        self.pos[f1 + 1 :] = self.pos[f1]
        return self

    def decelerate(self, f0: int, v, decel: float, f1: int | None = None) -> Motion:
        """Start at velocity ``v`` (m/s) at ``f0`` and slow down at ``decel`` m/s^2 (friction) to rest."""
        f1 = self.frames - 1 if f1 is None else f1
        fr = self._range(f0, f1)
        v = np.asarray(v, float)
        speed = float(np.linalg.norm(v))
        if speed == 0:
            self.pos[fr] = self.pos[f0]
            return self
        d = v / speed
        t = (fr - f0) / self.fps
        t_stop = speed / decel if decel > 0 else np.inf
        tt = np.minimum(t, t_stop)
        s = speed * tt - 0.5 * decel * tt * tt
        self.pos[fr] = self.pos[f0] + s[:, None] * d
        self.pos[f1 + 1 :] = self.pos[f1]
        return self

    def fall(self, f0: int, f1: int, z_end: float) -> Motion:
        """Free fall from rest (z only) starting at ``f0``, landing exactly at ``z_end`` on frame ``f1``.

        ``z(t) = z0 - g t^2 / 2``; the drop height must equal :func:`fall_height` of ``f1 - f0``
        frames to within 1 mm (raises ``ValueError`` otherwise), and ``z_end`` is held afterwards.
        """
        fr = self._range(f0, f1)
        z0 = self.pos[f0, 2]
        h = fall_height(f1 - f0, self.fps)
        if abs((z0 - z_end) - h) > 1e-3:
            raise ValueError(f"drop of {z0 - z_end:.4f} m does not take {f1 - f0} frames (needs {h:.4f} m)")
        t = (fr - f0) / self.fps
        self.pos[fr, 2] = z0 - 0.5 * G * t * t
        self.pos[f1, 2] = z_end
        self.pos[f1 + 1 :, 2] = z_end
        return self

    def follow(self, other: Motion, f0: int, f1: int | None = None, offset=None) -> Motion:
        """Move rigidly with ``other`` from ``f0`` through ``f1``: p = p_other + offset (offset at ``f0`` by default)."""
        f1 = self.frames - 1 if f1 is None else f1
        fr = self._range(f0, f1)
        off = self.pos[f0] - other.pos[f0] if offset is None else np.asarray(offset, float)
        self.pos[fr] = other.pos[fr] + off
        self.pos[f1 + 1 :] = self.pos[f1]
        return self

    def orbit(self, f0: int, f1: int, centre, angle: float, easing: str = "smooth") -> Motion:
        """Rotate the position about the vertical axis through ``centre`` by ``angle`` rad (counter-clockwise)
        over ``f0 .. f1`` and add the same angle to the z Euler rotation (the object turns with the orbit)."""
        fr = self._range(f0, f1)
        c = np.asarray(centre, float)
        p0 = self.pos[f0] - c
        a = angle * ease((fr - f0) / max(f1 - f0, 1), easing)
        ca, sa = np.cos(a), np.sin(a)
        self.pos[fr, 0] = c[0] + ca * p0[0] - sa * p0[1]
        self.pos[fr, 1] = c[1] + sa * p0[0] + ca * p0[1]
        self.pos[f1 + 1 :] = self.pos[f1]
        r0 = self.rot[f0, 2]
        self.rot[fr, 2] = r0 + a
        self.rot[f1 + 1 :, 2] = self.rot[f1, 2]
        return self

    # -- rotation --------------------------------------------------------------------------------
    def turn(self, f0: int, f1: int, to, easing: str = "smooth") -> Motion:
        """Rotate (XYZ Euler, rad) from the rotation at ``f0`` to ``to`` by ``f1``; hold it afterwards."""
        fr = self._range(f0, f1)
        r0, r1 = self.rot[f0].copy(), np.asarray(to, float)
        u = (fr - f0) / max(f1 - f0, 1)
        self.rot[fr] = r0 + (r1 - r0) * ease(u, easing)[:, None]
        self.rot[f1 + 1 :] = r1
        return self

    def roll(self, radius: float) -> Motion:
        """Set the rotation of a ball rolling without slipping along its (horizontal) path.

        Each frame's ground displacement ``d`` adds a rotation of ``|d| / radius`` about ``z x d``
        (composed as Euler increments, exact for motion along one axis).
        """
        rot = np.zeros((self.frames, 3))
        for f in range(1, self.frames):
            d = self.pos[f] - self.pos[f - 1]
            d[2] = 0.0
            axis = np.cross([0.0, 0.0, 1.0], d)
            rot[f] = rot[f - 1] + axis / radius
        self.rot = rot
        return self

    def track(self) -> Track:
        """The finished :class:`Track` (copies)."""
        return Track(self.pos.copy(), self.rot.copy(), self.scl.copy())

    # -- appended: ballistic flight, bounces, hinges ----------------------------------------------------------
    def projectile(self, f0: int, f1: int, v, z_end: float) -> Motion:
        """Ballistic flight from the position at ``f0`` with initial velocity ``v`` (m/s, (3,)):
        ``p(t) = p0 + v t - (0, 0, g t^2 / 2)``, landing at ``z_end`` on frame ``f1``; x and y keep their
        velocity. The drop must equal :func:`flight_drop` of ``v_z`` over ``f1 - f0`` frames to within 1 mm
        (raises ``ValueError`` otherwise); the landing position is held afterwards."""
        fr = self._range(f0, f1)
        v = np.asarray(v, float)
        p0 = self.pos[f0].copy()
        h = flight_drop(float(v[2]), f1 - f0, self.fps)
        if abs((p0[2] - z_end) - h) > 1e-3:
            raise ValueError(f"flight of {f1 - f0} frames drops {h:.4f} m, not {p0[2] - z_end:.4f} m")
        t = ((fr - f0) / self.fps)[:, None]
        self.pos[fr] = p0 + v * t - np.array([0.0, 0.0, 0.5 * G]) * t * t
        self.pos[f1, 2] = z_end
        self.pos[f1 + 1 :] = self.pos[f1]
        return self

    def bounce(
        self, f0: int, v_impact: float, restitution: float, z_floor: float, min_speed: float = 0.3
    ) -> Motion:
        """Vertical bounces on a floor after a landing at ``f0`` with downward speed ``v_impact`` (m/s): each hop
        leaves at ``restitution`` times the previous impact speed (Newton's law of restitution) and follows
        ``z = z_floor + u t - g t^2 / 2`` until it is back at ``z_floor``; hops stop once the speed falls below
        ``min_speed`` (the body then rests). x and y are held; z is written from ``f0`` to the last frame."""
        fr = self._range(f0, self.frames - 1)
        t = (fr - f0) / self.fps
        z = np.full(len(fr), float(z_floor))
        t0, u = 0.0, restitution * v_impact
        while u >= min_speed and t0 < t[-1]:
            hop = 2 * u / G
            on = (t > t0) & (t < t0 + hop)
            z[on] = z_floor + u * (t[on] - t0) - 0.5 * G * (t[on] - t0) ** 2
            t0, u = t0 + hop, u * restitution
        self.pos[fr, 2] = z
        return self

    def hinge(
        self, f0: int, f1: int, pivot, angle: float, axis: int = 1, easing: str = "accelerate"
    ) -> Motion:
        """Swing about the horizontal world ``axis`` (0 = x, 1 = y) through ``pivot`` (m) by ``angle`` rad
        (right-handed) over ``f0 .. f1``: the position rotates about the hinge line and the same angle is added
        to that Euler component (exact when the other Euler components are 0, as for an unrotated plate)."""
        fr = self._range(f0, f1)
        c = np.asarray(pivot, float)
        r0 = self.pos[f0] - c
        a = angle * ease((fr - f0) / max(f1 - f0, 1), easing)
        ca, sa = np.cos(a), np.sin(a)
        i, j = (1, 2) if axis == 0 else (2, 0)  # rotation in the (i, j) plane: Rx turns y->z, Ry turns z->x
        self.pos[fr, i] = c[i] + ca * r0[i] - sa * r0[j]
        self.pos[fr, j] = c[j] + sa * r0[i] + ca * r0[j]
        self.pos[fr, axis] = self.pos[f0, axis]
        self.pos[f1 + 1 :] = self.pos[f1]
        a0 = self.rot[f0, axis]
        self.rot[fr, axis] = a0 + a
        self.rot[f1 + 1 :, axis] = self.rot[f1, axis]
        return self
