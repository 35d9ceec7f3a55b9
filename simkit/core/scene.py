"""The backend-neutral render scene: objects (a kind, a mesh source, a material, a pose per frame), a camera
(static or keyed per frame), a sun and a world colour.

Scene compilers (the wrop task language, the pairs compiler) build a :class:`Scene`; a renderer backend
(:mod:`simkit.renderers.blender`) turns it into its own scene, renders it and measures it. The description
is plain data (numpy arrays and floats): nothing here imports a backend.

Object kinds (:data:`KINDS`): the primitives ``box``, ``sphere``, ``cylinder``, ``cup``, ``open_box``,
``wedge`` (sized by ``dims`` in metres) and ``mesh`` (a triangle mesh read from a GLB/GLTF/OBJ/PLY file
given by :class:`MeshSource`, with the file's own materials and textures unless ``material`` is set).

Conventions: SI units (metres, seconds, radians), right-handed world frame with z up. Frames
are 0-based integers ``0 .. T-1``. Object tracks use XYZ Euler angles in radians (Blender's default
``rotation_mode``, matrix ``Rz @ Ry @ Rx``); the object's world matrix is ``T @ R @ S``. Cameras look
along their local -Z axis with +Y up (Blender's and OpenGL's camera frame); quaternions are (w, x, y, z).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
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

#: every object kind a backend must build: the primitives plus ``mesh`` (from a file)
KINDS: tuple[str, ...] = (*PRIMITIVES, "mesh")

#: mesh file formats (suffix -> format name) a backend imports
MESH_FORMATS: dict[str, str] = {".glb": "gltf", ".gltf": "gltf", ".obj": "obj", ".ply": "ply"}


#: procedural surface patterns a backend draws over a material's base colour (no image files). Each pattern
#: varies only the brightness of the base colour (the darker tone is ``rgb * (1 - contrast)``, the same hue in
#: scene-linear RGB), so the named colour stays the colour of every pixel: ``plain`` (uniform), ``wood``
#: (rings around the object's z axis with noise-distorted grain), ``checker`` (3-D checkerboard), ``marble``
#: (turbulent noise veins), ``brushed`` (noise stretched along x, metallic), ``weave`` (two crossed bands,
#: a cloth weave)
PATTERNS: tuple[str, ...] = ("plain", "wood", "checker", "marble", "brushed", "weave")

#: opacity at or below which a material counts as clear (glass, clear plastic) for visibility: objects behind
#: it stay visible (see :mod:`simkit.renderers.blender.visibility`)
CLEAR_ALPHA = 0.5


@dataclass
class Material:
    """A surface: sRGB-encoded colour in [0, 1] (as Blender's colour pickers take it), roughness, metallic,
    an optional procedural ``pattern`` (one of :data:`PATTERNS`) with ``pattern_scale`` (features per metre,
    in the object's own frame) and ``pattern_contrast`` in [0, 1) (how much darker the dark tone is), and
    ``alpha`` (opacity in [0, 1]; 1 = opaque).

    ``name`` is a human name (a palette name such as "red", used in prompts and trajectories); the pattern
    never changes the hue of ``rgb``, so the name stays true. Backends that cannot draw procedural textures
    (Blender's Workbench) show the plain base colour.
    A material with ``alpha <= CLEAR_ALPHA`` is *clear* (a pane of glass or clear plastic tinted by ``rgb``):
    renderers draw it see-through without refraction, so an object behind it shows where a straight camera
    ray sees it, and visibility measurement does not count it as an occluder. Opacities between
    :data:`CLEAR_ALPHA` and 1 are refused: such a surface is neither hidden behind nor seen through, so no
    visibility label would be true of it.

    Raises:
        ValueError: unknown pattern, a contrast outside [0, 1) or a scale <= 0; ``alpha`` outside
            [0, CLEAR_ALPHA] and not 1.
    """

    name: str
    rgb: tuple[float, float, float]
    roughness: float = 0.5
    metallic: float = 0.0
    pattern: str = "plain"
    pattern_scale: float = 4.0
    pattern_contrast: float = 0.0
    #: keyword-only, so positional construction (name, rgb, roughness, metallic, ...) is unaffected
    alpha: float = field(default=1.0, kw_only=True)

    def __post_init__(self) -> None:
        if self.pattern not in PATTERNS:
            raise ValueError(f"unknown material pattern {self.pattern!r}; known: {list(PATTERNS)}")
        if not 0.0 <= self.pattern_contrast < 1.0 or self.pattern_scale <= 0:
            raise ValueError(
                f"pattern_contrast must be in [0, 1) and pattern_scale > 0, got "
                f"{self.pattern_contrast}, {self.pattern_scale}"
            )
        if not (0.0 <= self.alpha <= CLEAR_ALPHA or self.alpha == 1.0):
            raise ValueError(
                f"material {self.name!r}: alpha {self.alpha} is neither opaque (1) nor clear (<= {CLEAR_ALPHA})"
            )

    @property
    def clear(self) -> bool:
        """Whether objects behind this surface stay visible (``alpha <= CLEAR_ALPHA``)."""
        return self.alpha <= CLEAR_ALPHA


@dataclass
class MeshSource:
    """A triangle mesh read from ``path`` (GLB/GLTF/OBJ/PLY; textures and materials kept).

    ``diagonal``: when set, the imported mesh is centred on its bounding box and scaled uniformly to this
    bounding-box diagonal (m) before the track applies (the paper normalises to 2.0); as in the file when
    ``None``.
    ``asset_id``: a stable identifier recorded with the episode (e.g. the Objaverse uid).
    ``rotation``: XYZ Euler angles (rad) baked into the vertices first (e.g. to stand a y-up file upright).
    ``fit_box``: when set (sizes x, y, z in m), the (rotated) mesh is scaled uniformly to the largest size
    that fits inside this axis-aligned box, centred on it in x and y and standing on its bottom face
    (z = -size_z / 2), so it replaces a primitive of that bounding box on the same track
    (:func:`fit_box_matrix`); applied after ``diagonal``.

    Raises:
        ValueError: the suffix is not one of :data:`MESH_FORMATS`.
    """

    path: str
    diagonal: float | None = None
    asset_id: str = ""
    rotation: tuple[float, float, float] = (0.0, 0.0, 0.0)
    fit_box: tuple[float, float, float] | None = None

    def __post_init__(self) -> None:
        if Path(self.path).suffix.lower() not in MESH_FORMATS:
            raise ValueError(f"{self.path}: unsupported mesh format; use one of {sorted(MESH_FORMATS)}")

    @property
    def format(self) -> str:
        """``gltf``, ``obj`` or ``ply``."""
        return MESH_FORMATS[Path(self.path).suffix.lower()]


@dataclass
class Track:
    """Per-frame pose of one object: ``position`` (T, 3) m, ``rotation`` (T, 3) XYZ Euler rad, ``scale`` (T, 3).

    The renderer keys every frame.
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

    def matrix(self, frame: int) -> np.ndarray:
        """World matrix (4, 4) ``T @ Rz @ Ry @ Rx @ S`` of ``frame`` (Blender's XYZ Euler convention)."""
        m = np.eye(4)
        m[:3, :3] = euler_xyz_to_matrix(self.rotation[frame]) * np.asarray(self.scale[frame], float)[None, :]
        m[:3, 3] = self.position[frame]
        return m


@dataclass
class SceneObject:
    """One object: ``name`` (unique), free ``role`` label, ``kind`` (see :data:`KINDS`) with ``dims`` (m,
    primitives only), ``material`` (``None``: a mesh keeps its file's materials), its ``track`` (may be set
    after construction, before the :class:`Scene` is made), ``measure`` (whether the renderer computes
    visibility for it) and ``mesh`` (the file of a ``mesh`` object).

    Raises:
        ValueError: unknown kind, wrong number of dims, or a ``mesh`` object without a mesh source.
    """

    name: str
    role: str
    kind: str
    dims: tuple[float, ...]
    material: Material | None
    track: Track | None = None
    measure: bool = True
    mesh: MeshSource | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown object kind {self.kind!r}; known: {list(KINDS)}")
        if self.kind == "mesh":
            if self.mesh is None:
                raise ValueError(f"object {self.name!r} of kind 'mesh' needs a MeshSource")
        elif len(self.dims) != len(PRIMITIVES[self.kind]):
            raise ValueError(f"{self.kind} takes dims {PRIMITIVES[self.kind]}, got {self.dims}")

    @property
    def pose(self) -> Track:
        """The track (raises ``ValueError`` when it was never set)."""
        if self.track is None:
            raise ValueError(f"object {self.name!r} has no track")
        return self.track

    def half_extent(self) -> np.ndarray:
        """Half sizes (3,) of the unrotated, unscaled primitive in its local frame (m)."""
        d = self.dims
        if self.kind == "sphere":
            return np.array([d[0], d[0], d[0]])
        if self.kind in ("cylinder", "cup"):
            return np.array([d[0], d[0], d[1] / 2])
        return np.array(d) / 2


@dataclass
class CameraTrack:
    """Per-frame camera pose: ``location`` (T, 3) m and ``quaternion`` (T, 4) (w, x, y, z), camera -Z forward."""

    location: np.ndarray
    quaternion: np.ndarray


@dataclass
class Camera:
    """A pinhole camera looking from ``location`` at ``look_at`` (world, m), z up; ``lens_mm`` focal length on
    a ``sensor_mm`` wide sensor (horizontal fit, Blender's default 36 mm). ``track``: optional per-frame
    poses that replace the static one (a moving camera)."""

    location: tuple[float, float, float]
    look_at: tuple[float, float, float]
    lens_mm: float = 35.0
    sensor_mm: float = 36.0
    track: CameraTrack | None = None

    def quaternion(self) -> np.ndarray:
        """Orientation (w, x, y, z) that points the camera's -Z axis at ``look_at`` with +Y up-ish."""
        return look_at_quaternion(np.asarray(self.location, float), np.asarray(self.look_at, float))


@dataclass
class Sun:
    """A directional light: ``azimuth``/``elevation`` (rad) of the direction it comes FROM, ``strength``
    (W/m^2 in Blender's sun units), colour ``rgb``, apparent ``angle`` (rad; larger: softer shadows)."""

    azimuth: float
    elevation: float
    strength: float = 3.0
    rgb: tuple[float, float, float] = (1.0, 1.0, 1.0)
    angle: float = float(np.radians(3.0))


#: lamp kinds besides the sun: square area light, spot light, point light
LAMP_KINDS: tuple[str, ...] = ("area", "spot", "point")


@dataclass
class Lamp:
    """A local light at ``location`` (m) aimed at ``look_at`` (m): ``kind`` (one of :data:`LAMP_KINDS`),
    radiant ``power`` (W, Blender's light power), colour ``rgb`` (linear, in [0, 1]), ``size`` (m: the side
    of an area light, the radius of a spot or point light: larger is softer), ``spot_deg`` (full cone angle
    of a spot light, degrees).

    Raises:
        ValueError: unknown kind or a negative power.
    """

    kind: str
    location: tuple[float, float, float]
    look_at: tuple[float, float, float]
    power: float
    rgb: tuple[float, float, float] = (1.0, 1.0, 1.0)
    size: float = 1.0
    spot_deg: float = 60.0

    def __post_init__(self) -> None:
        if self.kind not in LAMP_KINDS or self.power < 0:
            raise ValueError(f"lamp kind must be one of {list(LAMP_KINDS)} with power >= 0, got {self}")

    def quaternion(self) -> np.ndarray:
        """Orientation (w, x, y, z) pointing the lamp's -Z axis (its beam) at ``look_at``."""
        return look_at_quaternion(np.asarray(self.location, float), np.asarray(self.look_at, float))


@dataclass
class Scene:
    """A complete keyframed scene of ``frames`` frames at ``fps``.

    ``background``: world colour (sRGB in [0, 1]); ``world_strength``: its emission strength;
    ``lamps``: local lights besides the sun (:class:`Lamp`).
    ``objects``: names must be unique, every track set and ``frames`` long.

    Raises:
        ValueError: duplicate names, a missing track or a track of another length.
    """

    frames: int
    fps: float
    objects: list[SceneObject]
    camera: Camera
    sun: Sun
    background: tuple[float, float, float] = (0.8, 0.85, 0.9)
    meta: dict[str, Any] = field(default_factory=dict)
    world_strength: float = 1.0
    lamps: list[Lamp] = field(default_factory=list)

    def __post_init__(self) -> None:
        names = [o.name for o in self.objects]
        if len(set(names)) != len(names):
            raise ValueError(f"object names must be unique, got {names}")
        for o in self.objects:
            if o.pose.frames != self.frames:
                raise ValueError(f"track of {o.name!r} has {o.pose.frames} frames, scene has {self.frames}")

    def get(self, name: str) -> SceneObject:
        for o in self.objects:
            if o.name == name:
                return o
        raise KeyError(name)


def euler_xyz_to_matrix(e) -> np.ndarray:
    """XYZ Euler angles (rad) -> rotation matrix ``Rz(e2) @ Ry(e1) @ Rx(e0)`` (Blender's ``'XYZ'`` order)."""
    x, y, z = (float(v) for v in e)
    cx, sx, cy, sy, cz, sz = np.cos(x), np.sin(x), np.cos(y), np.sin(y), np.cos(z), np.sin(z)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return rz @ ry @ rx


def matrix_to_euler_xyz(m: np.ndarray) -> np.ndarray:
    """Rotation matrix (3, 3) -> XYZ Euler angles (3,) rad with ``m = Rz @ Ry @ Rx`` (inverse of
    :func:`euler_xyz_to_matrix`; at gimbal lock, ``|y| = pi/2``, x is set to 0)."""
    sy = -m[2, 0]
    y = np.arcsin(np.clip(sy, -1.0, 1.0))
    if abs(sy) < 1 - 1e-9:
        return np.array([np.arctan2(m[2, 1], m[2, 2]), y, np.arctan2(m[1, 0], m[0, 0])])
    return np.array([0.0, y, np.arctan2(-m[0, 1], m[1, 1])])


def look_at_matrix(eye: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Rotation (3, 3) of a camera at ``eye`` whose -Z axis points at ``target``, world z up: columns
    (right, up, back) with back = (eye - target)/|eye - target|, right = z_world x back, up = back x right."""
    back = np.asarray(eye, float) - np.asarray(target, float)
    back = back / np.linalg.norm(back)
    right = np.cross([0.0, 0.0, 1.0], back)
    if np.linalg.norm(right) < 1e-9:
        right = np.array([1.0, 0.0, 0.0])
    right = right / np.linalg.norm(right)
    up = np.cross(back, right)
    return np.stack([right, up, back], axis=1)


def look_at_quaternion(eye: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Quaternion (w, x, y, z) of :func:`look_at_matrix`, converted with Shepperd's method."""
    return matrix_to_quaternion(look_at_matrix(eye, target))


def orbit_camera(target, distance: float, azimuth: float, elevation: float, lens_mm: float = 35.0) -> Camera:
    """A camera on a sphere around ``target``: ``azimuth`` (rad) 0 = on the -y side looking +y, positive
    counter-clockwise seen from above (camera moves toward +x); ``elevation`` (rad) above the horizon."""
    t = np.asarray(target, float)
    loc = t + distance * np.array(
        [np.sin(azimuth) * np.cos(elevation), -np.cos(azimuth) * np.cos(elevation), np.sin(elevation)]
    )
    return Camera(tuple(loc.tolist()), tuple(t.tolist()), lens_mm)


def fit_box_matrix(vertices: np.ndarray, box) -> np.ndarray:
    """(4, 4) matrix that scales ``vertices`` (V, 3) uniformly by the largest factor that keeps their
    axis-aligned bounding box inside ``box`` (sizes x, y, z in m), centres them in x and y and puts their
    lowest point on the box's bottom face z = -box_z / 2 (see :attr:`MeshSource.fit_box`)."""
    lo, hi = vertices.min(0), vertices.max(0)
    ext = np.maximum(hi - lo, 1e-12)
    s = float(np.min(np.asarray(box, float) / ext))
    m = np.eye(4) * s
    m[3, 3] = 1.0
    centre = (lo + hi) / 2
    m[:3, 3] = [-s * centre[0], -s * centre[1], -float(box[2]) / 2 - s * lo[2]]
    return m
