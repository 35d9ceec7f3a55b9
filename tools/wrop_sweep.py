"""Sweep: render several samples of each WROP task generator and count redraws and audit failures.

For every selected task and sample index ``0 .. seeds-1`` it runs ``WropGenerator.generate`` (the episode rng
of the engine for that index) and then the audit (``check``) on the stored view of the sample. A draw whose
choreography does not fit the clip or whose expectations fail is a redraw (``SampleRejected``; the engine
retries it with new seeds); an audit failure on an accepted sample is a defect. The table gives, per task,
redraws, audit failures and seconds per sample. An accepted sample must also have the clip's shape (two
halves of ``frames/2`` frames, uint8), its key event in the target half and one visibility value per frame
of every object (what tests/test_wrop_generators.py checks on a sample of the tasks). ``--prompts N``
instead composes N draws of each task at the paper's 120 frames (no rendering) and lists every prompt or
outcome with a wrong article ("a orange", "an red"; tests/test_wrop_language.py checks 4 draws per task).
The full sweeps CI leaves out::

    python tools/wrop_sweep.py --generator all --seeds 1 --frames 24 --width 64 --height 36
    python tools/wrop_sweep.py --generator all --prompts 25
    python tools/wrop_sweep.py --generator OS-2 --seeds 8 --frames 24
"""

from __future__ import annotations

import argparse
import re
import time


def sweep(spec: str, seeds: int, frames: int, width: int, height: int) -> list[tuple[str, int, int, float]]:
    """(task id, redraws, audit failures, seconds per sample) of every task ``spec`` selects."""
    from simkit.core.errors import SampleRejected
    from simkit.core.seeding import episode_rng
    from simkit.generators.wrop import WropConfig, WropGenerator, select

    rows = []
    for task in select(spec):
        g = WropGenerator()
        g.setup(
            WropConfig(generator=task.id(), frames=frames, width=width, height=height, visibility_points=96)
        )
        redraws = failures = 0
        t0 = time.perf_counter()
        for i in range(seeds):
            try:
                ep = g.generate(i, episode_rng(0, "wrop", i))
            except SampleRejected as exc:
                redraws += 1
                print(f"  redraw {task.id()} #{i}: {exc}", flush=True)
                continue
            sample = {k: (v.frames if hasattr(v, "frames") else v) for k, v in ep.fields.items()}
            sample["meta"] = {**ep.meta, "params": ep.params}
            problems = g.check(sample) + _clip_problems(ep, frames, height, width)
            if problems:
                failures += 1
                print(f"  audit {task.id()} #{i}: {problems[0]}", flush=True)
        g.teardown()
        rows.append((task.id(), redraws, failures, (time.perf_counter() - t0) / max(seeds, 1)))
        print(f"{task.id()}: {redraws} redraws, {failures} audit failures of {seeds}", flush=True)
    return rows


def _clip_problems(ep, frames: int, height: int, width: int) -> list[str]:
    """Shape, dtype, key-event frame and visibility length of one generated sample (empty: all hold)."""
    half = (frames // 2, height, width, 3)
    out = []
    for name in ("input_video", "target_video"):
        v = ep.fields[name].frames
        if v.shape != half or v.dtype.name != "uint8":
            out.append(f"{name} is {v.dtype} {v.shape}, not uint8 {half}")
    ev = ep.meta["event_frames"][ep.meta["key_event"]]
    if not frames // 2 <= ev < frames:
        out.append(f"key event at frame {ev}, not in the target half [{frames // 2}, {frames})")
    for name, o in ep.fields["trajectory"]["objects"].items():
        if len(o["visibility"]) != frames:
            out.append(f"{name}: {len(o['visibility'])} visibility values for {frames} frames")
    return out


def prompts(spec: str, draws: int) -> list[tuple[str, int, str]]:
    """(task id, structural seed, text) of every prompt or outcome with a wrong indefinite article among
    ``draws`` compositions of each task ``spec`` selects (seeds 0.., surface seeds 1000..)."""
    from simkit.generators.wrop import WropConfig, WropGenerator, select

    g = WropGenerator()
    g.setup(WropConfig(frames=120))
    bad = []
    for task in select(spec):
        for seed in range(draws):
            try:
                _, _, _, c = g.compose(task, seed, 1000 + seed)
            except ValueError:
                continue  # a draw that does not fit the clip (the generator redraws it)
            for text in (c.prompt, c.outcome):
                if re.search(r"\b[Aa] [aeiouAEIOU]", text) or re.search(r"\b[Aa]n [^aeiouAEIOU]", text):
                    bad.append((task.id(), seed, text))
                    print(f"  article {task.id()} #{seed}: {text}", flush=True)
    return bad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generator", default="all", help="FAMILY/NAME, a family or all")
    ap.add_argument("--seeds", type=int, default=8, help="samples per task")
    ap.add_argument("--frames", type=int, default=24)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--height", type=int, default=36)
    ap.add_argument("--prompts", type=int, default=0, help="compose N draws per task and check the articles")
    a = ap.parse_args()
    if a.prompts:
        bad = prompts(a.generator, a.prompts)
        print(f"{len(bad)} prompt(s) or outcome(s) with a wrong article")
        raise SystemExit(1 if bad else 0)
    rows = sweep(a.generator, a.seeds, a.frames, a.width, a.height)
    print(f"\n| task | redraws of {a.seeds} | audit failures | s per sample |\n| --- | ---: | ---: | ---: |")
    for gid, r, f, s in rows:
        print(f"| `{gid}` | {r} | {f} | {s:.2f} |")


if __name__ == "__main__":
    main()
