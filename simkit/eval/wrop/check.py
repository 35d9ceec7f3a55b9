"""Generator-aware OP/OS checker: is each object where and when the exam's trajectory says it must be seen?

Paper metrics measure closeness to the reference; this checker uses what simkit knows about every exam
sample (spec ``wrop``, "Evaluation side": "a generator-aware checker that uses the trajectory metadata").
For each object of role ``target`` (the balls, blocks and cylinders whose permanence or solidity is
tested), the *required frames* are the target-half frames on which the ground truth shows it (measured
visibility >= :data:`VISIBLE`) and its mask is measurable (:mod:`simkit.eval.wrop.evidence`), from
its *check start* on (an object with fewer than :data:`MIN_FRAMES` such frames is not checked):

- an object that the ground truth hides in the target half (visibility <= :data:`HIDDEN` with at least half
  of it covered by other objects: behind a screen, under a cup; :func:`hidden_frames`) must reappear: the
  check starts on the frame after its last hidden frame;
- otherwise the check starts at the sample's key event (``meta.event_frames[meta.key_event]``: the
  contact, the support loss, the impact), or at the cut when the event lies before it.

On each required frame the object's presence in the prediction is measured inside its projected box
(ground-truth object colours, :func:`~simkit.eval.wrop.evidence.presence`). Per sample:

- ``score``: mean over the target objects of their mean presence over their required frames (0..1);
- ``count``: objects present (presence >= :data:`PRESENT`) on the last frame, against the objects the
  ground truth shows there;
- ``seen_through``: for an object that the ground truth hides in the target half, the mean over its
  hidden frames of its ghost evidence (:func:`~simkit.eval.wrop.evidence.ghost`: its colours inside its
  projected box where the ground truth shows the occluder); the largest over the objects;
- ``passed``: every object's mean presence >= :data:`PRESENT`, the count conserved, and no hidden object
  seen through its occluder (``seen_through`` < :data:`GHOST`).

The check is named after what it tests in each family: OP-1 ``reappear``, OP-2 ``restore``, OP-3
``reveal``, OS-1 ``no_pass_through``, OS-2 ``fall``, OS-3 ``conserve``. The ground truth itself scores
about 1; predictions that delete, teleport, freeze an object or let it pass through a solid score lower
(measured in ``docs/wrop_eval.md``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.eval.wrop.evidence import ObjectMask, ghost, object_boxes, object_mask, presence, work_scale
from simkit.eval.wrop.video import ExamSample, score_predictions

VISIBLE = 0.6  # measured visibility at or above which the ground truth shows an object (expect.visible)
HIDDEN = 0.05  # visibility at or below which it is hidden (expect.hidden)
PRESENT = 0.5  # presence at or above which an object counts as present
SEEN = 0.8  # visibility of the frame whose colours stand for a hidden object
GHOST = 0.5  # mean ghost evidence at or above which a hidden object counts as seen through its occluder
MIN_FRAMES = 3  # an object with fewer measurable required frames is not checked (too little evidence)
FAMILY_CHECK = {
    "OP-1": "reappear",
    "OP-2": "restore",
    "OP-3": "reveal",
    "OS-1": "no_pass_through",
    "OS-2": "fall",
    "OS-3": "conserve",
}


def target_objects(traj: dict[str, Any]) -> list[str]:
    """Names of the objects of role ``target`` (sorted)."""
    return sorted(n for n, o in traj["objects"].items() if o.get("role") == "target")


def key_frame(meta: dict[str, Any], cut: int) -> int:
    """Absolute frame of the sample's key event (not before the cut)."""
    ev = meta.get("event_frames") or {}
    f = ev.get(meta.get("key_event"), cut) if isinstance(ev, dict) else cut
    if isinstance(f, (list, tuple)):
        f = f[0] if f else cut
    return max(int(f), cut)


