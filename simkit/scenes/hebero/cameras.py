"""Hebero's two observation cameras, placed as LIBERO places them, and their pinhole model.

One place for both backends: the CPU task models (:mod:`simkit.sims.hebero.scene` adds the cameras
from :func:`camera_defs`) and any batch renderer read the names, poses and field of view here.

* ``agentview``: LIBERO's scene camera, fixed in the world. Its pose is the one each LIBERO problem
  class's ``_setup_camera`` writes over the arena's default (``libero/envs/problems/*.py``, set with
  robosuite's ``Arena.set_camera``: world position, MuJoCo quaternion (w, x, y, z)); the arena XMLs
  (``assets/scenes/*.xml``) give it no ``fovy``, so MuJoCo's default vertical field of view of
  45 degrees applies.
* ``eye_in_hand``: the wrist camera LIBERO records as ``robot0_eye_in_hand``: robosuite's Panda model
  (``models/assets/robots/panda/robot.xml``) mounts it on the ``right_hand`` body, 5 cm along the
  hand's x axis, with quaternion (0, 0.707108, 0.707108, 0) (the optical axis, camera -z, along the
  hand's +z, the approach direction, so it sees the fingers and what lies below them) and
  ``fovy`` 75 degrees. simkit's Panda is that model attached under the prefix ``robot/``, so the
  camera's body is ``robot/right_hand``.

Camera frame (MuJoCo's, OpenGL's): x right, y up, the camera looks along -z. Images are stored
upright: row 0 is the top of the image, column 0 its left edge (``mujoco.Renderer`` flips OpenGL's
bottom-up read-back; LIBERO's own datasets store robosuite's raw bottom-up frames, so a LIBERO
image equals a simkit image flipped vertically). Depth is the distance along the optical axis,
metres (MuJoCo's depth buffer linearised with the clipping planes :data:`ZNEAR`, :data:`ZFAR`;
nothing drawn: :data:`ZFAR`). Only visual geoms are drawn (geom group 1 and up, as robosuite draws
LIBERO's cameras with its collision meshes hidden), without shadows or reflections (LIBERO's
lights cast none).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: the cameras an observation or a demo can ask for, in their default order
CAMERA_NAMES: tuple[str, ...] = ("agentview", "eye_in_hand")
#: side of a camera image, px (LIBERO's ``ControlEnv`` default and its released datasets: 128 x 128)
DEFAULT_IMAGE_SIZE = 128
#: MuJoCo's default vertical field of view, degrees (``mjsCamera.fovy``), LIBERO's agentview
MUJOCO_DEFAULT_FOVY = 45.0
#: near and far clipping distances of every camera, m: the wrist camera sees the fingertips about
#: 5 cm away; MuJoCo's defaults scale with the model's extent (0.01 and 50 times it), which the
#: provisional entity poses of a task model inflate to about 35 m (znear 0.35 m would clip the hand)
ZNEAR, ZFAR = 0.01, 20.0


@dataclass(frozen=True)
class CameraDef:
    """A fixed camera of a task model.

    Attributes:
        name: the camera's name in the compiled model (``model.camera(name)``).
        body: the body it is mounted on: ``"world"`` or a body name of simkit's task model.
        pos: (3,) position in the body's frame, m.
        quat: (4,) orientation in the body's frame, MuJoCo's (w, x, y, z).
        fovy: vertical field of view, degrees.
        source: where the numbers come from.
    """

    name: str
    body: str
    pos: tuple[float, float, float]
    quat: tuple[float, float, float, float]
    fovy: float
    source: str


_Q_TABLE = (0.6380177736282349, 0.3048497438430786, 0.30484986305236816, 0.6380177736282349)
_Q_LOW = (0.6182166934013367, 0.3432307541370392, 0.3432314395904541, 0.6182177066802979)

#: LIBERO problem class -> agentview (world position m, quaternion (w, x, y, z)), from its
#: ``_setup_camera`` (``libero/envs/problems/<class>.py``)
AGENTVIEW_POSES: dict[str, tuple[tuple[float, float, float], tuple[float, float, float, float]]] = {
    "libero_tabletop_manipulation": ((0.6586131746834771, 0.0, 1.6103500240372423), _Q_TABLE),
    "libero_kitchen_tabletop_manipulation": ((0.6586131746834771, 0.0, 1.6103500240372423), _Q_TABLE),
    "libero_study_tabletop_manipulation": ((0.4586131746834771, 0.0, 1.6103500240372423), _Q_TABLE),
    "libero_living_room_tabletop_manipulation": ((0.6065773716836134, 0.0, 0.96), _Q_LOW),
    "libero_coffee_table_manipulation": ((1.5, 0.0, 0.9), (0.56, 0.43, 0.43, 0.56)),
    "libero_floor_manipulation": ((0.8965773716836134, 5.216182733499864e-07, 0.65), _Q_LOW),
}

#: robosuite's Panda wrist camera (``robot.xml``, body ``right_hand``), simkit's body name
EYE_IN_HAND = CameraDef(
    name="eye_in_hand",
    body="robot/right_hand",
    pos=(0.05, 0.0, 0.0),
    quat=(0.0, 0.707108, 0.707108, 0.0),
    fovy=75.0,
    source="robosuite models/assets/robots/panda/robot.xml, camera eye_in_hand on right_hand",
)


def agentview(problem: str) -> CameraDef:
    """LIBERO's agentview camera of a problem class (the descriptor's ``arena.problem``, any case).

    Raises:
        KeyError: a problem class LIBERO has no agentview pose for.
    """
    key = problem.lower()
    if key not in AGENTVIEW_POSES:
        raise KeyError(f"no agentview pose for LIBERO problem class {problem!r}")
    pos, quat = AGENTVIEW_POSES[key]
    return CameraDef(
        "agentview",
        "world",
        pos,
        quat,
        MUJOCO_DEFAULT_FOVY,
        f"LIBERO {key}._setup_camera; fovy MuJoCo default",
    )


def camera_defs(problem: str) -> tuple[CameraDef, ...]:
    """The observation cameras (:data:`CAMERA_NAMES` order) of a task whose arena is ``problem``."""
    return (agentview(problem), EYE_IN_HAND)


def focal_length_px(fovy_deg: float, height: int) -> float:
    """Focal length in pixels of a MuJoCo camera: ``f = (H / 2) / tan(fovy / 2)`` (square pixels;
    MuJoCo's ``fovy`` is the vertical field of view, ``mjv_updateCamera``)."""
    return (height / 2.0) / math.tan(math.radians(fovy_deg) / 2.0)


def project(
    points: np.ndarray, cam_pos: np.ndarray, cam_xmat: np.ndarray, fovy_deg: float, width: int, height: int
) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates of world points in an upright image of the camera.

    Args:
        points: (P, 3) world positions, m.
        cam_pos: (3,) camera position (``data.cam_xpos``), m.
        cam_xmat: (3, 3) or (9,) camera orientation (``data.cam_xmat``; columns = camera x, y, z in world).
        fovy_deg: vertical field of view, degrees.
        width, height: image size, px.

    Returns:
        ``uv`` (P, 2) float64: column u (0 = left edge of the image) and row v (0 = top edge),
        continuous (pixel k spans [k, k + 1)); ``depth`` (P,) distance along the optical axis, m
        (negative: behind the camera). ``u = W/2 + f x_c / d``, ``v = H/2 - f y_c / d`` with
        ``(x_c, y_c, -d)`` the point in the camera frame and ``f`` from :func:`focal_length_px`.
    """
    rot = np.asarray(cam_xmat, float).reshape(3, 3)
    local = (np.asarray(points, float).reshape(-1, 3) - np.asarray(cam_pos, float)) @ rot
    depth = -local[:, 2]
    f = focal_length_px(fovy_deg, height)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = width / 2.0 + f * local[:, 0] / depth
        v = height / 2.0 - f * local[:, 1] / depth
    return np.stack([u, v], axis=1), depth


def pixel_rays(cam_xmat: np.ndarray, fovy_deg: float, width: int, height: int) -> np.ndarray:
    """World directions (H, W, 3) through the centre of every pixel of an upright image, scaled so
    that their component along the optical axis is 1 (a point at depth d is ``cam_pos + d * ray``)."""
    rot = np.asarray(cam_xmat, float).reshape(3, 3)
    f = focal_length_px(fovy_deg, height)
    u = (np.arange(width) + 0.5 - width / 2.0) / f
    v = (height / 2.0 - (np.arange(height) + 0.5)) / f
    local = np.stack(np.broadcast_arrays(u[None, :], v[:, None], -np.ones((height, width))), axis=-1)
    return local @ rot.T
