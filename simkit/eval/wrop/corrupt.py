"""Baseline predictions and corrupted continuations made from an exam sample's own videos.

They validate the checker (:mod:`simkit.eval.wrop.check`) and give the fit metrics reference points:

=================== ====================================================================================
``ground_truth``     the target video itself
``last_frame``       the last input frame repeated (the "nothing happens" baseline)
``deleted``          every target object removed from its check start on (e.g. it never reappears after
                     the occlusion, or vanishes at the impact)
``teleported``       the object moved sideways by 35 % of the image width from its check start on
``frozen``           the object stays where it was last seen fully (visibility >= 0.8) before its check
                     start (a ball frozen in the air instead of falling, stopped instead of reappearing)
``passed_through``   the object keeps the image velocity it had before its check start (it passes
                     through the wall instead of bouncing back, floats on instead of falling)
``seen_through``     an object the ground truth hides in the target half is drawn on top of its occluder
                     on the hidden frames, where its trajectory has it (it shows through the screen/cup)
=================== ====================================================================================

An object is removed by filling its mask (ground-truth object pixels, :func:`object_mask`, dilated by one
pixel) by harmonic inpainting from the surrounding pixels (Jacobi iterations of the discrete Laplace
equation), and drawn elsewhere by copying its ground-truth pixels under the mask, shifted. Edits run at
the sample's stored resolution.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.eval.wrop.check import (
    HIDDEN,
    SEEN,
    VISIBLE,
    check_start,
    hidden_frames,
    last_seen,
    target_objects,
)
from simkit.eval.wrop.evidence import ObjectMask, object_boxes, object_mask
from simkit.eval.wrop.video import ExamSample

KINDS = ("ground_truth", "last_frame", "deleted", "teleported", "frozen", "passed_through", "seen_through")
VIOLATIONS = ("deleted", "teleported", "frozen", "passed_through", "seen_through")

INPAINT_ITERS = 60


def _dilate(mask: np.ndarray) -> np.ndarray:
    m = mask.copy()
    m[1:] |= mask[:-1]
    m[:-1] |= mask[1:]
    m[:, 1:] |= mask[:, :-1]
    m[:, :-1] |= mask[:, 1:]
    return m


def inpaint(frame: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Fill the pixels of ``mask`` (bool (H, W)) in ``frame`` (uint8 (H, W, 3)) by harmonic inpainting:
    Jacobi iterations of the Laplace equation with the unmasked pixels as boundary values."""
    ys, xs = np.nonzero(mask)
    if len(ys) == 0:
        return frame
    H, W = mask.shape
    y0, y1 = max(ys.min() - 1, 0), min(ys.max() + 2, H)
    x0, x1 = max(xs.min() - 1, 0), min(xs.max() + 2, W)
    img = frame[y0:y1, x0:x1].astype(np.float64)
    m = mask[y0:y1, x0:x1]
    known = ~m
    img[m] = img[known].mean(axis=0) if known.any() else 0.0
    for _ in range(INPAINT_ITERS):
        pad = np.pad(img, ((1, 1), (1, 1), (0, 0)), mode="edge")
        avg = (pad[:-2, 1:-1] + pad[2:, 1:-1] + pad[1:-1, :-2] + pad[1:-1, 2:]) / 4.0
        img[m] = avg[m]
    out = frame.copy()
    out[y0:y1, x0:x1] = np.clip(np.rint(img), 0, 255).astype(np.uint8)
    return out


def _full_mask(om: ObjectMask, shape: tuple[int, int]) -> np.ndarray:
    full = np.zeros(shape, dtype=bool)
    x0, y0, x1, y1 = om.box
    full[y0:y1, x0:x1] = om.mask
    return _dilate(full)


