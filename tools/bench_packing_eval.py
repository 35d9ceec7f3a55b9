"""Benchmark the packing baselines: PackLab-Bench-equivalent scores and BR1-BR7 volume utilisation.

Usage:
    python tools/bench_packing_eval.py [--policies dblf,mta,hm,sdf,ffp,random,expert]
        [--br-dir DIR] [--br-physics 5] [--br-geometry 20] [--buffer 5] [--out results.json]

Bench: every policy on the 60 shipped cases, closed loop with pybullet at every step.
BR: dblf on the first --br-physics problems of each thpack file with physics, and on the first
--br-geometry problems without physics (heightmap placement only; physics rarely changes a DBLF
result, see the physics rows). Prints markdown tables (machine, date) for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from datetime import UTC, datetime
from pathlib import Path

from simkit.eval.packing.evaluate import evaluate, load_cases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policies", default="dblf,mta,hm,sdf,ffp,random,expert")
    ap.add_argument(
        "--br-dir", type=Path, default=None, help="folder with thpack1..7.txt (skip BR when absent)"
    )
    ap.add_argument("--br-physics", type=int, default=5)
    ap.add_argument("--br-geometry", type=int, default=20)
    ap.add_argument("--buffer", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path("bench_packing_eval.json"))
    args = ap.parse_args()
    doc = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {platform.system()}",
        "bench": {},
        "br": {},
    }
    cases, _ = load_cases("bench")
    print(f"# {doc['date']} {doc['machine']}")
    print(
        "\n| policy | easy | medium | hard | average overall | success | compactness | invalid | violations | s/case |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for pol in [p for p in args.policies.split(",") if p]:
        r = evaluate(cases, pol)
        s = r["summary"]
        doc["bench"][pol] = r
        print(
            f"| {pol} | {s['easy']['overall']:.3f} | {s['medium']['overall']:.3f} | {s['hard']['overall']:.3f} | "
            f"{s['average']['overall']:.3f} | {s['average']['success_ratio']:.3f} | "
            f"{s['average']['compactness']:.3f} | {r['invalid_placements']} | {r['violations']} | "
            f"{r['seconds'] / len(cases):.2f} |",
            flush=True,
        )
    if args.br_dir is not None:
        print(
            f"\n| set | dblf utilisation, physics (first {args.br_physics}) | invalid | violations | s/problem "
            f"| dblf utilisation, geometry (first {args.br_geometry}) | s/problem |"
        )
        print("|---|---|---|---|---|---|---|")
        for k in range(1, 8):
            path = args.br_dir / f"thpack{k}.txt"
            row = {}
            for mode, n, phys in (("physics", args.br_physics, True), ("geometry", args.br_geometry, False)):
                if n <= 0:
                    continue
                cs, _ = load_cases(f"br:{path}", n, args.buffer)
                t0 = time.perf_counter()
                r = evaluate(cs, "dblf", physics=phys)
                r["seconds_per_problem"] = (time.perf_counter() - t0) / len(cs)
                row[mode] = r
            doc["br"][f"br{k}"] = row
            p, g = row.get("physics"), row.get("geometry")

            def fmt(r):
                return f"{r['summary']['average']['utilisation']:.3f}" if r else "-"

            print(
                f"| BR{k} | {fmt(p)} | {p['invalid_placements'] if p else '-'} | {p['violations'] if p else '-'} | "
                f"{p['seconds_per_problem']:.1f} | {fmt(g)} | {g['seconds_per_problem']:.1f} |"
                if p and g
                else f"| BR{k} | {fmt(p)} | | | | {fmt(g)} | |",
                flush=True,
            )
    args.out.write_text(json.dumps(doc, indent=1))
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
