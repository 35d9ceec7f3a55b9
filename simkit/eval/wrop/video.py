"""Exam samples and predicted continuations: reading and resampling.

Prediction layout (``--pred DIR``): for each exam sample key ``K`` either ``DIR/K.mp4`` (any codec PyAV
decodes) or a folder ``DIR/K/`` of frames (``.png``/``.jpg``/``.jpeg``/``.webp``, in natural order of
their names: ``2.png`` before ``10.png``). The video holds only the continuation (what replaces the exam's
target video), at any size with the target's aspect ratio and any length within
:data:`LENGTH_RATIO` of the target's frame count; it is resampled to the target's frame count (nearest
frame in time, both clips spanning the same duration) and scaled (PIL bilinear with antialiasing).

Source: spec ``wrop``, "Evaluation side" (predictions resampled to the target frame count, scaled to
320 x 192, the final frame also at 720p).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import InputError, SimkitError

#: the paper's common evaluation size (width, height) and the final-frame size
EVAL_SIZE = (320, 192)
FINAL_SIZE = (1280, 720)
#: a prediction's frame count must lie within [T / LENGTH_RATIO, T * LENGTH_RATIO] of the target's T
LENGTH_RATIO = 4.0
#: largest relative difference between the prediction's and the target's aspect ratio (w / h)
ASPECT_TOL = 0.03
FRAME_EXTS = (".png", ".jpg", ".jpeg", ".webp")


@dataclass
class ExamSample:
    """One exam sample: its key, ``meta`` (generator_id, family, ...), ``trajectory`` dict and the frames.

    ``input_video`` and ``target_video`` are uint8 (T/2, H, W, 3) RGB."""

    key: str
    meta: dict[str, Any]
    trajectory: dict[str, Any]
    input_video: np.ndarray
    target_video: np.ndarray

    @property
    def generator_id(self) -> str:
        return str(self.meta.get("generator_id", "?"))

    @property
    def family(self) -> str:
        return str(self.meta.get("family", "?"))


def iter_exam(corpus: str | Path, keys: set[str] | None = None) -> Iterator[ExamSample]:
    """Decoded samples of a wrop corpus (exam or train split), in corpus order.

    Raises:
        SimkitError: not a corpus, or not one the ``wrop`` generator wrote.
    """
    from simkit.episodes.reader import corpus_info, iter_corpus

    info = corpus_info(corpus)
    if info.get("generator") != "wrop":
        raise SimkitError(f"{corpus}: a {info.get('generator')!r} corpus, not a wrop exam")
    for s in iter_corpus(corpus):
        if keys is not None and s["__key__"] not in keys:
            continue
        missing = [f for f in ("meta", "trajectory", "input_video", "target_video") if f not in s]
        if missing:
            raise SimkitError(f"{corpus}: sample {s['__key__']} lacks {', '.join(missing)}")
        yield ExamSample(s["__key__"], s["meta"], s["trajectory"], s["input_video"], s["target_video"])


def exam_groups(corpus: str | Path) -> dict[str, dict[str, str]]:
    """``{key: {"family": ..., "generator_id": ...}}`` of a wrop corpus, read from the metadata only (no
    video is decoded).

    Raises:
        SimkitError: not a wrop corpus.
    """
    import json

    from simkit.episodes.reader import corpus_info, iter_corpus

    info = corpus_info(corpus)
    if info.get("generator") != "wrop":
        raise SimkitError(f"{corpus}: a {info.get('generator')!r} corpus, not a wrop exam")
    out = {}
    for s in iter_corpus(corpus, decode_fields=False):
        meta = json.loads(s["meta"]) if "meta" in s else {}
        out[s["__key__"]] = {k: str(meta.get(k, "?")) for k in ("family", "generator_id")}
    return out


def _natural(name: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def read_video(path: str | Path) -> np.ndarray:
    """Frames of an ``.mp4`` file or a folder of frame images as uint8 (T, H, W, 3) RGB.

    Raises:
        InputError: unreadable file, no frames, frames of different sizes.
    """
    p = Path(path)
    if p.is_dir():
        return _read_frame_folder(p)
    from simkit.core.errors import require

    av = require("av", "video")
    try:
        with av.open(str(p)) as container:
            frames = [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]
    except (OSError, ValueError, av.error.FFmpegError) as exc:
        raise InputError(p, f"cannot decode video ({exc})") from None
    if not frames:
        raise InputError(p, "no video frames")
    return np.stack(frames)


def _read_frame_folder(p: Path) -> np.ndarray:
    from PIL import Image, UnidentifiedImageError

    files = sorted((f for f in p.iterdir() if f.suffix.lower() in FRAME_EXTS), key=lambda f: _natural(f.name))
    if not files:
        raise InputError(p, f"no frame images ({', '.join(FRAME_EXTS)}) in the folder")
    frames = []
    for f in files:
        try:
            with Image.open(f) as im:
                frames.append(np.asarray(im.convert("RGB")))
        except (OSError, UnidentifiedImageError) as exc:
            raise InputError(f, f"cannot read image ({exc})") from None
        if frames[-1].shape != frames[0].shape:
            raise InputError(f, f"frame size {frames[-1].shape[1::-1]} differs from {frames[0].shape[1::-1]}")
    return np.stack(frames)


def find_prediction(pred_dir: str | Path, key: str) -> Path:
    """``DIR/KEY.mp4`` or ``DIR/KEY/`` (a frame folder). Raises InputError when neither exists."""
    d = Path(pred_dir)
    for cand in (d / f"{key}.mp4", d / key):
        if cand.exists():
            return cand
    raise InputError(d / f"{key}.mp4", "missing prediction (no such file, nor a frame folder of that name)")


def check_geometry(path: str | Path, pred: np.ndarray, target: np.ndarray) -> None:
    """Raise InputError when the prediction's aspect ratio or length does not fit the target's
    (limits :data:`ASPECT_TOL`, :data:`LENGTH_RATIO`)."""
    t, h, w = pred.shape[:3]
    tt, th, tw = target.shape[:3]
    if abs((w / h) / (tw / th) - 1.0) > ASPECT_TOL:
        raise InputError(
            path, f"wrong size {w}x{h}: the aspect ratio must be the target's {tw}x{th} ({tw / th:.3f})"
        )
    if not (tt / LENGTH_RATIO <= t <= tt * LENGTH_RATIO):
        raise InputError(
            path,
            f"wrong length {t} frames: the target has {tt} "
            f"(accepted {int(np.ceil(tt / LENGTH_RATIO))}..{int(tt * LENGTH_RATIO)})",
        )


def resample_time(frames: np.ndarray, n: int) -> np.ndarray:
    """``n`` frames picked from ``frames`` (T, ...) by nearest time, first and last kept:
    index ``round(i (T - 1) / (n - 1))``."""
    t = frames.shape[0]
    if t == n:
        return frames
    idx = np.rint(np.linspace(0.0, t - 1, n)).astype(int) if n > 1 else np.zeros(1, dtype=int)
    return frames[idx]


def resize(frames: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """uint8 (T, H, W, 3) -> uint8 (T, size[1], size[0], 3), PIL bilinear (antialiased when shrinking)."""
    from PIL import Image

    w, h = size
    if frames.shape[1:3] == (h, w):
        return frames
    return np.stack(
        [np.asarray(Image.fromarray(f).resize((w, h), Image.Resampling.BILINEAR)) for f in frames]
    )


def load_prediction(pred_dir: str | Path, sample: ExamSample) -> np.ndarray:
    """The prediction for ``sample``, checked and resampled to the target's frame count and size:
    uint8 (T/2, H, W, 3).

    Raises:
        InputError: missing, unreadable, wrong aspect ratio or length (one line naming the file).
    """
    path = find_prediction(pred_dir, sample.key)
    pred = read_video(path)
    check_geometry(path, pred, sample.target_video)
    n, h, w = sample.target_video.shape[:3]
    return resize(resample_time(pred, n), (w, h))


def score_predictions(
    samples: Iterable[ExamSample],
    pred_dir: str | Path,
    score: Callable[[ExamSample, np.ndarray], dict[str, Any]],
    on_sample: Callable[[str], None] | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """(rows, problems): ``score(sample, prediction)`` of each sample whose prediction in ``pred_dir``
    loads (:func:`load_prediction`); a missing or malformed prediction is one problem line instead.
    ``on_sample(key)`` is called after each sample."""
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for s in samples:
        try:
            pred = load_prediction(pred_dir, s)
        except InputError as exc:
            problems.append(str(exc))
        else:
            rows.append(score(s, pred))
        if on_sample is not None:
            on_sample(s.key)
    return rows, problems
