"""Write simkit's PackLab-Bench-equivalent case file (simkit/data/packing/bench_v1.json).

Usage: python tools/make_packing_bench.py [--out PATH] [--per-tier 20] [--seed 20240611]

The cases come from the layout compiler (simkit.scenes.packing.layout.compile_case) with seeds
disjoint from any training seed (see simkit.eval.packing.bench); each is kept only when its
expert trajectory replays validly in physics. The shipped file must not change: re-running
with the defaults reproduces it byte for byte (the script says whether it did).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from simkit.eval.packing.bench import BENCH_PER_TIER, BENCH_SEED, build_bench
from simkit.scenes.packing.bench import bench_path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=bench_path())
    ap.add_argument("--per-tier", type=int, default=BENCH_PER_TIER)
    ap.add_argument("--seed", type=int, default=BENCH_SEED)
    args = ap.parse_args()
    t0 = time.perf_counter()
    doc = build_bench(args.per_tier, args.seed)
    head = {k: v for k, v in doc.items() if k not in ("cases", "digests")}
    lines = [json.dumps(c, sort_keys=True, separators=(",", ":")) for c in doc["cases"]]
    text = (
        json.dumps(head, sort_keys=True)[:-1]
        + ',\n"digests": '
        + json.dumps(doc["digests"], indent=0)
        + ',\n"cases": [\n'
        + ",\n".join(lines)
        + "\n]}\n"
    )  # one case per line: diffable, compact
    json.loads(text)
    old = args.out.read_text() if args.out.exists() else None
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    n = len(doc["cases"])
    print(
        f"wrote {args.out}: {n} cases, {doc['steps']} packing steps, skipped {doc['skipped']}, "
        f"{time.perf_counter() - t0:.1f} s; {'unchanged' if old == text else 'CHANGED' if old else 'new'}"
    )


if __name__ == "__main__":
    main()
