"""The shortest-path follower (the corpus's and ``--policy oracle``'s ``oracle_action``) over many
procedural plans: SR and SPL at given success radii, per navigation backend.

Episode e: plan ``compile_floorplan(default_rng(e))`` (the env's default ranges), start, heading and
goal from ``sample_start_goal`` (geodesic 3-12 m, as ``simkit/FoaNav-v0``) with the same generator,
then ``follow_path`` with the stop radius (at most 500 steps). Success: stopped with the geodesic
distance within the radius; SPL = success * l / max(p, l) (Anderson et al. 2018), l the start-goal
geodesic distance and p the walked length; both on the backend that ran the episode. Usage (one
core, niced; about 0.1 s an episode)::

    nice -n 10 python tools/nav_oracle_sweep.py --episodes 1000 --radii 0.2 0.1 --backends poly
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import time

import numpy as np


def run(backend: str, radius: float, episodes: int) -> dict:
    from simkit.core.errors import SampleRejected
    from simkit.scenes.nav.floorplan import compile_floorplan, plan_mesh
    from simkit.sims.nav import make_backend
    from simkit.sims.nav.episodes import follow_path, sample_start_goal

    succ, spl, steps, fails = [], [], 0, []
    t = time.process_time()
    for e in range(episodes):
        rng = np.random.default_rng(e)
        be = make_backend(backend, mesh=plan_mesh(compile_floorplan(rng)))
        sg = sample_start_goal(be, rng, (3.0, 12.0))
        try:
            poses, _ = follow_path(be, sg.start, sg.start_yaw, sg.goal, 500, radius)
        except SampleRejected:
            succ.append(False)
            spl.append(0.0)
            fails.append(e)
            continue
        steps += len(poses)
        walked = float(np.linalg.norm(np.diff(poses[:, :2], axis=0), axis=1).sum())
        ok = be.geodesic_distance(poses[-1, :2], sg.goal) <= radius
        succ.append(ok)
        spl.append(ok * sg.geodesic_m / max(walked, sg.geodesic_m))
    return {"SR": float(np.mean(succ)), "SPL": float(np.mean(spl)), "steps": steps, "failed": fails,
            "cpu_s": time.process_time() - t}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--episodes", type=int, default=1000)
    ap.add_argument("--radii", type=float, nargs="+", default=[0.2, 0.1])
    ap.add_argument("--backends", nargs="+", default=["poly"])
    args = ap.parse_args()
    print("| backend | success radius (m) | episodes | SR | SPL | steps | CPU s | failed seeds |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for b in args.backends:
        for r in args.radii:
            m = run(b, r, args.episodes)
            print(f"| {b} | {r} | {args.episodes} | {m['SR']:.3f} | {m['SPL']:.3f} | {m['steps']:,} | "
                  f"{m['cpu_s']:.0f} | {m['failed'][:10] or '-'} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
