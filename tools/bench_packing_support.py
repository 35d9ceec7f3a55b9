"""BR1-BR7 volume utilisation under two support rules, and how much of each base is supported.

Usage:
    python tools/bench_packing_support.py --br-dir PATH/TO/br [--limit 5] [--policy dblf]
        [--rules com,area:0.75] [--out bench_packing_support.json]

Geometry only (heightmap placement, no pybullet), buffer 5, arrival shuffled with each problem's
seed. For every packing it also counts the boxes standing on less than 50 % / 75 % of their base
(the geometric checker's ``area:F`` test on the final poses). Prints a markdown table with the
machine and date for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from simkit.eval.packing.evaluate import load_cases
from simkit.eval.packing.policies import make_policy
from simkit.scenes.packing.candidates import SupportRule, parse_support
from simkit.scenes.packing.checker import check_packing
from simkit.scenes.packing.metrics import case_metrics, centre_inside, heightmap_from_poses
from simkit.sims.packing.episode import PackingEpisode


def run_problem(case, policy: str, rule: SupportRule, seed: int) -> dict:
    """One problem, geometry only: utilisation, seconds and the under-supported box counts."""
    t0 = time.perf_counter()
    pol = make_policy(policy)
    ep = PackingEpisode(case, None, rule)
    pol.reset(case, np.random.default_rng([seed, 0]))
    while not ep.done:
        ep.step(pol.act(ep.state()))
    poses = ep.final_poses()
    packed = [(ep.placed[i][0], poses[i]) for i in poses if centre_inside(case.container, poses[i][0])]
    m = case_metrics(
        case.container,
        case.total_volume,
        [b for b, _ in packed],
        heightmap_from_poses(case.container, packed),
        len(case.items),
    )
    under = {
        f: sum(
            v.kind == "undersupported"
            for v in check_packing(case.container, packed, support=SupportRule("area", f))
        )
        for f in (0.5, 0.75)
    }
    return {
        "case": case.name,
        "utilisation": m.to_dict()["utilisation"],
        "boxes": len(packed),
        "under_50": under[0.5],
        "under_75": under[0.75],
        "seconds": round(time.perf_counter() - t0, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--br-dir", type=Path, required=True, help="folder with thpack1..7.txt")
    ap.add_argument("--limit", type=int, default=5, help="first problems per set")
    ap.add_argument("--policy", default="dblf")
    ap.add_argument("--rules", default="com,area:0.75")
    ap.add_argument("--out", type=Path, default=Path("bench_packing_support.json"))
    args = ap.parse_args()
    rules = [parse_support(r) for r in args.rules.split(",")]
    date = datetime.now(UTC).isoformat(timespec="seconds")
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {platform.system()}"
    print(f"# {date} {machine}; policy {args.policy}, geometry only, first {args.limit} problems per set")
    head = " | ".join(f"utilisation ({r}) | boxes < 50 % / < 75 % supported ({r})" for r in rules)
    print(f"\n| set | {head} | s/problem |")
    print("|---|" + "---|---|" * len(rules) + "---|")
    doc: dict = {"date": date, "machine": machine, "policy": args.policy, "sets": {}}
    for n in range(1, 8):
        cases, _ = load_cases(f"br:{args.br_dir / f'thpack{n}.txt'}", args.limit)
        cells, secs = [], []
        for rule in rules:
            rows = [run_problem(c, args.policy, rule, 0) for c in cases]
            doc["sets"].setdefault(f"br{n}", {})[str(rule)] = rows
            u = np.mean([r["utilisation"] for r in rows])
            u50 = np.mean([r["under_50"] for r in rows])
            u75 = np.mean([r["under_75"] for r in rows])
            cells.append(f"{u:.3f} | {u50:.1f} / {u75:.1f}")
            secs += [r["seconds"] for r in rows]
        print(f"| BR{n} | " + " | ".join(cells) + f" | {np.mean(secs):.1f} |", flush=True)
    args.out.write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
