"""One ``hebero-demos`` corpus sample -> LIBERO's per-step observation arrays, and the task facts exporters need.

A sample holds T actions and T + 1 rows of every per-step field (row t: before action t, row T:
after the last action), see :class:`simkit.generators.hebero.generator.HeberoDemosGenerator`.
:func:`obs_rows` returns T + 1 rows per key; exporters take rows 0..T-1 as ``obs`` and rows
1..T as ``next_obs``.

Observation keys follow LIBERO's dataset script (``scripts/create_dataset.py`` of
Lifelong-Robot-Learning/LIBERO), computed from simkit's fields:

==================  ===========  =========================================================
key                 shape        meaning (world frame, z up, metres, radians)
==================  ===========  =========================================================
``joint_states``    (7,)         Panda arm joint positions, rad
``gripper_states``  (2,)         finger joint positions, m
``ee_pos``          (3,)         grip-site position, m
``ee_ori``          (3,)         grip-site orientation as an axis-angle vector (angle * axis), rad
``ee_states``       (6,)         ``ee_pos`` then ``ee_ori``
``robot_states``    (9,)         ``gripper_states``, ``ee_pos``, grip-site quaternion (x, y, z, w)
``object_poses``    (7 N,)       simkit's object poses flattened: N x (x, y, z, qw, qx, qy, qz)
``agentview_rgb``   (H, W, 3)    uint8 RGB of the front camera, row 0 = top (when recorded)
``eye_in_hand_rgb`` (H, W, 3)    uint8 RGB of the wrist camera, row 0 = top (when recorded)
``*_depth``         (H, W, 1)    float32 depth in metres (when recorded)
==================  ===========  =========================================================

``robot_states`` keeps LIBERO's order and robosuite's (x, y, z, w) quaternion convention
(LIBERO's ``get_robot_state_vector``: gripper qpos, eef pos, eef quat); every other quaternion in
simkit is (w, x, y, z).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simkit.core.errors import InputError

#: cameras a hebero-demos corpus may record: video field ``<camera>_rgb``, depth ``<camera>_depth``
CAMERAS = ("agentview", "eye_in_hand")
LOW_DIM_KEYS = (
    "joint_states",
    "gripper_states",
    "ee_pos",
    "ee_ori",
    "ee_states",
    "robot_states",
    "object_poses",
)
#: corpus fields every exported sample must have
REQUIRED = ("actions", "states", "joint_states", "gripper_states", "ee_pos", "object_poses", "demo")


@dataclass(frozen=True)
class TaskInfo:
    """What an exporter needs to know about one task beyond the corpus.

    Attributes:
        task_id: ``<suite>/<name>``, e.g. ``goal/turn_on_the_stove``.
        libero_dir: LIBERO's folder of the suite (``libero_goal``, ``libero_10``, ...).
        instruction: the BDDL ``:language`` text.
        problem_name: the BDDL problem class (``LIBERO_Kitchen_Tabletop_Manipulation``).
        domain_name: the BDDL ``:domain`` (``robosuite``).
        bddl_content: the BDDL file's text.
        model_xml: the MJCF text of simkit's task model (the model the states belong to).
        env_args: robomimic's ``env_args`` (env_name, type, env_kwargs, ...) that rebuild the env.
        ee_quat: states (T1, S) float64 (``mjSTATE_INTEGRATION`` rows) -> (T1, 4) grip-site
            quaternions (w, x, y, z), world frame.
    """

    task_id: str
    libero_dir: str
    instruction: str
    problem_name: str
    domain_name: str
    bddl_content: str
    model_xml: str
    env_args: dict[str, Any]
    ee_quat: Callable[[np.ndarray], np.ndarray] = field(compare=False)

    @property
    def name(self) -> str:
        """The task's file stem (LIBERO's BDDL and dataset names)."""
        return self.task_id.split("/", 1)[1]

    @property
    def bddl_file_name(self) -> str:
        """The BDDL path inside LIBERO's package tree, ``bddl_files/<libero_dir>/<name>.bddl``."""
        return f"bddl_files/{self.libero_dir}/{self.name}.bddl"

    @property
    def dataset_file(self) -> str:
        """LIBERO's dataset file name, ``<libero_dir>/<name>_demo.hdf5``."""
        return f"{self.libero_dir}/{self.name}_demo.hdf5"


