"""LIBERO's side of the oracle: run LIBERO's own env on every Hebero task and write what it starts from.

Runs in an environment where LIBERO is installed (``hf-libero`` on ``robosuite`` 1.4.0, see
``docs/hebero.md``, section "LIBERO as the oracle"), never in simkit's: it imports LIBERO and
robosuite, not simkit. Writes one JSON file that ``tools/libero_oracle.py compare`` reads::

    LIBERO_CONFIG_PATH=CFG MUJOCO_GL=egl python tools/libero_dump.py OUT.json [--task goal/turn_on_the_stove ...]
        [--samples 50] [--seed 0]

Per task: LIBERO's objects and fixtures (name, category), each placement sampler (ranges in
the world frame after LIBERO's radius shrink, rotation and rotation axis, z), ``--samples``
draws of LIBERO's placement samplers (positions and quaternions), the state after ``reset()``
(every entity's ``object`` body pose, every region site, the table's collision top, the robot
base, ``_check_success()``), each entity's mass (``mass``), the joint layout of LIBERO's flattened state (name, type, qpos and
qvel address), the object poses of its 50 fixed initial states (``init_files``) as loaded and
after ``SETTLE_STEPS`` zero-action steps (LIBERO's own evaluation waits that long,
``libero/lifelong/metric.py``) with the deepest entity-entity penetration at both times, and
the robot as compiled (``robot_model``: mount, base, joint damping/armature/friction loss and
ranges, body masses and local poses, collision geoms, actuator gains).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

SETTLE_STEPS = 5  #: zero-action env steps LIBERO's evaluation takes after loading a state (20 Hz)
SUITES = {"goal": "libero_goal", "object": "libero_object", "spatial": "libero_spatial", "long": "libero_10"}


def task_list(tasks_json: Path) -> list[tuple[str, str, str]]:
    """(task id, LIBERO suite folder, file stem) of the 40 tasks in simkit's order."""
    table = json.loads(tasks_json.read_text())["suites"]
    return [(f"{s}/{n}", table[s]["libero_dir"], n) for s in SUITES for n in table[s]["tasks"]]


def make_env(bddl: str):
    from libero.libero.envs import OffScreenRenderEnv

    return OffScreenRenderEnv(
        bddl_file_name=bddl,
        has_renderer=False,
        has_offscreen_renderer=False,
        use_camera_obs=False,
        camera_heights=64,
        camera_widths=64,
    )


def _rot(v):
    if isinstance(v, dict):
        return {k: [float(x) for x in r] for k, r in v.items()}
    if v is None:
        return None
    if isinstance(v, (tuple, list)):
        return [float(x) for x in v]
    return float(v)


def sampler_info(inner) -> dict:
    """Per object or fixture of the first-stage sampler: world boxes LIBERO draws the centre from."""
    out = {}
    for s in inner.placement_initializer.samplers.values():
        for obj in s.mujoco_objects:
            r = float(obj.horizontal_radius) if s.ensure_object_boundary_in_range else 0.0
            ox, oy, oz = (float(v) for v in s.reference_pos)
            boxes = [
                [x0 + r + ox, y0 + r + oy, x1 - r + ox, y1 - r + oy]
                for (x0, x1), (y0, y1) in zip(s.x_ranges, s.y_ranges, strict=True)
            ]
            out[obj.name] = {
                "sampler": type(s).__name__,
                "boxes_world": boxes,
                "radius": float(obj.horizontal_radius),
                "shrunk": bool(s.ensure_object_boundary_in_range),
                "rotation": _rot(s.rotation),
                "rotation_axis": s.rotation_axis,
                "z": float(s.z_offset + oz - (obj.bottom_offset[-1])),
                "bottom_offset": [float(v) for v in obj.bottom_offset],
            }
    return out


class _ResetSites:
    """Stands in for the sim in LIBERO's site samplers: ``data.get_site_xpos`` answers the site positions
    those samplers read during the last ``reset()`` (after a hard reset: every fixture at the origin,
    unrotated, every free object at its ``qpos0``), not the positions in the sim after it."""

    seen: dict[str, np.ndarray] = {}

    def __init__(self):
        self.data = self

    def get_site_xpos(self, name):
        return _ResetSites.seen[name]


def record_reset_sites() -> None:
    """Wrap LIBERO's site samplers so that each ``sample`` call notes the site position it reads."""
    from libero.libero.envs.regions import base_region_sampler as brs

    for cls in (brs.SiteRegionRandomSampler, brs.InSiteRegionRandomSampler):
        if getattr(cls.sample, "_noted", False):
            continue
        orig = cls.sample

        def sample(self, sim, *a, _orig=orig, **kw):
            name = kw.get("site_name", a[2] if len(a) > 2 else "")
            if not isinstance(sim, _ResetSites):
                _ResetSites.seen[name] = np.array(sim.data.get_site_xpos(name))
            return _orig(self, sim, *a, **kw)

        sample._noted = True  # type: ignore[attr-defined]
        cls.sample = sample


