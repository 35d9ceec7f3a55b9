"""Plan checks over many seeds: no wall enters a doorway (``door_cuts``) and the walkable area at the
agent radius is one island (``plan_islands``, the exact polygons of ``plan_walkable``), for
``compile_floorplan(default_rng(seed))`` with the default ranges. Usage::

    nice -n 10 python tools/nav_plan_check.py --seeds 10000 [--radius 0.18]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10000)
    ap.add_argument("--radius", type=float, default=0.18)
    args = ap.parse_args()
    from simkit.scenes.nav.floorplan import compile_floorplan, door_cuts, plan_islands

    t = time.process_time()
    cuts, islands = [], Counter()
    for s in range(args.seeds):
        plan = compile_floorplan(np.random.default_rng(s))
        cuts += [(s, c) for c in door_cuts(plan)]
        islands[plan_islands(plan, args.radius)] += 1
    cpu = time.process_time() - t
    print(f"{args.seeds:,} plans (seeds 0-{args.seeds - 1}), radius {args.radius} m: {len(cuts)} doorways entered "
          f"by a wall, islands per plan {dict(sorted(islands.items()))}, {cpu:.1f} s CPU "
          f"({cpu / args.seeds * 1000:.1f} ms a plan)")  # fmt: skip
    for s, c in cuts[:10]:
        print(f"  seed {s}: {c}")


if __name__ == "__main__":
    main()