#: (task id, the ``demo`` meta of the task's first sample) -> :class:`TaskInfo`
TaskInfoFn = Callable[[str, Mapping[str, Any]], TaskInfo]


def check_sample(sample: Mapping[str, Any], where: str) -> tuple[str, int]:
    """(task id, T) of a sample; raises :class:`InputError` naming ``where`` when a field is missing or
    the per-step fields do not have T + 1 rows."""
    missing = [k for k in REQUIRED if sample.get(k) is None]
    if missing:
        raise InputError(where, f"episode {sample.get('__key__')}: missing field(s) {', '.join(missing)}")
    t = len(sample["actions"])
    for k in ("states", "joint_states", "gripper_states", "ee_pos", "object_poses", *camera_fields(sample)):
        if len(sample[k]) != t + 1:
            raise InputError(
                where, f"episode {sample['__key__']}: {k} has {len(sample[k])} rows, expected {t + 1}"
            )
    return str(sample["demo"]["task_id"]), t


def camera_fields(sample: Mapping[str, Any]) -> list[str]:
    """The camera fields (``<camera>_rgb``, ``<camera>_depth``) a sample recorded, in :data:`CAMERAS` order."""
    return [f"{c}_{k}" for c in CAMERAS for k in ("rgb", "depth") if sample.get(f"{c}_{k}") is not None]


def axis_angle(quat_wxyz: np.ndarray) -> np.ndarray:
    """(..., 4) unit quaternions (w, x, y, z) -> (..., 3) axis-angle vectors (angle * unit axis), rad.

    angle = 2 acos(w) in [0, 2 pi], axis = (x, y, z) / sqrt(1 - w^2), zero where sin(angle / 2) < 1e-12
    (the convention of robosuite's ``quat2axisangle``, which LIBERO's ``ee_ori`` uses).
    """
    q = np.asarray(quat_wxyz, np.float64)
    w = np.clip(q[..., 0], -1.0, 1.0)
    s = np.sqrt(np.maximum(1.0 - w * w, 0.0))
    scale = np.where(s < 1e-12, 0.0, 2.0 * np.arccos(w) / np.where(s < 1e-12, 1.0, s))
    return q[..., 1:] * scale[..., None]


def obs_rows(sample: Mapping[str, Any], info: TaskInfo) -> dict[str, np.ndarray]:
    """LIBERO observation key -> (T + 1, ...) array for one sample (table in the module docstring)."""
    states = np.asarray(sample["states"], np.float64)
    quat = np.asarray(info.ee_quat(states), np.float64)
    ee_pos = np.asarray(sample["ee_pos"])
    grip = np.asarray(sample["gripper_states"])
    ori = axis_angle(quat)
    out = {
        "joint_states": np.asarray(sample["joint_states"]),
        "gripper_states": grip,
        "ee_pos": ee_pos,
        "ee_ori": ori,
        "ee_states": np.concatenate([ee_pos, ori], axis=1),
        "robot_states": np.concatenate([grip, ee_pos, quat[:, [1, 2, 3, 0]]], axis=1),
        "object_poses": np.asarray(sample["object_poses"]).reshape(len(states), -1),
    }
    for f in camera_fields(sample):
        arr = np.asarray(sample[f])
        out[f] = arr if f.endswith("_rgb") else arr.astype(np.float32).reshape(*arr.shape[:3], 1)
    return out


def split_masks(n: int, valid_every: int = 10) -> tuple[list[int], list[int]]:
    """(train, valid) demo indices: demo i is validation when ``i % valid_every == valid_every - 1``, and
    with 2 to ``valid_every - 1`` demos the last one is (so a small file still has both splits); one
    demo is train only. Deterministic: the split depends only on the index."""
    valid = [i for i in range(n) if i % valid_every == valid_every - 1]
    if not valid and n >= 2:
        valid = [n - 1]
    return [i for i in range(n) if i not in valid], valid