def parent_samplers(inner) -> dict:
    """Objects LIBERO places on a site or on another object: name -> the parent (site or object), the
    sampler and the box (x_min, y_min, x_max, y_max) its offset from the parent is drawn in (m, world
    axes; after the radius shrink, crossed bounds sorted as numpy draws between them)."""
    out = {}
    chains = (
        (inner.conditional_placement_initializer, "site"),
        (inner.conditional_placement_on_objects_initializer, "object"),
    )
    for chain, kind in chains:
        for name, s in chain.samplers.items():
            args = chain.sample_args.get(name) or {}
            for obj in s.mujoco_objects:
                r = float(obj.horizontal_radius) if s.ensure_object_boundary_in_range else 0.0
                if type(s).__name__ == "InSiteRegionRandomSampler":
                    r = 0.0  # it draws with radius 0 (libero/envs/regions/base_region_sampler.py)
                (x0, x1), (y0, y1) = s.x_ranges[0], s.y_ranges[0]
                xa, xb = sorted((x0 + r, x1 - r))
                ya, yb = sorted((y0 + r, y1 - r))
                out[obj.name] = {
                    "kind": kind,
                    "sampler": type(s).__name__,
                    "reference": args.get("reference"),
                    "site": args.get("site_name"),
                    "offset_box": [xa, ya, xb, yb],
                    "radius": float(obj.horizontal_radius),
                }
    return out


def draw_samples(inner, n: int) -> dict:
    """``n`` draws of LIBERO's placement chain (first stage, sites, objects): name -> (n, 7) pos + quat
    wxyz. The site stage reads the site positions of the reset (:class:`_ResetSites`), as it does in
    ``reset()``."""
    out: dict[str, list] = {}
    for _ in range(n):
        p = inner.placement_initializer.sample()
        p = inner.conditional_placement_initializer.sample(_ResetSites(), p)
        p = inner.conditional_placement_on_objects_initializer.sample(p)
        for name, (pos, quat, _obj) in p.items():
            out.setdefault(name, []).append([*map(float, pos), *map(float, quat)])
    return out


def body_pose(sim, name: str) -> list[float] | None:
    try:
        i = sim.model.body_name2id(name)
    except ValueError:
        return None
    return [*map(float, sim.data.body_xpos[i]), *map(float, sim.data.body_xquat[i])]


def table_top(sim) -> float | None:
    """Highest collision top (m) among the static world/table geoms under the workspace centre."""
    import mujoco

    m, d = sim.model._model, sim.data._data
    best = None
    for g in range(m.ngeom):
        b = int(m.geom_bodyid[g])
        bname = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) or ""
        if not (m.geom_contype[g] or m.geom_conaffinity[g]) or (b != 0 and "table" not in bname):
            continue
        if int(m.geom_type[g]) == int(mujoco.mjtGeom.mjGEOM_PLANE):
            continue
        r = d.geom_xmat[g].reshape(3, 3)
        c = d.geom_xpos[g] + r @ m.geom_aabb[g][:3]
        h = np.abs(r) @ m.geom_aabb[g][3:]
        top = float(c[2] + h[2])
        best = top if best is None else max(best, top)
    return best


def joint_layout(sim) -> list[list]:
    """[name, type, qposadr, dofadr] of every joint of LIBERO's model (flattened state = time, qpos, qvel)."""
    m = sim.model._model
    return [
        [sim.model.joint_id2name(j), int(m.jnt_type[j]), int(m.jnt_qposadr[j]), int(m.jnt_dofadr[j])]
        for j in range(m.njnt)
    ]


def entity_owner(sim, names) -> np.ndarray:
    """Body id -> index of the entity (``<name>_main`` subtree) it belongs to, -1 for none."""
    m = sim.model._model
    roots = {sim.model.body_name2id(f"{n}_main"): k for k, n in enumerate(names)}
    owner = np.full(m.nbody, -1)
    for b in range(m.nbody):
        p = b
        while p > 0 and p not in roots:
            p = int(m.body_parentid[p])
        owner[b] = roots.get(p, -1)
    return owner


def entity_masses(sim, names) -> dict[str, float]:
    """Entity -> mass (kg) of its ``<name>_main`` subtree, as LIBERO's compiler computes it."""
    m = sim.model._model
    return {n: float(m.body_subtreemass[sim.model.body_name2id(f"{n}_main")]) for n in names}


