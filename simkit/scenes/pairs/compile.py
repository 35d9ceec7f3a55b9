"""The pairs scene compiler: 2-3 meshes under independent rigid motions, seen from two viewpoints.

Frame 0 is view A (source), frame 1 view B (target). Source: FreeMatching, Sec. 3.3 "Synthetic Objaverse
scenes" (360k pairs rendered with Blender):

* each mesh is normalised to a bounding-box diagonal of 2.0 m (:class:`~simkit.core.scene.MeshSource`);
* frame A: a random jitter per object (yaw uniform in [0, 360) deg, then a tilt of up to ``tilt_max_deg``
  = 30 deg about a random horizontal axis, uniform scale in [0.8, 1.2]); objects stand on a ring around
  the origin so they rarely interpenetrate;
* frame B: an independent rigid transform per object: a rotation increment of 30-50 deg about a uniformly
  random axis, a scale factor 0.8x-1.2x of frame A's and a translation of up to 0.3 m per axis;
* the camera tracks the objects' centroid in each frame (looks at it from a distance that fits every
  object's bounding sphere into the vertical field of view), with a viewpoint change between A and B
  (azimuth +-10-30 deg, elevation change up to +-10 deg).

Structural parameters (meshes, poses, cameras) come from ``default_rng(structural_seed)``; surface
parameters (background colour, world strength, sun, colours of meshes without texture) from
``default_rng(surface_seed)``, so changing the surface seed never moves a pixel's label.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simkit.core.scene import (
    Camera,
    CameraTrack,
    Material,
    MeshSource,
    Scene,
    SceneObject,
    Sun,
    Track,
    euler_xyz_to_matrix,
    look_at_quaternion,
    matrix_to_euler_xyz,
)

DIAGONAL = 2.0  #: normalised bounding-box diagonal of every mesh (m), FreeMatching Sec. 3.3
RING_RADIUS = 1.3  #: distance of the objects from the scene origin in frame A (m)
LENS_MM, SENSOR_MM = 35.0, 36.0
COLOUR_SEPARATION = 0.35  #: smallest largest-channel difference of an object colour from the background
TEXTURED_SHARE = 0.5  #: probability mass of textured assets when the pool has both kinds


@dataclass(frozen=True)
class Asset:
    """A mesh the compiler may place: ``path``, ``asset_id``, ``has_texture`` (else it gets a colour),
    ``sha256`` of the file (recorded with the episode)."""

    path: str
    asset_id: str
    has_texture: bool
    sha256: str = ""


@dataclass(frozen=True)
class Motion:
    """Ranges of the motion model (degrees at this interface, as the paper states them)."""

    tilt_max_deg: float = 30.0
    scale_a: tuple[float, float] = (0.8, 1.2)
    rotation_increment_deg: tuple[float, float] = (30.0, 50.0)
    scale_b: tuple[float, float] = (0.8, 1.2)
    translation_b: float = 0.3
    azimuth_change_deg: tuple[float, float] = (10.0, 30.0)
    elevation_change_deg: float = 10.0


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation matrix (3, 3) of ``angle`` rad about unit ``axis`` (Rodrigues' formula)."""
    k = axis / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * kx + (1 - np.cos(angle)) * (kx @ kx)


def _unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def asset_weights(assets: list[Asset]) -> np.ndarray:
    """Draw probabilities (len(assets),): textured assets share :data:`TEXTURED_SHARE` of the mass equally,
    untextured ones the rest (uniform when the pool has only one kind), so a pool dominated by untextured
    meshes (the 1,000 ``random_urdfs``) still gives textured objects half of the time."""
    tex = np.array([a.has_texture for a in assets], bool)
    if tex.all() or not tex.any():
        return np.full(len(assets), 1.0 / len(assets))
    return np.where(tex, TEXTURED_SHARE / tex.sum(), (1 - TEXTURED_SHARE) / (~tex).sum())


def sample_structure(rng: np.random.Generator, assets: list[Asset], motion: Motion, n_range=(2, 3)) -> dict:
    """Structural parameters: chosen assets, per-object poses in A and B, camera views (JSON-ready)."""
    n = int(rng.integers(n_range[0], n_range[1] + 1))
    pick = rng.choice(len(assets), size=n, replace=len(assets) < n, p=asset_weights(assets))
    phase = rng.uniform(0, 2 * np.pi)
    objects = []
    for k in range(n):
        yaw = rng.uniform(0, 2 * np.pi)
        tilt_axis = rng.uniform(0, 2 * np.pi)
        tilt = np.radians(rng.uniform(0, motion.tilt_max_deg))
        scale_a = rng.uniform(*motion.scale_a)
        ang = phase + 2 * np.pi * k / n + rng.uniform(-0.3, 0.3)
        pos_a = [RING_RADIUS * np.cos(ang), RING_RADIUS * np.sin(ang), rng.uniform(-0.3, 0.3)]
        r_a = _axis_angle(np.array([np.cos(tilt_axis), np.sin(tilt_axis), 0.0]), tilt) @ _axis_angle(
            np.array([0.0, 0.0, 1.0]), yaw
        )
        inc = np.radians(rng.uniform(*motion.rotation_increment_deg))
        r_b = _axis_angle(_unit(rng), inc) @ r_a
        scale_b = scale_a * rng.uniform(*motion.scale_b)
        pos_b = np.asarray(pos_a) + rng.uniform(-motion.translation_b, motion.translation_b, 3)
        objects.append(
            {
                "asset": assets[int(pick[k])].asset_id,
                "asset_index": int(pick[k]),
                "position": [np.round(pos_a, 6).tolist(), np.round(pos_b, 6).tolist()],
                "rotation_euler": [
                    np.round(matrix_to_euler_xyz(r_a), 9).tolist(),
                    np.round(matrix_to_euler_xyz(r_b), 9).tolist(),
                ],
                "scale": [round(float(scale_a), 6), round(float(scale_b), 6)],
                "rotation_increment_deg": round(float(np.degrees(inc)), 4),
            }
        )
    az_a = rng.uniform(0, 360.0)
    el_a = rng.uniform(10.0, 40.0)
    d_az = rng.uniform(*motion.azimuth_change_deg) * rng.choice([-1.0, 1.0])
    el_b = float(
        np.clip(el_a + rng.uniform(-motion.elevation_change_deg, motion.elevation_change_deg), 0, 60)
    )
    margin = rng.uniform(0.65, 0.9)
    views = [
        {"azimuth_deg": round(az_a, 4), "elevation_deg": round(el_a, 4)},
        {"azimuth_deg": round(az_a + d_az, 4), "elevation_deg": round(el_b, 4)},
    ]
    return {"n_objects": n, "objects": objects, "views": views, "distance_margin": round(float(margin), 4)}


