"""Benchmark the hebero pipeline.

``python tools/bench_hebero.py --libero-root ROOT [--seconds 2]``: compile, MJCF->USD, scene build and
single-env CPU MuJoCo steps/s on a LIBERO root.

``python tools/bench_hebero.py --env [--tasks 1 40] [--envs 40 400] [--steps 10]``: throughput of
``simkit/Hebero-v0`` (controller, observations, rewards, goal tests, CPU ``mujoco.batch`` backend)
against bare ``mujoco.batch`` stepping the same task models in the same layout groups from the same
states with the same controls (recorded from the env's controller, replayed), with no simkit code,
measured in the same run in alternating rounds. Both count env steps (one control step =
25 physics steps of 2 ms) per second of wall time.

Prints one line per measurement (machine-readable ``name value unit``).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np


def bench_env(n_tasks: int, n_envs: int, steps: int, rounds: int = 4) -> tuple[float, float, float]:
    """(env steps/s of HeberoVectorEnv, env steps/s of bare mujoco.batch, fraction of the env's step
    time spent inside the backend's ``step``) for the first ``n_tasks`` tasks.

    The two rates are timed in alternating rounds of ``steps`` env steps each (on a shared machine the
    load changes over a run; alternating exposes both to the same load). The in-step fraction is
    measured inside the same env steps, so it is insensitive to load changes.
    """
    from mujoco.batch import Batch

    from simkit.envs.hebero.tasks import task_ids
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    ids = task_ids("all")[:n_tasks]
    env = HeberoVectorEnv(num_envs=n_envs, tasks=ids, horizon=10**6, terminate_on_success=False)
    env.reset(seed=0)
    acts = np.random.default_rng(0).uniform(-0.3, 0.3, (steps, n_envs, 7))
    # bare: the same models, groups and start states; controls held; no simkit code in the loop
    bare = []
    for g, grp in enumerate(env.backend.groups):
        b = Batch(env.tasks[int(grp.tasks[0])].model, len(grp.env_ids))
        b.set_models([env.tasks[int(k)].model for k in grp.tasks])
        b.state[:] = env.backend.states(g)
        bare.append(b)
    env.step(acts[0])
    for b in bare:
        b.step(nstep=env.substeps)
    t_env = t_bare = 0.0
    inner = [0.0]
    backend_step = env.backend.step

    def timed_step(nstep: int) -> None:
        t0 = time.perf_counter()
        backend_step(nstep)
        inner[0] += time.perf_counter() - t0

    env.backend.step = timed_step  # type: ignore[method-assign]
    groups = range(len(bare))
    for _ in range(rounds):
        start = [env.backend.states(g).copy() for g in groups]
        ctrls = []
        t = time.perf_counter()
        for a in acts:
            env.step(a)
            ctrls.append([env.backend.arrays(g)["ctrl"].copy() for g in groups])  # not timed below
        t_env += time.perf_counter() - t
        for g in groups:  # bare replays the same start states and controls: same trajectories
            bare[g].state[:] = start[g]
        t = time.perf_counter()
        for c in ctrls:
            for g in groups:
                bare[g].ctrl[:] = c[g]
                bare[g].step(nstep=env.substeps)
        t_bare += time.perf_counter() - t
    env.close()
    n = n_envs * steps * rounds
    return n / t_env, n / t_bare, inner[0] / t_env


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--libero-root", type=Path)
    ap.add_argument("--seconds", type=float, default=2.0, help="simulated seconds per goal task")
    ap.add_argument("--env", action="store_true", help="benchmark simkit/Hebero-v0 against bare mujoco.batch")
    ap.add_argument("--tasks", type=int, nargs="+", default=[1, 40])
    ap.add_argument("--envs", type=int, nargs="+", default=[40, 400])
    ap.add_argument("--steps", type=int, default=10, help="env steps timed per configuration")
    args = ap.parse_args()
    if args.env:
        for k in args.tasks:
            for n in args.envs:
                s_env, s_bare, share = bench_env(k, n, args.steps)
                print(
                    f"hebero_env tasks={k} envs={n} env {s_env:.0f} steps/s, bare mujoco.batch {s_bare:.0f} "
                    f"steps/s, ratio {s_env / s_bare:.3f}, backend step share of env step {share:.3f}",
                    flush=True,
                )
        return
    if args.libero_root is None:
        ap.error("--libero-root is required without --env")

    import mujoco

    from simkit.assets.mjcf2usd import convert_mjcf_to_usd
    from simkit.scenes.hebero import compile_suites, load_descriptor
    from simkit.sims.hebero.scene import build_scene

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
