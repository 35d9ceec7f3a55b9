"""MuJoCo task scenes for Hebero descriptors (``mujoco.MjSpec`` assembly).

:func:`build_scene` turns one compiled task descriptor (see
:mod:`simkit.scenes.bddl`) plus a LIBERO root into a compiled MuJoCo model:

* arena: floor plane, and for table arenas a static table box whose top face
  is the workspace frame origin (``arena.offset``, LIBERO's problem-class
  constants); background meshes are not loaded (visual only);
* workspace regions: a box site per region (``<region>``), centre of its first
  range, half height 0.007 m, 0.005 m below the table top (LIBERO's
  ``TargetZone``);
* fixtures (welded to the world) and objects (free joint), each under a named
  root body ``<entity>`` with the asset's ``object`` body attached under the
  prefix ``<entity>/`` -- so sites are ``<entity>/<site>`` and joints
  ``<entity>/<joint>``;
* layout: every entity whose ``:init`` atom is ``On(e, workspace region)`` is
  sampled uniformly in the region's world range with yaw uniform in its
  ``:yaw_rotation`` range (0 when absent), redrawn while its placement circle
  overlaps one already placed (robosuite/LIBERO rule: centre distance <=
  r_a + r_b, r = xy distance of the asset's ``horizontal_radius_site``, or
  half the smaller side of its collision box; at most ``max_tries`` draws,
  else :class:`SampleRejected`); its lowest collision point rests
  :data:`PLACE_CLEARANCE` above the support. ``On(e, site)`` / ``In(e, site)``
  put ``e`` on the top / bottom face of that site, ``On(e, b)`` on top of b's
  collision box. The layout is then checked with MuJoCo's contacts: two
  entities (or an entity and the robot) penetrating deeper than
  :data:`PENETRATION_TOL` reject it (``max_layouts`` layouts); when the regions
  force an overlap, the later entity is lifted in :data:`LIFT_STEP` steps and
  left to settle (LIBERO drops objects from above). ``Open/Close/Turnon/
  Turnoff`` atoms set the joints to LIBERO's range midpoints (:data:`INIT_QPOS`);
* robot: the Franka Panda arm and gripper shipped in the ``robosuite`` wheel's
  package data (read as files; robosuite itself is not imported), base at
  :data:`ROBOT_BASE` (LIBERO's base offsets per problem class),
  gravity-compensated, with joint position actuators (:data:`ARM_KP`) holding
  LIBERO's home pose :data:`ROBOT_HOME`; zero action = hold. Actuators:
  ``robot/act1..7`` (arm joint targets, rad) and
  ``robot/gripper/finger_joint{1,2}_act`` (finger targets, m).

Frames: world, z up, metres; quaternions (w, x, y, z).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simkit.core.errors import InputError, SampleRejected, require
from simkit.sims.predicates import ZONE_HALF_HEIGHT, ZONE_Z_BELOW_TOP, Binding, PredicateEvaluator

#: LIBERO MountedPanda init_qpos (rad), the arm's home pose
ROBOT_HOME = (0.0, -0.161037389, 0.0, -2.44459747, 0.0, 2.2267522, math.pi / 4.0)
ARM_KP = 400.0  #: N m / rad, joint position gain (with gravity compensation)
GRIPPER_OPEN = 0.04  #: m, finger opening of each finger at rest
PLACE_CLEARANCE = 0.001  #: m, gap between an object's lowest collision point and its support when placed
PENETRATION_TOL = 0.001  #: m, contact depth between two entities that rejects a layout
LIFT_STEP = 0.005  #: m, lift step when regions force an overlap
MAX_LIFT = 0.15  #: m, most an entity is lifted

#: world position (m) of the Panda base per LIBERO problem class: x from LIBERO's base_xpos_offset
#: (0.16 m + half the table length behind the table centre; 0.25 m for the study table; (-0.6, 0) on the
#: floor), z = the arm's mount height (0.913 m for the mounted arm, the table height for the arm standing
#: on the ground beside the low living-room / coffee tables, 0 on the floor)
ROBOT_BASE = {
    "libero_tabletop_manipulation": (-0.66, 0.0, 0.913),
    "libero_kitchen_tabletop_manipulation": (-0.66, 0.0, 0.913),
    "libero_study_tabletop_manipulation": (-0.75, 0.0, 0.913),
    "libero_living_room_tabletop_manipulation": (-0.51, 0.0, 0.42),
    "libero_coffee_table_manipulation": (-0.51, 0.0, 0.41),
    "libero_floor_manipulation": (-0.6, 0.0, 0.0),
}

#: joint positions that satisfy an init atom, midpoints of LIBERO's default ranges (m or rad)
INIT_QPOS = {
    "wooden_cabinet": {"open": -0.15, "close": 0.0025},
    "white_cabinet": {"open": -0.15, "close": 0.0025},
    "microwave": {"open": -1.7, "close": -0.0025},
    "short_cabinet": {"open": 0.13, "close": -0.0025},
    "short_fridge": {"open": 2.35, "close": -0.0025},
    "flat_stove": {"turnon": 1.3, "turnoff": -0.0025},
}


def panda_dir() -> Path:
    """Folder of the robosuite Panda assets (``robots/panda`` and ``grippers``) without importing robosuite.

    Raises:
        ExtraMissing-like SimkitError when robosuite is not installed.
    """
    import importlib.util

    spec = importlib.util.find_spec("robosuite")
    if spec is None or not spec.submodule_search_locations:
        from simkit.core.errors import ExtraMissing

        raise ExtraMissing("robosuite", "hebero")
    return Path(next(iter(spec.submodule_search_locations))) / "models" / "assets"


@dataclass
class Scene:
    """A built task scene.

    Attributes:
        model, data: compiled ``mujoco.MjModel`` / ``MjData`` (initial state, after ``mj_forward``).
        spec: the ``mujoco.MjSpec`` it was compiled from.
        binding: names -> ids for :class:`~simkit.sims.predicates.PredicateEvaluator`.
        evaluator: a ready evaluator.
        placements: entity -> (x, y, z, yaw) chosen (m, rad).
        warnings: asset problems tolerated while loading (missing visual files, ...).
        arm_qpos_adr: qpos addresses of the 7 arm joints.
    """

    model: object
    data: object
    spec: object
    binding: Binding
    evaluator: PredicateEvaluator
    descriptor: dict
    placements: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    arm_qpos_adr: list[int] = field(default_factory=list)

    def success(self) -> bool:
        """Task success: the goal formula on the current state."""
        return self.evaluator.formula(self.data, self.descriptor["goal"])

    def object_positions(self) -> dict[str, np.ndarray]:
        """World positions (3,), m, of the movable objects' root bodies."""
        return {n: np.array(self.data.xpos[self.binding.bodies[n]]) for n in self.descriptor["objects"]}


