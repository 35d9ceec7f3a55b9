"""Benchmark: start-up of `simkit --help` and `simkit list` against `python -c pass` (whole processes).

Each command is run ``--runs`` times, in turn with the others (A B C A B C ...), after one warm-up run;
wall seconds per process and CPU seconds (user + system, ``getrusage(RUSAGE_CHILDREN)``) are reported as
medians, and as ratios to `python -c pass` taken run by run. With ``--baseline DIR`` (another checkout
of simkit) the simkit commands also run with ``PYTHONPATH=DIR``, in the same rounds.

    python tools/bench_cli_start.py --runs 15 --baseline ../main
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s) of one process, run in the tree of its PYTHONPATH (``-m`` puts the working
    directory first on sys.path)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(
        cmd,
        env=env,
        cwd=env.get("PYTHONPATH", ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--baseline", type=Path, default=None, help="another simkit checkout to compare with")
    args = ap.parse_args()
    trees = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    py = sys.executable
    cmds: dict[str, tuple[list[str], dict[str, str]]] = {
        "python -c pass": ([py, "-c", "pass"], dict(os.environ))
    }
    for label, tree in trees.items():
        env = {**os.environ, "PYTHONPATH": str(tree)}
        cmds[f"{label}: simkit --help"] = ([py, "-m", "simkit.cli", "--help"], env)
        cmds[f"{label}: simkit list"] = ([py, "-m", "simkit.cli", "list"], env)
    for cmd, env in cmds.values():  # warm-up: file caches, .pyc files
        timed(cmd, env)
    loads = [round(os.getloadavg()[0], 1)]
    walls: dict[str, list[float]] = {k: [] for k in cmds}
    cpus: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(args.runs):
        for k, (cmd, env) in cmds.items():
            w, c = timed(cmd, env)
            walls[k].append(w)
            cpus[k].append(c)
    loads.append(round(os.getloadavg()[0], 1))
    base_w, base_c = walls["python -c pass"], cpus["python -c pass"]
    print(
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, load average (1 min) "
        f"before/after {loads}, {args.runs} runs each, medians"
    )
    print("| command | wall s | CPU s | wall / python -c pass | CPU / python -c pass |")
    print("|---|---|---|---|---|")
    for k in cmds:
        rw = statistics.median(a / b for a, b in zip(walls[k], base_w, strict=True))
        rc = statistics.median(a / b for a, b in zip(cpus[k], base_c, strict=True))
        print(
            f"| {k} | {statistics.median(walls[k]):.3f} | {statistics.median(cpus[k]):.3f} | {rw:.1f}x | {rc:.1f}x |"
        )


if __name__ == "__main__":
    main()
