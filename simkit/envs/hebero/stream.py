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
from pathlib import Path
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

    Arrays (N,): ``demo`` (index into ``demos[task]``), ``r`` (r_e), ``t`` (steps since reset),
    ``from_demo`` (bool: the running episode started on a demo state). A reverse curriculum over the
    demo starts (:meth:`set_start_window`, :class:`StartCurriculum`) narrows r_e to a window of the
    demo and mixes in the env's own starts; :meth:`pop_demo_start_stats` counts how the demo-started
    episodes ended.
    """

    def __init__(self, demos: dict[int, list[Demo]], task_of: np.ndarray, demo_start: bool = False):
        from simkit.core.errors import InputError

        missing = sorted({int(k) for k in task_of} - {k for k, v in demos.items() if v})
        if missing:
            raise InputError(None, f"the command stream has no demo for task index(es) {missing}")
        self.demos, self.task_of, self.demo_start = demos, np.asarray(task_of), demo_start
        n, k = len(task_of), max(demos) + 1
        self.demo = np.zeros(n, int)
        self.r = np.zeros(n, int)
        self.t = np.zeros(n, int)
        self.from_demo = np.zeros(n, bool)
        self.start_lo, self.start_hi, self.p_demo = np.zeros(k), np.ones(k), 1.0
        self.ends = np.zeros((k, 2), np.int64)

    def set_start_window(self, lo: Any, hi: Any = 1.0, p_demo: float = 1.0) -> None:
        """Demo-start resets from the next reset on: r_e uniform in [floor(lo_k T), ceil(hi_k T)) of
        the drawn demo (``lo``, ``hi``: (K,) or scalars in [0, 1] per task index k, at least one cursor
        wide; 0, 1 = the whole demo), and a demo start with probability ``p_demo`` (else the env's own
        initial state, r_e = 0)."""
        self.start_lo[:] = np.clip(np.asarray(lo, float), 0.0, 1.0)
        self.start_hi[:] = np.clip(np.asarray(hi, float), 0.0, 1.0)
        self.p_demo = float(p_demo)

    def record_ends(self, envs: np.ndarray, success: np.ndarray) -> None:
        """Count the episodes ending in ``envs`` that started on a demo state: per task index
        [episodes, successes] (``success`` (N,) bool of this step)."""
        e = np.asarray(envs, int)[self.from_demo[envs]]
        np.add.at(self.ends, (self.task_of[e], 0), 1)
        np.add.at(self.ends, (self.task_of[e], 1), success[e].astype(np.int64))

    def pop_demo_start_stats(self) -> np.ndarray:
        """(K, 2) int64 [episodes, successes] of the demo-started episodes ended since the last call."""
        out, self.ends = self.ends, np.zeros_like(self.ends)
        return out

    def on_reset(self, envs: np.ndarray, rngs: list[np.random.Generator]) -> dict[int, np.ndarray]:
        """Pick each reset env's demo (and r_e for demo-start resets); return env -> state to load
        (only with ``demo_start``; otherwise the env samples its own initial state)."""
        out: dict[int, np.ndarray] = {}
        for e in envs:
            k = int(self.task_of[e])
            pool = self.demos[k]
            self.demo[e] = int(rngs[e].integers(len(pool)))
            d = pool[self.demo[e]]
            start = self.demo_start and d.length > 0
            if start and self.p_demo < 1.0:  # the draw only when mixing, so that p_demo = 1 keeps the stream
                start = bool(rngs[e].random() < self.p_demo)
            lo = min(int(self.start_lo[k] * d.length), d.length - 1) if start else 0
            hi = min(max(int(np.ceil(self.start_hi[k] * d.length)), lo + 1), d.length) if start else 1
            self.r[e] = int(rngs[e].integers(lo, hi)) if start else 0
            self.t[e], self.from_demo[e] = 0, start
            if start:
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

    def reference_action(self) -> np.ndarray:
        """(N, 7) float32: each env's demo action at its cursor m_e(t) (the action the demo took from
        the state it tracks now, in [-1, 1])."""
        m, _ = self.cursor()
        return np.stack(
            [self.demos[int(k)][i].actions[j] for k, i, j in zip(self.task_of, self.demo, m)]
        ).astype(np.float32)

    def reference(self, e: int) -> tuple[Demo, int]:
        """Env e's active demo and its reference index m_e(t)."""
        m, _ = demo_cursor(self.r[e : e + 1], self.t[e : e + 1], self.lengths()[e : e + 1])
        return self.demos[int(self.task_of[e])][self.demo[e]], int(m[0])


