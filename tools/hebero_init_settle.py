"""Penetrations of LIBERO's fixed initial states in simkit's task models, as loaded and after LIBERO's wait.

For every task and every one of its LIBERO initial states (``reset(options={"init_state": k})``'s
state, :meth:`~simkit.envs.hebero.vector_env.TaskModel.libero_state`) it measures the deepest
MuJoCo contact (``-contact.dist``, mm) that involves a geom of a movable object (against anything:
the table, a fixture, another object, the robot), once as loaded and once after the wait LIBERO's
evaluation takes before its policy acts (:data:`~simkit.envs.hebero.init_wait.LIBERO_WAIT_STEPS`
zero-action control steps, :func:`~simkit.envs.hebero.init_wait.wait_state`) and once after
``REST_STEPS`` such steps (1 s: states LIBERO recorded inside the floor or another object are still
moving at the end of the wait, in LIBERO's model as in simkit's)::

    nice -n 10 python tools/hebero_init_settle.py [--task ID ...] [--suite all] [--json OUT.json] [--markdown]

Per task it prints the largest penetration over the states (as loaded, after the wait, at rest),
the number of states deeper than 1 mm after the wait and at rest, and the state and geom pair of the
deepest one after the wait. Exit status 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

LIMIT_MM = 1.0  #: the goal: no state deeper than this at rest
REST_STEPS = 20  #: control steps (1 s at 20 Hz) after which every state has come to rest


def object_geoms(model, objects: list[str]) -> np.ndarray:
    """(ngeom,) bool: geoms of a movable object's body subtree (entity root bodies named ``objects``)."""
    import mujoco

    roots = {mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n) for n in objects} - {-1}
    inside = np.zeros(model.nbody, bool)
    for b in range(1, model.nbody):
        p = b
        while p > 0 and p not in roots:
            p = int(model.body_parentid[p])
        inside[b] = p > 0
    return inside[model.geom_bodyid]


def deepest(model, data, mask: np.ndarray) -> tuple[float, str]:
    """(depth mm >= 0, "geom1 / geom2") of the deepest contact touching a masked geom."""
    import mujoco

    best, pair = 0.0, ""
    for c in data.contact[: data.ncon]:
        if (mask[c.geom1] or mask[c.geom2]) and -c.dist * 1e3 > best:
            best = -float(c.dist) * 1e3
            names = [
                mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g)
                or mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, model.geom_bodyid[g])
                for g in (c.geom1, c.geom2)
            ]
            pair = " / ".join(str(n) for n in names)
    return best, pair


def measure_task(tm, substeps: int, wait: int, rest: int = REST_STEPS) -> dict:
    """Per-state penetrations of one task model (see the module doc)."""
    import mujoco

    from simkit.scenes.hebero.init_states import load_task_states

    m = tm.model
    data = mujoco.MjData(m)
    mask = object_geoms(m, list(tm.desc["objects"]))
    loaded, settled, rested, pairs = [], [], [], []
    for k in range(len(load_task_states(tm.desc["task_id"]))):
        for n, out in ((0, loaded), (rest, rested), (wait, settled)):
            mujoco.mj_setState(m, data, tm.libero_state(k, n, substeps), tm.state_spec)
            mujoco.mj_forward(m, data)
            depth, pair = deepest(m, data, mask)
            out.append(depth)
        pairs.append(pair)
    worst = int(np.argmax(settled))
    return {
        "loaded_mm": loaded,
        "settled_mm": settled,
        "rest_mm": rested,
        "worst_state": worst,
        "worst_pair": pairs[worst],
        "over_limit": int(np.sum(np.asarray(settled) > LIMIT_MM)),
        "over_limit_rest": int(np.sum(np.asarray(rested) > LIMIT_MM)),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", action="append", default=None, help="a task id (repeatable)")
    ap.add_argument("--suite", default="all")
    ap.add_argument("--json", type=Path, default=None, help="write the per-state numbers here")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    from simkit.envs.hebero.config import HeberoConfig
    from simkit.envs.hebero.init_wait import LIBERO_WAIT_STEPS
    from simkit.envs.hebero.tasks import task_ids
    from simkit.envs.hebero.vector_env import build_tasks
    from simkit.sims.hebero.scene import SIM_DT

    substeps = max(1, round(1.0 / (HeberoConfig().control_hz * SIM_DT)))
    out: dict = {"wait_steps": LIBERO_WAIT_STEPS, "rest_steps": REST_STEPS, "substeps": substeps, "tasks": {}}
    ids = task_ids(args.suite, args.task)
    t0 = time.time()
    for tid in ids:
        _, (tm,) = build_tasks(None, [tid], None)
        out["tasks"][tid] = measure_task(tm, substeps, LIBERO_WAIT_STEPS)
        print(f"{tid}: {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    if args.json:
        args.json.write_text(json.dumps(out))
    head = [
        "task",
        "loaded max mm",
        "after wait max mm",
        "at rest max mm",
        f"> {LIMIT_MM:g} mm after wait / at rest",
        "deepest after the wait (state)",
    ]
    rows = [
        [
            t,
            f"{max(r['loaded_mm']):.2f}",
            f"{max(r['settled_mm']):.2f}",
            f"{max(r['rest_mm']):.2f}",
            f"{r['over_limit']} / {r['over_limit_rest']}",
            f"{r['worst_pair']} ({r['worst_state']})" if max(r["settled_mm"]) > 0 else "",
        ]
        for t, r in out["tasks"].items()
    ]
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        for r in rows:
            print("  ".join(r))
    for key, what in (("settled_mm", "after the wait"), ("rest_mm", "at rest")):
        worst = max(max(r[key]) for r in out["tasks"].values())
        print(f"max {what} over {len(ids)} tasks: {worst:.2f} mm", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
