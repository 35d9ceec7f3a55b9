"""The WROP audit (``simkit validate`` hook): the checks of the paper's pipeline step 3 plus the event checker.

Checks on one decoded stored sample:

1. the four fields and the metadata are present and complete;
2. input and target have exactly T/2 frames each (60 + 60 at T = 120), equal size, equal fps
   (recorded per half: the mp4 decoder returns frames only);
3. no gap or overlap at the cut: the halves cover frames ``0 .. T/2-1`` and ``T/2 .. T-1``, and the
   pixel change across the cut is not an outlier against the changes on either side of it;
4. the trajectory has every key for every object, T entries each;
5. the metadata reproduces the sample: the structural (and surface) parameters re-drawn from the
   recorded seeds equal the recorded ones;
6. the key event is at or after the cut and the declared expectations hold on the measured
   trajectory (:func:`simkit.scenes.wrop.expect.evaluate`);
7. props are true: every mesh the renderer built (the trajectory's ``mesh`` ids) is the prop the surface
   draw recorded for that slot (``mesh_<slot>``) and back, the prompt names it ("the red toy duck"), and
   its measured bounding box stays inside the primitive's box (``dims``) on every frame;
8. the outcome text is true: the task re-composed from the recorded seeds at the recorded clip length gives
   the recorded ``expected_outcome`` and expectations, and its outcome claims
   (:mod:`simkit.scenes.wrop.claims`: "rolls back", "passes", "stops"...) hold on the stored trajectory.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simkit.generators.wrop.base import Clip, catalogue, fix_articles
from simkit.scenes.wrop import claims
from simkit.scenes.wrop.expect import evaluate

META_KEYS = (
    "generator_id",
    "family",
    "split",
    "structural_seed",
    "surface_seed",
    "expected_outcome",
    "legal_outcomes",
    "event_frames",
    "key_event",
    "cut_frame",
    "input_frames",
    "target_frames",
    "frames",
    "fps",
    "input_fps",
    "target_fps",
    "blender_version",
    "expectations",
)
OBJECT_KEYS = (
    "role",
    "kind",
    "position",
    "rotation",
    "scale",
    "image_xy",
    "bbox_min",
    "bbox_max",
    "visibility",
    "occluded_by",
)


def cut_outlier(inp: np.ndarray, tgt: np.ndarray) -> str | None:
    """A problem string when the change across the cut is an outlier, else None.

    d = mean |a - b| over pixels (uint8 levels). With d_cut across the cut and d_prev/d_next the
    changes of the two neighbouring frame pairs, a gap (skipped frames or a jump) shows as
    d_cut > 3 max(d_prev, d_next) + 2 levels (2 levels allows for H.264 noise at crf 18).
    """
    if len(inp) < 2 or len(tgt) < 2:
        return None
    d = lambda a, b: float(np.mean(np.abs(a.astype(np.int16) - b.astype(np.int16))))  # noqa: E731
    d_prev, d_cut, d_next = d(inp[-2], inp[-1]), d(inp[-1], tgt[0]), d(tgt[0], tgt[1])
    if d_cut > 3 * max(d_prev, d_next) + 2.0:
        return (
            f"discontinuity at the cut: mean change {d_cut:.2f} vs {d_prev:.2f} before and {d_next:.2f} after"
        )
    return None


def audit(gen, sample: dict[str, Any]) -> list[str]:
    """All problems of ``sample`` (decoded fields + ``meta``); empty when it passes."""
    problems: list[str] = []
    meta = sample.get("meta") or {}
    for name in ("input_video", "target_video", "prompt", "trajectory"):
        if name not in sample:
            problems.append(f"field {name!r} missing")
    missing = [k for k in META_KEYS if k not in meta]
    if missing:
        problems.append(f"metadata incomplete: missing {missing}")
    if problems:
        return problems
    inp, tgt, traj = (
        np.asarray(sample["input_video"]),
        np.asarray(sample["target_video"]),
        sample["trajectory"],
    )
    if not isinstance(sample["prompt"], str) or not sample["prompt"].strip():
        problems.append("prompt is empty")
    T, cut = int(meta["frames"]), int(meta["cut_frame"])
    if cut != T // 2:
        problems.append(f"cut at frame {cut}, expected {T // 2}")
    if inp.ndim != 4 or tgt.ndim != 4 or inp.shape[1:] != tgt.shape[1:] or inp.shape[-1] != 3:
        problems.append(f"input {inp.shape} and target {tgt.shape} are not videos of one size")
        return problems
    if inp.shape[0] != cut or tgt.shape[0] != T - cut:
        problems.append(f"expected {cut} + {T - cut} frames, got {inp.shape[0]} + {tgt.shape[0]}")
    w, h = meta.get("resolution", [inp.shape[2], inp.shape[1]])
    if (inp.shape[2], inp.shape[1]) != (w, h):
        problems.append(f"video is {inp.shape[2]}x{inp.shape[1]}, metadata says {w}x{h}")
    if not (meta["input_fps"] == meta["target_fps"] == meta["fps"] == traj.get("fps")):
        problems.append(
            f"fps differ: input {meta['input_fps']}, target {meta['target_fps']}, "
            f"trajectory {traj.get('fps')}"
        )
    a, b = meta["input_frames"], meta["target_frames"]
    if a != [0, cut - 1] or b != [cut, T - 1] or b[0] != a[1] + 1:
        problems.append(f"halves do not meet at the cut: input frames {a}, target frames {b}")
    msg = cut_outlier(inp, tgt)
    if msg:
        problems.append(msg)
    objs = traj.get("objects") or {}
    problems.extend(trajectory_problems(traj, T))
    task_cls = catalogue().get(meta["generator_id"])
    params = meta.get("params") or {}
    problems.extend(seed_problems(task_cls, meta, params))
    ev = meta["event_frames"]
    key = meta["key_event"]
    if key not in ev or not (cut <= int(ev[key]) < T):
        problems.append(
            f"key event {key!r} at frame {ev.get(key)} is not within the target half {cut}..{T - 1}"
        )
    if not problems:
        problems.extend(f"event check: {p}" for p in evaluate(meta["expectations"], traj))
        problems.extend(prop_problems((params.get("surface") or {}), objs, sample.get("prompt", "")))
        if task_cls is not None:
            problems.extend(outcome_problems(task_cls, meta, traj))
    return problems


def trajectory_problems(traj: dict[str, Any], T: int) -> list[str]:
    """Check 4 of the module docstring: objects present, every key of :data:`OBJECT_KEYS` per object, and
    ``T`` entries for each per-frame key."""
    problems: list[str] = []
    objs = traj.get("objects") or {}
    if not objs or traj.get("frames") != T:
        problems.append("trajectory has no objects or a wrong frame count")
    for name, rec in objs.items():
        miss = [k for k in OBJECT_KEYS if k not in rec]
        if miss:
            problems.append(f"trajectory of {name!r} misses {miss}")
            continue
        short = [k for k in OBJECT_KEYS[2:] if len(rec[k]) != T]
        if short:
            problems.append(f"trajectory of {name!r}: {short} do not have {T} entries")
    return problems


def seed_problems(task_cls, meta: dict[str, Any], params: dict[str, Any]) -> list[str]:
    """Check 5 of the module docstring: the task exists, and its structural and surface parameters re-drawn
    from the recorded seeds are the recorded ones, with the structural seed in the split's range."""
    problems: list[str] = []
    if task_cls is None:
        problems.append(f"unknown generator id {meta['generator_id']!r}")
    else:
        task = task_cls()
        st = {k: v for k, v in (params.get("structural") or {}).items() if k != "task"}
        if task.sample_structural(int(meta["structural_seed"])) != st:
            problems.append("structural parameters are not reproduced by the recorded structural seed")
        if task.sample_surface(int(meta["surface_seed"])).flat() != (params.get("surface") or {}):
            problems.append("surface parameters are not reproduced by the recorded surface seed")
        split_exam = int(meta["structural_seed"]) >= 2**62
        if split_exam != (meta["split"] == "exam"):
            problems.append(f"structural seed outside the {meta['split']} range")
    return problems