#: tracking terms of :func:`demo_reward`, in the order :func:`torch_tracking_errors` returns them
TERMS = ("ee_pos", "arm_qpos", "arm_qvel", "gripper", "objects", "articulation")


class TorchDemoTable:
    """Demos padded into device tensors (the GPU backend's command stream reads them).

    Args:
        demos: task index (0..K-1) -> list of :class:`Demo` (every task needs one).
        num_tasks: K. device: torch device.

    Tensors, L = 1 + the longest demo's T, D = most demos of a task, O / A = most objects /
    articulated joints of a task (padding repeats nothing; masks say what is real):
    ``length`` (K, D) int64 T of each demo (1 for padding), ``count`` (K,) int64 demos per task,
    ``ee`` (K, D, L, 3) m, ``q`` (K, D, L, 7) rad, ``fingers`` (K, D, L, 2) m, ``objects``
    (K, D, L, O, 3) m (world positions of :attr:`Demo.object_names`), ``articulation`` (K, D, L, A),
    ``object_mask`` (K, O) / ``articulation_mask`` (K, A) bool; all float32.

    Raises:
        InputError: a task without a demo, or demos of one task with different object or joint columns.
    """

    def __init__(self, demos: dict[int, list[Demo]], num_tasks: int, device: Any):
        import torch

        from simkit.core.errors import InputError

        missing = [k for k in range(num_tasks) if not demos.get(k)]
        if missing:
            raise InputError(None, f"the command stream has no demo for task index(es) {missing}")
        for k in range(num_tasks):
            cols = {(tuple(d.object_names), tuple(d.articulation_names)) for d in demos[k]}
            if len(cols) > 1:
                raise InputError(None, f"demos of task index {k} name different object or joint columns")
        self.demos = {k: demos[k] for k in range(num_tasks)}
        D = max(len(v) for v in self.demos.values())
        L = 1 + max(d.length for v in self.demos.values() for d in v)
        O = max(1, max(d.object_poses.shape[1] for v in self.demos.values() for d in v))
        A = max(1, max(d.articulation.shape[1] for v in self.demos.values() for d in v))
        K = num_tasks
        host = {
            "ee": np.zeros((K, D, L, 3)),
            "q": np.zeros((K, D, L, 7)),
            "fingers": np.zeros((K, D, L, 2)),
            "objects": np.zeros((K, D, L, O, 3)),
            "articulation": np.zeros((K, D, L, A)),
            "actions": np.zeros((K, D, L, 7)),
        }
        length, omask, amask = np.ones((K, D), np.int64), np.zeros((K, O), bool), np.zeros((K, A), bool)
        for k, pool in self.demos.items():
            for i, d in enumerate(pool):
                n, no, na = d.length + 1, d.object_poses.shape[1], d.articulation.shape[1]
                length[k, i] = d.length
                host["ee"][k, i, :n] = d.ee_pos
                host["q"][k, i, :n] = d.joint_states
                host["fingers"][k, i, :n] = d.gripper_states
                host["objects"][k, i, :n, :no] = d.object_poses[:, :, :3]
                host["articulation"][k, i, :n, :na] = d.articulation
                host["actions"][k, i, : d.length] = d.actions
                omask[k, :no], amask[k, :na] = True, True

        def f32(x: np.ndarray) -> Any:
            return torch.as_tensor(x, device=device, dtype=torch.float32)

        self.ee, self.q, self.fingers = f32(host["ee"]), f32(host["q"]), f32(host["fingers"])
        self.objects, self.articulation = f32(host["objects"]), f32(host["articulation"])
        self.actions = f32(host["actions"])
        self.length = torch.as_tensor(length, device=device)
        self.count = torch.as_tensor([len(self.demos[k]) for k in range(K)], device=device)
        self.object_mask = torch.as_tensor(omask, device=device)
        self.articulation_mask = torch.as_tensor(amask, device=device)


