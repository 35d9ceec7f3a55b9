"""LIBERO as the oracle: compare simkit's Hebero initial states with LIBERO's own, task by task.

Two steps, two Python environments (LIBERO needs robosuite 1.4.0, simkit's Panda comes from
robosuite 1.5.1)::

    # 1. where LIBERO is installed (see docs/hebero.md, "LIBERO as the oracle")
    LIBERO_CONFIG_PATH=CFG MUJOCO_GL=egl python tools/libero_dump.py libero.json
    # 2. in simkit's environment
    python tools/libero_oracle.py libero.json [--task ID ...] [--resets 50] [--markdown]

Step 2 uses only simkit's public API: ``gymnasium.make_vec("simkit/Hebero-v0", ...)``, its
``reset(seed=...)`` and ``reset(options={"init_state": k})``, and ``env.unwrapped``'s MuJoCo
models and data. Per task it reports:

* ``ent``: objects and fixtures present in one and not the other (name, kind and category);
* ``in_range``: the fraction of sampled start positions (x, y of each object's root body over
  ``--resets`` resets) inside LIBERO's sampler boxes (after its radius shrink; 0.1 mm slack);
  for an object LIBERO places on a site or another object, its offset from that parent (the
  site's world x, y or the parent's body x, y in simkit's state) inside the box LIBERO draws that
  offset in (0.1 mm slack; dumps without ``parent_samplers``: inside the span of LIBERO's draws,
  2 mm slack);
* ``up``: the largest angle (deg) between LIBERO's and simkit's object up axes (the object
  frame's direction that points to world +z);
* ``table``: simkit minus LIBERO table-top height (mm), ``fix``: the largest |difference| of a
  fixture body height (mm), ``site``: of a fixture region site height (mm);
* ``succ``: success at reset in LIBERO / in simkit (any of the resets);
* ``init``: LIBERO's fixed initial states loaded, the largest object position difference after
  mapping (mm) and the deepest penetration between two entities (mm), in simkit and in LIBERO's
  own model (``pen_L``); then, after the wait LIBERO's evaluation takes before its policy acts
  (``SETTLE_STEPS`` zero-action steps, 0.25 s), the deepest penetration in simkit and the largest
  object position difference from LIBERO's own settled state (mm);
* ``mass``: the largest relative difference of an entity's mass (its body subtree) from LIBERO's.

Exit status 0; the table goes to stdout (``--markdown`` for docs/hebero.md).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

RANGE_SLACK = 1e-4  #: m, slack of the sampler-box test (float rounding of region edges)
DRAW_SLACK = 2e-3  #: m, slack of the test against LIBERO's empirical draws
SETTLE_STEPS = 5  #: zero-action steps LIBERO's evaluation waits after loading a state (tools/libero_dump.py)


def up_axis(quat_wxyz) -> np.ndarray:
    """Object-frame direction (3,) that points to world +z for a body orientation (w, x, y, z)."""
    w, x, y, z = quat_wxyz
    # third row of the rotation matrix = R^T e_z
    return np.array([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)])


def angle_deg(a, b) -> float:
    c = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def env_views(venv):
    """(model, data) of every env of a simkit Hebero vector env, in env order (a snapshot of the
    current state: call again after each reset)."""
    out = {}
    for g, grp in enumerate(venv.backend.groups):
        for j, e in enumerate(grp.env_ids):
            out[int(e)] = venv.backend.get_data(g, j)
    return [out[i] for i in range(venv.num_envs)]


def body_pose(model, data, name: str) -> np.ndarray | None:
    import mujoco

    i = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
    if i < 0:
        return None
    return np.concatenate([data.xpos[i], data.xquat[i]])


def table_top(model, data) -> float | None:
    import mujoco

    g = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "table_top")
    if g < 0:
        return None
    return float(data.geom_xpos[g][2] + model.geom_size[g][2])


def in_box(xy, boxes, slack) -> bool:
    return any(
        min(b[0], b[2]) - slack <= xy[0] <= max(b[0], b[2]) + slack
        and min(b[1], b[3]) - slack <= xy[1] <= max(b[1], b[3]) + slack
        for b in boxes
    )


def reference_boxes(rec: dict) -> dict[str, tuple]:
    """Object -> how its start x, y is checked: ("sampler", LIBERO's world boxes), ("parent", its
    parent sampler record: offset box from a site or object), or ("draws", span of LIBERO's draws)."""
    out: dict[str, tuple] = {}
    parents = rec.get("parent_samplers", {})
    for name, ent in rec["entities"].items():
        if ent["kind"] != "object":
            continue
        s = rec["samplers"].get(name)
        if s is not None:
            out[name] = ("sampler", s["boxes_world"])
        elif name in parents:
            out[name] = ("parent", parents[name])
        elif name in rec["samples"]:
            p = np.asarray(rec["samples"][name])[:, :2]
            lo, hi = p.min(axis=0), p.max(axis=0)
            out[name] = ("draws", [[lo[0], lo[1], hi[0], hi[1]]])
    return out


def parent_xy(model, data, rec: dict, ps: dict) -> np.ndarray | None:
    """World x, y (2,) in simkit's state of the parent LIBERO draws an object's offset from: the site
    (LIBERO ``<entity>_<site>`` -> simkit ``<entity>/<site>``) or the parent object's body."""
    import mujoco

    if ps["kind"] == "object":
        p = body_pose(model, data, ps["reference"])
        return None if p is None else p[:2]
    ref = ps["reference"]
    sname = f"{ref}/{ps['site'][len(ref) + 1 :]}"
    sid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, sname)
    return None if sid < 0 else np.array(data.site_xpos[sid][:2])


