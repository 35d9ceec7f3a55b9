"""Benchmark building ``simkit/Hebero-v0`` with and without the compiled-model cache.

``python tools/bench_hebero_build.py [--envs 40] [--suite all] [--warm 2] [--rounds 1] [--skip-nocache] [--baseline-src DIR]``

Every build runs in a fresh Python process (``gymnasium.make_vec("simkit/Hebero-v0", num_envs=N,
suite=S)``), in this order, all in one run (``--rounds R``: the whole sequence R times in turn, each round
with its own empty cache folder, so no-cache, cold and warm builds alternate):

* ``nocache``: ``model_cache=False``, every task model compiled afresh (the build without a cache), or
  ``baseline`` with ``--baseline-src DIR``: the build of another checkout (e.g. the code before the
  cache), run with DIR first on ``PYTHONPATH``;
* ``cold``: an empty cache folder (``SIMKIT_CACHE`` pointed at a new temporary folder): compiled and
  stored;
* ``warm`` (``--warm`` times): the same folder, now full; each warm process also builds the env a
  second time (``warm2``, same process).

Per build it prints ``name wall_s cpu_s peak_rss_mib`` (CPU: user + system time of the process,
``resource.getrusage``; peak RSS: ``ru_maxrss`` at the end of the process, which includes the
interpreter and imports), then the ratios against ``nocache`` (or ``baseline``) and the 1-minute load
average before and after (with ``--rounds`` > 1: the medians over the rounds at the end). The temporary
cache folders are deleted at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHILD = r"""
import json, resource, sys, time
t0, c0 = time.perf_counter(), time.process_time()
import gymnasium
import simkit  # registers simkit/Hebero-v0
n, suite, cache, twice = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "1"
kw = {} if cache == "base" else {"model_cache": cache == "1"}  # "base": a checkout without the option
env = gymnasium.make_vec("simkit/Hebero-v0", num_envs=n, suite=suite, **kw)
out = {"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}
out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
env.close()
if twice:
    t1, c1 = time.perf_counter(), time.process_time()
    env = gymnasium.make_vec("simkit/Hebero-v0", num_envs=n, suite=suite, **kw)
    out["second_wall_s"] = time.perf_counter() - t1
    out["second_cpu_s"] = time.process_time() - c1
    out["second_peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["simkit"] = simkit.__file__
print(json.dumps(out))
"""


def build(n: int, suite: str, cache_dir: str, cache: str, twice: bool, src: str | None = None) -> dict:
    """One fresh-process build (see module doc; ``cache`` "1", "0" or "base"); returns its measurements.
    ``src``: a checkout put first on ``PYTHONPATH`` (the baseline build)."""
    env = dict(os.environ, SIMKIT_CACHE=cache_dir)
    first = src if src is not None else str(REPO)  # this checkout's simkit unless a baseline is asked for
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [first, env.get("PYTHONPATH", "")]))
    args = [sys.executable, "-c", CHILD, str(n), suite, cache, "1" if twice else "0"]
    # run in the cache folder: ``python -c`` puts the working directory first on sys.path
    res = subprocess.run(args, env=env, capture_output=True, text=True, cwd=cache_dir)
    if res.returncode != 0:
        raise SystemExit(f"build failed ({res.returncode}): {res.stderr.strip().splitlines()[-1:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def line(name: str, r: dict, prefix: str = "") -> None:
    w, c, m = r[prefix + "wall_s"], r[prefix + "cpu_s"], r[prefix + "peak_rss_mib"]
    print(f"{name} {w:.2f} {c:.2f} {m:.0f}" + ("" if prefix else f"  ({r['simkit']})"))


def one_round(a) -> dict:
    """One sequence (module doc) in a new empty cache folder; its rows by name, printed as they come."""
    tmp = tempfile.mkdtemp(prefix="simkit-bench-cache-")
    rows: dict = {}
    try:
        if a.baseline_src:
            rows["base"] = build(a.envs, a.suite, tmp, "base", False, a.baseline_src)
            line("baseline", rows["base"])
        elif not a.skip_nocache:
            rows["base"] = build(a.envs, a.suite, tmp, "0", twice=False)
            line("nocache", rows["base"])
        t = time.perf_counter()
        rows["cold"] = build(a.envs, a.suite, tmp, "1", twice=False)
        line("cold", rows["cold"])
        rows["warm"] = []
        for _ in range(a.warm):
            r = build(a.envs, a.suite, tmp, "1", twice=True)
            line("warm", r)
            line("warm2", r, "second_")
            rows["warm"].append(r)
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(tmp) for f in fs)
        print(f"cache_mib {size / 2**20:.1f}  (cold + warm runs: {time.perf_counter() - t:.0f} s)")
        base, cold = rows.get("base"), rows["cold"]
        if base is not None:
            print(
                f"ratio cold/base wall {cold['wall_s'] / base['wall_s']:.2f} cpu {cold['cpu_s'] / base['cpu_s']:.2f}"
            )
            for r in rows["warm"]:
                print(
                    f"ratio base/warm wall {base['wall_s'] / r['wall_s']:.1f} cpu {base['cpu_s'] / r['cpu_s']:.1f}"
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def medians(rounds: list[dict]) -> None:
    """Medians over the rounds: wall, CPU and peak RSS per kind of build, and the cold/base CPU ratio."""
    import statistics

    kinds: dict[str, list[tuple[dict, str]]] = {}
    for rows in rounds:
        for name in ("base", "cold"):
            if name in rows:
                kinds.setdefault(name, []).append((rows[name], ""))
        for r in rows["warm"]:
            kinds.setdefault("warm", []).append((r, ""))
            kinds.setdefault("warm2", []).append((r, "second_"))
    print(f"# medians over {len(rounds)} rounds: name wall_s cpu_s peak_rss_mib (builds)")
    for name, rs in kinds.items():
        w, c, m = (
            statistics.median(r[pre + k] for r, pre in rs) for k in ("wall_s", "cpu_s", "peak_rss_mib")
        )
        print(f"median {name} {w:.2f} {c:.2f} {m:.0f} ({len(rs)})")
    if "base" in kinds:
        ratios = [rows["cold"]["cpu_s"] / rows["base"]["cpu_s"] for rows in rounds]
        print(
            f"median ratio cold/base cpu {statistics.median(ratios):.2f} (per round: {[round(x, 2) for x in ratios]})"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", type=int, default=40)
    ap.add_argument("--suite", default="all")
    ap.add_argument("--warm", type=int, default=2, help="warm builds (fresh processes)")
    ap.add_argument("--rounds", type=int, default=1, help="the whole sequence this many times, in turn")
    ap.add_argument("--skip-nocache", action="store_true", help="no baseline build (ratios omitted)")
    ap.add_argument(
        "--baseline-src",
        help="baseline = a build by this simkit checkout (put first on PYTHONPATH; e.g. the code before the "
        "cache) instead of model_cache=False",
    )
    a = ap.parse_args()
    print(f"load_1min_before {os.getloadavg()[0]:.2f}")
    print("# name wall_s cpu_s peak_rss_mib")
    rounds = []
    for k in range(a.rounds):
        if a.rounds > 1:
            print(f"# round {k + 1} (load {os.getloadavg()[0]:.2f})", flush=True)
        rounds.append(one_round(a))
    if a.rounds > 1:
        medians(rounds)
    print(f"load_1min_after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
