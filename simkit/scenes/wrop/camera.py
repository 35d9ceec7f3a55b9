"""Moving cameras of the task language: a per-frame nominal view (:class:`ViewPath`).

A task's ``view`` is a static orbit (``target``, ``distance``, ``azimuth_deg``, ``elevation_deg``, ``lens_mm``;
see :func:`simkit.core.scene.orbit_camera`). A :class:`ViewPath` keys those orbit values per frame, so a task
can pan the camera (turn it about its target), dolly it (change the distance), crane it (change the
elevation) or track a moving target, with the same keyframe semantics as
:class:`~simkit.scenes.wrop.motion.Motion`: each call writes frames ``f0 .. f1`` and holds the end value on
every later frame. The surface camera jitter of a sample is added on every frame (azimuth and elevation
offsets, distance scale), so the path is structural and the jitter stays surface.

Conventions: azimuth 0 = camera on the -y side looking toward +y, positive counter-clockwise seen from
above (degrees at this interface, as in ``view``); elevation in degrees above the horizon; metres.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simkit.core.rotations import quaternion_to_matrix
from simkit.scenes.wrop.motion import ease
from simkit.scenes.wrop.spec import Camera, orbit_camera

#: the orbit keys a view path keys per frame, with their defaults (the nominal WROP camera)
VIEW_DEFAULTS: dict[str, Any] = {
    "target": (0.0, 0.0, 0.5),
    "distance": 7.0,
    "azimuth_deg": 0.0,
    "elevation_deg": 14.0,
}


@dataclass
class ViewPath:
    """Per-frame orbit view: ``target`` (T, 3) m, ``distance`` (T,) m, ``azimuth_deg`` (T,), ``elevation_deg``
    (T,) and a fixed ``lens_mm``; build one with :meth:`hold` and key it with :meth:`move`."""

    target: np.ndarray
    distance: np.ndarray
    azimuth_deg: np.ndarray
    elevation_deg: np.ndarray
    lens_mm: float = 35.0

    @classmethod
    def hold(cls, frames: int, view: dict[str, Any] | None = None) -> ViewPath:
        """A path of ``frames`` frames holding the static ``view`` (missing keys: :data:`VIEW_DEFAULTS`)."""
        v = {**VIEW_DEFAULTS, **(view or {})}
        return cls(
            np.tile(np.asarray(v["target"], float), (frames, 1)),
            np.full(frames, float(v["distance"])),
            np.full(frames, float(v["azimuth_deg"])),
            np.full(frames, float(v["elevation_deg"])),
            float(v.get("lens_mm", 35.0)),
        )

    @property
    def frames(self) -> int:
        return int(self.distance.shape[0])

    def move(self, f0: int, f1: int, easing: str = "smooth", **to: Any) -> ViewPath:
        """Key the orbit values in ``to`` (any of ``target``, ``distance``, ``azimuth_deg``,
        ``elevation_deg``) from their value at ``f0`` to the given one at ``f1`` (``easing``: ``linear`` or
        ``smooth``, see :func:`~simkit.scenes.wrop.motion.ease`); hold them afterwards.

        Raises:
            ValueError: frames outside the path or ``f1 < f0``; an unknown key.
        """
        if not (0 <= f0 <= f1 < self.frames):
            raise ValueError(f"frames {f0}..{f1} outside 0..{self.frames - 1}")
        unknown = sorted(set(to) - set(VIEW_DEFAULTS))
        if unknown:
            raise ValueError(f"unknown view keys {unknown}; use {sorted(VIEW_DEFAULTS)}")
        fr = np.arange(f0, f1 + 1)
        e = ease((fr - f0) / max(f1 - f0, 1), easing)
        for key, value in to.items():
            arr = getattr(self, key)
            a, b = arr[f0].copy(), np.asarray(value, float)
            arr[fr] = a + (b - a) * (e[:, None] if arr.ndim == 2 else e)
            arr[f1 + 1 :] = b
        return self

    def view(self, f: int) -> dict[str, Any]:
        """The static ``view`` dict of frame ``f`` (what a task's ``view`` holds)."""
        return {
            "target": tuple(float(x) for x in self.target[f]),
            "distance": float(self.distance[f]),
            "azimuth_deg": float(self.azimuth_deg[f]),
            "elevation_deg": float(self.elevation_deg[f]),
            "lens_mm": self.lens_mm,
        }

    def camera(self, f: int) -> Camera:
        """The nominal camera (no surface jitter) of frame ``f``."""
        v = self.view(f)
        return orbit_camera(
            v["target"],
            v["distance"],
            np.radians(v["azimuth_deg"]),
            np.radians(v["elevation_deg"]),
            self.lens_mm,
        )

    def image_x(self, f: int, points) -> np.ndarray:
        """Horizontal image coordinates (N,) (0 = left edge, 1 = right edge) of world ``points`` (N, 3) seen by
        the nominal camera of frame ``f``: the pinhole model of the renderer's ``image_xy`` (horizontal sensor
        fit, ``u = 1/2 + (lens/sensor) x_c / (-z_c)`` in camera coordinates, -z forward)."""
        cam = self.camera(f)
        R = quaternion_to_matrix(cam.quaternion())
        pc = (np.asarray(points, float).reshape(-1, 3) - np.asarray(cam.location, float)) @ R
        return 0.5 + (cam.lens_mm / cam.sensor_mm) * pc[:, 0] / -pc[:, 2]
