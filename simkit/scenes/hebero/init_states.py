"""LIBERO's 50 fixed initial states per task (``init_files/*.pruned_init``), read without torch.

Every published LIBERO success rate starts from these states. simkit ships the 40 Hebero tasks'
files (``simkit/data/hebero/init_files/<libero suite>/<task>.pruned_init``, 1.7 MB, MIT, LIBERO's
LICENSE beside them) with their sha256 and the joint layout of LIBERO's model in
``SOURCE.json`` (taken from ``hf-libero`` 0.1.4 by ``tools/libero_dump.py``).

A file is a torch zip archive holding one pickled numpy array (``torch.save(ndarray)``); it is
read with :mod:`zipfile` and an unpickler that only admits numpy's array reconstruction, so no
torch import and no arbitrary code. Each row is robosuite's flattened ``MjSimState``:
``[time, qpos (nq), qvel (nv)]`` of LIBERO's compiled task model, whose joints (arm
``robot0_joint1..7``, fingers ``gripper0_finger_joint1/2``, objects' free joints
``<object>_joint0``, fixtures' hinges and slides ``<fixture>_<joint>``) :func:`joint_map` maps
onto simkit's names (``robot/joint1..7``, ``robot/gripper/finger_joint1/2``, ``<object>/free``,
``<fixture>/<joint>``). Fixture poses are not part of the state (LIBERO keeps them in the model).
"""

from __future__ import annotations

import codecs
import hashlib
import io
import json
import pickle
import zipfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from simkit.core.errors import InputError

DATA = Path(__file__).resolve().parents[2] / "data" / "hebero" / "init_files"


class _NumpyUnpickler(pickle.Unpickler):
    """Admits numpy's ndarray reconstruction and nothing else."""

    _ALLOWED = {
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("_codecs", "encode"),
    }

    def find_class(self, module: str, name: str):
        if (module, name) not in self._ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not a numpy array part")
        if module == "_codecs":
            return codecs.encode
        if name == "_reconstruct":
            return np.core.multiarray._reconstruct  # type: ignore[attr-defined]
        return getattr(np, name)


def read_pruned_init(path: str | Path) -> np.ndarray:
    """The array of one LIBERO ``.pruned_init`` file: (S, 1 + nq + nv) float64 states.

    Raises:
        InputError: not a zip archive, no ``data.pkl`` member, or a pickle that is not a 2-D
            numeric numpy array (one line naming the file).
    """
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as z:
            member = next((n for n in z.namelist() if n.endswith("data.pkl")), None)
            if member is None:
                raise InputError(path, "no data.pkl in the archive (not a torch.save file)")
            arr = _NumpyUnpickler(io.BytesIO(z.read(member))).load()
    except (OSError, zipfile.BadZipFile) as exc:
        raise InputError(path, f"cannot read the initial states: {exc}") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError) as exc:
        raise InputError(path, f"not a pickled numpy array: {exc}") from None
    if not isinstance(arr, np.ndarray) or arr.ndim != 2 or arr.dtype.kind != "f":
        raise InputError(path, "expected a 2-D float array of states")
    return np.asarray(arr, np.float64)


@lru_cache(maxsize=1)
def _source() -> dict:
    return json.loads((DATA / "SOURCE.json").read_text())


def task_file(task_id: str) -> str:
    """Relative path of a task's shipped file (``libero_goal/turn_on_the_stove.pruned_init``)."""
    src = _source()
    if task_id not in src["tasks"]:
        raise InputError(None, f"no LIBERO initial states for task {task_id!r}")
    return src["tasks"][task_id]["file"]


@lru_cache(maxsize=64)
def load_task_states(task_id: str) -> np.ndarray:
    """The fixed initial states (S, 1 + nq + nv) of a Hebero task, sha256-checked.

    Raises:
        InputError: unknown task, a missing file, or a file whose sha256 is not the recorded one.
    """
    rel = task_file(task_id)
    path = DATA / rel
    if not path.is_file():
        raise InputError(path, "LIBERO initial-state file missing from the simkit install")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != _source()["files"][rel]:
        raise InputError(path, "sha256 differs from SOURCE.json (damaged or edited file)")
    return read_pruned_init(path)


def libero_to_simkit_joint(name: str, entities: list[str]) -> str | None:
    """simkit's joint name for a LIBERO joint name, None when it has no counterpart."""
    if name.startswith("robot0_joint"):
        return "robot/joint" + name[len("robot0_joint") :]
    if name.startswith("gripper0_"):
        return "robot/gripper/" + name[len("gripper0_") :]
    for ent in sorted(entities, key=len, reverse=True):
        if name.startswith(ent + "_"):
            rest = name[len(ent) + 1 :]
            return f"{ent}/free" if rest == "joint0" else f"{ent}/{rest}"
    return None


def joint_map(task_id: str, entities: list[str]) -> list[tuple[str, int, int, int]]:
    """(simkit joint name, joint type, LIBERO qpos address, LIBERO qvel address) of every LIBERO
    joint of the task that has a simkit counterpart (types as ``mujoco.mjtJoint``)."""
    rec = _source()["tasks"][task_id]
    out = []
    for name, jtype, qadr, vadr in rec["joints"]:
        ours = libero_to_simkit_joint(name, entities)
        if ours is not None:
            out.append((ours, int(jtype), int(qadr), int(vadr)))
    return out


def state_layout(task_id: str) -> tuple[int, int]:
    """(nq, nv) of LIBERO's model of the task: a state row is 1 + nq + nv numbers."""
    rec = _source()["tasks"][task_id]
    return int(rec["nq"]), int(rec["nv"])