def entity_mismatch(rec: dict, desc: dict) -> list[str]:
    ours = {n: ("fixture", v["category"]) for n, v in desc["fixtures"].items()}
    ours.update({n: ("object", v["category"]) for n, v in desc["objects"].items()})
    ours.pop(desc["arena"]["workspace"], None)
    theirs = {n: (e["kind"], e["category"]) for n, e in rec["entities"].items()}
    return sorted(f"{n}" for n in set(ours) ^ set(theirs)) + sorted(
        f"{n}:{ours[n]}!={theirs[n]}" for n in set(ours) & set(theirs) if ours[n] != theirs[n]
    )


class TaskStats:
    """Accumulates one task's comparison over resets."""

    def __init__(self, rec: dict, desc: dict):
        self.rec, self.desc = rec, desc
        self.boxes = reference_boxes(rec)
        self.inside = self.total = 0
        self.outside: dict[str, float] = {}
        self.up = 0.0
        self.success = False
        self.table = self.fix = self.site = 0.0

    def add_reset(self, model, data, success: bool) -> None:
        self.success |= bool(success)
        for name, (kind, boxes) in self.boxes.items():
            p = body_pose(model, data, name)
            if p is None:
                continue
            if kind == "parent":
                at = parent_xy(model, data, self.rec, boxes)
                ok = at is not None and in_box(p[:2] - at, [boxes["offset_box"]], RANGE_SLACK)
            else:
                ok = in_box(p[:2], boxes, RANGE_SLACK if kind == "sampler" else DRAW_SLACK)
            self.inside += ok
            self.total += 1
            ref = self.rec["reset_pose"].get(name)
            if ref is not None:
                self.up = max(self.up, angle_deg(up_axis(ref[3:]), up_axis(p[3:])))

    def add_heights(self, model, data) -> None:
        import mujoco

        top = table_top(model, data)
        if top is not None and self.rec["table_top"] is not None:
            self.table = (top - self.rec["table_top"]) * 1e3
        for name, ent in self.rec["entities"].items():
            if ent["kind"] != "fixture":
                continue
            p = body_pose(model, data, name)
            ref = self.rec["reset_pose"].get(name)
            if p is not None and ref is not None:
                d = (p[2] - ref[2]) * 1e3
                self.fix = d if abs(d) > abs(self.fix) else self.fix
        for sname, ref in self.rec["sites"].items():
            for name in self.rec["entities"]:
                if sname.startswith(name + "_") and self.rec["entities"][name]["kind"] == "fixture":
                    sid = mujoco.mj_name2id(
                        model, mujoco.mjtObj.mjOBJ_SITE, f"{name}/{sname[len(name) + 1 :]}"
                    )
                    if sid >= 0:
                        d = (float(data.site_xpos[sid][2]) - ref[2]) * 1e3
                        self.site = d if abs(d) > abs(self.site) else self.site