class TorchCommandStream:
    """:class:`CommandStream` on device tensors, for CUDA-graph capture (static shapes, no host sync).

    Args:
        table: the demos (:class:`TorchDemoTable`). task_of: (N,) int64 tensor, task index per env.
        demo_start: draw r_e uniformly in [0, T) of the drawn demo on reset (else r_e = 0).

    Tensors (N,) int64: ``demo``, ``r`` (r_e), ``t`` (steps since reset), ``from_demo`` (N,) bool,
    as :class:`CommandStream`; the reverse curriculum's ``start_lo`` (K,) float32 and ``p_demo`` ()
    float32 are tensors updated in place, so captured graphs see new values. The draws (demo uniform
    among the task's demos, then r_e) use ``generator``; they are not the CPU stream's numpy draws,
    so the two backends pick different demos for the same seed.
    """

    def __init__(self, table: TorchDemoTable, task_of: Any, demo_start: bool = False):
        import torch

        self.table, self.task_of, self.demo_start = table, task_of, demo_start
        self.demo = torch.zeros_like(task_of)
        self.r = torch.zeros_like(task_of)
        self.t = torch.zeros_like(task_of)
        self.from_demo = torch.zeros_like(task_of, dtype=torch.bool)
        k = table.count.shape[0]
        self.start_lo = torch.zeros(k, device=task_of.device)
        self.start_hi = torch.ones(k, device=task_of.device)
        self.p_demo = torch.ones((), device=task_of.device)
        self.ends = torch.zeros((k, 2), dtype=torch.int64, device=task_of.device)

    def set_start_window(self, lo: Any, hi: Any = 1.0, p_demo: float = 1.0) -> None:
        """:meth:`CommandStream.set_start_window` (written into the tensors in place)."""
        import torch

        for dst, v in ((self.start_lo, lo), (self.start_hi, hi)):
            x = np.broadcast_to(np.asarray(v, np.float32), dst.shape)
            dst.copy_(torch.as_tensor(x, device=dst.device).clamp(0.0, 1.0))
        self.p_demo.fill_(float(p_demo))

    def record_ends(self, done: Any, success: Any) -> None:
        """Count the demo-started episodes ending where ``done`` (N,) bool (no host sync)."""
        import torch

        ended = done & self.from_demo
        rows = torch.stack([ended.long(), (ended & success).long()], dim=1)
        self.ends.index_add_(0, self.task_of, rows)

    def pop_demo_start_stats(self) -> np.ndarray:
        """:meth:`CommandStream.pop_demo_start_stats` (one host sync)."""
        out = self.ends.cpu().numpy().copy()
        self.ends.zero_()
        return out

    def on_reset(self, mask: Any, generator: Any) -> None:
        """Draw a demo (and r_e with ``demo_start``) for the envs where ``mask`` (N,) bool is True; t = 0."""
        import torch

        u = torch.rand((3, len(mask)), device=mask.device, generator=generator)
        count = self.table.count[self.task_of]
        demo = torch.minimum((u[0] * count).long(), count - 1)
        r = torch.zeros_like(demo)
        start = torch.zeros_like(mask)
        if self.demo_start:
            length = self.table.length[self.task_of, demo]
            lo, hi = self.start_lo[self.task_of], self.start_hi[self.task_of]
            start = u[2] < self.p_demo
            first = torch.minimum((lo * length).long(), length - 1)
            span = torch.maximum(torch.ceil(hi * length).long() - first, torch.ones_like(first))
            cur = torch.minimum(first + (u[1] * span).long(), length - 1)
            r = torch.where(start, cur, r)
        self.demo.copy_(torch.where(mask, demo, self.demo))
        self.r.copy_(torch.where(mask, r, self.r))
        self.from_demo.copy_(torch.where(mask, start, self.from_demo))
        self.t.copy_(torch.where(mask, torch.zeros_like(self.t), self.t))

    def set(self, demo: Any, r: Any) -> None:
        """Put every env on demo ``demo`` at cursor r_e = ``r`` ((N,) int64 tensors), t = 0."""
        self.demo.copy_(demo)
        self.r.copy_(r)
        self.t.zero_()
        self.from_demo.fill_(True)

    def advance(self) -> None:
        """One control step passed in every env."""
        self.t += 1

    def lengths(self) -> Any:
        """(N,) T of each env's active demo."""
        return self.table.length[self.task_of, self.demo]

    def cursor(self) -> tuple[Any, Any]:
        """(m_e(t) (N,) int64, phi_t (N,) float32): :func:`demo_cursor`'s formulas."""
        import torch

        length = self.lengths()
        m = torch.minimum(self.r + self.t, length - 1)
        return m, m.float() / torch.clamp(length - 1, min=1).float()

    def reference_action(self) -> Any:
        """(N, 7) float32: each env's demo action at its cursor m_e(t) (the action the demo took from
        the state it tracks now; :meth:`CommandStream.reference_action` on the CPU)."""
        m, _ = self.cursor()
        return self.table.actions[self.task_of, self.demo, m]

    def errors(self, q, qvel, fingers, ee, objects, articulation, control_hz: float) -> dict[str, Any]:
        """Tracking-error norms (N,) per term of :data:`TERMS`: :func:`tracking_errors` for every env.

        Args:
            q, qvel: (N, 7) arm joints, rad and rad/s. fingers: (N, 2) m. ee: (N, 3) grip site, m, world.
            objects: (N, O, 3) world positions of the task's objects in :attr:`Demo.object_names`
                order (padding columns ignored). articulation: (N, A) fixture joints (padding ignored).
        """
        import torch

        tb, k, d = self.table, self.task_of, self.demo
        m, _ = self.cursor()
        nxt = torch.minimum(m + 1, self.lengths())
        ref_v = (tb.q[k, d, nxt] - tb.q[k, d, m]) * control_hz
        omask, amask = tb.object_mask[k], tb.articulation_mask[k]
        obj = torch.linalg.vector_norm(objects - tb.objects[k, d, m], dim=-1)
        art = torch.where(amask, articulation - tb.articulation[k, d, m], torch.zeros_like(articulation))
        norm = torch.linalg.vector_norm
        return {
            "ee_pos": norm(ee - tb.ee[k, d, m], dim=-1),
            "arm_qpos": norm(q - tb.q[k, d, m], dim=-1),
            "arm_qvel": norm(qvel - ref_v, dim=-1),
            "gripper": norm(fingers - tb.fingers[k, d, m], dim=-1),
            "objects": torch.where(omask, obj, torch.zeros_like(obj)).sum(-1),
            "articulation": norm(art, dim=-1),
        }


