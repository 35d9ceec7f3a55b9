"""The navigation backend interface and the agent that moves on it.

A backend answers questions about the walkable area of one scene at the agent's height and radius
(positions are (x, y) metres in the world frame, z up; the floor height is the backend's):

- ``is_navigable(p)``, ``snap_point(p, max_dist_m)``, ``island(p)``,
- ``geodesic_distance(a, b)`` (metres, shortest walkable path; raises :class:`Unreachable` between
  islands, never returns infinity), ``shortest_path(a, b)`` -> (K, 2) polyline,
- ``sample_navigable_point(rng, island)``, ``try_step(a, b)`` -> (end, collided) with sliding.

:class:`NavAgent` holds a continuous pose (x, y, yaw) and executes Habitat's discrete actions
(``STOP``, ``MOVE_FORWARD`` 0.25 m, ``TURN_LEFT`` / ``TURN_RIGHT`` 15 deg; the action ids are
Habitat's: 0, 1, 2, 3). Yaw is counter-clockwise about +z from world +x (the listener convention
of :mod:`simkit.renderers.foa`), so the agent looks along ``(cos yaw, sin yaw)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from simkit.core.errors import SimkitError

STOP, MOVE_FORWARD, TURN_LEFT, TURN_RIGHT = 0, 1, 2, 3
ACTION_NAMES = ("stop", "move_forward", "turn_left", "turn_right")
#: Habitat / VLN-CE defaults (Krantz et al., "Beyond the Nav-Graph", ECCV 2020, sec. 3)
FORWARD_STEP_M = 0.25
TURN_ANGLE_RAD = float(np.radians(15.0))


class Unreachable(SimkitError):
    """Two points lie on different islands of the walkable area (no path joins them)."""


class NavBackend(ABC):
    """Walkable-area queries of one scene (module docstring). Positions: (x, y) metres, world frame."""

    name: str = ""
    agent_radius: float = 0.18

    @abstractmethod
    def is_navigable(self, p) -> bool:
        """True when the agent's centre may stand at ``p``."""

    @abstractmethod
    def snap_point(self, p, max_dist_m: float = 0.5) -> np.ndarray:
        """The navigable point nearest ``p``; raises :class:`SimkitError` when none lies within ``max_dist_m``."""

    @abstractmethod
    def island(self, p) -> int:
        """Id of the connected walkable region holding ``p`` (-1 when ``p`` is not navigable)."""

    @abstractmethod
    def geodesic_distance(self, a, b) -> float:
        """Shortest walkable distance (m) from ``a`` to ``b``; raises :class:`Unreachable`."""

    @abstractmethod
    def shortest_path(self, a, b) -> np.ndarray:
        """Shortest walkable polyline from ``a`` to ``b``, float64 (K, 2), K >= 2; raises :class:`Unreachable`."""

    @abstractmethod
    def sample_navigable_point(self, rng: np.random.Generator, island: int | None = None) -> np.ndarray:
        """A uniformly random navigable point (on ``island`` when given), float64 (2,)."""

    @abstractmethod
    def try_step(self, a, b) -> tuple[np.ndarray, bool]:
        """Move from ``a`` towards ``b``; returns the end point and whether a wall was hit (sliding)."""


@dataclass
class NavAgent:
    """A point agent with heading on a :class:`NavBackend` (module docstring for actions and frames).

    Attributes:
        backend: the scene's backend.
        position: (2,) metres, world.
        yaw: radians, counter-clockwise from +x.
        forward_m, turn_rad: the step sizes.
    """

    backend: NavBackend
    position: np.ndarray
    yaw: float
    forward_m: float = FORWARD_STEP_M
    turn_rad: float = TURN_ANGLE_RAD

    def __post_init__(self) -> None:
        self.position = np.asarray(self.position, dtype=np.float64).copy()
        self.yaw = float(self.yaw)
        #: metres moved by the last action; whether the last move_forward was blocked (< 5 cm progress)
        self.last_moved = 0.0
        self.stalled = False

    @property
    def pose(self) -> np.ndarray:
        """(x, y, yaw) float64."""
        return np.array([self.position[0], self.position[1], self.yaw])

    def step(self, action: int) -> bool:
        """Execute one action; returns ``collided`` (move_forward met a wall and slid or stopped).

        Raises:
            ValueError: ``action`` is not one of 0 stop, 1 move_forward, 2 turn_left, 3 turn_right.
        """
        self.last_moved = 0.0
        if action == MOVE_FORWARD:
            target = self.position + self.forward_m * np.array([np.cos(self.yaw), np.sin(self.yaw)])
            start = self.position
            self.position, collided = self.backend.try_step(self.position, target)
            self.last_moved = float(np.linalg.norm(self.position - start))
            self.stalled = bool(collided) and self.last_moved < 0.2 * self.forward_m
            return bool(collided)
        if action == TURN_LEFT:
            self.yaw = wrap_angle(self.yaw + self.turn_rad)
        elif action == TURN_RIGHT:
            self.yaw = wrap_angle(self.yaw - self.turn_rad)
        elif action != STOP:
            raise ValueError(
                f"unknown action {action!r}; use 0 stop, 1 move_forward, 2 turn_left, 3 turn_right"
            )
        return False


def wrap_angle(a):
    """Angle(s) wrapped to [-pi, pi)."""
    return (
        (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi
        if np.ndim(a)
        else float((a + np.pi) % (2 * np.pi) - np.pi)
    )


def to_egocentric(pose, points) -> np.ndarray:
    """World (x, y) points -> the agent frame of ``pose`` (x, y, yaw): ``[x_fwd, y_left]``, float64 (..., 2)."""
    p = np.asarray(points, dtype=np.float64)
    c, s = np.cos(pose[2]), np.sin(pose[2])
    d = p - np.asarray(pose[:2], dtype=np.float64)
    return np.stack([c * d[..., 0] + s * d[..., 1], -s * d[..., 0] + c * d[..., 1]], axis=-1)