def penetration_mm(model, data, roots: list[str]) -> float:
    """Deepest contact (mm) between geoms of two different named entities (root bodies)."""
    import mujoco

    owner = np.full(model.nbody, -1)
    for k, n in enumerate(roots):
        b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n)
        for c in range(model.nbody):
            p = c
            while p > 0:
                if p == b:
                    owner[c] = k
                    break
                p = int(model.body_parentid[p])
    worst = 0.0
    for c in data.contact[: data.ncon]:
        a, b = owner[model.geom_bodyid[c.geom1]], owner[model.geom_bodyid[c.geom2]]
        if a >= 0 and b >= 0 and a != b:
            worst = max(worst, -float(c.dist) * 1e3)
    return worst


def init_state_stats(venv, rec_by_env: list[dict]) -> list[dict]:
    """Per env over LIBERO's fixed initial states: loaded count; as loaded, the largest object position
    difference (mm) and the deepest entity penetration in simkit and in LIBERO (mm); after
    ``SETTLE_STEPS`` zero-action steps, simkit's deepest penetration and the largest object position
    difference from LIBERO's settled state (mm; NaN when the dump has no settled states)."""
    n = min(r["init_states"]["count"] for r in rec_by_env)
    keys = ("loaded", "pos", "pen", "pen_libero", "pen_settled", "pos_settled")
    out = [dict.fromkeys(keys, 0.0) for _ in rec_by_env]
    for o, r in zip(out, rec_by_env, strict=True):
        o["pen_libero"] = 1e3 * max(r["init_states"].get("pen_load", [0.0]))
        if "settled_pose" not in r["init_states"]:
            o["pos_settled"] = float("nan")
    if "init_state" not in getattr(venv, "reset_options", ()):
        return out  # this simkit cannot load them
    zero = np.zeros((venv.num_envs, 7))
    for k in range(n):
        try:
            venv.reset(options={"init_state": k})
        except Exception as exc:  # reported, the table still prints
            print(f"init_state {k}: {exc}", file=sys.stderr)
            return out
        for e, (model, data) in enumerate(env_views(venv)):
            rec, o = rec_by_env[e], out[e]
            o["loaded"] += 1
            o["pos"] = max(o["pos"], _pos_diff(model, data, rec["init_states"]["object_pose"], k))
            o["pen"] = max(o["pen"], penetration_mm(model, data, list(rec["entities"])))
        _settle(venv, k, zero)
        for e, (model, data) in enumerate(env_views(venv)):
            rec, o = rec_by_env[e], out[e]
            o["pen_settled"] = max(o["pen_settled"], penetration_mm(model, data, list(rec["entities"])))
            if "settled_pose" in rec["init_states"]:
                d = _pos_diff(model, data, rec["init_states"]["settled_pose"], k)
                o["pos_settled"] = max(o["pos_settled"], d)
    return out


def _settle(venv, k: int, zero: np.ndarray) -> None:
    """Every env at LIBERO's state k after LIBERO's wait: the env's own wait (``init_wait``, the arm
    held and the fingers at LIBERO's zero gripper action) where this simkit has one, else
    ``SETTLE_STEPS`` zero-action steps (simkit's zero action opens the gripper)."""
    if "init_wait" not in type(venv.cfg).model_fields:
        for _ in range(SETTLE_STEPS):
            venv.step(zero)
        return
    venv.cfg.init_wait = SETTLE_STEPS
    try:
        venv.reset(options={"init_state": k})
    finally:
        venv.cfg.init_wait = 0


def _pos_diff(model, data, poses: dict, k: int) -> float:
    """Largest distance (mm) between simkit's object positions and LIBERO's poses[name][k]."""
    d = 0.0
    for name, seq in poses.items():
        p = body_pose(model, data, name)
        if p is not None and seq[k] is not None:
            d = max(d, float(np.linalg.norm(p[:3] - np.asarray(seq[k][:3]))) * 1e3)
    return d


def _simkit_name(libero_name: str) -> str:
    """simkit's name of a robot joint or body of the dump (``robot/...``, ``gripper/...``)."""
    return "robot/" + libero_name if libero_name.startswith("gripper/") else libero_name


def mass_diff(rec: dict, model) -> float | None:
    """Largest relative |simkit - LIBERO| entity mass (subtree of the entity's root body; None for a
    dump without masses)."""
    import mujoco

    if "mass" not in rec:
        return None
    worst = 0.0
    for name, kg in rec["mass"].items():
        b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
        if b >= 0 and kg > 0:
            worst = max(worst, abs(float(model.body_subtreemass[b]) - kg) / kg)
    return worst


