"""The WROP scene vocabulary on top of the backend-neutral render scene (:mod:`simkit.core.scene`).

A task generator builds a :class:`~simkit.core.scene.Scene` of primitives (``box``, ``sphere``,
``cylinder``, ``cup``, ``open_box``, ``wedge``) with keyframed tracks; :mod:`simkit.renderers.blender`
renders and measures it. This module re-exports those types and adds the WROP roles.

Conventions: SI units (metres, seconds, radians), right-handed world frame with z up, ground
plane z = 0. Frames are 0-based integers ``0 .. T-1``; the cut between input and target video is frame
``T // 2`` (the first target frame). Rotations of tracks are XYZ Euler angles in radians (Blender's default
``rotation_mode``); the trajectory a renderer reports uses quaternions (w, x, y, z).
"""

from __future__ import annotations

from simkit.core.scene import (
    PRIMITIVES,
    Camera,
    CameraTrack,
    Lamp,
    Material,
    Scene,
    SceneObject,
    Sun,
    Track,
    look_at_quaternion,
    matrix_to_quaternion,
    orbit_camera,
)

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

__all__ = [
    "PRIMITIVES",
    "ROLES",
    "Camera",
    "CameraTrack",
    "Lamp",
    "Material",
    "Scene",
    "SceneObject",
    "Sun",
    "Track",
    "look_at_quaternion",
    "matrix_to_quaternion",
    "orbit_camera",
]