def _collision_extent(spec_child) -> tuple[np.ndarray, np.ndarray]:
    """Collision AABB (lo, hi) of an asset at identity pose (m), from a compiled copy."""
    import mujoco

    from simkit.assets.mjcf2usd import geom_is_collision, mujoco_bbox

    m = spec_child.compile()
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    geoms = [g for g in range(m.ngeom) if geom_is_collision(m, g) and m.geom_bodyid[g] != 0]
    if not geoms:
        geoms = [g for g in range(m.ngeom) if m.geom_bodyid[g] != 0]
    return mujoco_bbox(m, d, geoms)


def _horizontal_radius(child_spec, lo, hi) -> float:
    """Placement radius (m): LIBERO's ``horizontal_radius_site`` xy distance, else half the smaller AABB side."""
    for site in child_spec.sites:
        if site.name == "horizontal_radius_site":
            return float(math.hypot(site.pos[0], site.pos[1]))
    return float(min(hi[0] - lo[0], hi[1] - lo[1]) / 2)


def _entity_aabb(model, data, entity: str) -> tuple[np.ndarray, np.ndarray]:
    """World AABB (lo, hi), m, of an attached entity's collision geoms."""
    import mujoco

    from simkit.assets.mjcf2usd import geom_is_collision, mujoco_bbox

    bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, entity)
    geoms = [
        g
        for g in range(model.ngeom)
        if geom_is_collision(model, g) and _is_descendant(model, int(model.geom_bodyid[g]), bid)
    ]
    return mujoco_bbox(model, data, geoms)


