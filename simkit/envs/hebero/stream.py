"""The Hebero demo command stream and demo-tracking reward, below the vector env that uses them.

A :class:`Demo` is one recorded demonstration (:mod:`simkit.envs.hebero.demos` records and replays
them). Demo command stream (Hebero spec): per env the task id, the active demo and the time cursor
r_e; at step t the reference index is m_e(t) = min(r_e + t, T - 1) and the normalised cursor
phi_t = m_e(t) / max(T - 1, 1). :class:`CommandStream` keeps it; :func:`tracking_errors` and
:func:`demo_reward` give the demo-tracking reward the
:class:`~simkit.envs.hebero.vector_env.HeberoVectorEnv` adds when demos are attached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


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
        images: camera images per step when recorded (``record_demo(cameras=...)``): ``<camera>_rgb``
            (T + 1, H, W, 3) uint8 and ``<camera>_depth`` (T + 1, H, W) float32 m; upright
            (:mod:`simkit.scenes.hebero.cameras`). Empty otherwise.
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
    images: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def length(self) -> int:
        return len(self.actions)


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
