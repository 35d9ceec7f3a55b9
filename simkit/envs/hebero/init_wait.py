"""LIBERO's wait after loading one of its fixed initial states, on a task's own MuJoCo model.

LIBERO's evaluation (``libero/lifelong/metric.py``, ``evaluate_one_task_success``; the same in
``libero/lifelong/evaluate.py``) loads a state with ``env.set_init_state(...)`` and then steps
``np.zeros(7)`` five times ("dummy actions ... for initial physics simulation") before the policy
acts; its step counter starts after them. A recorded state is not at rest (objects at LIBERO's
sampler heights, up to 7 cm above their support), so the policy's first observation is the state
after that wait. :func:`wait_state` simulates the same five control steps here: the arm takes
simkit's zero action (its joint targets are the current joint positions at each control step, as
:func:`~simkit.envs.hebero.kernels.arm_targets` gives for a = 0; LIBERO's ``OSC_POSE`` with a zero
delta likewise holds the current pose) and the fingers LIBERO's zero gripper action: robosuite's
Panda gripper maps it to the middle of its finger control ranges, (0.02, -0.02) m (``Manipulator.
grip_action``: bias + weight * 0 on ``ctrlrange`` (0, 0.04) and (-0.04, 0); simkit's own zero action
would open the gripper, :mod:`~simkit.envs.hebero.kernels`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simkit.assets.mujoco_log import import_mujoco

LIBERO_WAIT_STEPS = 5  #: zero-action control steps LIBERO's evaluation takes after set_init_state
LIBERO_ZERO_FINGERS = (0.02, -0.02)  #: m, finger targets of robosuite's Panda gripper at action 0


def wait_state(model: Any, state: np.ndarray, steps: int, substeps: int) -> np.ndarray:
    """The state after ``steps`` zero-action control steps of ``substeps`` physics steps each.

    Args:
        model: the task's ``mujoco.MjModel`` (simkit names: ``robot/joint1..7``, ``robot/act1..7``,
            ``robot/gripper/finger_joint{1,2}_act``).
        state: (nstate,) float64 ``mjSTATE_INTEGRATION`` row of ``model`` (e.g. a mapped LIBERO state).
        steps: control steps (>= 0; 0 returns a copy of ``state``). substeps: physics steps per control
            step (the env's ``round(1 / (control_hz * timestep))``).

    Returns:
        (nstate,) float64 integration state after the wait, with the actuator targets of its last
        control step (the arm at its joint positions then, the fingers at
        :data:`LIBERO_ZERO_FINGERS`).
    """
    mujoco = import_mujoco()
    state = np.asarray(state, np.float64)
    if steps <= 0:
        return state.copy()
    spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)

    def find(kind, name: str) -> int:
        return mujoco.mj_name2id(model, kind, name)

    arm = [find(mujoco.mjtObj.mjOBJ_JOINT, f"robot/joint{i}") for i in range(1, 8)]
    arm_q = model.jnt_qposadr[arm].astype(int)
    arm_act = [find(mujoco.mjtObj.mjOBJ_ACTUATOR, f"robot/act{i}") for i in range(1, 8)]
    grip_act = [find(mujoco.mjtObj.mjOBJ_ACTUATOR, f"robot/gripper/finger_joint{i}_act") for i in (1, 2)]
    lo, hi = model.jnt_range[arm, 0], model.jnt_range[arm, 1]
    data = mujoco.MjData(model)
    mujoco.mj_setState(model, data, state, spec)
    mujoco.mj_forward(model, data)
    for _ in range(steps):
        data.ctrl[arm_act] = np.clip(data.qpos[arm_q], lo, hi)
        data.ctrl[grip_act] = LIBERO_ZERO_FINGERS
        for _ in range(substeps):
            mujoco.mj_step(model, data)
    out = np.empty(mujoco.mj_stateSize(model, spec))
    mujoco.mj_getState(model, data, out, spec)
    return out