def _yaw_quat(yaw: float) -> list[float]:
    return [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]


def _add_panda(spec, base_pos) -> None:
    import mujoco

    from simkit.assets.mjcf2usd import load_mjcf

    root = panda_dir()
    arm = load_mjcf(root / "robots" / "panda" / "robot.xml", compile_check=False).spec
    grip = load_mjcf(root / "grippers" / "panda_gripper.xml", compile_check=False).spec
    # drop robosuite's torque motors / gripper servos and F/T sensors: simkit adds its own actuators below
    for sp in (arm, grip):
        for el in list(sp.actuators) + list(sp.sensors):
            sp.delete(el)
    hand = arm.body("right_hand")
    hand.add_frame().attach_body(grip.worldbody.first_body(), "gripper/", "")
    frame = spec.worldbody.add_frame(pos=list(base_pos))
    frame.attach_body(arm.worldbody.first_body(), "robot/", "")
    for i, _q in enumerate(ROBOT_HOME, start=1):
        spec.add_actuator(
            name=f"robot/act{i}",
            target=f"robot/joint{i}",
            trntype=mujoco.mjtTrn.mjTRN_JOINT,
            gainprm=[ARM_KP] + [0] * 9,
            biasprm=[0, -ARM_KP, -2 * math.sqrt(ARM_KP)] + [0] * 7,
            biastype=mujoco.mjtBias.mjBIAS_AFFINE,
            gaintype=mujoco.mjtGain.mjGAIN_FIXED,
        )
    for j, _sign in (("robot/gripper/finger_joint1", 1.0), ("robot/gripper/finger_joint2", -1.0)):
        spec.add_actuator(
            name=f"{j}_act",
            target=j,
            trntype=mujoco.mjtTrn.mjTRN_JOINT,
            gainprm=[1000.0] + [0] * 9,
            biasprm=[0, -1000.0, -50.0] + [0] * 7,
            biastype=mujoco.mjtBias.mjBIAS_AFFINE,
            gaintype=mujoco.mjtGain.mjGAIN_FIXED,
            forcerange=[-20, 20],
            forcelimited=1,
        )
    for b in spec.bodies:
        if b.name.startswith("robot/") or b.name.startswith("gripper/"):
            b.gravcomp = 1.0