def robot_diff(rec: dict, model, data) -> dict | None:
    """simkit's Panda against LIBERO's compiled robot (``robot_model`` of the dump), in the reset state:
    base position difference (mm), largest |difference| of joint damping, armature (kg m^2), friction
    loss and range, of the home pose (rad or m), of body masses (kg), and the robot bodies only
    LIBERO has (its mount)."""
    import mujoco

    rm = rec.get("robot_model")
    if rm is None:
        return None
    out = dict.fromkeys(("damping", "armature", "frictionloss", "range", "home", "mass"), 0.0)
    for n, j in rm["joints"].items():
        jid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, _simkit_name(n))
        if jid < 0:
            continue
        v, q = int(model.jnt_dofadr[jid]), int(model.jnt_qposadr[jid])
        for key, ours in (
            ("damping", model.dof_damping[v]),
            ("armature", model.dof_armature[v]),
            ("frictionloss", model.dof_frictionloss[v]),
            ("home", data.qpos[q]),
        ):
            theirs = j["qpos"] if key == "home" else j[key]
            out[key] = max(out[key], abs(float(ours) - theirs))
        out["range"] = max(out["range"], float(np.abs(model.jnt_range[jid] - j["range"]).max()))
    missing = []
    for n, b in rm["bodies"].items():
        bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, _simkit_name(n))
        if bid < 0:
            missing.append(n)
            continue
        out["mass"] = max(out["mass"], abs(float(model.body_mass[bid]) - b["mass"]))
    base = body_pose(model, data, "robot/base")
    out["base_mm"] = float(np.abs(base[:3] - rec["robot_base"][:3]).max()) * 1e3 if base is not None else None
    out["libero_only"] = missing
    return out


def compare(dump: dict, task_ids: list[str], resets: int) -> list[dict]:
    import gymnasium

    import simkit.envs  # noqa: F401 -- registers simkit/Hebero-v0

    env = gymnasium.make_vec("simkit/Hebero-v0", num_envs=len(task_ids), tasks=task_ids)
    venv = env.unwrapped
    descs = [venv.tasks[int(venv.task_of[e])].desc for e in range(venv.num_envs)]
    recs = [dump["tasks"][t] for t in task_ids]
    stats = [TaskStats(r, d) for r, d in zip(recs, descs, strict=True)]
    for s in range(resets):
        _, info = env.reset(seed=s)
        views = env_views(venv)
        for e, (model, data) in enumerate(views):
            stats[e].add_reset(model, data, info["success"][e])
    robots, masses = [], []
    for e, (model, data) in enumerate(views):
        stats[e].add_heights(model, data)
        robots.append(robot_diff(recs[e], model, data))
        masses.append(mass_diff(recs[e], model))
    inits = init_state_stats(venv, recs)
    rows = []
    for e, t in enumerate(task_ids):
        st = stats[e]
        rows.append(
            {
                "task": t,
                "entity_mismatch": entity_mismatch(recs[e], descs[e]),
                "in_range": st.inside / max(st.total, 1),
                "up_deg": st.up,
                "table_mm": st.table,
                "fixture_mm": st.fix,
                "site_mm": st.site,
                "success_libero": recs[e]["success_at_reset"],
                "success_simkit": st.success,
                "init_loaded": int(inits[e]["loaded"]),
                "init_count": recs[e]["init_states"]["count"],
                "init_pos_mm": inits[e]["pos"],
                "init_pen_mm": inits[e]["pen"],
                "init_pen_libero_mm": inits[e]["pen_libero"],
                "settled_pen_mm": inits[e]["pen_settled"],
                "settled_pos_mm": inits[e]["pos_settled"],
                "robot": robots[e],
                "mass_rel": masses[e],
            }
        )
    env.close()
    return rows


