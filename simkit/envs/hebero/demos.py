"""Scripted demonstrations of Hebero tasks: record, replay, and the demo-tracking reward.

A :class:`Demo` is one episode of the scripted planner (:mod:`simkit.envs.hebero.scripted`) in a
one-env :class:`~simkit.envs.hebero.vector_env.HeberoVectorEnv`, stopped at the first step where
the goal holds (or after ``max_steps``). It keeps the full MuJoCo integration state of every
step, so a demo replays bit-exactly from its first state (same model, same actions).

Demo command stream (Hebero spec): per env the task id, the active demo and the time cursor
r_e; at step t the reference index is m_e(t) = min(r_e + t, T - 1) and the normalised cursor
phi_t = m_e(t) / max(T - 1, 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.assets.mujoco_log import import_mujoco
from simkit.envs.hebero.scripted import Tracker, plan_task


@dataclass
class Demo:
    """One demonstration (T actions, T + 1 states).

    Attributes:
        task_id: ``<suite>/<name>``. seed: the reset seed of its initial state.
        actions: (T, 7) float32 env actions in [-1, 1].
        states: (T + 1, S) float64 MuJoCo ``mjSTATE_INTEGRATION`` rows of simkit's task model.
        joint_states: (T + 1, 7) arm joint positions, rad. gripper_states: (T + 1, 2) finger joints, m.
        ee_pos: (T + 1, 3) grip-site position, m, world.
        object_poses: (T + 1, n, 7) movable objects' root poses, position m + quaternion (w x y z), world.
        articulation: (T + 1, k) hinge/slide joints of the fixtures (rad or m).
        rewards: (T,) float32 task reward. success: the goal holds at the last state.
        object_names, articulation_names: names of the columns (simkit's scene names).
    """

    task_id: str
    seed: int
    actions: np.ndarray
    states: np.ndarray
    joint_states: np.ndarray
    gripper_states: np.ndarray
    ee_pos: np.ndarray
    object_poses: np.ndarray
    articulation: np.ndarray
    rewards: np.ndarray
    success: bool
    object_names: list[str] = field(default_factory=list)
    articulation_names: list[str] = field(default_factory=list)

    @property
    def length(self) -> int:
        return len(self.actions)


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


def record_demo(env, seed: int, max_steps: int = 600) -> Demo:
    """Run the scripted planner in a one-env :class:`HeberoVectorEnv` from ``reset(seed=seed)``.

    Stops at the first step where the goal holds (``success`` True), when the plan ends, or after
    ``max_steps``. A goal the planner has no primitive for (e.g. Close) gets an empty plan: a one-step
    demo with ``success`` False.
    """
    env.cfg.terminate_on_success = False
    env.cfg.horizon = max_steps + 1
    env.reset(seed=seed)
    task = env.tasks[0]
    model, data = env.backend.get_data(0, 0)
    task.scene.data = data  # the planner reads the initial state through the scene's evaluator
    try:
        plan = plan_task(task.scene, data)
    except ValueError:  # a goal the planner has no primitive for: an empty plan, a failed demo
        plan = []
    tracker = Tracker(
        plan, data.site_xmat[task.ee_site].reshape(3, 3).copy(), env.cfg.pos_scale, env.cfg.rot_scale
    )
    rec: dict[str, list] = {
        k: [] for k in ("states", "joint_states", "gripper_states", "ee_pos", "object_poses", "articulation")
    }
    actions, rewards = [], []
    _snapshot(env, task, rec)
    success = False
    for _ in range(max_steps):
        arr = env.backend.arrays(0)
        a = tracker.action(arr["site_xpos"][0, task.ee_site], arr["site_xmat"][0, task.ee_site].reshape(3, 3))
        _, r, _, _, info = env.step(a[None])
        actions.append(a)
        rewards.append(float(r[0]))
        _snapshot(env, task, rec)
        success = bool(info["success"][0])
        if success or tracker.done:
            break
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


def demo_cursor(r_e: np.ndarray, t: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Command-stream cursor: m_e(t) = min(r_e + t, T - 1) and phi_t = m_e(t) / max(T - 1, 1) (arrays (n,))."""
    m = np.minimum(r_e + t, length - 1)
    return m, m / np.maximum(length - 1, 1)


def demo_reward(errors: dict[str, np.ndarray], w: Any) -> np.ndarray:
    """r_demo = sum_m w_m exp(-||e_m|| / sigma_m) over the tracking terms (Hebero spec).

    Args:
        errors: term name -> (n,) error norms for ``ee_pos`` (m), ``arm_qpos`` (rad), ``arm_qvel``
            (rad/s), ``gripper`` (m), ``objects`` (m), ``articulation`` (m or rad).
        w: :class:`~simkit.envs.hebero.config.DemoRewardWeights`.
    """
    total = np.zeros_like(next(iter(errors.values())), dtype=np.float64)
    for k, e in errors.items():
        total += getattr(w, k) * np.exp(-np.asarray(e) / getattr(w, f"{k}_sigma"))
    return total


def tracking_errors(
    demo: Demo, m: int, qpos_arm, qvel_arm, fingers, ee, objects, articulation, control_hz: float = 20.0
) -> dict[str, float]:
    """Error norms of one env's state against reference index ``m`` of ``demo`` (see :func:`demo_reward`);
    the reference joint velocity is the demo's finite difference (q[m + 1] - q[m]) * control_hz, rad/s."""
    nxt = min(m + 1, demo.length)
    ref_v = (demo.joint_states[nxt] - demo.joint_states[m]) * control_hz
    return {
        "ee_pos": float(np.linalg.norm(ee - demo.ee_pos[m])),
        "arm_qpos": float(np.linalg.norm(qpos_arm - demo.joint_states[m])),
        "arm_qvel": float(np.linalg.norm(qvel_arm - ref_v)),
        "gripper": float(np.linalg.norm(fingers - demo.gripper_states[m])),
        "objects": float(np.linalg.norm(objects - demo.object_poses[m][:, :3], axis=-1).sum()),
        "articulation": float(np.linalg.norm(articulation - demo.articulation[m])),
    }


def demo_env(task: str, libero_root: str | Path | None = None):
    """A one-env, one-thread :class:`HeberoVectorEnv` of ``task`` for recording demos."""
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    return HeberoVectorEnv(num_envs=1, tasks=[task], libero_root=libero_root, nthread=1)


_SCENES: dict[str, Any] = {}


def goal_on_state(task: str, state: np.ndarray, libero_root: str | Path | None = None) -> bool:
    """The task's goal (contact-scan predicates) on one MuJoCo integration state of simkit's task model.

    Raises:
        InputError: the state's length does not match the task model.
    """
    from simkit.core.errors import InputError
    from simkit.envs.hebero.tasks import descriptors
    from simkit.sims.mujoco_scene import build_scene

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


class CommandStream:
    """Per-env demo command stream of the Hebero spec: task id, active demo, time cursor, phi_t.

    Args:
        demos: task index -> list of :class:`Demo` of that task (every task of the env needs one).
        task_of: (N,) task index per env.
        demo_start: reset envs to a demo state at a random cursor r_e (demo-start resets) instead
            of the env's own initial-state sampler; r_e = 0 otherwise.

    Arrays (N,): ``demo`` (index into ``demos[task]``), ``r`` (r_e), ``t`` (steps since reset).
    """

    def __init__(self, demos: dict[int, list[Demo]], task_of: np.ndarray, demo_start: bool = False):
        from simkit.core.errors import InputError

        missing = sorted({int(k) for k in task_of} - {k for k, v in demos.items() if v})
        if missing:
            raise InputError(None, f"the command stream has no demo for task index(es) {missing}")
        self.demos, self.task_of, self.demo_start = demos, np.asarray(task_of), demo_start
        n = len(task_of)
        self.demo = np.zeros(n, int)
        self.r = np.zeros(n, int)
        self.t = np.zeros(n, int)

    def on_reset(self, envs: np.ndarray, rngs: list[np.random.Generator]) -> dict[int, np.ndarray]:
        """Pick each reset env's demo (and r_e for demo-start resets); return env -> state to load
        (only with ``demo_start``; otherwise the env samples its own initial state)."""
        out: dict[int, np.ndarray] = {}
        for e in envs:
            pool = self.demos[int(self.task_of[e])]
            self.demo[e] = int(rngs[e].integers(len(pool)))
            d = pool[self.demo[e]]
            self.r[e] = int(rngs[e].integers(d.length)) if self.demo_start and d.length else 0
            self.t[e] = 0
            if self.demo_start:
                out[int(e)] = d.states[self.r[e]]
        return out

    def advance(self) -> None:
        """One control step passed in every env."""
        self.t += 1

    def lengths(self) -> np.ndarray:
        """(N,) length T of each env's active demo."""
        return np.array([self.demos[int(k)][i].length for k, i in zip(self.task_of, self.demo)])

    def cursor(self) -> tuple[np.ndarray, np.ndarray]:
        """(m_e(t), phi_t), both (N,): see :func:`demo_cursor`."""
        return demo_cursor(self.r, self.t, self.lengths())

    def reference(self, e: int) -> tuple[Demo, int]:
        """Env e's active demo and its reference index m_e(t)."""
        m, _ = demo_cursor(self.r[e : e + 1], self.t[e : e + 1], self.lengths()[e : e + 1])
        return self.demos[int(self.task_of[e])][self.demo[e]], int(m[0])