def torch_demo_reward(errors: dict[str, Any], w: Any) -> Any:
    """:func:`demo_reward` on (N,) torch tensors: sum_m w_m exp(-||e_m|| / sigma_m)."""
    import torch

    total = torch.zeros_like(errors["ee_pos"])
    for k, e in errors.items():
        total = total + getattr(w, k) * torch.exp(-e / getattr(w, f"{k}_sigma"))
    return total


def demos_from_samples(samples: Any) -> dict[str, list[Demo]]:
    """Task id -> :class:`Demo` list from decoded ``hebero-demos`` corpus samples (dicts of the
    generator's fields, e.g. ``simkit.episodes.reader.iter_corpus(path)``), in corpus order.

    Raises:
        InputError: a sample without the generator's fields (not a ``hebero-demos`` corpus).
    """
    from simkit.core.errors import InputError

    out: dict[str, list[Demo]] = {}
    for s in samples:
        meta = s.get("demo")
        if not isinstance(meta, dict) or "states" not in s or "task_id" not in meta:
            raise InputError(None, f"sample {s.get('__key__', '?')} is not a hebero-demos episode")
        states = np.asarray(s["states"], np.float64)
        d = Demo(
            task_id=meta["task_id"],
            seed=int(meta.get("seed", 0)),
            actions=np.asarray(s["actions"], np.float32).reshape(-1, 7),
            states=states,
            joint_states=np.asarray(s["joint_states"], np.float64),
            gripper_states=np.asarray(s["gripper_states"], np.float64),
            ee_pos=np.asarray(s["ee_pos"], np.float64),
            object_poses=np.asarray(s["object_poses"], np.float64).reshape(len(states), -1, 7),
            articulation=np.asarray(s["articulation"], np.float64).reshape(len(states), -1),
            rewards=np.asarray(s["rewards"], np.float32),
            success=bool(meta.get("success", False)),
            object_names=list(meta.get("object_names", [])),
            articulation_names=list(meta.get("articulation_names", [])),
        )
        out.setdefault(d.task_id, []).append(d)
    return out