def deepest_penetration(sim, owner) -> float:
    """Deepest contact (m, >= 0) between geoms of two different entities in the current state."""
    m, d = sim.model._model, sim.data._data
    worst = 0.0
    for c in d.contact[: d.ncon]:
        a, b = owner[m.geom_bodyid[c.geom1]], owner[m.geom_bodyid[c.geom2]]
        if a >= 0 and b >= 0 and a != b:
            worst = max(worst, -float(c.dist))
    return worst


def robot_model(sim) -> dict:
    """The robot of LIBERO's compiled model, prefix-free names: joints, bodies, collision geoms, actuators."""
    import mujoco

    m, d = sim.model._model, sim.data._data
    pref = ("robot0_", "gripper0_", "mount0_")

    def nm(kind, i):
        return mujoco.mj_id2name(m, kind, i) or ""

    def strip(n):
        for p in pref:
            if n.startswith(p):
                return p[:-2] + "/" + n[len(p) :]
        return None

    out: dict = {"joints": {}, "bodies": {}, "geoms": {}, "actuators": {}}
    for j in range(m.njnt):
        n = strip(nm(mujoco.mjtObj.mjOBJ_JOINT, j))
        if n is None:
            continue
        v = int(m.jnt_dofadr[j])
        out["joints"][n] = {
            "damping": float(m.dof_damping[v]),
            "armature": float(m.dof_armature[v]),
            "frictionloss": float(m.dof_frictionloss[v]),
            "stiffness": float(m.jnt_stiffness[j]),
            "range": [float(x) for x in m.jnt_range[j]],
            "qpos": float(d.qpos[m.jnt_qposadr[j]]),
        }
    for b in range(m.nbody):
        n = strip(nm(mujoco.mjtObj.mjOBJ_BODY, b))
        if n is None:
            continue
        out["bodies"][n] = {
            "mass": float(m.body_mass[b]),
            "inertia": [float(x) for x in m.body_inertia[b]],
            "pos": [float(x) for x in m.body_pos[b]],
            "quat": [float(x) for x in m.body_quat[b]],
            "xpos": [float(x) for x in d.xpos[b]],
        }
    for g in range(m.ngeom):
        n = strip(nm(mujoco.mjtObj.mjOBJ_BODY, int(m.geom_bodyid[g])))
        if n is None or not (m.geom_contype[g] or m.geom_conaffinity[g]):
            continue
        out["geoms"][f"{n}#{g}"] = {
            "type": int(m.geom_type[g]),
            "size": [float(x) for x in m.geom_size[g]],
            "friction": [float(x) for x in m.geom_friction[g]],
            "solref": [float(x) for x in m.geom_solref[g]],
            "condim": int(m.geom_condim[g]),
            "xpos": [float(x) for x in d.geom_xpos[g]],
        }
    for a in range(m.nu):
        out["actuators"][nm(mujoco.mjtObj.mjOBJ_ACTUATOR, a)] = {
            "gain": [float(x) for x in m.actuator_gainprm[a][:3]],
            "bias": [float(x) for x in m.actuator_biasprm[a][:3]],
            "ctrlrange": [float(x) for x in m.actuator_ctrlrange[a]],
            "forcerange": [float(x) for x in m.actuator_forcerange[a]],
        }
    out["gravity_compensation"] = [float(x) for x in m.body_gravcomp] if hasattr(m, "body_gravcomp") else None
    out["timestep"] = float(m.opt.timestep)
    out["integrator"] = int(m.opt.integrator)
    return out


def init_state_physics(env, inner, states, names) -> dict:
    """Per fixed initial state: deepest entity penetration (m) as loaded and after the wait LIBERO's
    evaluation takes (``SETTLE_STEPS`` control steps of 0.05 s), and each object's pose after it.

    The wait is simulated with ``mj_step`` and the robot's joints pinned at the loaded state (robosuite's
    controller holds them at zero action; stepping the env itself costs seconds per step here)."""
    import mujoco

    sim = inner.sim
    m, d = sim.model._model, sim.data._data
    owner = entity_owner(sim, names)
    robot = [
        j
        for j in range(m.njnt)
        if (mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) or "").startswith(("robot0_", "gripper0_"))
    ]
    qa, va = m.jnt_qposadr[robot], m.jnt_dofadr[robot]
    n = int(round(SETTLE_STEPS * inner.control_timestep / m.opt.timestep))
    rec: dict = {"pen_load": [], "pen_settled": [], "settled_pose": {k: [] for k in inner.objects_dict}}
    rec["settle_s"] = n * float(m.opt.timestep)
    for st in states:
        env.set_init_state(st)
        rec["pen_load"].append(deepest_penetration(sim, owner))
        q = d.qpos[qa].copy()
        d.ctrl[:] = 0
        for _ in range(n):
            mujoco.mj_step(m, d)
            d.qpos[qa], d.qvel[va] = q, 0.0
        mujoco.mj_forward(m, d)
        rec["pen_settled"].append(deepest_penetration(sim, owner))
        for k in rec["settled_pose"]:
            rec["settled_pose"][k].append(body_pose(sim, f"{k}_main"))
    return rec


