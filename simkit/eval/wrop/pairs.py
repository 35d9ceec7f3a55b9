"""A static, blind pairwise-rating page for wrop continuations (``simkit export wrop-pairs``).

The WROP protocol (spec ``wrop``, "Evaluation side") ranks models by blind pairwise human preference:
a rater sees the input clip of an exam sample and two models' continuations side by side, and says
which one is better (A, B or tie). :func:`write_pairs_page` writes that protocol as one self-contained
folder that works from ``file://`` with no server:

- ``OUT/index.html``: the page (HTML, CSS and script inline; no network request);
- ``OUT/videos/{sha256[:16]}.mp4``: the input clips and continuations, named by a hash of their bytes
  so a file name never reveals the model;
- ``OUT/pairs.json``: the plan (pair index, sample, left model, right model), for the organiser.

Pairs: every unordered pair of the models that have a valid prediction for a sample; the side of each
pair (which model is A, on the left) and the order of all pairs are drawn from ``numpy``'s PCG64 with
``seed``, so the same inputs and seed give the same bytes. ``max_pairs`` keeps the first pairs of that
random order. The page shows no model name; the names are in its source (the page writes them into the
votes), so a rater must not read the source.

Votes: keys ``a`` / ``ArrowLeft`` (A, left), ``b`` / ``ArrowRight`` (B, right), ``t`` / ``ArrowDown``
(tie), ``Backspace`` / ``ArrowUp`` (back one pair), space (replay). They are kept in the browser's
``localStorage`` (where the browser allows it for ``file://``) and saved with the "download CSV" button
as ``votes_{rater}.csv`` with the columns ``rater, sample, model_a, model_b, winner`` that
:func:`simkit.eval.wrop.elo.read_votes` reads (RFC 4180 quoting). ``model_a`` is the model on the left.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import SimkitError
from simkit.eval.wrop.video import ExamSample, find_prediction, load_prediction


@dataclass(frozen=True)
class Pair:
    """One judgement to make: ``left`` is shown as A (``model_a`` in the votes), ``right`` as B."""

    sample: str
    left: str
    right: str


@dataclass
class PairsReport:
    """What :func:`write_pairs_page` wrote: the pairs in page order, the page, and one line per problem."""

    pairs: list[Pair]
    page: Path
    models: list[str]
    samples: int
    problems: list[str] = field(default_factory=list)


def plan_pairs(available: dict[str, list[str]], seed: int = 0, max_pairs: int | None = None) -> list[Pair]:
    """All unordered model pairs per sample, each side and the overall order drawn from ``seed``.

    Args:
        available: ``{sample key: model names with a valid prediction}``.
        seed: seed of ``numpy.random.default_rng`` (PCG64).
        max_pairs: keep only the first ``max_pairs`` pairs of the random order (None: all).

    Returns:
        Pairs in page order; independent of the dict's order (keys and names are sorted first).
    """
    rng = np.random.default_rng(seed)
    pairs = []
    for key in sorted(available):
        for m1, m2 in combinations(sorted(set(available[key])), 2):
            pairs.append(Pair(key, m1, m2) if rng.random() < 0.5 else Pair(key, m2, m1))
    order = rng.permutation(len(pairs))
    chosen = [pairs[i] for i in order]
    return chosen if max_pairs is None else chosen[:max_pairs]


def model_names(pred_dirs: list[Path]) -> list[str]:
    """Model names: the prediction folders' names, in the order given.

    Raises:
        SimkitError: fewer than two folders, a folder that does not exist, or two folders of one name.
    """
    if len(pred_dirs) < 2:
        raise SimkitError("--pred: give at least two prediction folders (one per model) to compare")
    names: list[str] = []
    for d in pred_dirs:
        if not d.is_dir():
            raise SimkitError(f"--pred {d}: no such directory")
        if d.name in names:
            raise SimkitError(f"--pred {d}: another folder is also named {d.name!r}; model names must differ")
        names.append(d.name)
    return names


def _store(videos: Path, data: bytes) -> str:
    """Write ``data`` to ``videos/{sha256[:16]}.mp4`` (once) and return its path relative to the page."""
    name = f"{hashlib.sha256(data).hexdigest()[:16]}.mp4"
    path = videos / name
    if not path.exists():
        path.write_bytes(data)
    return f"videos/{name}"


def _clip(frames: np.ndarray, fps: float) -> bytes:
    from simkit.core.episode import Video
    from simkit.episodes.codecs import encode

    return encode(Video(frames, fps=fps))[1]


def _sample_videos(
    s: ExamSample, preds: dict[str, Path], videos: Path, problems: list[str]
) -> tuple[str, dict[str, str]]:
    """Store the input clip and every valid prediction of ``s``; an invalid one adds a problem line."""
    from simkit.core.errors import InputError

    fps = float(s.meta.get("target_fps", s.meta.get("fps", 24.0)))
    srcs = {}
    for model, d in preds.items():
        try:
            frames = load_prediction(d, s)  # checks that it decodes and fits the target
            path = find_prediction(d, s.key)
        except InputError as exc:
            problems.append(f"{model}: {exc}")
            continue
        data = path.read_bytes() if path.is_file() else _clip(frames, fps)
        srcs[model] = _store(videos, data)
    return _store(videos, _clip(s.input_video, fps)), srcs


def write_pairs_page(
    samples: Iterable[ExamSample],
    preds: dict[str, Path],
    out: str | Path,
    seed: int = 0,
    max_pairs: int | None = None,
    on_sample: Callable[[str], None] | None = None,
) -> PairsReport:
    """Write the rating page, its videos and ``pairs.json`` into ``out`` (module docstring).

    Args:
        samples: exam samples (:func:`simkit.eval.wrop.video.iter_exam`).
        preds: ``{model name: prediction folder}`` (layout of :mod:`simkit.eval.wrop.video`).
        out: output folder (created); nothing is written outside it.
        seed, max_pairs: see :func:`plan_pairs`.

    Returns:
        The report; a missing or invalid prediction is one problem line and that model is left out of
        that sample's pairs.

    Raises:
        SimkitError: no sample has two valid predictions.
    """
    root = Path(out)
    videos = root / "videos"
    videos.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    inputs: dict[str, str] = {}
    srcs: dict[str, dict[str, str]] = {}
    n = 0
    for s in samples:
        n += 1
        inputs[s.key], srcs[s.key] = _sample_videos(s, preds, videos, problems)
        if on_sample is not None:
            on_sample(s.key)
    pairs = plan_pairs({k: list(v) for k, v in srcs.items() if len(v) >= 2}, seed, max_pairs)
    if not pairs:
        raise SimkitError("no exam sample has valid predictions from two models: nothing to rate")
    rows = [
        {
            "sample": p.sample,
            "input": inputs[p.sample],
            "a": [p.left, srcs[p.sample][p.left]],
            "b": [p.right, srcs[p.sample][p.right]],
        }
        for p in pairs
    ]
    page = root / "index.html"
    page.write_text(render_page(rows), encoding="utf-8")
    plan = [
        {"pair": i, "sample": p.sample, "model_a": p.left, "model_b": p.right} for i, p in enumerate(pairs)
    ]
    (root / "pairs.json").write_text(json.dumps({"seed": seed, "pairs": plan}, indent=1))
    return PairsReport(pairs, page, sorted(preds), n, problems)


def render_page(rows: list[dict[str, Any]]) -> str:
    """The page's HTML: the template ``simkit/data/wrop/pairs_page.html`` with ``rows`` (one dict per pair: sample, input
    clip, ``a`` and ``b`` as [model, clip]) as inline JSON; the page id is a hash of that JSON."""
    data = json.dumps(rows, separators=(",", ":"), sort_keys=True)
    page_id = hashlib.sha256(data.encode()).hexdigest()[:16]
    blob = json.dumps({"id": page_id, "pairs": rows}, separators=(",", ":"), sort_keys=True)
    blob = blob.replace("<", "\\u003c")  # nothing in the JSON can close the script element
    template = resources.files("simkit").joinpath("data/wrop/pairs_page.html").read_text(encoding="utf-8")
    return template.replace("__SIMKIT_PAIRS_DATA__", blob)