#: the array fields of :class:`Demo` a demo pack stores (:func:`save_demo_pack`)
PACK_FIELDS = ("actions", "states", "joint_states", "gripper_states", "ee_pos", "object_poses",
               "articulation", "rewards")  # fmt: skip


def save_demo_pack(demos: dict[str, list[Demo]], path: str | Path) -> Path:
    """Write demos (task id -> :class:`Demo` list) into one compressed ``.npz`` file, e.g. to carry
    a ``hebero-demos`` corpus's demonstrations to a training machine (about 5x smaller: arrays as
    float32, images dropped). :func:`load_demo_pack` reads it back.

    Returns:
        the path written.
    """
    import json

    arrays: dict[str, np.ndarray] = {}
    meta: list[dict[str, Any]] = []
    for task_id, pool in demos.items():
        for d in pool:
            i = len(meta)
            for f in PACK_FIELDS:
                arrays[f"{i}_{f}"] = np.asarray(getattr(d, f), np.float32)
            meta.append({"task_id": task_id, "seed": d.seed, "success": d.success,
                         "object_names": d.object_names, "articulation_names": d.articulation_names})  # fmt: skip
    path = Path(path)
    np.savez_compressed(path, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays)
    return path


def load_demo_pack(path: str | Path) -> dict[str, list[Demo]]:
    """Task id -> :class:`Demo` list from a pack of :func:`save_demo_pack` (arrays back in the dtypes
    of :class:`Demo`; values rounded to float32).

    Raises:
        InputError: not a readable demo pack.
    """
    import json
    import zipfile

    from simkit.core.errors import InputError

    try:
        with np.load(path) as z:
            meta = json.loads(z["meta"].tobytes())
            arr = {k: z[k] for k in z.files if k != "meta"}
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise InputError(path, f"not a demo pack ({type(exc).__name__})") from None
    out: dict[str, list[Demo]] = {}
    f64 = ("states", "joint_states", "gripper_states", "ee_pos", "object_poses", "articulation")
    for i, m in enumerate(meta):
        a = {f: arr[f"{i}_{f}"].astype(np.float64 if f in f64 else np.float32) for f in PACK_FIELDS}
        out.setdefault(m["task_id"], []).append(
            Demo(
                task_id=m["task_id"],
                seed=int(m["seed"]),
                success=bool(m["success"]),
                object_names=list(m["object_names"]),
                articulation_names=list(m["articulation_names"]),
                **a,
            )
        )
    return out


@dataclass
class StartCurriculum:
    """Reverse curriculum over demo-start resets (the reverse curriculum of RFCL, Tao et al., ICLR
    2024, with one start window per task instead of one per demo): episodes of task k start at a cursor uniform in the tail
    [lo_k T, T) of a demo; once those episodes succeed often enough, lo_k moves towards the demo's
    start, so the policy learns a task backwards from its end, and from lo_k = 0 on it starts from
    anywhere in the demos, its first state included.

    Args:
        num_tasks: K. start: initial lo_k in [0, 1]. width: the window [lo_k, lo_k + width) (capped at
            1), so that the success rate measures the frontier, not the tail already learned.
        step: how far lo_k moves per update that passes. threshold: success rate of the demo-started
            episodes of a task since the last update that moves its lo_k. min_episodes: fewer
            finished episodes than this leave lo_k where it is.

    Attributes:
        lo: (K,) float64, the current window starts; :attr:`hi` their ends.
    """

    num_tasks: int
    start: float = 0.75
    width: float = 0.3
    step: float = 0.1
    threshold: float = 0.6
    min_episodes: int = 8
    lo: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.lo = np.full(self.num_tasks, float(np.clip(self.start, 0.0, 1.0)))

    @property
    def hi(self) -> np.ndarray:
        """(K,) window ends, min(lo + width, 1)."""
        return np.minimum(self.lo + self.width, 1.0)

    def update(self, stats: np.ndarray) -> np.ndarray:
        """New lo (K,) from ``stats`` (K, 2) [episodes, successes] of the demo-started episodes
        (:meth:`CommandStream.pop_demo_start_stats`)."""
        eps, ok = np.asarray(stats, float).T
        rate = np.divide(ok, eps, out=np.zeros_like(ok), where=eps > 0)
        passed = (eps >= self.min_episodes) & (rate >= self.threshold)
        self.lo = np.where(passed, np.maximum(self.lo - self.step, 0.0), self.lo)
        return self.lo
