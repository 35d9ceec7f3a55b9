"""LIBERO / robomimic HDF5 demonstration files: write simkit demos, read demos onto simkit's scenes.

Layout (robomimic ``hdf5`` dataset, as LIBERO's ``*_demo.hdf5``): group ``data`` with attribute
``env_args`` (JSON) and ``total``; per demo ``data/demo_<k>`` with attribute ``num_samples``
and datasets ``actions`` (T, 7), ``states`` (T, S) flat MuJoCo states, ``rewards`` (T,),
``dones`` (T,), and ``obs/<key>`` (T, ...): ``joint_states`` (7, rad), ``gripper_states``
(2, m), ``ee_pos`` (3, m), plus simkit's ``object_poses`` (n, 7). robomimic and LIBERO loaders
read ``actions``, ``obs/*``, ``rewards``, ``dones`` and ``num_samples`` from it.

Flat ``states`` are only meaningful with the model that produced them. The reader therefore
maps a demo onto simkit's scene **by names**: the file (or the caller) names the joints whose
positions the state columns hold (``data.attrs["simkit_qpos_names"]`` written by simkit, or a
``qpos_names`` mapping passed in for a LIBERO file: column index -> joint name); each named
joint is looked up in simkit's task model by its name, never by column position. A name that
the scene lacks, a missing dataset or attribute is one :class:`~simkit.core.errors.InputError`
naming the file and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import InputError

REQUIRED = ("actions", "states")


def write_hdf5(path: str | Path, demos: Iterable[dict[str, Any]], env_args: dict[str, Any]) -> int:
    """Write demos (dicts with ``actions``, ``states``, ``joint_states``, ``gripper_states``, ``ee_pos``,
    ``object_poses``, ``rewards``, ``demo`` meta) to a robomimic-layout HDF5 file; returns the count.

    ``states`` keep simkit's T + 1 rows: row t is the state before action t, the last one after
    the final action; robomimic's per-step arrays take the first T rows.
    """
    import h5py

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    total = 0
    with h5py.File(path, "w") as f:
        data = f.create_group("data")
        data.attrs["env_args"] = json.dumps(env_args)
        qpos_names: dict[str, list[str]] = {}
        for d in demos:
            g = data.create_group(f"demo_{n}")
            t = len(d["actions"])
            meta = d["demo"]
            g.attrs["num_samples"] = t
            g.attrs["task_id"] = meta["task_id"]
            g.attrs["success"] = bool(meta["success"])
            g.attrs["seed"] = int(meta["seed"])
            g.create_dataset("actions", data=np.asarray(d["actions"], np.float64))
            g.create_dataset("states", data=np.asarray(d["states"][:t]))
            g.create_dataset("final_state", data=np.asarray(d["states"][t]))
            g.create_dataset("rewards", data=np.asarray(d["rewards"], np.float64))
            dones = np.zeros(t, np.int64)
            if t and meta["success"]:
                dones[-1] = 1
            g.create_dataset("dones", data=dones)
            obs = g.create_group("obs")
            for k in ("joint_states", "gripper_states", "ee_pos", "object_poses"):
                obs.create_dataset(k, data=np.asarray(d[k][:t]))
            qpos_names.setdefault(meta["task_id"], meta.get("qpos_names", []))
            n += 1
            total += t
        data.attrs["total"] = total
        data.attrs["simkit_qpos_names"] = json.dumps(qpos_names)
    return n


@dataclass
class FileDemo:
    """One demo read from an HDF5 file, with its qpos columns mapped onto a simkit task model.

    Attributes:
        name: ``demo_<k>``. actions: (T, 7). qpos: (T, nq) simkit qpos rows (joints the file does
            not name keep the model's defaults). obs: ``obs/*`` arrays.
    """

    name: str
    actions: np.ndarray
    qpos: np.ndarray
    obs: dict[str, np.ndarray]


def read_hdf5(
    path: str | Path, model, qpos_names: Mapping[int, str] | None = None, task_id: str | None = None
) -> list[FileDemo]:
    """Read every ``data/demo_*`` of a robomimic/LIBERO HDF5 file and map its states onto ``model``.

    Args:
        path: the HDF5 file.
        model: simkit's ``MjModel`` of the task.
        qpos_names: state column -> joint name (for files simkit did not write). Column c of a flat
            state holds ``qpos`` entry c + 1 (MuJoCo's flattened state starts with the time).
        task_id: which task's names to take from ``simkit_qpos_names`` (default: the only one).

    Raises:
        InputError: unreadable file, no ``data`` group, a demo missing ``actions``/``states``,
            actions not (T, 7), no qpos names, or a joint name that simkit's scene lacks.
    """
    import h5py

    from simkit.assets.mujoco_log import import_mujoco

    mujoco = import_mujoco()
    p = Path(path)
    try:
        f = h5py.File(p, "r")
    except OSError as exc:
        raise InputError(p, f"not a readable HDF5 file ({exc})") from None
    with f:
        if "data" not in f:
            raise InputError(p, "no 'data' group (not a robomimic/LIBERO demo file)")
        names = _column_names(p, f["data"], qpos_names, task_id)
        cols = []
        for c, jname in sorted(names.items()):
            jid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, jname)
            if jid < 0:
                raise InputError(p, f"data.attrs simkit_qpos_names: joint {jname!r} is not in simkit's scene")
            cols.append((int(c), int(model.jnt_qposadr[jid]), _width(model, jid)))
        out = []
        for key in sorted(
            (k for k in f["data"] if k.startswith("demo_")), key=lambda k: int(k.split("_")[1])
        ):
            out.append(_read_demo(p, f["data"][key], key, model, cols))
    if not out:
        raise InputError(p, "data holds no demo_<k> groups")
    return out


def _width(model, jid: int) -> int:
    return {0: 7, 1: 4, 2: 1, 3: 1}[int(model.jnt_type[jid])]


def _column_names(p: Path, data, qpos_names: Mapping[int, str] | None, task_id: str | None) -> dict[int, str]:
    if qpos_names is not None:
        return {int(k): v for k, v in qpos_names.items()}
    raw = data.attrs.get("simkit_qpos_names")
    if raw is None:
        raise InputError(
            p, "data.attrs has no simkit_qpos_names; pass qpos_names (state column -> joint name)"
        )
    table = json.loads(raw)
    if task_id is None:
        if len(table) != 1:
            raise InputError(p, f"data.attrs simkit_qpos_names holds tasks {sorted(table)}; name one")
        task_id = next(iter(table))
    if task_id not in table:
        raise InputError(p, f"data.attrs simkit_qpos_names: no task {task_id!r}")
    return dict(table[task_id])


def _read_demo(p: Path, g, key: str, model, cols: list[tuple[int, int, int]]) -> FileDemo:
    for req in REQUIRED:
        if req not in g:
            raise InputError(p, f"data/{key}/{req}: missing")
    actions = np.asarray(g["actions"])
    if actions.ndim != 2 or actions.shape[1] != 7:
        raise InputError(p, f"data/{key}/actions: shape {actions.shape}, expected (T, 7)")
    states = np.asarray(g["states"])
    if states.ndim != 2 or len(states) != len(actions):
        raise InputError(p, f"data/{key}/states: shape {states.shape}, expected ({len(actions)}, S)")
    need = max((c + 1 + w for c, _, w in cols), default=0)
    if states.shape[1] < need:
        raise InputError(p, f"data/{key}/states: {states.shape[1]} columns, the named joints need {need}")
    qpos = np.tile(np.asarray(model.qpos0), (len(states), 1))
    for c, adr, w in cols:
        qpos[:, adr : adr + w] = states[:, 1 + c : 1 + c + w]
    obs = {k: np.asarray(v) for k, v in g["obs"].items()} if "obs" in g else {}
    return FileDemo(key, actions, qpos, obs)


def qpos_names_of(model) -> dict[int, str]:
    """Column (qpos address) -> joint name of every joint of ``model`` (what simkit records)."""
    from simkit.assets.mujoco_log import import_mujoco

    mujoco = import_mujoco()
    return {
        int(model.jnt_qposadr[j]): mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j)
        for j in range(model.njnt)
    }
