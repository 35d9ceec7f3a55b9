"""``hebero-demos`` corpus -> LIBERO's HDF5 dataset layout (one file per task), readable by robomimic.

Layout, as LIBERO's ``scripts/create_dataset.py`` writes ``<libero_dir>/<task>_demo.hdf5``, plus
what robomimic's default ``SequenceDataset`` reads (``next_obs``, ``mask``):

* ``data`` attrs: ``problem_info`` (JSON: ``problem_name``, ``domain_name``,
  ``language_instruction``), ``bddl_file_name`` (``bddl_files/<libero_dir>/<task>.bddl``),
  ``bddl_file_content``, ``env_name`` (the BDDL problem class), ``env_args`` (JSON, from
  :class:`~simkit.adapters.hebero.demos.TaskInfo`: simkit's env, not robosuite),
  ``macros_image_convention`` (``"opencv"``: row 0 of an image is its top), ``num_demos``,
  ``total`` (sum of ``num_samples``), ``simkit_qpos_names`` (JSON, what
  :func:`simkit.envs.hebero.robomimic.read_hdf5` maps states by).
* ``data/demo_<i>`` (i = 0.. in corpus order): datasets ``actions`` (T, 7) float32, ``states``
  (T, S) float64 (simkit's ``mjSTATE_INTEGRATION`` rows before each action; LIBERO: robosuite's
  flattened [time, qpos, qvel]), ``robot_states`` (T, 9), ``rewards`` (T,) uint8 and ``dones``
  (T,) uint8 (1 on the last step of a successful demo, as LIBERO marks its successful demos),
  ``task_rewards`` (T,) float32 (simkit's shaped task reward); groups ``obs`` (rows 0..T-1) and
  ``next_obs`` (rows 1..T) with the keys of :mod:`simkit.adapters.hebero.demos`; attrs
  ``num_samples`` (T), ``model_file`` (MJCF text), ``init_state`` (S,) = ``states[0]``, and
  simkit's ``task_id``, ``seed``, ``success``.
* ``mask/train``, ``mask/valid``: demo names (bytes), split by :func:`~.demos.split_masks`.

Files are written into a staging folder beside ``out`` and moved in when all are complete, so an
error leaves no partial file.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.adapters.hebero.demos import TaskInfo, TaskInfoFn, check_sample, obs_rows, split_masks

#: robosuite's name for "row 0 is the top of the image" (its default "opengl" stores images bottom-up)
IMAGE_CONVENTION = "opencv"


@dataclass
class _TaskFile:
    info: TaskInfo
    h5: Any
    demos: int = 0
    total: int = 0
    qpos_names: str = "{}"


def write_libero_hdf5(
    out: str | Path, samples: Iterable[Mapping[str, Any]], task_info: TaskInfoFn
) -> dict[str, tuple[Path, int]]:
    """Write every sample to ``out/<libero_dir>/<task>_demo.hdf5``; returns task id -> (file, demo count).

    Args:
        out: output folder (created; files already there with the same names are replaced).
        samples: corpus samples (:func:`simkit.episodes.reader.iter_corpus`), any task order.
        task_info: (task id, the task's first ``demo`` meta) -> :class:`TaskInfo`, called once per task.

    Raises:
        InputError: no sample, or a sample lacks a field or its rows disagree (names the episode).
        SimkitError: whatever reading ``samples`` raises (a damaged corpus); nothing is left in ``out``.
    """
    import h5py

    out = Path(out)
    stage = out.parent / f".{out.name}.partial"
    shutil.rmtree(stage, ignore_errors=True)
    files: dict[str, _TaskFile] = {}
    try:
        for s in samples:
            task, _ = check_sample(s, str(out))
            if task not in files:
                info = task_info(task, s["demo"])
                path = stage / info.dataset_file
                path.parent.mkdir(parents=True, exist_ok=True)
                files[task] = _TaskFile(info, h5py.File(path, "w", libver="latest", track_order=True))
            _write_demo(files[task], s)
        if not files:
            from simkit.core.errors import InputError

            raise InputError(out, "the corpus holds no episodes; nothing to export")
        for tf in files.values():
            _finish(tf)
            tf.h5.close()
    except BaseException:
        for tf in files.values():
            tf.h5.close()
        shutil.rmtree(stage, ignore_errors=True)
        raise
    written = {}
    for task, tf in files.items():
        dst = out / tf.info.dataset_file
        dst.parent.mkdir(parents=True, exist_ok=True)
        (stage / tf.info.dataset_file).replace(dst)
        written[task] = (dst, tf.demos)
    shutil.rmtree(stage, ignore_errors=True)
    return written


def _write_demo(tf: _TaskFile, s: Mapping[str, Any]) -> None:
    data = tf.h5.require_group("data")
    g = data.create_group(f"demo_{tf.demos}", track_order=True)
    meta = s["demo"]
    t = len(s["actions"])
    states = np.asarray(s["states"], np.float64)
    rows = obs_rows(s, tf.info)
    success = bool(meta.get("success"))
    flags = np.zeros(t, np.uint8)
    if t and success:
        flags[-1] = 1
    g.create_dataset("actions", data=np.asarray(s["actions"]))
    g.create_dataset("states", data=states[:t])
    g.create_dataset("robot_states", data=rows["robot_states"][:t])
    g.create_dataset("rewards", data=flags)
    g.create_dataset("dones", data=flags.copy())
    if s.get("rewards") is not None:
        g.create_dataset("task_rewards", data=np.asarray(s["rewards"], np.float32))
    for prefix, sl in (("obs", slice(0, t)), ("next_obs", slice(1, t + 1))):
        grp = g.create_group(prefix, track_order=True)
        for k, v in rows.items():
            grp.create_dataset(k, data=v[sl], **_chunking(v))
    g.attrs["num_samples"] = t
    g.attrs["model_file"] = tf.info.model_xml
    g.attrs["init_state"] = states[0]
    g.attrs["task_id"] = tf.info.task_id
    g.attrs["seed"] = int(meta.get("seed", -1))
    g.attrs["success"] = success
    if tf.demos == 0:
        tf.qpos_names = json.dumps({tf.info.task_id: meta.get("qpos_names", {})})
    tf.demos += 1
    tf.total += t


def _chunking(v: np.ndarray) -> dict[str, Any]:
    """Images: one chunk per frame, gzip level 4 (deterministic; robomimic reads any HDF5 filter h5py has)."""
    if v.ndim == 4 and len(v):
        return {"chunks": (1, *v.shape[1:]), "compression": "gzip", "compression_opts": 4}
    return {}


def _finish(tf: _TaskFile) -> None:
    info = tf.info
    data = tf.h5.require_group("data")
    problem = {
        "problem_name": info.problem_name,
        "domain_name": info.domain_name,
        "language_instruction": info.instruction,
    }
    data.attrs["env_name"] = info.problem_name
    data.attrs["problem_info"] = json.dumps(problem)
    data.attrs["macros_image_convention"] = IMAGE_CONVENTION
    data.attrs["bddl_file_name"] = info.bddl_file_name
    data.attrs["bddl_file_content"] = info.bddl_content
    data.attrs["env_args"] = json.dumps(info.env_args)
    data.attrs["num_demos"] = tf.demos
    data.attrs["total"] = tf.total
    data.attrs["simkit_qpos_names"] = tf.qpos_names
    train, valid = split_masks(tf.demos)
    mask = tf.h5.create_group("mask")
    for name, idx in (("train", train), ("valid", valid)):
        mask.create_dataset(name, data=np.array([f"demo_{i}".encode() for i in idx], dtype="S"))