def check_start(traj: dict[str, Any], name: str, meta: dict[str, Any]) -> int:
    """Absolute frame from which object ``name`` is checked (module docstring)."""
    cut = int(traj.get("cut", meta.get("cut_frame", traj["frames"] // 2)))
    hidden = hidden_frames(traj, name, cut)
    if hidden:
        return hidden[-1] + 1
    return key_frame(meta, cut)


@dataclass
class Reference:
    """Per target object: the absolute check start and, per target-half frame index, the ground-truth
    mask on required frames (None elsewhere)."""

    cut: int
    starts: dict[str, int]
    masks: dict[str, list[ObjectMask | None]]
    gt: np.ndarray | None = None
    #: per object that the ground truth hides in the target half: (its mask on the last frame it was fully
    #: seen before, [(target-half frame index, projected box), ...] of the hidden frames)
    hidden: dict[str, tuple[ObjectMask, list[tuple[int, np.ndarray]]]] = field(default_factory=dict)


def reference(sample: ExamSample, target: np.ndarray | None = None) -> Reference:
    """The required frames and ground-truth masks of ``sample`` (``target``: its target video at work
    scale, computed when not given)."""
    traj, meta = sample.trajectory, sample.meta
    gt = work_scale(sample.target_video) if target is None else target
    T, H, W = gt.shape[:3]
    cut = int(traj.get("cut", meta.get("cut_frame", traj["frames"] // 2)))
    names = target_objects(traj)
    boxes = {n: object_boxes(traj, n, W, H) for n in names}
    starts, masks = {}, {}
    for n in names:
        vis = np.asarray(traj["objects"][n]["visibility"], float)
        starts[n] = check_start(traj, n, meta)
        ms: list[ObjectMask | None] = []
        for k in range(T):
            f = cut + k
            if f < starts[n] or f >= len(vis) or vis[f] < VISIBLE:
                ms.append(None)
                continue
            others = [boxes[m][f] for m in names if m != n]
            ms.append(object_mask(gt[k], boxes[n][f], others))
        if sum(m is not None for m in ms) < MIN_FRAMES:
            ms = [None] * T
        masks[n] = ms
    hidden = _hidden_frames(sample, gt, cut, boxes)
    return Reference(cut, starts, masks, gt, hidden)


def hidden_frames(traj: dict[str, Any], name: str, start: int) -> list[int]:
    """Frames from ``start`` on where object ``name`` is hidden by another object: visibility <= HIDDEN and
    at least half of it covered by occluders (``occluded_by`` shares), so not merely out of frame."""
    o = traj["objects"][name]
    vis, occ = o["visibility"], o.get("occluded_by") or [{}] * len(o["visibility"])
    return [f for f in range(start, len(vis)) if vis[f] <= HIDDEN and sum(occ[f].values()) >= 0.5]


def last_seen(vis: np.ndarray, before: int, mask_at: Callable[[int], ObjectMask | None]) -> int | None:
    """Last frame before ``before`` with visibility >= :data:`SEEN` and a measurable mask, or None."""
    for f in range(min(before, len(vis)) - 1, -1, -1):
        if vis[f] >= SEEN and mask_at(f) is not None:
            return f
    return None


def _hidden_frames(
    sample: ExamSample, gt: np.ndarray, cut: int, boxes: dict[str, np.ndarray]
) -> dict[str, tuple[ObjectMask, list[tuple[int, np.ndarray]]]]:
    clip = np.concatenate([work_scale(sample.input_video), gt])
    out = {}
    for n, b in boxes.items():
        vis = np.asarray(sample.trajectory["objects"][n]["visibility"], float)[: len(clip)]
        hid = [f for f in hidden_frames(sample.trajectory, n, cut) if f < len(clip)]
        if not hid:
            continue

        def mask_at(f: int, n: str = n) -> ObjectMask | None:
            return object_mask(clip[f], boxes[n][f], [boxes[m][f] for m in boxes if m != n])

        src = last_seen(vis, hid[0], mask_at)
        seen = mask_at(src) if src is not None else None
        if seen is not None:
            out[n] = (seen, [(f - cut, b[f]) for f in hid])
    return out


def check_prediction(sample: ExamSample, pred: np.ndarray, ref: Reference | None = None) -> dict[str, Any]:
    """Checker result of one prediction (uint8 (T/2, H, W, 3), the target's frame count and size).

    Returns:
        {"key", "generator_id", "family", "check", "score", "passed", "count_expected", "count_found",
        "seen_through", "objects": {name: {"frames": n required, "presence": mean or None, "start": absolute
        frame, "ghost": mean ghost evidence on its hidden frames (only for objects hidden in the target)}}};
        ``score`` is None when no object has a required frame; ``seen_through`` is the largest object ghost
        (None when no object is hidden); ``passed`` is None when both are None (nothing to measure).
    """
    ref = reference(sample) if ref is None else ref
    p = work_scale(pred)
    objects: dict[str, dict[str, Any]] = {}
    last_expected = last_found = 0
    for n, ms in ref.masks.items():
        vals = [presence(p[k], m) for k, m in enumerate(ms) if m is not None]
        objects[n] = {
            "frames": len(vals),
            "presence": float(np.mean(vals)) if vals else None,
            "start": ref.starts[n],
        }
        if ms and ms[-1] is not None:
            last_expected += 1
            last_found += int(presence(p[-1], ms[-1]) >= PRESENT)
        if n in ref.hidden and ref.gt is not None:
            seen, frames = ref.hidden[n]
            objects[n]["ghost"] = float(np.mean([ghost(p[k], ref.gt[k], box, seen) for k, box in frames]))
    measured = [o["presence"] for o in objects.values() if o["presence"] is not None]
    ghosts = [o["ghost"] for o in objects.values() if "ghost" in o]
    score = float(np.mean(measured)) if measured else None
    seen_through = max(ghosts) if ghosts else None
    present_ok = not measured or (min(measured) >= PRESENT and last_found == last_expected)
    passed = present_ok and (seen_through is None or seen_through < GHOST)
    return {
        "key": sample.key,
        "generator_id": sample.generator_id,
        "family": sample.family,
        "check": FAMILY_CHECK.get(sample.family, "present"),
        "score": score,
        "passed": passed if (score is not None or seen_through is not None) else None,
        "count_expected": last_expected,
        "count_found": last_found,
        "seen_through": seen_through,
        "objects": objects,
    }


@dataclass
class CheckReport:
    """Per-sample results (see :func:`check_prediction`) and problems (one line each)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def table(self, by: str = "family") -> list[dict[str, Any]]:
        """Per group (``family`` or ``generator_id``) and ``all``: n measured, mean score, pass rate,
        count-conserved rate, share of hidden-object checks passed (``hidden_rate``)."""
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in self.rows:
            if r["passed"] is not None:
                groups[str(r[by])].append(r)
        every = [r for rs in groups.values() for r in rs]
        out = []
        for name, rs in [*sorted(groups.items()), ("all", every)]:
            if not rs:
                continue
            out.append(
                {
                    by: name,
                    "check": FAMILY_CHECK.get(name, "-") if by == "family" else rs[0]["check"],
                    "n": len(rs),
                    "score": _mean([r["score"] for r in rs]),
                    "pass_rate": float(np.mean([r["passed"] for r in rs])),
                    "count_rate": _mean(
                        [
                            float(r["count_found"] == r["count_expected"]) if r["score"] is not None else None
                            for r in rs
                        ]
                    ),
                    "hidden_rate": _hidden_rate(rs),
                }
            )
        return out


def _mean(values: list[float | None]) -> float:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else float("nan")


def _hidden_rate(rows: list[dict[str, Any]]) -> float:
    """Share of the rows with a hidden-object check whose hidden objects stayed unseen (NaN if none)."""
    vals = [r["seen_through"] < GHOST for r in rows if r.get("seen_through") is not None]
    return float(np.mean(vals)) if vals else float("nan")


def evaluate_check(
    samples: Iterable[ExamSample], pred_dir: str | Path, on_sample: Callable[[str], None] | None = None
) -> CheckReport:
    """Run the checker on each exam sample's prediction in ``pred_dir``; a missing or malformed prediction
    is one problem line and the rest is checked."""
    rows, problems = score_predictions(samples, pred_dir, check_prediction, on_sample)
    return CheckReport(rows, problems)