def outcome_problems(task_cls, meta: dict[str, Any], traj: dict[str, Any]) -> list[str]:
    """Check 8 of the module docstring: re-compose ``task_cls`` from the recorded seeds on a clip of the
    recorded ``frames`` and ``fps`` (no rendering), compare its outcome text and expectations with the
    recorded ones, and evaluate its outcome claims on the stored trajectory; one message per problem."""
    task = task_cls()
    s = task.sample_structural(int(meta["structural_seed"]))
    look = task.sample_surface(int(meta["surface_seed"]))
    try:
        comp = task.compose(s, Clip(int(meta["frames"]), float(meta["fps"])), look)
    except ValueError as exc:
        return [f"outcome check: the recorded structure does not compose at this clip length ({exc})"]
    outcome = fix_articles(comp.outcome)
    if outcome != meta["expected_outcome"]:
        return [f"outcome check: recorded {meta['expected_outcome']!r}, the task composes {outcome!r}"]
    if [e.to_dict() for e in comp.expectations] != meta["expectations"]:
        return ["outcome check: the recorded expectations are not the ones the task composes"]
    return [f"outcome check: {p}" for p in claims.evaluate(comp.claims, traj)]


def prop_problems(surface: dict[str, Any], objs: dict[str, Any], prompt: str) -> list[str]:
    """Check 7 of the module docstring on the recorded surface parameters, the trajectory's objects and the
    prompt; one message per problem."""
    from simkit.generators.wrop.props import PROPS

    problems = []
    # slots whose object this structure does not build (e.g. a third object of a two-object row) show nothing
    drawn = {k[5:]: v for k, v in surface.items() if k.startswith("mesh_") and v != "none" and k[5:] in objs}
    built = {name: rec.get("mesh", "") for name, rec in objs.items() if rec.get("mesh")}
    if set(drawn) != set(built):
        problems.append(f"props drawn for {sorted(drawn)} but meshes built for {sorted(built)}")
    for slot, prop in drawn.items():
        if slot not in built or prop not in PROPS:
            continue
        rec, want = objs[slot], PROPS[prop]
        colour = surface.get(f"colour_{slot}", "")
        if built[slot] != want.asset_id:
            problems.append(f"object {slot!r} is mesh {built[slot]!r}, the surface drew {want.asset_id!r}")
        if f"{colour} {want.noun}" not in prompt:
            problems.append(f"the prompt does not name the {colour} {want.noun} of slot {slot!r}")
        ext = np.asarray(rec["bbox_max"], float) - np.asarray(rec["bbox_min"], float)
        if np.any(ext > np.asarray(rec["dims"], float) + 1e-4):
            problems.append(f"prop {slot!r} is larger than the primitive box {rec['dims']} it stands in for")
    return problems
