"""Benchmark: `simkit generate --workers 2` vs `--workers 1` (wall speed-up) and CPU per episode.

Each run is a whole `python -m simkit.cli generate NAME --n N --workers W` process into a fresh folder;
wall seconds are the process's, CPU seconds are its own and its children's (user + system, from
``getrusage(RUSAGE_CHILDREN)``). Runs alternate (W=1, W=2, W=1, ...) over ``--rounds`` rounds and the
medians are reported, with the 1-minute load average before each round: on a machine whose other
load is near its core count the speed-up says little. With ``--baseline DIR`` (another checkout of
simkit), the same runs are made with ``PYTHONPATH=DIR`` in the same rounds, so that the two are
compared under the same load.

    python tools/bench_workers.py --generators packing,foa-qa --n 40 --rounds 3 --baseline ../main
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_once(tree: Path, name: str, n: int, workers: int, out: Path) -> dict:
    """One `simkit generate` process with simkit imported from ``tree``: wall and CPU seconds."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.pop(k, None)  # what a user gets: no thread variable set beforehand
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "simkit.cli", "-q", "generate", name, "--n", str(n)]
    cmd += ["--workers", str(workers), "--out", str(out), "--no-progress"]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(
        cmd, env=env, cwd=tree, capture_output=True, text=True
    )  # cwd: `-m` puts it first on sys.path
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu, "sys_s": r1.ru_stime - r0.ru_stime}


def bench(trees: dict[str, Path], names: list[str], n: int, rounds: int) -> dict:
    """Alternate every (tree, generator, workers) over ``rounds`` rounds; medians per cell."""
    runs: dict[str, list[dict]] = {}
    loads = []
    with tempfile.TemporaryDirectory(prefix="bench-workers-") as tmp:
        for _ in range(rounds):
            loads.append(round(os.getloadavg()[0], 1))
            for name in names:
                for label, tree in trees.items():
                    for w in (1, 2):
                        key = f"{label}|{name}|{w}"
                        runs.setdefault(key, []).append(run_once(tree, name, n, w, Path(tmp) / "c"))
                        print(key, {k: round(v, 2) for k, v in runs[key][-1].items()}, flush=True)
    cells = {}
    for key, rs in runs.items():
        label, name, w = key.split("|")
        cells[key] = {
            "tree": label,
            "generator": name,
            "workers": int(w),
            **{k: statistics.median(r[k] for r in rs) for k in ("wall_s", "cpu_s", "sys_s")},
        }
    return {"cells": cells, "loads": loads}


def render_md(info: dict) -> str:
    cells = info["cells"]
    lines = [
        f"Measured {info['date']} on {info['machine']}, load average (1 min) before each round "
        f"{info['loads']}; `python tools/bench_workers.py --n {info['n']} --rounds {info['rounds']}`; "
        "medians of the rounds.",
        "",
        "| tree | generator | wall --workers 1 (s) | wall --workers 2 (s) | speed-up | CPU s per episode, "
        "--workers 1 | system CPU s, --workers 1 |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, one in cells.items():
        if one["workers"] != 1:
            continue
        two = cells[key[:-1] + "2"]
        lines.append(
            f"| {one['tree']} | {one['generator']} | {one['wall_s']:.2f} | {two['wall_s']:.2f} "
            f"| {one['wall_s'] / two['wall_s']:.2f}x | {one['cpu_s'] / info['n']:.4f} | {one['sys_s']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--generators", default="packing,foa-qa")
    ap.add_argument("--n", type=int, default=40, help="episodes per run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--baseline", type=Path, default=None, help="another simkit checkout to compare with")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--md", type=Path, default=None)
    args = ap.parse_args()
    trees = {"this": ROOT}
    if args.baseline is not None:
        trees["baseline"] = args.baseline.resolve()
    sys.path.insert(0, str(ROOT / "tools"))
    import datetime as dt

    from bench_packing import _machine

    info = bench(trees, args.generators.split(","), args.n, args.rounds)
    info.update(
        date=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        machine=_machine(),
        n=args.n,
        rounds=args.rounds,
    )
    md = render_md(info)
    print(md)
    if args.json:
        args.json.write_text(json.dumps(info, indent=2))
    if args.md:
        args.md.write_text(md)


if __name__ == "__main__":
    main()
