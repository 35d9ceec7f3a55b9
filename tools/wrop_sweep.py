"""Sweep: render several samples of each WROP task generator and count redraws and audit failures.

For every selected task and sample index ``0 .. seeds-1`` it runs ``WropGenerator.generate`` (the episode rng
of the engine for that index) and then the audit (``check``) on the stored view of the sample. A draw whose
choreography does not fit the clip or whose expectations fail is a redraw (``SampleRejected``; the engine
retries it with new seeds); an audit failure on an accepted sample is a defect. The table gives, per task,
redraws, audit failures and seconds per sample. Usage::

    python tools/wrop_sweep.py --generator OS-2 --seeds 8 --frames 24
    python tools/wrop_sweep.py --generator all --seeds 2 --frames 120
"""

from __future__ import annotations

import argparse
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
            problems = g.check(sample)
            if problems:
                failures += 1
                print(f"  audit {task.id()} #{i}: {problems[0]}", flush=True)
        g.teardown()
        rows.append((task.id(), redraws, failures, (time.perf_counter() - t0) / max(seeds, 1)))
        print(f"{task.id()}: {redraws} redraws, {failures} audit failures of {seeds}", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generator", default="all", help="FAMILY/NAME, a family or all")
    ap.add_argument("--seeds", type=int, default=8, help="samples per task")
    ap.add_argument("--frames", type=int, default=24)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--height", type=int, default=36)
    a = ap.parse_args()
    rows = sweep(a.generator, a.seeds, a.frames, a.width, a.height)
    print(f"\n| task | redraws of {a.seeds} | audit failures | s per sample |\n| --- | ---: | ---: | ---: |")
    for gid, r, f, s in rows:
        print(f"| `{gid}` | {r} | {f} | {s:.2f} |")


if __name__ == "__main__":
    main()