def paste(frame: np.ndarray, src: np.ndarray, mask: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """Copy the pixels of ``src`` under ``mask`` (bool (H, W)) into ``frame`` shifted by (dx, dy) pixels
    (clipped at the image border)."""
    H, W = mask.shape
    ys, xs = np.nonzero(mask)
    ty, tx = ys + dy, xs + dx
    ok = (ty >= 0) & (ty < H) & (tx >= 0) & (tx < W)
    out = frame.copy()
    out[ty[ok], tx[ok]] = src[ys[ok], xs[ok]]
    return out


def _source_frame(vis: np.ndarray, start: int, masks: Callable[[int], ObjectMask | None]) -> int | None:
    """Last frame before ``start`` on which the object is seen (visibility >= SEEN) with a mask
    (:func:`~simkit.eval.wrop.check.last_seen`), else the first such frame from ``start`` on, else None."""
    before = last_seen(vis, start, masks)
    if before is not None:
        return before
    return next((f for f in range(start, len(vis)) if vis[f] >= SEEN and masks(f) is not None), None)


@dataclass
class _Edit:
    """How one object is edited: from absolute frame ``start`` on it is removed and, unless ``src`` is None,
    redrawn from absolute frame ``src`` (or from the same frame when ``src`` is -1) shifted by
    ``shift[f]`` (dx, dy) pixels."""

    start: int
    src: int | None
    shift: dict[int, tuple[int, int]]


def _edits(sample: ExamSample, kind: str, clip: np.ndarray, boxes: dict[str, np.ndarray]) -> dict[str, _Edit]:
    traj, meta = sample.trajectory, sample.meta
    H, W = clip.shape[1:3]
    cut = clip.shape[0] - sample.target_video.shape[0]
    names = list(boxes)
    edits = {}
    for n in names:
        vis = np.asarray(traj["objects"][n]["visibility"], float)
        start = max(check_start(traj, n, meta), cut)
        frames = range(start, clip.shape[0])
        centre = 0.5 * (boxes[n][:, :2] + boxes[n][:, 2:])
        if kind == "deleted":
            edits[n] = _Edit(start, None, {})
        elif kind == "teleported":
            edits[n] = _Edit(
                start,
                -1,
                {f: (int(round(0.35 * W)) * (1 if centre[f, 0] < W / 2 else -1), 0) for f in frames},
            )
        else:

            def mask_at(f: int, n: str = n, vis: np.ndarray = vis) -> ObjectMask | None:
                return _mask(clip, boxes, n, f, vis)

            src = _source_frame(vis, start, mask_at)
            if src is None:
                edits[n] = _Edit(start, None, {})
                continue
            prev = max(src - 3, 0)
            v = (centre[src] - centre[prev]) / max(src - prev, 1) if kind == "passed_through" else np.zeros(2)
            edits[n] = _Edit(
                start, src, {f: (int(round(v[0] * (f - src))), int(round(v[1] * (f - src)))) for f in frames}
            )
    return edits


def _mask(
    clip: np.ndarray, boxes: dict[str, np.ndarray], n: str, f: int, vis: np.ndarray
) -> ObjectMask | None:
    if vis[f] <= HIDDEN:
        return None
    return object_mask(clip[f], boxes[n][f], [boxes[m][f] for m in boxes if m != n])


def _setup(sample: ExamSample) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    clip = np.concatenate([sample.input_video, sample.target_video])  # absolute frame f = clip[f]
    H, W = clip.shape[1:3]
    return clip, {n: object_boxes(sample.trajectory, n, W, H) for n in target_objects(sample.trajectory)}


def corrupt(sample: ExamSample, kind: str) -> np.ndarray:
    """The continuation ``kind`` (module table) of ``sample``: uint8 (T/2, H, W, 3).

    Raises:
        ValueError: unknown kind.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    tgt = sample.target_video
    if kind == "ground_truth":
        return tgt.copy()
    if kind == "last_frame":
        return np.repeat(sample.input_video[-1:], tgt.shape[0], axis=0)
    clip, boxes = _setup(sample)
    if kind == "seen_through":
        return _seen_through(sample, clip, boxes)
    T2, H, W = tgt.shape[:3]
    cut = clip.shape[0] - T2
    out = tgt.copy()
    edits = _edits(sample, kind, clip, boxes)
    for n, e in edits.items():  # remove every edited object first, then draw: one object never erases another
        vis = np.asarray(sample.trajectory["objects"][n]["visibility"], float)
        for f in range(e.start, cut + T2):
            om = _mask(clip, boxes, n, f, vis)
            if om is not None:
                out[f - cut] = inpaint(out[f - cut], _full_mask(om, (H, W)))
    for n, e in edits.items():
        if e.src is None:
            continue
        vis = np.asarray(sample.trajectory["objects"][n]["visibility"], float)
        for f in range(e.start, cut + T2):
            sf = f if e.src == -1 else e.src
            om = _mask(clip, boxes, n, sf, vis)
            if om is not None:
                out[f - cut] = paste(out[f - cut], clip[sf], _full_mask(om, (H, W)), *e.shift[f])
    return out


def _hidden_plan(
    sample: ExamSample, clip: np.ndarray, boxes: dict[str, np.ndarray]
) -> dict[str, tuple[int, list[int]]]:
    """Per object hidden in the target half: (last frame it was fully seen before, its hidden frames)."""
    cut = clip.shape[0] - sample.target_video.shape[0]
    plan = {}
    for n in boxes:
        vis = np.asarray(sample.trajectory["objects"][n]["visibility"], float)[: len(clip)]
        hid = [f for f in hidden_frames(sample.trajectory, n, cut) if f < len(clip)]

        def mask_at(f: int, n: str = n, vis: np.ndarray = vis) -> ObjectMask | None:
            return _mask(clip, boxes, n, f, vis)

        src = last_seen(vis, hid[0], mask_at) if hid else None
        if src is not None:
            plan[n] = (src, hid)
    return plan


def _seen_through(sample: ExamSample, clip: np.ndarray, boxes: dict[str, np.ndarray]) -> np.ndarray:
    out = sample.target_video.copy()
    H, W = out.shape[1:3]
    cut = clip.shape[0] - out.shape[0]
    for n, (src, hid) in _hidden_plan(sample, clip, boxes).items():
        vis = np.asarray(sample.trajectory["objects"][n]["visibility"], float)
        om = _mask(clip, boxes, n, src, vis)
        if om is None:
            continue
        c = 0.5 * (boxes[n][:, :2] + boxes[n][:, 2:])
        for f in hid:
            dx, dy = (int(round(v)) for v in c[f] - c[src])
            out[f - cut] = paste(out[f - cut], clip[src], _full_mask(om, (H, W)), dx, dy)
    return out


def is_violation(sample: ExamSample, kind: str) -> bool:
    """Whether the corruption ``kind`` contradicts the ground truth on ``sample``: some target object that the
    ground truth shows (visibility >= 0.6) after its check start is deleted, or is drawn farther than half
    its box diagonal from where the ground truth has it. (A frozen object is no violation where the object
    stays put anyway; an inertial continuation is none where the object keeps moving straight.)"""
    if kind in ("ground_truth", "last_frame"):
        return False
    clip, boxes = _setup(sample)
    if kind == "seen_through":
        return bool(_hidden_plan(sample, clip, boxes))
    cut = clip.shape[0] - sample.target_video.shape[0]
    for n, e in _edits(sample, kind, clip, boxes).items():
        vis = np.asarray(sample.trajectory["objects"][n]["visibility"], float)
        b = boxes[n]
        centre = 0.5 * (b[:, :2] + b[:, 2:])
        diag = np.hypot(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
        for f in range(max(e.start, cut), clip.shape[0]):
            if vis[f] < VISIBLE:
                continue
            if e.src is None:
                return True
            drawn = centre[f if e.src == -1 else e.src] + np.asarray(e.shift[f])
            if np.hypot(*(drawn - centre[f])) > 0.5 * diag[f]:
                return True
    return False


def write_baselines(
    samples: Iterable[ExamSample],
    out: str | Path,
    kinds: Iterable[str] = KINDS,
    on_sample: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Write ``OUT/{kind}/{key}.mp4`` (H.264, the target's fps and size) for every sample and kind, and
    ``OUT/violations.json``: ``{kind: [keys where it is a violation]}`` (see :func:`is_violation`; the
    kinds of an earlier run into the same folder are kept).

    Returns:
        {"written": {kind: count}, "violations": {kind: [keys]}}.
    """
    from simkit.core.episode import Video
    from simkit.episodes.codecs import encode

    root = Path(out)
    kinds = list(kinds)
    written = dict.fromkeys(kinds, 0)
    violations: dict[str, list[str]] = {k: [] for k in kinds if k in VIOLATIONS}
    for s in samples:
        fps = float(s.meta.get("target_fps", s.meta.get("fps", 24.0)))
        for k in kinds:
            d = root / k
            d.mkdir(parents=True, exist_ok=True)
            _, data = encode(Video(corrupt(s, k), fps=fps))
            (d / f"{s.key}.mp4").write_bytes(data)
            written[k] += 1
            if k in violations and is_violation(s, k):
                violations[k].append(s.key)
        if on_sample is not None:
            on_sample(s.key)
    vpath = root / "violations.json"
    previous = json.loads(vpath.read_text()) if vpath.exists() else {}
    vpath.write_text(json.dumps({**previous, **violations}, indent=1, sort_keys=True))
    return {"written": written, "violations": violations}
