"""``hebero-demos`` corpus -> a LeRobotDataset v3.0 folder, written with pyarrow and PyAV (no lerobot import).

Layout (LeRobot's ``codebase_version`` "v3.0", as ``lerobot/datasets/utils.py`` and
``dataset_metadata.py`` of huggingface/lerobot define it; all episodes fit one file each):

* ``data/chunk-000/file-000.parquet``: one row per control step (T per demo; the state after the
  last action is not a frame): ``action`` (7,) float32, ``observation.state`` (8,) float32 =
  ``ee_pos`` (3, m), ``ee_ori`` (3, axis-angle rad), ``gripper_states`` (2, m) as LeRobot's LIBERO
  datasets order it, ``observation.joint_states`` (7,) float32 rad, ``next.reward`` float32
  (simkit's task reward), ``next.done`` bool (last step of a successful demo), and LeRobot's
  ``timestamp`` (float32 s = frame_index / fps), ``frame_index``, ``episode_index``, ``index``
  (global frame), ``task_index`` (int64).
* ``videos/observation.images.<camera>/chunk-000/file-000.mp4`` per recorded camera
  (``agentview``, ``eye_in_hand``): the episodes' frames one after another, H.264 yuv420p at
  ``fps``, row 0 = top; episode e spans [from_timestamp, to_timestamp) of the file. Depth fields
  are not exported (LeRobot's depth videos need its quantisation settings).
* ``meta/info.json`` (features with dtype/shape/names, fps, totals, path templates, splits),
  ``meta/tasks.parquet`` (index ``task`` = the instruction, column ``task_index``; with the pandas
  metadata that makes ``pandas.read_parquet`` restore the index, as LeRobot reads it),
  ``meta/episodes/chunk-000/file-000.parquet`` (``episode_index``, ``tasks``, ``length``,
  ``dataset_from_index``/``dataset_to_index``, ``data/*`` and ``videos/<key>/*`` file indices and
  timestamps, ``meta/episodes/*``), ``meta/stats.json`` (min, max, mean, std, count, and the
  quantiles q01..q99 per feature; images per channel in [0, 1], shape (3, 1, 1)).

Rows and files are written in corpus order; same corpus -> same bytes (x264 settings of
:mod:`simkit.episodes.codecs`: one thread, no macroblock tree).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from simkit.adapters.hebero.demos import CAMERAS, TaskInfo, TaskInfoFn, check_sample, obs_rows

CODEBASE_VERSION = "v3.0"
FPS = 20
CHUNKS_SIZE = 1000  # LeRobot's DEFAULT_CHUNK_SIZE (files per chunk folder)
DATA_FILE = "data/chunk-000/file-000.parquet"
EPISODES_FILE = "meta/episodes/chunk-000/file-000.parquet"
VIDEO_PATH = "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4"
DATA_PATH = "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet"
STATE_NAMES = ["eef_x", "eef_y", "eef_z", "eef_ax", "eef_ay", "eef_az", "finger_left", "finger_right"]
QUANTILES = (0.01, 0.10, 0.50, 0.90, 0.99)
CRF = 18


@dataclass
class LeRobotReport:
    """What :func:`write_lerobot` wrote: counts and the camera feature keys."""

    episodes: int = 0
    frames: int = 0
    tasks: int = 0
    cameras: list[str] = field(default_factory=list)


@dataclass
class _Build:
    columns: dict[str, list] = field(default_factory=dict)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    tasks: dict[str, int] = field(default_factory=dict)
    videos: dict[str, Any] = field(default_factory=dict)
    image_stats: dict[str, list[np.ndarray]] = field(default_factory=dict)
    cameras: list[str] | None = None
    frames: int = 0


def write_lerobot(
    out: str | Path, samples: Iterable[Mapping[str, Any]], task_info: TaskInfoFn, fps: int = FPS
) -> LeRobotReport:
    """Write the samples as a LeRobotDataset v3.0 folder at ``out`` (an earlier export there is replaced).

    Every sample must record the same cameras. The folder is built beside ``out`` and moved into
    place when complete.

    Raises:
        InputError: ``out`` holds files but no ``meta/info.json`` (it is never emptied then), a sample
            lacks a field, its rows disagree, its cameras differ from the first's, or there is no sample.
        SimkitError: whatever reading ``samples`` raises (a damaged corpus); ``out`` is left untouched.
    """
    from simkit.core.errors import InputError

    out = Path(out)
    if out.is_dir() and any(out.iterdir()) and not (out / "meta/info.json").is_file():
        raise InputError(out, "exists and is not a LeRobot dataset folder; give a new or empty folder")
    stage = out.parent / f".{out.name}.partial"
    shutil.rmtree(stage, ignore_errors=True)
    b = _Build()
    infos: dict[str, TaskInfo] = {}
    try:
        for s in samples:
            task, _ = check_sample(s, str(out))
            if task not in infos:
                infos[task] = task_info(task, s["demo"])
            _add_episode(b, s, infos[task], stage, fps, str(out))
        if not b.episodes:
            raise InputError(out, "the corpus holds no episodes; nothing to export")
        for enc in b.videos.values():
            enc.close()
        _write_meta(b, stage, fps)
    except BaseException:
        for enc in b.videos.values():
            enc.close()
        shutil.rmtree(stage, ignore_errors=True)
        raise
    shutil.rmtree(out, ignore_errors=True)
    stage.replace(out)
    cams = [f"observation.images.{c}" for c in b.cameras or []]
    return LeRobotReport(len(b.episodes), b.frames, len(b.tasks), cams)


def _add_episode(b: _Build, s: Mapping[str, Any], info: TaskInfo, stage: Path, fps: int, where: str) -> None:
    from simkit.core.errors import InputError

    t = len(s["actions"])
    rows = obs_rows(s, info)
    cams = [c for c in CAMERAS if f"{c}_rgb" in rows]
    if b.cameras is None:
        b.cameras = cams
    elif cams != b.cameras:
        raise InputError(where, f"episode {s['__key__']}: cameras {cams}, the first episode had {b.cameras}")
    ep = len(b.episodes)
    task_index = b.tasks.setdefault(info.instruction, len(b.tasks))
    meta = s["demo"]
    done = np.zeros(t, bool)
    if t and meta.get("success"):
        done[-1] = True
    rewards = (
        np.asarray(s["rewards"], np.float32) if s.get("rewards") is not None else np.zeros(t, np.float32)
    )
    cols = {
        "action": np.asarray(s["actions"], np.float32),
        "observation.state": np.concatenate(
            [rows["ee_pos"][:t], rows["ee_ori"][:t], rows["gripper_states"][:t]], axis=1
        ).astype(np.float32),
        "observation.joint_states": rows["joint_states"][:t].astype(np.float32),
        "next.reward": rewards,
        "next.done": done,
        "timestamp": (np.arange(t) / fps).astype(np.float32),
        "frame_index": np.arange(t, dtype=np.int64),
        "episode_index": np.full(t, ep, np.int64),
        "index": np.arange(b.frames, b.frames + t, dtype=np.int64),
        "task_index": np.full(t, task_index, np.int64),
    }
    for k, v in cols.items():
        b.columns.setdefault(k, []).append(v)
    row: dict[str, Any] = {
        "episode_index": ep,
        "tasks": [info.instruction],
        "length": t,
        "data/chunk_index": 0,
        "data/file_index": 0,
        "dataset_from_index": b.frames,
        "dataset_to_index": b.frames + t,
    }
    for c in cams:
        key = f"observation.images.{c}"
        frames = rows[f"{c}_rgb"][:t]
        if key not in b.videos:
            path = stage / VIDEO_PATH.format(video_key=key, chunk_index=0, file_index=0)
            b.videos[key] = _VideoFile(path, frames.shape[2], frames.shape[1], fps)
        start = b.videos[key].frames
        b.videos[key].add(frames)
        b.image_stats.setdefault(key, []).append(_image_moments(frames))
        row |= {
            f"videos/{key}/chunk_index": 0,
            f"videos/{key}/file_index": 0,
            f"videos/{key}/from_timestamp": start / fps,
            f"videos/{key}/to_timestamp": (start + t) / fps,
        }
    row |= {"meta/episodes/chunk_index": 0, "meta/episodes/file_index": 0}
    b.episodes.append(row)
    b.frames += t


class _VideoFile:
    """One H.264 mp4 that frames are appended to (pts = frame number, time base 1 / fps)."""

    def __init__(self, path: Path, width: int, height: int, fps: int):
        from simkit.core.errors import require

        av = require("av", "video")
        if width % 2 or height % 2:
            from simkit.core.errors import InputError

            raise InputError(None, f"H.264 needs even width and height, got {width}x{height}")
        path.parent.mkdir(parents=True, exist_ok=True)
        self.width, self.height, self.frames = width, height, 0
        self._av = av
        self._c = av.open(str(path), mode="w", format="mp4")
        self._s = self._c.add_stream("libx264", rate=Fraction(fps))
        self._s.width, self._s.height, self._s.pix_fmt = width, height, "yuv420p"
        self._s.options = {"crf": str(CRF), "preset": "medium", "threads": "1", "x264-params": "mbtree=0"}
        self._s.codec_context.time_base = Fraction(1, fps)
        self._open = True

    def add(self, frames: np.ndarray) -> None:
        for f in frames:
            vf = self._av.VideoFrame.from_ndarray(np.ascontiguousarray(f), format="rgb24")
            vf.pts, vf.time_base = self.frames, self._s.codec_context.time_base
            for packet in self._s.encode(vf):
                self._c.mux(packet)
            self.frames += 1

    def close(self) -> None:
        if self._open:
            self._open = False
            for packet in self._s.encode():
                self._c.mux(packet)
            self._c.close()


def _image_moments(frames: np.ndarray) -> np.ndarray:
    """Per channel of uint8 (T, H, W, 3) frames scaled to [0, 1]: (5, 3) rows min, max, sum, sum of
    squares, count."""
    x = frames.reshape(-1, 3).astype(np.float64) / 255.0
    return np.stack([x.min(0), x.max(0), x.sum(0), (x * x).sum(0), np.full(3, len(x))])


def _features(b: _Build, fps: int) -> dict[str, dict[str, Any]]:
    vec = lambda n, names, dt="float32": {"dtype": dt, "shape": [n], "names": names}  # noqa: E731
    feats: dict[str, dict[str, Any]] = {
        "action": vec(7, ["dx", "dy", "dz", "drx", "dry", "drz", "gripper"]),
        "observation.state": vec(8, STATE_NAMES),
        "observation.joint_states": vec(7, [f"joint_{i}" for i in range(1, 8)]),
        "next.reward": vec(1, None),
        "next.done": vec(1, None, "bool"),
    }
    for key, enc in b.videos.items():
        feats[key] = {
            "dtype": "video",
            "shape": [enc.height, enc.width, 3],
            "names": ["height", "width", "channels"],
            "info": {
                "video.height": enc.height,
                "video.width": enc.width,
                "video.codec": "h264",
                "video.pix_fmt": "yuv420p",
                "is_depth_map": False,
                "video.fps": fps,
                "video.channels": 3,
                "has_audio": False,
            },
        }
    for k in ("timestamp", "frame_index", "episode_index", "index", "task_index"):
        feats[k] = vec(1, None, "float32" if k == "timestamp" else "int64")
    return feats


def _arrow_column(values: np.ndarray, ft: dict[str, Any]):
    import pyarrow as pa

    if ft["shape"] == [1]:
        return pa.array(values.reshape(-1))
    flat = pa.array(values.reshape(-1))
    return pa.FixedSizeListArray.from_arrays(flat, int(ft["shape"][0]))


def _stats(values: np.ndarray) -> dict[str, list]:
    x = values.reshape(len(values), -1).astype(np.float64)
    out = {
        "min": x.min(0),
        "max": x.max(0),
        "mean": x.mean(0),
        "std": x.std(0),
        "count": np.array([len(x)]),
    }
    for q in QUANTILES:
        out[f"q{round(q * 100):02d}"] = np.quantile(x, q, axis=0)
    return {k: v.tolist() for k, v in out.items()}


def _image_stats(moments: list[np.ndarray]) -> dict[str, list]:
    m = np.stack(moments)
    n = m[:, 4].sum(0)
    mean = m[:, 2].sum(0) / n
    std = np.sqrt(np.maximum(m[:, 3].sum(0) / n - mean * mean, 0.0))
    col = lambda v: np.asarray(v).reshape(3, 1, 1).tolist()  # noqa: E731
    return {
        "min": col(m[:, 0].min(0)),
        "max": col(m[:, 1].max(0)),
        "mean": col(mean),
        "std": col(std),
        "count": [int(n[0])],
    }


def _write_meta(b: _Build, stage: Path, fps: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    feats = _features(b, fps)
    data = {k: np.concatenate(v) for k, v in b.columns.items()}
    table = pa.table({k: _arrow_column(v, feats[k]) for k, v in data.items()})
    (stage / DATA_FILE).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, stage / DATA_FILE)
    (stage / EPISODES_FILE).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(b.episodes), stage / EPISODES_FILE)
    pq.write_table(_tasks_table(b.tasks), stage / "meta/tasks.parquet")
    stats = {k: _stats(v) for k, v in data.items()}
    stats |= {k: _image_stats(m) for k, m in b.image_stats.items()}
    info = {
        "codebase_version": CODEBASE_VERSION,
        "robot_type": "panda",
        "total_episodes": len(b.episodes),
        "total_frames": b.frames,
        "total_tasks": len(b.tasks),
        "chunks_size": CHUNKS_SIZE,
        "data_files_size_in_mb": 100,
        "video_files_size_in_mb": 200,
        "fps": fps,
        "splits": {"train": f"0:{len(b.episodes)}"},
        "data_path": DATA_PATH,
        "video_path": VIDEO_PATH if b.videos else None,
        "features": feats,
    }
    (stage / "meta/info.json").write_text(json.dumps(info, indent=4))
    (stage / "meta/stats.json").write_text(json.dumps(stats, indent=4))


def _tasks_table(tasks: dict[str, int]):
    """``meta/tasks.parquet``: column ``task`` (the instruction) as the pandas index, ``task_index`` int64.

    The ``pandas`` schema metadata (the layout ``DataFrame.to_parquet`` writes, pandas' "Storing
    pandas DataFrame objects in Apache Parquet format" spec) tells ``pandas.read_parquet`` that
    ``task`` is the index, which LeRobot's ``load_tasks`` relies on; written by hand so that pandas
    is not needed here.
    """
    import pyarrow as pa

    names = sorted(tasks, key=lambda n: tasks[n])
    pandas_meta = {
        "index_columns": ["task"],
        "column_indexes": [
            {
                "name": None,
                "field_name": None,
                "pandas_type": "unicode",
                "numpy_type": "object",
                "metadata": None,
            }
        ],
        "columns": [
            {
                "name": "task_index",
                "field_name": "task_index",
                "pandas_type": "int64",
                "numpy_type": "int64",
                "metadata": None,
            },
            {
                "name": "task",
                "field_name": "task",
                "pandas_type": "unicode",
                "numpy_type": "object",
                "metadata": None,
            },
        ],
        "creator": {"library": "pyarrow", "version": pa.__version__},
        "pandas_version": "2.0.0",
    }
    table = pa.table({"task_index": pa.array([tasks[n] for n in names], pa.int64()), "task": pa.array(names)})
    return table.replace_schema_metadata({b"pandas": json.dumps(pandas_meta).encode()})