def build_scene(
    desc: dict,
    libero_root: str | Path,
    rng: np.random.Generator | None = None,
    with_robot: bool = True,
    max_tries: int = 1000,
    max_layouts: int = 10,
) -> Scene:
    """Assemble, place and compile the MuJoCo scene of one task descriptor.

    Args:
        desc: a descriptor from :func:`simkit.scenes.bddl.compile_task`.
        libero_root: folder holding ``assets/``.
        rng: randomness for region sampling (default: ``np.random.default_rng(0)``).
        with_robot: add the Panda arm and gripper.
        max_tries: circle-test draws per entity and layout.
        max_layouts: full layouts drawn before penetrating pairs are lifted apart.

    Returns:
        :class:`Scene` (after ``mj_forward``; nothing has been simulated).

    Raises:
        InputError: an asset is missing or unloadable (naming the file), an
            entity has no placement atom.
        SampleRejected: no collision-free placement within ``max_tries`` draws, or
            penetrating entities that lifting by :data:`MAX_LIFT` does not separate.
    """
    mujoco = require("mujoco", "hebero")
    from simkit.assets.mjcf2usd import load_mjcf

    rng = rng if rng is not None else np.random.default_rng(0)
    root = Path(libero_root)
    arena = desc["arena"]
    ox, oy, oz = arena["offset"]
    spec = mujoco.MjSpec()
    spec.modelname = desc["name"][:60]
    spec.option.timestep = 0.002
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.visual.global_.offwidth = 1280
    spec.visual.global_.offheight = 960
    wb = spec.worldbody
    wb.add_geom(name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[3, 3, 0.1], rgba=[0.55, 0.55, 0.58, 1])
    wb.add_light(pos=[1, 1, 4], dir=[-0.2, -0.2, -1], diffuse=[0.7, 0.7, 0.7])
    wb.add_light(pos=[-2, -2, 4], dir=[0.4, 0.4, -1], diffuse=[0.5, 0.5, 0.5])
    top = oz
    if arena["kind"] == "table":
        sx, sy, th = arena["size"]
        tb = wb.add_body(name="table", pos=[ox, oy, oz - th / 2])
        tb.add_geom(
            name="table_top",
            type=mujoco.mjtGeom.mjGEOM_BOX,
            size=[sx / 2, sy / 2, th / 2],
            rgba=[0.62, 0.47, 0.33, 1],
            friction=[1, 0.005, 0.0001],
        )
        leg_h = (oz - th) / 2
        for i, (lx, ly) in enumerate(((1, 1), (1, -1), (-1, 1), (-1, -1))):
            tb.add_geom(
                name=f"table_leg{i}",
                type=mujoco.mjtGeom.mjGEOM_CYLINDER,
                size=[0.025, leg_h, 0],
                pos=[lx * (sx / 2 - 0.05), ly * (sy / 2 - 0.05), -th / 2 - leg_h],
                contype=0,
                conaffinity=0,
                rgba=[0.3, 0.3, 0.3, 1],
            )
    # front camera looking back at the robot (like LIBERO's agentview) and a top-down camera
    wb.add_camera(name="agentview", pos=[ox + 1.0, oy, top + 0.45], xyaxes=[0, 1, 0, -0.4, 0, 0.92])
    wb.add_camera(name="birdview", pos=[ox, oy, top + 1.6], xyaxes=[0, 1, 0, -1, 0, 0])

    # ---- regions on the workspace
    binding = Binding()
    for rname, r in desc["regions"].items():
        if r["kind"] != "workspace":
            continue
        x0, y0, x1, y1 = r["ranges_world"][0]
        wb.add_site(
            name=rname,
            type=mujoco.mjtGeom.mjGEOM_BOX,
            pos=[(x0 + x1) / 2, (y0 + y1) / 2, top - ZONE_Z_BELOW_TOP],
            size=[max((x1 - x0) / 2, 1e-3), max((y1 - y0) / 2, 1e-3), ZONE_HALF_HEIGHT],
            rgba=[0.9, 0.2, 0.2, 0.0],
        )
        binding.site_parent[rname] = None

    # ---- load assets
    warnings: list[str] = []
    children: dict[str, object] = {}
    radii: dict[str, float] = {}
    extents: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    entities = {
        **{n: ("fixture", v) for n, v in desc["fixtures"].items()},
        **{n: ("object", v) for n, v in desc["objects"].items()},
    }
    for name, (_kind, info) in entities.items():
        if info["asset"] is None:
            raise InputError(
                None, f"task {desc['task_id']}: no known asset for category {info['category']!r} ({name})"
            )
        path = root / info["asset"]
        if not path.is_file():
            raise InputError(path, f"asset of {name} ({info['category']}) not found under --libero-root")
        loaded = load_mjcf(path, compile_check=False, merged=True)
        warnings += loaded.warnings
        # LIBERO (robosuite MujocoXMLObject) places the body named "object" at the sampled pose and
        # ignores its authored pos/quat; do the same
        obj = _object_body(loaded.spec)
        obj.pos = [0.0, 0.0, 0.0]
        obj.quat = [1.0, 0.0, 0.0, 0.0]
        parent = obj.parent
        if parent is not None and hasattr(parent, "pos") and parent.name != "world":
            parent.pos = [0.0, 0.0, 0.0]
        try:
            extents[name] = _collision_extent(loaded.spec)
        except (ValueError, RuntimeError) as exc:
            raise InputError(path, f"MuJoCo rejects the model: {exc}") from None
        children[name] = loaded.spec
        radii[name] = _horizontal_radius(loaded.spec, *extents[name])
        binding.categories[name] = info["category"]

    # ---- placement plan: workspace draws in :init order, then entities resting on / in other entities
    init = desc["init"]
    ws_plan: list[tuple[str, dict]] = []
    deferred: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for atom in init:
        if atom[0] not in ("on", "in") or atom[1] not in entities or atom[1] in seen:
            continue
        ent, reg = atom[1], atom[2]
        seen.add(ent)
        r = desc["regions"].get(reg)
        if r is not None and r["kind"] == "workspace":
            ws_plan.append((ent, r))
        else:
            deferred.append((atom[0], ent, reg))
    missing = [n for n in entities if n not in seen]
    if missing:
        raise InputError(None, f"task {desc['task_id']}: no placement atom (On/In a region) for {missing}")

    for i, name in enumerate(entities):  # provisional poses; the layout below moves them
        body = wb.add_body(name=name, pos=[0.0, 0.0, 5.0 + 2.0 * i])
        if entities[name][0] == "object":
            body.add_freejoint(name=f"{name}/free")
        body.add_frame().attach_body(_object_body(children[name]), f"{name}/", "")
    if with_robot:
        _add_panda(spec, ROBOT_BASE.get(arena["problem"].lower(), (-0.66, 0.0, top)))
    try:
        model = spec.compile()
    except (ValueError, RuntimeError) as exc:
        raise InputError(None, f"task {desc['task_id']}: scene does not compile: {exc}") from None
    data = mujoco.MjData(model)
    bodies = {n: mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n) for n in entities}
    owner = np.full(model.ngeom, -1, int)  # geom -> entity index (len(entities) = robot)
    names = list(entities)
    for g in range(model.ngeom):
        b = int(model.geom_bodyid[g])
        for k, n in enumerate(names):
            if _is_descendant(model, b, bodies[n]):
                owner[g] = k
        bn = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) or ""
        if bn.startswith("robot/"):
            owner[g] = len(names)

    def set_pose(name, x, y, z, yaw) -> None:
        bid = bodies[name]
        if entities[name][0] == "object":
            adr = model.jnt_qposadr[model.body_jntadr[bid]]
            data.qpos[adr : adr + 3] = [x, y, z]
            data.qpos[adr + 3 : adr + 7] = _yaw_quat(yaw)
        else:
            model.body_pos[bid] = [x, y, z]
            model.body_quat[bid] = _yaw_quat(yaw)

    def penetrating() -> list[tuple[int, int]]:
        mujoco.mj_forward(model, data)
        out = []
        for c in data.contact[: data.ncon]:
            a, b = owner[c.geom1], owner[c.geom2]
            if a >= 0 and b >= 0 and a != b and c.dist < -PENETRATION_TOL:
                out.append((a, b))
        return out

    placed: dict[str, tuple[float, float, float, float]] = {}

    def place_deferred() -> None:
        pending = list(deferred)
        while pending:
            mujoco.mj_forward(model, data)
            still = []
            for pred, ent, reg in pending:
                lo, hi = extents[ent]
                cx, cy = (lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2
                if reg in entities:  # On(a, b), b an asset: on top of b's collision box, centred on b
                    if reg not in placed:
                        still.append((pred, ent, reg))
                        continue
                    _, phi = _entity_aabb(model, data, reg)
                    bx, by = data.xpos[bodies[reg]][:2]
                    placed[ent] = (
                        float(bx - cx),
                        float(by - cy),
                        float(phi[2] - lo[2] + PLACE_CLEARANCE),
                        0.0,
                    )
                    set_pose(ent, *placed[ent])
                    continue
                r = desc["regions"].get(reg)
                parent = None if r is None else r["target"]
                if r is None or parent not in placed:
                    still.append((pred, ent, reg))
                    continue
                sid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, f"{parent}/{r['site']}")
                if sid < 0:
                    raise InputError(
                        root / entities[parent][1]["asset"], f"site {r['site']!r} (region {reg}) not found"
                    )
                sp = data.site_xpos[sid]
                half = np.abs(data.site_xmat[sid].reshape(3, 3) @ model.site_size[sid])
                base = sp[2] + half[2] if pred == "on" else sp[2] - half[2]
                if pred == "on":  # rest on the parent's highest collision surface under the site centre
                    base = max(base, _surface_below(model, data, parent, sp))
                placed[ent] = (
                    float(sp[0] - cx),
                    float(sp[1] - cy),
                    float(base - lo[2] + PLACE_CLEARANCE),
                    0.0,
                )
                set_pose(ent, *placed[ent])
            if len(still) == len(pending):
                raise InputError(
                    None,
                    f"task {desc['task_id']}: cannot place {[x[1] for x in still]} "
                    "(their regions belong to entities that are not placed)",
                )
            pending = still

    # ---- binding
    for name in entities:
        bid = bodies[name]
        binding.bodies[name] = bid
        sub = [b for b in range(model.nbody) if _is_descendant(model, b, bid)]
        binding.subtree_geoms[name] = np.array(
            [
                g
                for g in range(model.ngeom)
                if model.geom_bodyid[g] in sub and (model.geom_contype[g] or model.geom_conaffinity[g])
            ],
            int,
        )
        binding.joints[name] = [
            j
            for j in range(model.njnt)
            if model.jnt_bodyid[j] in sub
            and int(model.jnt_type[j]) in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
        ]
    for rname, r in desc["regions"].items():
        sname = rname if r["kind"] == "workspace" else f"{r['target']}/{r['site']}"
        sid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, sname)
        if sid < 0:
            warnings.append(f"task {desc['task_id']}: region {rname}: site {sname!r} not found in the asset")
            continue
        binding.sites[rname] = sid
        binding.site_size[rname] = np.array(model.site_size[sid])
        if r["kind"] != "workspace":
            binding.site_parent[rname] = r["target"]
            sb = int(model.site_bodyid[sid])
            binding.site_joints[rname] = [
                j
                for j in range(model.njnt)
                if model.jnt_bodyid[j] == sb and int(model.jnt_type[j]) != int(mujoco.mjtJoint.mjJNT_FREE)
            ]
    # ---- initial joint states and robot pose
    arm_adr = []
    if with_robot:
        for i, q in enumerate(ROBOT_HOME, start=1):
            jid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, f"robot/joint{i}")
            arm_adr.append(int(model.jnt_qposadr[jid]))
            data.qpos[model.jnt_qposadr[jid]] = q
            data.ctrl[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, f"robot/act{i}")] = q
        for j, v in (
            ("robot/gripper/finger_joint1", GRIPPER_OPEN),
            ("robot/gripper/finger_joint2", -GRIPPER_OPEN),
        ):
            jid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, j)
            data.qpos[model.jnt_qposadr[jid]] = v
            data.ctrl[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, f"{j}_act")] = v
    evaluator = PredicateEvaluator(model, binding)
    for atom in init:
        if atom[0] in ("open", "close", "turnon", "turnoff"):
            joints, cat = evaluator.joints_of(atom[1])
            q = INIT_QPOS.get(cat, {}).get(atom[0])
            if q is None:
                warnings.append(f"task {desc['task_id']}: cannot set {atom} (no joint values for {cat!r})")
                continue
            for j in joints:
                data.qpos[model.jnt_qposadr[j]] = q
    # ---- layout: sample regions, reject penetrating layouts
    pens: list[tuple[int, int]] = []
    for _attempt in range(max_layouts):
        placed.clear()
        circles: list[tuple[float, float, float]] = []
        for ent, r in ws_plan:
            lo, hi = extents[ent]
            ranges = r["ranges_world"]
            yaws = r["yaw_ranges"] or [[0.0, 0.0]]
            rad = radii[ent]
            for _ in range(max_tries):
                x0, y0, x1, y1 = ranges[int(rng.integers(len(ranges)))]
                x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
                ya, yb = yaws[int(rng.integers(len(yaws)))]
                yaw = float(rng.uniform(ya, yb))
                if all(math.hypot(x - fx, y - fy) > rad + fr for fx, fy, fr in circles):
                    break
            else:
                raise SampleRejected(
                    f"task {desc['task_id']}: no collision-free placement for {ent} in "
                    f"{r['target']} region after {max_tries} draws"
                )
            circles.append((x, y, rad))
            placed[ent] = (x, y, top - float(lo[2]) + PLACE_CLEARANCE, yaw)
            set_pose(ent, *placed[ent])
        place_deferred()
        pens = penetrating()
        if not pens:
            break
    if pens:
        # the regions force an overlap (LIBERO drops such objects from above and lets them settle):
        # lift the later-placed entity of each penetrating pair in 5 mm steps
        order = [e for e, _ in ws_plan] + [d[1] for d in deferred]
        for _ in range(int(MAX_LIFT / LIFT_STEP)):
            if not pens:
                break
            lift = set()
            for a, b in pens:
                cand = [names[k] for k in (a, b) if k < len(names)]
                lift.add(max(cand, key=order.index))
            for e in lift:
                x, y, z, yaw = placed[e]
                placed[e] = (x, y, z + LIFT_STEP, yaw)
                set_pose(e, *placed[e])
            pens = penetrating()
        if pens:
            raise SampleRejected(
                f"task {desc['task_id']}: cannot separate "
                f"{sorted({names[k] if k < len(names) else 'robot' for p in pens for k in p})}"
            )
        warnings.append(
            f"task {desc['task_id']}: regions overlap; lifted {sorted(lift)} to rest on their neighbours"
        )

    mujoco.mj_forward(model, data)
    return Scene(model, data, spec, binding, evaluator, desc, placed, warnings, arm_adr)


