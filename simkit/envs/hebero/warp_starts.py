"""Start states of the GPU backend: CPU task-model states on a layout group's union model, in one pool.

The CPU env keeps a task's state as a MuJoCo ``mjSTATE_INTEGRATION`` row of the task's own model
(:class:`~simkit.envs.hebero.vector_env.TaskModel`); the GPU backend simulates a task on its layout
group's union model (:mod:`simkit.sims.hebero.layout_models`), where the task's entities have other
names and ids and the others are parked. :class:`StateMap` moves a task state onto the union model
by name: every joint of a task body (free joints of objects, fixture hinges and slides, the robot)
to the joint of the same body on the union model (``<task entity>`` -> ``<union entity>``, the
cache's name map; robot bodies keep their names), fixture mocap poses likewise, actuator targets by
actuator name; parked entities keep the task's layout-bank entry 0 (where
:func:`~simkit.sims.hebero.layout_models.task_layouts` parks them). ``mj_forward`` on the union
model (with the task's per-world ``body_gravcomp``) then gives the kinematics the first observation
reads (:data:`~simkit.sims.hebero.layout_models.BANK_KINEMATICS`), as the layout bank stores them.

:class:`StartPool` holds every start state of a group in one set of device tensors (rows), in
named sections (``bank``: the layout bank; ``libero``: LIBERO's fixed initial states; ``boxes``:
layouts drawn in reset boxes; ``demo``: every state of every demo), each section a (tasks, blocks)
table of first rows and row counts; a reset gathers rows by index (static shapes, no host sync).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simkit.sims.hebero.layout_models import BANK_KINEMATICS

#: MuJoCo state arrays a start row sets (besides the kinematics)
STATE_KEYS = ("qpos", "qvel", "ctrl", "mocap_pos", "mocap_quat")
_QW = {0: 7, 1: 4, 2: 1, 3: 1}  # qpos width per mjtJoint (free, ball, slide, hinge)
_VW = {0: 6, 1: 3, 2: 1, 3: 1}  # dof width


def _union_name(name: str, names: dict[str, str]) -> str | None:
    """A task body name on the union model: ``<task entity>[/rest]`` -> ``<union entity>[/rest]``;
    robot (and other) bodies keep their name; None for the world body."""
    if not name:
        return None
    head, sep, rest = name.partition("/")
    return names[head] + sep + rest if head in names else name


class StateMap:
    """Index maps from one task model's state onto its group's union model (see module doc).

    Args:
        union: the union ``MjModel`` (the cache's). task_model: the task's own ``MjModel``.
        names: task entity name -> union entity name (the cache's ``names[task_id]``).

    Raises:
        InputError: a task body with joints, or a mocap body, that the union model lacks.
    """

    def __init__(self, union: Any, task_model: Any, names: dict[str, str]):
        import mujoco

        from simkit.core.errors import InputError

        q, v, mocap = [], [], []
        body = mujoco.mjtObj.mjOBJ_BODY
        for tb in range(1, task_model.nbody):
            if task_model.body_jntnum[tb] == 0 and task_model.body_mocapid[tb] < 0:
                continue
            un = _union_name(mujoco.mj_id2name(task_model, body, tb) or "", names)
            ub = mujoco.mj_name2id(union, body, un) if un else -1
            if ub < 0:
                raise InputError(None, f"task body {tb} ({un}) has no union-model counterpart")
            if task_model.body_mocapid[tb] >= 0:
                mocap.append((int(task_model.body_mocapid[tb]), int(union.body_mocapid[ub])))
            for k in range(int(task_model.body_jntnum[tb])):
                tj, uj = int(task_model.body_jntadr[tb]) + k, int(union.body_jntadr[ub]) + k
                jt = int(task_model.jnt_type[tj])
                q += [(task_model.jnt_qposadr[tj] + i, union.jnt_qposadr[uj] + i) for i in range(_QW[jt])]
                v += [(task_model.jnt_dofadr[tj] + i, union.jnt_dofadr[uj] + i) for i in range(_VW[jt])]
        act = mujoco.mjtObj.mjOBJ_ACTUATOR
        u = [
            (a, mujoco.mj_name2id(union, act, mujoco.mj_id2name(task_model, act, a)))
            for a in range(task_model.nu)
        ]
        self.q, self.v = np.array(q, int).reshape(-1, 2), np.array(v, int).reshape(-1, 2)
        self.mocap = np.array(mocap, int).reshape(-1, 2)
        self.act = np.array([p for p in u if p[1] >= 0], int).reshape(-1, 2)
        self.task_model, self.union = task_model, union

    def rows(
        self, states: np.ndarray, base: dict[str, np.ndarray], gravcomp: np.ndarray
    ) -> dict[str, np.ndarray]:
        """Union-model start rows of task states.

        Args:
            states: (n, nstate) ``mjSTATE_INTEGRATION`` rows of the task model.
            base: one union row (``STATE_KEYS``: qpos (nq,), qvel (nv,), ctrl (nu,), mocap_pos
                (nmocap, 3), mocap_quat (nmocap, 4)) for what the task state does not set (parked entities).
            gravcomp: (nbody,) the task's per-world ``body_gravcomp`` on the union model.

        Returns:
            ``STATE_KEYS`` and :data:`BANK_KINEMATICS` arrays, (n, ...) float64 each.
        """
        import mujoco

        tm, um = self.task_model, self.union
        td, ud = mujoco.MjData(tm), mujoco.MjData(um)
        spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
        saved = np.array(um.body_gravcomp)
        um.body_gravcomp[:] = gravcomp
        out: dict[str, list] = {k: [] for k in (*STATE_KEYS, *BANK_KINEMATICS)}
        try:
            for row in np.asarray(states, np.float64):
                mujoco.mj_setState(tm, td, np.ascontiguousarray(row), spec)
                for k in STATE_KEYS:
                    getattr(ud, k)[:] = base[k]
                ud.qpos[self.q[:, 1]] = td.qpos[self.q[:, 0]]
                ud.qvel[self.v[:, 1]] = td.qvel[self.v[:, 0]]
                ud.ctrl[self.act[:, 1]] = td.ctrl[self.act[:, 0]]
                ud.mocap_pos[self.mocap[:, 1]] = td.mocap_pos[self.mocap[:, 0]]
                ud.mocap_quat[self.mocap[:, 1]] = td.mocap_quat[self.mocap[:, 0]]
                mujoco.mj_forward(um, ud)
                for k in out:
                    out[k].append(np.array(getattr(ud, k)))
        finally:
            um.body_gravcomp[:] = saved
        return {k: np.stack(v).reshape(len(v), *np.shape(getattr(ud, k))) for k, v in out.items()}


class StartPool:
    """A group's start states as device tensors (see module doc).

    ``sections[name]`` is, per group task (the cache's task order), a list of row blocks (dicts of
    (n, ...) arrays, :meth:`StateMap.rows` layout); :meth:`upload` concatenates them into ``rows``
    (name -> (R, ...) float32 tensors) with ``first[name]`` / ``count[name]`` (tasks, blocks) int64
    tensors (first row and rows of each block; 0 rows where a task has fewer blocks).
    """

    def __init__(self, num_tasks: int):
        self.num_tasks = num_tasks
        self.sections: dict[str, list[list[dict[str, np.ndarray]]]] = {}
        self.rows: dict[str, Any] = {}
        self.first: dict[str, Any] = {}
        self.count: dict[str, Any] = {}

    def upload(self, torch: Any, device: Any) -> None:
        parts: list[dict[str, np.ndarray]] = []
        for name, per_task in self.sections.items():
            nb = max(1, max(len(b) for b in per_task))
            first, count = np.zeros((self.num_tasks, nb), np.int64), np.zeros((self.num_tasks, nb), np.int64)
            for t, blocks in enumerate(per_task):
                for i, blk in enumerate(blocks):
                    first[t, i] = sum(len(p["qpos"]) for p in parts)
                    count[t, i] = len(blk["qpos"])
                    parts.append(blk)
            self.first[name] = torch.as_tensor(first, device=device)
            self.count[name] = torch.as_tensor(count, device=device)
        self.rows = {
            k: torch.as_tensor(np.concatenate([p[k] for p in parts]), device=device, dtype=torch.float32)
            for k in parts[0]
        }

    def draw(self, name: str, wtask: Any, u: Any) -> Any:
        """(W,) rows: for world w a uniform row of block 0 of section ``name`` of its task (u: (W,) in [0, 1))."""
        import torch

        cnt = self.count[name][wtask, 0]
        k = torch.minimum((u * cnt).long(), torch.clamp(cnt - 1, min=0))
        return self.first[name][wtask, 0] + k

    def at(self, name: str, wtask: Any, block: Any, index: Any) -> Any:
        """(W,) rows: row ``index`` of block ``block`` of section ``name`` ((W,) int64 each), clamped
        into the block."""
        import torch

        cnt = self.count[name][wtask, block]
        return self.first[name][wtask, block] + torch.minimum(index, torch.clamp(cnt - 1, min=0))


class CachedTask:
    """What the GPU backend reads of a CPU task model, loaded from a cache instead of LIBERO's assets:
    the task's ``MjModel`` (the states of its demos are rows of it) and LIBERO's fixed initial states
    mapped onto it (:meth:`~simkit.envs.hebero.vector_env.TaskModel.libero_state`, (50, nstate))."""

    def __init__(self, model: Any, libero: np.ndarray):
        self.model, self._libero = model, libero

    def libero_state(self, k: int, wait: int = 0, substeps: int = 25) -> np.ndarray:
        """LIBERO's initial state ``k`` (nstate,) of this task, after ``wait`` zero-action control steps
        of ``substeps`` physics steps (:func:`~simkit.envs.hebero.init_wait.wait_state`; the CPU
        task model's :meth:`~simkit.envs.hebero.vector_env.TaskModel.libero_state`).

        Raises:
            InputError: ``k`` out of range.
        """
        from simkit.core.errors import InputError
        from simkit.envs.hebero.init_wait import wait_state

        if not 0 <= k < len(self._libero):
            raise InputError(None, f"init_state must be in [0, {len(self._libero)}), not {k}")
        return wait_state(self.model, self._libero[k], wait, substeps)


def export_task_models(cache_dir: Any, task_models: dict[str, Any]) -> list[Any]:
    """Write ``cache_dir/tasks/``: per task ``<i>.mjb`` (its model) and ``<i>_libero.npy`` (its LIBERO
    initial states, (50, nstate) float64), plus ``index.json`` (task ids), so that a machine without
    LIBERO's assets (a GPU box) maps demos and LIBERO's starts onto the union models.

    Args:
        cache_dir: a layout-group cache folder. task_models: task id -> CPU ``TaskModel``.

    Returns:
        the written paths.
    """
    import json
    from pathlib import Path

    import mujoco

    from simkit.scenes.hebero.init_states import load_task_states

    out = Path(cache_dir) / "tasks"
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for i, (tid, tm) in enumerate(task_models.items()):
        mujoco.mj_saveModel(tm.model, str(out / f"{i}.mjb"))
        states = np.stack([tm.libero_state(k) for k in range(len(load_task_states(tid)))])
        np.save(out / f"{i}_libero.npy", states)
        written += [out / f"{i}.mjb", out / f"{i}_libero.npy"]
    (out / "index.json").write_text(json.dumps(list(task_models)))
    return [*written, out / "index.json"]


def load_task_models(cache_dir: Any, task_ids: list[str]) -> dict[str, CachedTask] | None:
    """The :class:`CachedTask` of every task in ``task_ids`` from ``cache_dir/tasks`` (None when the
    cache holds no task models or lacks one of the tasks)."""
    import json
    from pathlib import Path

    import mujoco

    index = Path(cache_dir) / "tasks" / "index.json"
    if not index.is_file():
        return None
    ids = json.loads(index.read_text())
    if not set(task_ids) <= set(ids):
        return None
    out = {}
    for tid in task_ids:
        i = ids.index(tid)
        model = mujoco.MjModel.from_binary_path(str(index.parent / f"{i}.mjb"))
        out[tid] = CachedTask(model, np.load(index.parent / f"{i}_libero.npy"))
    return out
