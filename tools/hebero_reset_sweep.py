"""Sweep: every Hebero task builds from the installed LIBERO assets, resets without penetration and rests.

For each of the 40 tasks (bundled BDDL files, ``libero_assets_root()``): build the scene, reset it
``--resets`` times (rng ``[i, k]``), each time checking that no pair penetrates by more than 1 mm and that
every fixture keeps the support height its region gives; then reset once more (rng ``i``), check again,
settle for 0.5 s of zero action and check that the state is finite, that no object drifted by more than
2 cm (15 cm for an object the layout had to lift, docs/hebero.md) and that the goal does not hold yet.
tests/test_hebero_install.py runs it with 5 resets per task; docs/hebero.md quotes 25 (1,000 resets)::

    nice -n 10 python tools/hebero_reset_sweep.py --resets 25
"""

from __future__ import annotations

import argparse
import time


def sweep(resets: int) -> list[str]:
    """One line per problem found over the 40 tasks (empty: every task passed); ``resets`` per task."""
    import numpy as np

    from simkit.assets.libero_assets import libero_assets_root
    from simkit.scenes.hebero import SUITES, compile_task, suite_files
    from simkit.sims.hebero.scene import build_scene, settle

    bad = []
    for suite in SUITES:
        for i, p in suite_files(None, suite):
            d = compile_task(p, suite, i, libero_assets_root().parent)
            tid = d["task_id"]
            sc = build_scene(d, None, np.random.default_rng(i))
            z0 = {n: sc.placements[n][2] for n in d["fixtures"] if n in sc.placements}
            for k in range(resets):
                sc.reset(np.random.default_rng([i, k]))
                if sc.layout.penetrating(sc.data):
                    bad.append(f"{tid}: reset {k} penetrates by more than 1 mm")
                if {n: sc.placements[n][2] for n in z0} != z0:
                    bad.append(f"{tid}: reset {k} moved a fixture off its support height")
            sc.reset(np.random.default_rng(i))
            if sc.layout.penetrating(sc.data):
                bad.append(f"{tid}: the placement penetrates by more than 1 mm")
            drift = settle(sc, 0.5)
            if not np.all(np.isfinite(sc.data.qpos)):
                bad.append(f"{tid}: non-finite state after settling")
            lifted = any("lifted" in w for w in sc.warnings)
            if max(drift.values()) > (0.15 if lifted else 0.02):
                bad.append(f"{tid}: settled by {max(drift.values()):.3f} m")
            if sc.success():
                bad.append(f"{tid}: the goal holds at the start")
    return bad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--resets", type=int, default=25, help="resets per task (40 tasks)")
    a = ap.parse_args()
    t0 = time.perf_counter()
    bad = sweep(a.resets)
    for line in bad:
        print(line)
    print(f"{len(bad)} problem(s) over 40 tasks x {a.resets} resets in {time.perf_counter() - t0:.0f} s")
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