def _object_body(child_spec):
    """The asset body LIBERO places: the one named ``object``, else the first top-level body."""
    try:
        b = child_spec.body("object")
    except (KeyError, ValueError):
        b = None
    return b if b is not None else child_spec.worldbody.first_body()


def _is_descendant(model, b: int, root: int) -> bool:
    while b > 0:
        if b == root:
            return True
        b = int(model.body_parentid[b])
    return False


def _surface_below(model, data, entity: str, point) -> float:
    """Highest top face (m) of the entity's collision boxes whose xy footprint contains ``point``."""
    import mujoco

    bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, entity)
    best = -np.inf
    for g in range(model.ngeom):
        if not _is_descendant(model, int(model.geom_bodyid[g]), bid):
            continue
        if not (model.geom_contype[g] or model.geom_conaffinity[g]):
            continue
        r = data.geom_xmat[g].reshape(3, 3)
        c = data.geom_xpos[g] + r @ model.geom_aabb[g][:3]
        h = np.abs(r) @ model.geom_aabb[g][3:]
        if abs(point[0] - c[0]) < h[0] and abs(point[1] - c[1]) < h[1] and c[2] + h[2] < point[2] + 0.05:
            best = max(best, c[2] + h[2])
    return float(best)


def settle(scene: Scene, seconds: float = 5.0) -> dict[str, float]:
    """Simulate with zero action (arm holds its pose) for ``seconds``; return each object's drift (m).

    Drift = ||p(T) - p(0)|| of each movable object's root body.
    Raises ``SampleRejected`` when the state becomes non-finite (penetration blow-up).
    """
    import mujoco

    p0 = scene.object_positions()
    n = int(round(seconds / scene.model.opt.timestep))
    for _ in range(n):
        mujoco.mj_step(scene.model, scene.data)
    if not np.all(np.isfinite(scene.data.qpos)):
        raise SampleRejected(f"{scene.descriptor['task_id']}: simulation diverged")
    p1 = scene.object_positions()
    return {k: float(np.linalg.norm(p1[k] - p0[k])) for k in p0}


def render_views(
    scene: Scene, width: int = 480, height: int = 360, cameras=("agentview", "birdview")
) -> list:
    """Render RGB images (H, W, 3) uint8 of the scene's current state with MuJoCo's offscreen renderer.

    Sites are hidden; collision geoms are drawn with the visual ones (some assets ship without
    their visual meshes). Uses ``MUJOCO_GL`` (egl or osmesa) as set by the caller before mujoco is
    imported; raises when no GL context can be made.
    """
    import mujoco

    out = []
    opt = mujoco.MjvOption()
    opt.sitegroup[:] = 0  # hide helper sites (regions, grip markers)
    with mujoco.Renderer(scene.model, height, width) as r:
        for cam in cameras:
            r.update_scene(scene.data, camera=cam, scene_option=opt)
            out.append(r.render().copy())
    return out
