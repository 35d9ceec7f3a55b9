"""The WROP task language: a small declarative vocabulary for object permanence / solidity scenes.

* :mod:`.spec`: neutral scene data (primitives, roles, materials, sun, camera, keyframed tracks);
* :mod:`.camera`: moving cameras (a per-frame orbit view: pans, dollies, cranes);
* :mod:`.motion`: analytic keyframed motion (linear, eased, arcs, parabolic drops, 1-D collisions, rolling);
* :mod:`.palette`: the surface palette (colours, finishes, floors, skies);
* :mod:`.params`: structural / surface parameter spaces;
* :mod:`.expect`: declared expectations (hidden, visible, side, contact, momentum, ...) as typed objects, their
  compose-time validation (:class:`~.expect.AuthoringError`) and their checker;
* :mod:`.claims`: what an outcome text claims (rolls back, stops, passes through), checked on trajectories.

No rigid-body solver: every trajectory is an analytic keyframe track and every
event happens at a frame the task author declares. Nothing here imports ``bpy``.
"""

from simkit.scenes.wrop.camera import ViewPath
from simkit.scenes.wrop.motion import G, Motion, collide_1d, fall_frames, fall_height
from simkit.scenes.wrop.palette import COLOURS, FINISHES, FLOORS, SKIES, material, pick_colours
from simkit.scenes.wrop.params import Choice, IntRange, Uniform, sample_space
from simkit.scenes.wrop.spec import (
    PRIMITIVES,
    ROLES,
    Camera,
    Material,
    Scene,
    SceneObject,
    Sun,
    Track,
    orbit_camera,
)

__all__ = [
    "COLOURS",
    "FINISHES",
    "FLOORS",
    "PRIMITIVES",
    "ROLES",
    "SKIES",
    "Camera",
    "Choice",
    "G",
    "IntRange",
    "Material",
    "Motion",
    "Scene",
    "SceneObject",
    "Sun",
    "Track",
    "Uniform",
    "ViewPath",
    "collide_1d",
    "fall_frames",
    "fall_height",
    "material",
    "orbit_camera",
    "pick_colours",
    "sample_space",
]
