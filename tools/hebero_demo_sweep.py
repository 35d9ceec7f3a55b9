"""Success of the scripted Hebero planner per task, over seeds and over LIBERO's fixed initial states.

For every task of ``--suite`` (or ``--task``), records one demo per seed 0..``--seeds``-1 from
simkit's own LIBERO-faithful starts (``reset(seed=s)``, :mod:`simkit.scenes.hebero.placement`) and
one per LIBERO fixed initial state 0..``--init-states``-1 (:mod:`simkit.scenes.hebero.init_states`)
with :func:`simkit.envs.hebero.demos.record_demo`, and prints a Markdown table: successes per
start kind and the failure reasons (the planner's log: atoms it gave up on; else the goal atoms
false on the last state). ``--json`` also writes the table as JSON. Run it niced; it is CPU bound
(about 1 to 5 s per demo on one core)::

    nice -n 10 python tools/hebero_demo_sweep.py --suite all --seeds 50 --init-states 10
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from pathlib import Path


def failure_reason(env, log: list[str]) -> str:
    """Why a demo failed: the planner's first give-up, else the goal atoms false on the last state."""
    if log:
        return log[0]
    from simkit.envs.hebero.scripted import goal_atoms

    scene = env.tasks[0].scene
    _, data = env.backend.get_data(0, 0)
    false = [
        f"{p}({', '.join(a)})"
        for p, a in goal_atoms(scene.descriptor)
        if not scene.evaluator.atom(data, [p, *a])
    ]
    return "false at the end: " + ", ".join(false) if false else "goal held too briefly"


def sweep_task(task: str, seeds: int, init_states: int, max_steps: int) -> dict:
    """One task's row: successes over seeds and over fixed initial states, failure reasons counted."""
    from simkit.envs.hebero.demos import demo_env, record_demo

    env = demo_env(task)
    row: dict = {"task": task, "seeds": [0, seeds], "init_states": [0, init_states], "steps": 0}
    reasons: collections.Counter = collections.Counter()
    starts = [("seeds", s, None) for s in range(seeds)] + [("init_states", 0, k) for k in range(init_states)]
    t0 = time.perf_counter()
    for kind, seed, init in starts:
        log: list[str] = []
        demo = record_demo(env, seed, max_steps, init_state=init, log=log)
        row["steps"] += demo.length
        if demo.success:
            row[kind][0] += 1
        else:
            reasons[failure_reason(env, log)] += 1
    row["seconds"] = round(time.perf_counter() - t0, 1)
    row["reasons"] = dict(reasons.most_common())
    return row


def markdown(rows: list[dict]) -> str:
    """The per-task table (success over seeds, over LIBERO's initial states, failure reasons)."""
    out = ["| task | seeds | LIBERO init states | failures (count) |", "| --- | --- | --- | --- |"]
    for r in rows:
        why = "; ".join(f"{k} ({v})" for k, v in r["reasons"].items()) or ""
        s, i = r["seeds"], r["init_states"]
        out.append(f"| `{r['task']}` | {s[0]}/{s[1]} | {i[0]}/{i[1]} | {why} |")
    return "\n".join(out)


def main() -> None:
    from simkit.envs.hebero.tasks import task_ids

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="all", choices=["goal", "object", "spatial", "long", "all"])
    ap.add_argument("--task", action="append", help="task id (repeatable; overrides --suite)")
    ap.add_argument("--seeds", type=int, default=10, help="simkit starts: seeds 0..N-1")
    ap.add_argument("--init-states", type=int, default=5, help="LIBERO's fixed initial states 0..M-1 (<= 50)")
    ap.add_argument("--max-steps", type=int, default=600)
    ap.add_argument("--json", type=Path, help="also write the rows here")
    a = ap.parse_args()
    rows = []
    for task in task_ids(a.suite, a.task):
        rows.append(sweep_task(task, a.seeds, a.init_states, a.max_steps))
        r = rows[-1]
        print(
            f"{r['seeds'][0]}/{a.seeds} seeds, {r['init_states'][0]}/{a.init_states} init  {task}  {r['reasons']}",
            flush=True,
        )
        if a.json:
            a.json.write_text(json.dumps(rows, indent=1))
    print(markdown(rows))
    good = sum(r["seeds"][0] >= 0.9 * r["seeds"][1] for r in rows)
    print(f"\n{good} of {len(rows)} tasks with planner success >= 90 % over {a.seeds} seeds")


if __name__ == "__main__":
    main()