class _NumpyOnly:
    """Restricted unpickler: numpy arrays and dtypes only (no torch, no arbitrary code)."""

    @staticmethod
    def load(data: bytes):
        import codecs
        import io
        import pickle

        allowed = {
            ("numpy.core.multiarray", "_reconstruct"): np.core.multiarray._reconstruct,
            ("numpy._core.multiarray", "_reconstruct"): np.core.multiarray._reconstruct,
            ("numpy", "ndarray"): np.ndarray,
            ("numpy", "dtype"): np.dtype,
            ("_codecs", "encode"): codecs.encode,
        }

        class U(pickle.Unpickler):
            def find_class(self, module, name):
                if (module, name) not in allowed:
                    raise pickle.UnpicklingError(f"{module}.{name} is not allowed")
                return allowed[(module, name)]

        return U(io.BytesIO(data)).load()


def read_init_states(path: Path) -> np.ndarray:
    """The (50, n) float64 array of a LIBERO ``.pruned_init`` file (a torch zip holding one numpy array)."""
    import zipfile

    with zipfile.ZipFile(path) as z:
        name = next(n for n in z.namelist() if n.endswith("data.pkl"))
        return np.asarray(_NumpyOnly.load(z.read(name)), np.float64)


def dump_task(tid: str, sdir: str, stem: str, n: int) -> dict:
    import libero.libero as L

    bddl = os.path.join(L.get_libero_path("bddl_files"), sdir, f"{stem}.bddl")
    record_reset_sites()
    env = make_env(bddl)
    inner = env.env
    env.reset()
    sim = inner.sim
    names = {**dict.fromkeys(inner.objects_dict, "object"), **dict.fromkeys(inner.fixtures_dict, "fixture")}
    rec: dict = {
        "task_id": tid,
        "entities": {k: {"kind": v, "category": inner.get_object(k).category_name} for k, v in names.items()},
        "samplers": sampler_info(inner),
        "parent_samplers": parent_samplers(inner),
        "reset_pose": {k: body_pose(sim, f"{k}_main") for k in names},
        "sites": {},
        "success_at_reset": bool(inner._check_success()),
        "table_top": table_top(sim),
        "robot_base": body_pose(sim, "robot0_base"),
        "robot_qpos": [float(v) for v in sim.data.qpos[:9]],
        "joints": joint_layout(sim),
        "nq": int(sim.model.nq),
        "nv": int(sim.model.nv),
        "robot_model": robot_model(sim),
        "mass": entity_masses(sim, names),
    }
    for s in range(sim.model._model.nsite):
        nm = sim.model.site_id2name(s)
        if nm and (nm.endswith("region") or "bottom_site" in nm or "top_site" in nm):
            rec["sites"][nm] = [float(v) for v in sim.data.site_xpos[s]]
    rec["samples"] = draw_samples(inner, n)
    states = read_init_states(Path(L.get_libero_path("init_states")) / sdir / f"{stem}.pruned_init")
    poses: dict[str, list] = {k: [] for k in inner.objects_dict}
    for st in states:
        env.set_init_state(st)
        for k in poses:
            poses[k].append(body_pose(sim, f"{k}_main"))
    rec["init_states"] = {"count": len(states), "width": int(states.shape[1]), "object_pose": poses}
    rec["init_states"].update(init_state_physics(env, inner, states, list(names)))
    env.close()
    return rec


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--task", action="append", default=None)
    ap.add_argument("--samples", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    root = Path(__file__).resolve().parent.parent
    tasks = task_list(root / "simkit" / "data" / "hebero" / "tasks.json")
    if args.task:
        tasks = [t for t in tasks if t[0] in args.task]
    out_path = Path(args.out)
    done = json.loads(out_path.read_text()) if out_path.is_file() else {"tasks": {}}
    import libero
    import mujoco
    import robosuite

    done["versions"] = {
        "hf-libero": getattr(libero, "__version__", "0.1.4"),
        "robosuite": robosuite.__version__,
        "mujoco": mujoco.__version__,
        "date": time.strftime("%Y-%m-%d"),
    }
    for tid, sdir, stem in tasks:
        if tid in done["tasks"]:
            continue
        np.random.seed(args.seed)
        t0 = time.time()
        done["tasks"][tid] = dump_task(tid, sdir, stem, args.samples)
        out_path.write_text(json.dumps(done))
        print(f"{tid}: {time.time() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
