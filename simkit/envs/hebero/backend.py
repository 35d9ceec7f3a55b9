"""Simulation backends of ``simkit/Hebero-v0`` behind one small interface.

A backend runs N environments; environment i runs task ``task_of[i]``. Environments whose task
models give MuJoCo data of the same layout form a *layout group* (the ten libero_goal tasks share
one scene, libero_object one arena and object set, ...); every array a backend exposes is per
group, shape (n_g, ...) in the group's environment order ``env_ids``. The env's controller,
observations, rewards and goal tests are array code over these arrays, so a GPU backend
(MuJoCo Warp) only has to implement :class:`Backend`.

CPU backend (:class:`CpuBatchBackend`): one ``mujoco.batch.Batch`` per layout group (MuJoCo's C
thread pool over many simulations), with ``set_models`` giving each simulation its task's model.
Task geometry differs between tasks of a group but not between environments of a task: fixtures
are mocap bodies, so a layout is state (``qpos``, ``mocap_pos``, ``mocap_quat``), not a model edit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from simkit.assets.mujoco_log import import_mujoco
from simkit.core.errors import InputError, SimkitError

#: derived MuJoCo fields the env reads every step, (n_g, ...) arrays
FIELDS = (
    "qpos",
    "qvel",
    "xpos",
    "xquat",
    "xmat",
    "xanchor",
    "xaxis",
    "site_xpos",
    "site_xmat",
    "geom_xpos",
    "geom_xmat",
    "sensordata",
)


@dataclass
class Group:
    """Environments that share one MuJoCo data layout.

    Attributes:
        env_ids: (n_g,) int global environment indices, ascending.
        tasks: (n_g,) int task index of each environment.
        model: a representative ``MjModel`` (sizes, names; ids are equal across the group's tasks
            only for the robot, which every task adds last in the same way).
    """

    env_ids: np.ndarray
    tasks: np.ndarray
    model: Any


class Backend(Protocol):
    """What the env needs from a simulator (CPU ``mujoco.batch`` now, MuJoCo Warp later)."""

    groups: list[Group]

    def arrays(self, g: int) -> dict[str, np.ndarray]:
        """Live (n_g, ...) arrays of :data:`FIELDS` and ``ctrl`` for group g (current after each call)."""
        ...

    def states(self, g: int) -> np.ndarray:
        """Group g's live (n_g, nstate) integration-state rows."""
        ...

    def set_state(self, g: int, local: np.ndarray, state: np.ndarray) -> None:
        """Load full integration states (len(local), nstate) into group g's environments ``local``."""
        ...

    def step(self, nstep: int) -> None:
        """Advance every environment by ``nstep`` physics steps with its current ``ctrl``; afterwards the
        arrays describe the new state."""
        ...

    def jac(self, g: int, body: np.ndarray, point: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Translational and rotational Jacobians (n_g, 3, nv) of world points (n_g, 3) on bodies (n_g,)."""
        ...

    def get_data(self, g: int, local: int) -> Any:
        """One environment's ``(MjModel, MjData)`` after ``mj_forward`` (rendering, debugging)."""
        ...


def layout_signature(model) -> tuple[int, ...]:
    """Sizes that fix an ``MjData`` layout (environments with equal signatures can share a batch)."""
    return tuple(
        int(getattr(model, k))
        for k in ("nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite", "nmocap", "nsensordata", "neq")
    )


class CpuBatchBackend:
    """``mujoco.batch.Batch`` per layout group (see module doc).

    Args:
        models: one ``MjModel`` per task.
        task_of: (N,) task index of each environment.
        nthread: threads of each batch's pool (0: all cores).
    """

    def __init__(self, models: Sequence[Any], task_of: np.ndarray, nthread: int = 0):
        mujoco = import_mujoco()
        try:
            from mujoco.batch import Batch
        except ImportError:
            raise SimkitError(
                f"mujoco {mujoco.__version__} has no mujoco.batch; install mujoco>=4 (pip install -U mujoco)"
            ) from None
        self._mj = mujoco
        self.models = list(models)
        self.task_of = np.asarray(task_of, int)
        self.groups: list[Group] = []
        self._batches: list[Any] = []
        self._arrays: list[dict[str, np.ndarray]] = []
        for ks in self._layout_groups(Batch):
            env_ids = np.flatnonzero(np.isin(self.task_of, ks))
            if len(env_ids) == 0:
                continue
            tasks = self.task_of[env_ids]
            batch = Batch(self.models[ks[0]], len(env_ids), nthread=nthread)
            batch.set_models([self.models[t] for t in tasks])
            self.groups.append(Group(env_ids, tasks, self.models[ks[0]]))
            self._batches.append(batch)
            arr = {f: batch.bind(f) for f in FIELDS}
            arr["ctrl"] = batch.bind("ctrl")
            self._arrays.append(arr)
        self._spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
        self._stage = int(mujoco.mjtStage.mjSTAGE_POS)

    def _layout_groups(self, batch_cls) -> list[list[int]]:
        """Task indices grouped so that each group's models give one MjData layout: first by
        :func:`layout_signature`, then checked with ``Batch.set_models`` (greedy split on failure)."""
        sigs: dict[tuple[int, ...], list[int]] = {}
        for k, m in enumerate(self.models):
            sigs.setdefault(layout_signature(m), []).append(k)
        groups: list[list[int]] = []
        for ks in sigs.values():
            subs: list[list[int]] = []
            for k in ks:
                for sub in subs:
                    probe = batch_cls(self.models[sub[0]], 1, nthread=1)
                    try:
                        probe.set_models([self.models[k]])
                    except Exception:  # MuJoCo's FatalError: another data layout
                        continue
                    sub.append(k)
                    break
                else:
                    subs.append([k])
            groups += subs
        return groups

    def arrays(self, g: int) -> dict[str, np.ndarray]:
        return self._arrays[g]

    def states(self, g: int) -> np.ndarray:
        """Group g's live (n_g, nstate) integration-state rows (``mjSTATE_INTEGRATION``)."""
        return self._batches[g].state

    def state_size(self, g: int) -> int:
        return int(self._batches[g].nstate)

    def set_state(self, g: int, local: np.ndarray, state: np.ndarray) -> None:
        b = self._batches[g]
        b.state[local] = state
        b.forward(np.asarray(local, int))

    def step(self, nstep: int) -> None:
        # stage POS: after the last substep compute kinematics and collisions at the new state, so that
        # positions, contacts and the contact sensors (needstage POS) describe the state the env
        # returns, not the one a substep before; velocities are state and always current
        for b in self._batches:
            b.step(nstep=nstep, stage=self._stage)

    def jac(self, g: int, body: np.ndarray, point: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._batches[g].jac(body, point)

    def get_data(self, g: int, local: int) -> Any:
        b = self._batches[g]
        model = self.models[int(self.groups[g].tasks[local])]
        data = b.get_data(int(local), self._mj.MjData(model))
        self._mj.mj_forward(model, data)
        return model, data


def make_backend(name: str, models: Sequence[Any], task_of: np.ndarray, nthread: int = 0) -> Backend:
    """The backend called ``name``: ``"cpu"`` (MuJoCo batch). ``"warp"`` is the GPU vector env of
    :mod:`simkit.envs.hebero.warp` (``gymnasium.make_vec(..., backend="warp")``), not a backend of this class.

    Raises:
        InputError: an unknown backend, or "warp" here (one line).
    """
    if name == "cpu":
        return CpuBatchBackend(models, task_of, nthread)
    if name == "warp":
        raise InputError(
            None,
            "backend 'warp' is a separate vector env: use gymnasium.make_vec('simkit/Hebero-v0', "
            "backend='warp', ...) (needs a CUDA GPU and the mujoco-warp package: pip install 'simkit[gpu]')",
        )
    raise InputError(None, f"backend must be 'cpu' or 'warp' (a CUDA GPU), not {name!r}")
