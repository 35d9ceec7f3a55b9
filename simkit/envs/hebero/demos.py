"""Scripted demonstrations of Hebero tasks: record and replay.

A :class:`Demo` is one episode of the scripted planner (:mod:`simkit.envs.hebero.scripted`) in a
one-env :class:`~simkit.envs.hebero.vector_env.HeberoVectorEnv`, stopped at the first step where
the goal holds (or after ``max_steps``). It keeps the full MuJoCo integration state of every
step, so a demo replays bit-exactly from its first state (same model, same actions).

The :class:`Demo` record, the demo command stream and the demo-tracking reward live below the
vector env, in :mod:`simkit.envs.hebero.stream`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simkit.assets.mujoco_log import import_mujoco
from simkit.envs.hebero.stream import Demo
from simkit.scenes.hebero.cameras import DEFAULT_IMAGE_SIZE


def _snapshot(env, task, out: dict[str, list]) -> None:
    mujoco = import_mujoco()
    model, data = env.backend.get_data(0, 0)
    row = np.empty(task.nstate)
    mujoco.mj_getState(model, data, row, task.state_spec)
    b = task.scene.binding
    out["states"].append(row)
    out["joint_states"].append(np.array(data.qpos[task.arm_q]))
    out["gripper_states"].append(np.array(data.qpos[task.finger_q]))
    out["ee_pos"].append(np.array(data.site_xpos[task.ee_site]))
    poses = []
    for n in task.desc["objects"]:
        bid = b.bodies[n]
        poses.append(np.concatenate([data.xpos[bid], data.xquat[bid]]))
    out["object_poses"].append(np.array(poses).reshape(-1, 7))
    out["articulation"].append(np.array(data.qpos[task.fixture_q]))


HOLD_STEPS = 10  #: control steps (0.5 s at 20 Hz) the goal must keep holding, gripper open, to end a demo


def record_demo(
    env,
    seed: int,
    max_steps: int = 600,
    init_state: int | None = None,
    log: list[str] | None = None,
    cameras: Sequence[str] = (),
    image_size: int = DEFAULT_IMAGE_SIZE,
    depth: bool = False,
) -> Demo:
    """Run the scripted planner (:class:`~simkit.envs.hebero.scripted.ScriptedPolicy`, each goal atom
    planned from the state the previous one left) in a one-env :class:`HeberoVectorEnv` from
    ``reset(seed=seed)``, or from LIBERO's fixed initial state ``init_state`` (0..49) when given.

    Stops once the planner has nothing left to do and the goal has held for :data:`HOLD_STEPS`
    consecutive steps with the gripper open, once it has nothing left to do and the goal has not
    held for :data:`HOLD_STEPS` steps, or after ``max_steps``. ``success`` is the goal on the last
    stored state. ``log`` (a list), when given, receives the atoms the planner gave up on and why.
    ``cameras`` (``agentview``, ``eye_in_hand``; the env built with visual models, :func:`demo_env`
    ``visual=True``) fills ``Demo.images`` with one ``image_size`` square image per state (and depth
    with ``depth``); the images never change the states or actions.
    """
    from simkit.envs.hebero.scripted import ScriptedPolicy

    env.cfg.terminate_on_success = False
    env.cfg.horizon = max_steps + 1
    env.reset(seed=seed, options=None if init_state is None else {"init_state": init_state})
    task = env.tasks[0]
    model, data = env.backend.get_data(0, 0)
    task.scene.data = data
    policy = ScriptedPolicy(
        task.scene, data.site_xmat[task.ee_site].reshape(3, 3).copy(), env.cfg.pos_scale, env.cfg.rot_scale
    )
    rec: dict[str, list] = {
        k: [] for k in ("states", "joint_states", "gripper_states", "ee_pos", "object_poses", "articulation")
    }
    actions, rewards = [], []
    frames: dict[str, list[np.ndarray]] = {}
    cams = tuple(cameras)

    def snapshot() -> None:
        _snapshot(env, task, rec)
        if cams:
            for k, v in env.camera_images(cams, image_size, depth, envs=[0]).items():
                frames.setdefault(k, []).append(v[0])

    snapshot()
    success, held, idle = False, 0, 0
    for _ in range(max_steps):
        arr = env.backend.arrays(0)
        a = policy.action(
            lambda: env.backend.get_data(0, 0)[1],
            arr["site_xpos"][0, task.ee_site],
            arr["site_xmat"][0, task.ee_site].reshape(3, 3),
        )
        _, r, _, _, info = env.step(a[None])
        actions.append(a)
        rewards.append(float(r[0]))
        snapshot()
        success = bool(info["success"][0])
        if policy.finished:
            held, idle = (held + 1 if success else 0), idle + 1
            if held >= HOLD_STEPS or idle >= 2 * HOLD_STEPS:
                break
    if log is not None:
        log.extend(policy.log)
    return Demo(
        task_id=env.task_names[0],
        seed=seed,
        actions=np.asarray(actions, np.float32).reshape(-1, 7),
        states=np.asarray(rec["states"]),
        joint_states=np.asarray(rec["joint_states"]),
        gripper_states=np.asarray(rec["gripper_states"]),
        ee_pos=np.asarray(rec["ee_pos"]),
        object_poses=np.asarray(rec["object_poses"]),
        articulation=np.asarray(rec["articulation"]).reshape(len(rec["states"]), -1),
        rewards=np.asarray(rewards, np.float32),
        success=success,
        object_names=list(task.desc["objects"]),
        articulation_names=[task.model.joint(j).name for j in task.fixture_joints],
        images={k: np.stack(v) for k, v in frames.items()},
    )


def replay(env, demo: Demo, env_index: int = 0) -> tuple[bool, np.ndarray]:
    """Replay ``demo``'s actions open loop in env ``env_index`` from its first state.

    Returns:
        (goal held at the end, (T,) success flag per step). The env's other envs receive zero actions.
    """
    g, local = _locate(env, env_index)
    env.backend.set_state(g, np.array([local]), demo.states[:1])
    env.prev_action[env_index] = 0.0
    env.elapsed[env_index] = 0
    flags = []
    for a in demo.actions:
        acts = np.zeros((env.num_envs, 7))
        acts[env_index] = a
        _, _, _, _, info = env.step(acts)
        flags.append(bool(info["success"][env_index]))
    return (flags[-1] if flags else False), np.asarray(flags)


def _locate(env, env_index: int) -> tuple[int, int]:
    for g, grp in enumerate(env.backend.groups):
        hit = np.flatnonzero(grp.env_ids == env_index)
        if len(hit):
            return g, int(hit[0])
    raise IndexError(env_index)


def demo_env(task: str, libero_root: str | Path | None = None, visual: bool = False):
    """A one-env, one-thread :class:`HeberoVectorEnv` of ``task`` for recording demos; ``visual`` keeps
    the visual meshes for camera images (same dynamics, bit for bit)."""
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    return HeberoVectorEnv(
        num_envs=1,
        tasks=[task],
        libero_root=libero_root,
        nthread=1,
        render_mode="rgb_array" if visual else None,
    )


_SCENES: dict[str, Any] = {}


def goal_on_state(task: str, state: np.ndarray, libero_root: str | Path | None = None) -> bool:
    """The task's goal (contact-scan predicates) on one MuJoCo integration state of simkit's task model.

    Raises:
        InputError: the state's length does not match the task model.
    """
    from simkit.core.errors import InputError
    from simkit.envs.hebero.tasks import descriptors
    from simkit.sims.hebero.scene import build_scene

    mujoco = import_mujoco()
    if task not in _SCENES:
        _SCENES[task] = build_scene(descriptors([task], libero_root)[0], libero_root, visual=False)
    sc = _SCENES[task]
    spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
    n = mujoco.mj_stateSize(sc.model, spec)
    if len(state) != n:
        raise InputError(None, f"{task}: a state has {len(state)} values, the task model needs {n}")
    mujoco.mj_setState(sc.model, sc.data, np.ascontiguousarray(state, np.float64), spec)
    mujoco.mj_forward(sc.model, sc.data)
    return bool(sc.success())
