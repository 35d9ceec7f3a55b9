"""LIBERO / robomimic HDF5 demonstration files: read demos onto simkit's scenes; the task facts an export needs.

Files in robomimic's ``hdf5`` layout (LIBERO's ``*_demo.hdf5``, and what
:mod:`simkit.adapters.hebero.libero_hdf5` writes): group ``data``; per demo ``data/demo_<k>``
with attribute ``num_samples`` and datasets ``actions`` (T, 7), ``states`` (T, S) flat MuJoCo
states and ``obs/<key>`` (T, ...). :func:`export_facts` gives an exporter what the corpus does
not hold: the task model's MJCF text, the BDDL source and the grip-site orientation of each
stored state (forward kinematics on simkit's task model).

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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import InputError

REQUIRED = ("actions", "states")


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


@dataclass(frozen=True)
class ExportFacts:
    """One task's facts for an export, from simkit's compiled task (not from a corpus).

    Attributes:
        libero_dir: LIBERO's suite folder (``libero_goal``, ``libero_10``, ...).
        instruction: the BDDL ``:language`` text. problem_name: the BDDL problem class.
        domain_name: the BDDL ``:domain``. bddl_content: the BDDL file's text.
        model_xml: MJCF text of the task model the demos' states belong to (``MjSpec.to_xml``).
        nstate: length of one ``mjSTATE_INTEGRATION`` row of that model.
    """

    libero_dir: str
    instruction: str
    problem_name: str
    domain_name: str
    bddl_content: str
    model_xml: str
    nstate: int
    _model: Any
    _site: int

    def ee_quat(self, states: np.ndarray) -> np.ndarray:
        """(T, nstate) integration states -> (T, 4) grip-site quaternions (w, x, y, z), world frame.

        Forward kinematics (``mj_kinematics``) of each state on the task model.

        Raises:
            InputError: a state row is not ``nstate`` long (the corpus was made with another model).
        """
        from simkit.assets.mujoco_log import import_mujoco

        mujoco = import_mujoco()
        states = np.asarray(states, np.float64)
        if states.ndim != 2 or states.shape[1] != self.nstate:
            raise InputError(None, f"states {states.shape}: the task model needs rows of {self.nstate}")
        data = mujoco.MjData(self._model)
        spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
        out = np.empty((len(states), 4))
        for t, row in enumerate(states):
            mujoco.mj_setState(self._model, data, np.ascontiguousarray(row), spec)
            mujoco.mj_kinematics(self._model, data)
            mujoco.mju_mat2Quat(out[t], data.site_xmat[self._site])
        return out


def export_facts(task_id: str, libero_root: str | Path | None = None) -> ExportFacts:
    """Compile ``task_id`` (bundled BDDL, installed assets, or ``libero_root``) and collect its export facts.

    Raises:
        InputError: an unknown task id. ExtraMissing: the ``hebero`` extra (mujoco) is missing.
    """
    import re

    from simkit.envs.hebero.vector_env import build_tasks
    from simkit.scenes.hebero import suite_files, task_table

    ids, (task,) = build_tasks(None, [task_id], libero_root, cache=False)  # the MJCF text needs the spec
    suite, name = ids[0].split("/", 1)
    path = next(p for _, p in suite_files(libero_root, suite) if p.stem == name)
    text = path.read_text(encoding="utf-8")
    domain = re.search(r"\(:domain\s+([^\s()]+)", text)
    return ExportFacts(
        libero_dir=task_table()["suites"][suite]["libero_dir"],
        instruction=task.desc["instruction"],
        problem_name=task.desc["arena"]["problem"],
        domain_name=domain.group(1) if domain else "robosuite",
        bddl_content=text,
        model_xml=task.scene.spec.to_xml(),
        nstate=int(task.nstate),
        _model=task.model,
        _site=int(task.ee_site),
    )