def print_table(rows: list[dict], markdown: bool) -> None:
    head = [
        "task",
        "ent",
        "in_range",
        "up",
        "table",
        "fix",
        "site",
        "succ L/S",
        "init",
        "init_pos",
        "init_pen",
        "pen_L",
        "set_pen",
        "set_pos",
        "mass",
    ]
    fmt = (
        "| " + " | ".join(["{}"] * len(head)) + " |"
        if markdown
        else "  ".join(["{:<60}"] + ["{:>9}"] * (len(head) - 1))
    )
    print(fmt.format(*head))
    if markdown:
        print("|" + "|".join(["---"] * len(head)) + "|")
    for r in rows:
        print(
            fmt.format(
                r["task"],
                len(r["entity_mismatch"]),
                f"{100 * r['in_range']:.1f}%",
                f"{r['up_deg']:.1f}",
                f"{r['table_mm']:+.1f}",
                f"{r['fixture_mm']:+.1f}",
                f"{r['site_mm']:+.1f}",
                f"{int(r['success_libero'])}/{int(r['success_simkit'])}",
                f"{r['init_loaded']}/{r['init_count']}",
                f"{r['init_pos_mm']:.2f}",
                f"{r['init_pen_mm']:.2f}",
                f"{r['init_pen_libero_mm']:.2f}",
                f"{r['settled_pen_mm']:.2f}",
                f"{r['settled_pos_mm']:.2f}",
                "-" if r["mass_rel"] is None else f"{100 * r['mass_rel']:.2f}%",
            )
        )
    n = len(rows)
    print(
        f"\n{n} tasks: entity mismatches {sum(len(r['entity_mismatch']) for r in rows)}, "
        f"start positions in LIBERO's ranges {100 * np.mean([r['in_range'] for r in rows]):.1f}% "
        f"(tasks at 100%: {sum(r['in_range'] >= 1.0 for r in rows)}), "
        f"up axis > 5 deg: {sum(r['up_deg'] > 5 for r in rows)} tasks, "
        f"|table| > 2 mm: {sum(abs(r['table_mm']) > 2 for r in rows)}, "
        f"|fixture| > 2 mm: {sum(abs(r['fixture_mm']) > 2 for r in rows)}, "
        f"|site| > 2 mm: {sum(abs(r['site_mm']) > 2 for r in rows)}, "
        f"success at reset (LIBERO/simkit): {sum(r['success_libero'] for r in rows)}/"
        f"{sum(r['success_simkit'] for r in rows)}, "
        f"initial states loaded {sum(r['init_loaded'] for r in rows)}/{sum(r['init_count'] for r in rows)}, "
        f"max init position diff {max(r['init_pos_mm'] for r in rows):.2f} mm, "
        f"max init penetration {max(r['init_pen_mm'] for r in rows):.2f} mm "
        f"(in LIBERO's own model {max(r['init_pen_libero_mm'] for r in rows):.2f} mm); after "
        f"{SETTLE_STEPS} zero-action steps: max penetration {max(r['settled_pen_mm'] for r in rows):.2f} mm, "
        f"max position diff from LIBERO's settled state {max(r['settled_pos_mm'] for r in rows):.2f} mm, "
        f"max entity mass diff {100 * max(r['mass_rel'] or 0.0 for r in rows):.2f}%"
    )


def print_robot(rows: list[dict]) -> None:
    """One line per LIBERO problem class: simkit's Panda minus LIBERO's (see :func:`robot_diff`)."""
    seen = set()
    for r in rows:
        rb = r.get("robot")
        if rb is None:
            continue
        key = (round(rb["base_mm"] or 0.0, 2), tuple(rb["libero_only"]))
        if key in seen:
            continue
        seen.add(key)
        print(
            f"robot ({r['task']}): base {rb['base_mm']:.2f} mm, |d damping| {rb['damping']:.3g}, "
            f"|d armature| {rb['armature']:.3g} kg m^2, |d frictionloss| {rb['frictionloss']:.3g}, "
            f"|d range| {rb['range']:.3g}, |d home| {rb['home']:.3g}, |d mass| {rb['mass']:.3g} kg; "
            f"LIBERO only: {', '.join(rb['libero_only']) or '-'}"
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dump", help="JSON written by tools/libero_dump.py")
    ap.add_argument(
        "--task", action="append", default=None, help="task id (repeatable; default: all in the dump)"
    )
    ap.add_argument("--resets", type=int, default=50)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", default=None, help="also write the rows to this file")
    args = ap.parse_args(argv)
    path = Path(args.dump)
    try:
        dump = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return 2
    ids = args.task or list(dump["tasks"])
    missing = [t for t in ids if t not in dump["tasks"]]
    if missing:
        print(f"error: {path}: no LIBERO record for {missing}", file=sys.stderr)
        return 2
    rows = compare(dump, ids, args.resets)
    print(f"LIBERO {dump['versions']} vs simkit")
    print_table(rows, args.markdown)
    print_robot(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
