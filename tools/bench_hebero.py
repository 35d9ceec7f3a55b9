"""Benchmark the hebero pipeline on a LIBERO root: compile, MJCF->USD, scene build, CPU MuJoCo steps/s.

Usage: python tools/bench_hebero.py --libero-root ROOT [--seconds 2]
Prints one line per measurement (machine-readable ``name value unit``).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--libero-root", required=True, type=Path)
    ap.add_argument("--seconds", type=float, default=2.0, help="simulated seconds per goal task")
    args = ap.parse_args()

    import mujoco

    from simkit.assets.mjcf2usd import convert_mjcf_to_usd
    from simkit.scenes.bddl import compile_suites, load_descriptor
    from simkit.sims.mujoco_scene import build_scene

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "desc"
        t = time.perf_counter()
        rep = compile_suites(args.libero_root, out)
        print(f"compile_40_cold {time.perf_counter() - t:.3f} s ({len(rep.written)} written)")
        t = time.perf_counter()
        rep = compile_suites(args.libero_root, out)
        print(f"compile_40_cached {time.perf_counter() - t:.3f} s ({len(rep.cached)} cache hits)")

        assets = sorted(
            {
                d["asset"]
                for f in (out / "goal").glob("*.json")
                for d in [*load_descriptor(f)["objects"].values(), *load_descriptor(f)["fixtures"].values()]
            }
        )
        t = time.perf_counter()
        for i, a in enumerate(assets):
            convert_mjcf_to_usd(args.libero_root / a, Path(tmp) / f"a{i}.usdc")
        print(
            f"mjcf2usd_goal_assets {(time.perf_counter() - t) / len(assets):.3f} s/asset ({len(assets)} assets)"
        )

        builds, rates = [], []
        for f in sorted((out / "goal").glob("*.json")):
            d = load_descriptor(f)
            t = time.perf_counter()
            sc = build_scene(d, args.libero_root, np.random.default_rng(0))
            builds.append(time.perf_counter() - t)
            n = int(args.seconds / sc.model.opt.timestep)
            t = time.perf_counter()
            for _ in range(n):
                mujoco.mj_step(sc.model, sc.data)
            rates.append(n / (time.perf_counter() - t))
        print(f"scene_build_goal_mean {np.mean(builds):.3f} s")
        print(f"mujoco_cpu_steps_per_s_goal_mean {np.mean(rates):.0f} steps/s (1 env, 1 core, dt 2 ms)")


if __name__ == "__main__":
    main()