def _distinct_colour(rng: np.random.Generator, background: np.ndarray) -> list[float]:
    """A colour in [0.1, 0.9]^3 differing from ``background`` by at least :data:`COLOUR_SEPARATION` in some
    channel (redrawn until it does), so objects never blend into the background."""
    while True:
        c = rng.uniform(0.1, 0.9, 3)
        if np.abs(c - background).max() >= COLOUR_SEPARATION:
            return np.round(c, 4).tolist()


def sample_surface(rng: np.random.Generator, n_objects: int) -> dict[str, Any]:
    """Surface parameters: background colour (sRGB), world strength, sun, per-object fallback colour (apart
    from the background, see :func:`_distinct_colour`) and roughness."""
    background = np.round(rng.uniform(0.05, 0.95, 3), 4)
    out: dict[str, Any] = {
        "background": background.tolist(),
        "world_strength": round(float(rng.uniform(0.6, 1.4)), 4),
        "sun_azimuth_deg": round(float(rng.uniform(0, 360)), 3),
        "sun_elevation_deg": round(float(rng.uniform(20, 80)), 3),
        "sun_strength": round(float(rng.uniform(1.5, 4.5)), 3),
    }
    out["colours"] = [_distinct_colour(rng, background) for _ in range(n_objects)]
    out["roughness"] = [round(float(rng.uniform(0.2, 0.9)), 3) for _ in range(n_objects)]
    return out


def _camera_pose(s: dict, frame: int, aspect: float) -> tuple[np.ndarray, np.ndarray]:
    """(location (3,), quaternion wxyz (4,)) of the camera of ``frame``: looking at the objects' centroid
    from the view's azimuth/elevation, at the distance that fits every object's bounding sphere (radius
    scale x diagonal / 2) into the vertical half field of view, times the margin."""
    pos = np.array([o["position"][frame] for o in s["objects"]])
    c = pos.mean(0)
    radius = max(
        float(np.linalg.norm(p - c)) + o["scale"][frame] * DIAGONAL / 2 for p, o in zip(pos, s["objects"])
    )
    half_fov = np.arctan(SENSOR_MM / aspect / 2 / LENS_MM)
    dist = radius / np.sin(half_fov) * s["distance_margin"]
    az, el = np.radians(s["views"][frame]["azimuth_deg"]), np.radians(s["views"][frame]["elevation_deg"])
    loc = c + dist * np.array([np.sin(az) * np.cos(el), -np.cos(az) * np.cos(el), np.sin(el)])
    return loc, look_at_quaternion(loc, c)


def compile_scene(s: dict, surface: dict, assets: list[Asset], width: int, height: int) -> Scene:
    """The two-frame :class:`~simkit.core.scene.Scene` of structure ``s`` and look ``surface``."""
    objects = []
    for k, o in enumerate(s["objects"]):
        a = assets[o["asset_index"]]
        track = Track(
            np.array(o["position"], float),
            np.array(o["rotation_euler"], float),
            np.repeat(np.array(o["scale"])[:, None], 3, 1),
        )
        mat = None
        if not a.has_texture:
            mat = Material(f"colour{k}", tuple(surface["colours"][k]), surface["roughness"][k])
        objects.append(
            SceneObject(
                f"object{k}", "object", "mesh", (), mat, track, mesh=MeshSource(a.path, DIAGONAL, a.asset_id)
            )
        )
    poses = [_camera_pose(s, f, width / height) for f in (0, 1)]
    cam = Camera(
        tuple(poses[0][0].tolist()),
        (0.0, 0.0, 0.0),
        LENS_MM,
        SENSOR_MM,
        CameraTrack(np.stack([p[0] for p in poses]), np.stack([p[1] for p in poses])),
    )
    sun = Sun(
        np.radians(surface["sun_azimuth_deg"]),
        np.radians(surface["sun_elevation_deg"]),
        surface["sun_strength"],
    )
    return Scene(
        2, 1.0, objects, cam, sun, tuple(surface["background"]), world_strength=surface["world_strength"]
    )


def object_matrix(o: dict, frame: int) -> np.ndarray:
    """Object-to-world (4, 4) of a structural object record on ``frame`` (``T @ R @ S``)."""
    m = np.eye(4)
    m[:3, :3] = euler_xyz_to_matrix(o["rotation_euler"][frame]) * o["scale"][frame]
    m[:3, 3] = o["position"][frame]
    return m
