"""The neutral WROP scene description: primitives, materials, lights, camera and keyframed tracks.

A :class:`Scene` is plain data (numpy arrays and floats, no ``bpy``). A task
generator builds one; :mod:`simkit.renderers.blender` turns it into a Blender
scene, renders it and measures per-frame ground truth.

Conventions (DESIGN.md): SI units (metres, seconds, radians), right-handed world
frame with z up, ground plane z = 0. Frames are 0-based integers ``0 .. T-1``;
the cut between input and target video is frame ``T // 2`` (the first target
frame). Rotations of tracks are XYZ Euler angles in radians (Blender's default
``rotation_mode``); the trajectory a renderer reports uses quaternions (w, x, y, z).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simkit.core.rotations import matrix_to_quaternion

#: primitive kinds and the ``dims`` each takes (metres)
PRIMITIVES: dict[str, tuple[str, ...]] = {
    "box": ("size_x", "size_y", "size_z"),  # centred cuboid
    "sphere": ("radius",),  # UV sphere centred at the origin
    "cylinder": ("radius", "height"),  # closed cylinder, axis z, centred
    "cup": ("radius", "height"),  # cylinder open at the bottom (inverted cup), centred
    "open_box": ("size_x", "size_y", "size_z"),  # cuboid without its top face, centred
    "wedge": ("size_x", "size_y", "size_z"),  # ramp: rises along +x from z=-sz/2 to +sz/2, centred
}

#: semantic roles an object can play (recorded in the trajectory)
ROLES = (
    "ground",
    "target",
    "occluder",
    "container",
    "lid",
    "support",
    "wall",
    "obstacle",
    "mover",
    "platform",
)


@dataclass
class Material:
    """A surface: linear-free sRGB colour in [0, 1] (as Blender's colour pickers take it), roughness, metallic.

    ``name`` is the palette name (used in prompts, e.g. "red").
    """

    name: str
    rgb: tuple[float, float, float]
    roughness: float = 0.5
    metallic: float = 0.0


@dataclass
class Track:
    """Per-frame pose of one object: ``position`` (T, 3) m, ``rotation`` (T, 3) XYZ Euler rad, ``scale`` (T, 3).

    Build it with :class:`simkit.scenes.wrop.motion.Motion`; the renderer keys every frame.
    """

    position: np.ndarray
    rotation: np.ndarray
    scale: np.ndarray

    @classmethod
    def static(cls, frames: int, position, rotation=(0.0, 0.0, 0.0)) -> Track:
        """A track that holds one pose for ``frames`` frames."""
        p = np.tile(np.asarray(position, float), (frames, 1))
        r = np.tile(np.asarray(rotation, float), (frames, 1))
        return cls(p, r, np.ones((frames, 3)))

    @property
    def frames(self) -> int:
        return int(self.position.shape[0])


@dataclass
class SceneObject:
    """One object: ``name`` (unique), ``role`` (see :data:`ROLES`), primitive ``kind`` with ``dims``,
    ``material``, and its ``track``. ``measure``: whether the renderer computes visibility for it."""

    name: str
    role: str
    kind: str
    dims: tuple[float, ...]
    material: Material
    track: Track
    measure: bool = True

    def __post_init__(self) -> None:
        if self.kind not in PRIMITIVES:
            raise ValueError(f"unknown primitive {self.kind!r}; known: {sorted(PRIMITIVES)}")
        if len(self.dims) != len(PRIMITIVES[self.kind]):
            raise ValueError(f"{self.kind} takes dims {PRIMITIVES[self.kind]}, got {self.dims}")
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r}; known: {ROLES}")

    def half_extent(self) -> np.ndarray:
        """Half sizes (3,) of the unrotated, unscaled primitive in its local frame (m)."""
        d = self.dims
        if self.kind == "sphere":
            return np.array([d[0], d[0], d[0]])
        if self.kind in ("cylinder", "cup"):
            return np.array([d[0], d[0], d[1] / 2])
        return np.array(d) / 2


@dataclass
class Camera:
    """A pinhole camera looking from ``location`` at ``look_at`` (world, m), z up; ``lens_mm`` focal length on a
    ``sensor_mm`` wide sensor (horizontal fit, Blender's default 36 mm)."""

    location: tuple[float, float, float]
    look_at: tuple[float, float, float]
    lens_mm: float = 35.0
    sensor_mm: float = 36.0

    def quaternion(self) -> np.ndarray:
        """Orientation (w, x, y, z) that points the camera's -Z axis at ``look_at`` with +Y up-ish."""
        return look_at_quaternion(np.asarray(self.location, float), np.asarray(self.look_at, float))


@dataclass
class Sun:
    """A directional light: ``azimuth``/``elevation`` (rad) of the direction it comes FROM, ``strength`` (W/m^2 in
    Blender's sun units), colour ``rgb``."""

    azimuth: float
    elevation: float
    strength: float = 3.0
    rgb: tuple[float, float, float] = (1.0, 1.0, 1.0)


@dataclass
class Scene:
    """A complete keyframed scene of ``frames`` frames at ``fps``.

    ``background``: world colour (sRGB in [0, 1]). ``objects``: names must be unique.
    """

    frames: int
    fps: float
    objects: list[SceneObject]
    camera: Camera
    sun: Sun
    background: tuple[float, float, float] = (0.8, 0.85, 0.9)
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        names = [o.name for o in self.objects]
        if len(set(names)) != len(names):
            raise ValueError(f"object names must be unique, got {names}")
        for o in self.objects:
            if o.track.frames != self.frames:
                raise ValueError(f"track of {o.name!r} has {o.track.frames} frames, scene has {self.frames}")

    def get(self, name: str) -> SceneObject:
        for o in self.objects:
            if o.name == name:
                return o
        raise KeyError(name)


def look_at_quaternion(eye: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Quaternion (w, x, y, z) of a camera at ``eye`` whose -Z axis points at ``target``, world z up.

    The rotation matrix has columns (right, up, back) with back = (eye - target)/|eye - target|,
    right = z_world x back normalised, up = back x right; converted with Shepperd's method.
    """
    back = eye - target
    back = back / np.linalg.norm(back)
    right = np.cross([0.0, 0.0, 1.0], back)
    if np.linalg.norm(right) < 1e-9:
        right = np.array([1.0, 0.0, 0.0])
    right = right / np.linalg.norm(right)
    up = np.cross(back, right)
    m = np.stack([right, up, back], axis=1)
    return matrix_to_quaternion(m)


def orbit_camera(target, distance: float, azimuth: float, elevation: float, lens_mm: float = 35.0) -> Camera:
    """A camera on a sphere around ``target``: ``azimuth`` (rad) 0 = on the -y side looking +y, positive
    counter-clockwise seen from above (camera moves toward +x); ``elevation`` (rad) above the horizon."""
    t = np.asarray(target, float)
    loc = t + distance * np.array(
        [np.sin(azimuth) * np.cos(elevation), -np.cos(azimuth) * np.cos(elevation), np.sin(elevation)]
    )
    return Camera(tuple(loc.tolist()), tuple(t.tolist()), lens_mm)
