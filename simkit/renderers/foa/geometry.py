"""Trajectories of sources and the listener pose, evaluated at arbitrary times.

World frame: right-handed, z up, metres, seconds. A listener with yaw = pitch = roll = 0
looks along world +x (so listener-frame azimuth equals world azimuth when it has not turned);
its orientation is ``R = Rz(yaw) Ry(-pitch) Rx(roll)`` (see
:func:`simkit.renderers.foa.encoding.rotation_matrix`) and a world point ``p`` is seen at
``R^T (p - listener_position)`` in the listener frame (+x ahead, +y left, +z up).

Keyframes are interpolated linearly (positions in Cartesian form, or azimuth/elevation/distance
for :class:`PolarTrajectory`, with azimuth unwrapped so that motion takes the short way between
neighbouring keyframes) and held constant before the first and after the last keyframe.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simkit.renderers.foa.encoding import direction_to_unit, rotation_matrix


def _check_times(times: np.ndarray, what: str) -> np.ndarray:
    t = np.atleast_1d(np.asarray(times, dtype=np.float64))
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"{what}: keyframe times must be a non-empty 1-D array")
    if not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
        raise ValueError(f"{what}: keyframe times must be finite and strictly increasing")
    return t


def _interp_columns(t: np.ndarray, times: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Linear interpolation of each column of ``values`` (K, D) at ``t`` (N,) -> (N, D), clamped."""
    if values.shape[0] == 1:
        return np.repeat(values, t.size, axis=0)
    return np.stack([np.interp(t, times, values[:, d]) for d in range(values.shape[1])], axis=-1)


class Trajectory:
    """A point moving along Cartesian keyframes ``(t_k, p_k)`` in the world frame.

    Args:
        times: (K,) seconds, strictly increasing (K = 1 for a static point).
        positions: (K, 3) metres, world frame.

    Raises:
        ValueError: bad shapes, non-finite values or non-increasing times.
    """

    def __init__(self, times, positions):
        self.times = _check_times(times, "Trajectory")
        p = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
        if p.shape[0] != self.times.size or not np.all(np.isfinite(p)):
            raise ValueError(f"Trajectory: positions must be finite ({self.times.size}, 3), got {p.shape}")
        self.keyframes = p

    @classmethod
    def static(cls, position) -> Trajectory:
        """A point that does not move."""
        return cls([0.0], np.asarray(position, dtype=np.float64).reshape(1, 3))

    @property
    def is_static(self) -> bool:
        """True when every keyframe is the same point."""
        return bool(np.all(self.keyframes == self.keyframes[0]))

    def positions(self, t) -> np.ndarray:
        """World positions (N, 3) in metres at times ``t`` (N,) seconds."""
        return _interp_columns(np.atleast_1d(np.asarray(t, dtype=np.float64)), self.times, self.keyframes)


class PolarTrajectory(Trajectory):
    """A point given by keyframes ``(t_k, az_k, el_k, r_k)`` around an origin, in world axes.

    ``az`` (radians) is counter-clockwise from world +x, ``el`` (radians) up-positive,
    ``r`` metres from ``origin`` (world, default (0, 0, 0)). With a listener at ``origin`` whose
    yaw is 0 these are exactly the listener-frame directions. Azimuth is unwrapped before the
    linear interpolation (consecutive keyframes never differ by more than pi).

    Raises:
        ValueError: bad shapes, negative distances or non-increasing times.
    """

    def __init__(self, times, az, el, dist, origin=(0.0, 0.0, 0.0)):
        t = _check_times(times, "PolarTrajectory")
        az = np.unwrap(np.broadcast_to(np.asarray(az, dtype=np.float64), t.shape))
        el = np.broadcast_to(np.asarray(el, dtype=np.float64), t.shape)
        r = np.broadcast_to(np.asarray(dist, dtype=np.float64), t.shape)
        if np.any(r < 0) or not np.all(np.isfinite(np.concatenate([az, el, r]))):
            raise ValueError("PolarTrajectory: distances must be >= 0 and all values finite")
        self.polar = np.stack([az, el, r], axis=-1)
        self.origin = np.asarray(origin, dtype=np.float64).reshape(3)
        super().__init__(t, self.origin + r[:, None] * direction_to_unit(az, el))

    def positions(self, t) -> np.ndarray:
        """World positions (N, 3) at ``t`` (N,), interpolated in (az, el, r), not in Cartesian space."""
        q = _interp_columns(np.atleast_1d(np.asarray(t, dtype=np.float64)), self.times, self.polar)
        return self.origin + q[:, 2:3] * direction_to_unit(q[:, 0], q[:, 1])


@dataclass
class ListenerPose:
    """A listener (FOA microphone / camera) with a time-varying position and orientation.

    Attributes:
        position: the listener's :class:`Trajectory` (world frame).
        yaw_times, yaw: keyframes of the yaw angle (radians, counter-clockwise about +z; 0 looks
            along world +x), interpolated linearly and held outside the keyframe range.
        pitch, roll: constant pitch (nose up positive) and roll (left ear up positive), radians.
    """

    position: Trajectory = field(default_factory=lambda: Trajectory.static((0.0, 0.0, 0.0)))
    yaw_times: np.ndarray = field(default_factory=lambda: np.zeros(1))
    yaw: np.ndarray = field(default_factory=lambda: np.zeros(1))
    pitch: float = 0.0
    roll: float = 0.0

    def __post_init__(self) -> None:
        self.yaw_times = _check_times(self.yaw_times, "ListenerPose.yaw")
        self.yaw = np.broadcast_to(np.asarray(self.yaw, dtype=np.float64), self.yaw_times.shape).copy()

    @property
    def is_static(self) -> bool:
        """True when neither the position nor the orientation changes."""
        return self.position.is_static and bool(np.all(self.yaw == self.yaw[0]))

    def yaw_at(self, t) -> np.ndarray:
        """Yaw (radians) at times ``t`` (N,)."""
        t = np.atleast_1d(np.asarray(t, dtype=np.float64))
        return np.interp(t, self.yaw_times, self.yaw) if self.yaw.size > 1 else np.full(t.shape, self.yaw[0])

    def rotation(self, t) -> np.ndarray:
        """Orientation matrices (N, 3, 3) at ``t``; columns = listener axes (ahead, left, up) in world."""
        return rotation_matrix(self.yaw_at(t), self.pitch, self.roll)
