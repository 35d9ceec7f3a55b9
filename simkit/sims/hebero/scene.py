"""MuJoCo task scenes for Hebero descriptors (``mujoco.MjSpec`` assembly).

:func:`build_scene` turns one compiled task descriptor (see
:mod:`simkit.scenes.hebero`) plus a LIBERO root into a compiled MuJoCo model:

* arena: floor plane, and for table arenas a static table box whose top face
  is the workspace frame origin (``arena.offset``, LIBERO's problem-class
  constants); background meshes are not loaded (visual only);
* workspace regions: a box site per region (``<region>``), centre of its first
  range, half height 0.007 m, 0.005 m below the table top (LIBERO's
  ``TargetZone``);
* fixtures (mocap bodies: welded to the world, pose in ``data.mocap_pos/quat`` so that one
  model serves every layout) and objects (free joint), each under a named
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
  :data:`PENETRATION_TOL` reject it (``max_layouts`` layouts, then as many redraws
  of the movable objects with the fixtures kept); when the regions force an
  overlap, the later movable object is lifted in :data:`LIFT_STEP` steps and left
  to settle (LIBERO drops objects from above); a fixture is never lifted. ``Open/Close/Turnon/
  Turnoff`` atoms set the joints to LIBERO's range midpoints (:data:`INIT_QPOS`);
* robot: the Franka Panda arm and gripper shipped in the ``robosuite`` wheel's
  package data (read as files; robosuite itself is not imported), base at
  :data:`ROBOT_BASE` (LIBERO's base offsets per problem class),
  gravity-compensated, with joint position actuators (:data:`ARM_KP`) holding LIBERO's home
  pose :data:`ROBOT_HOME` and the fingers at robosuite's :data:`GRIPPER_HOME`; zero action =
  hold. The arm joints carry the XML's damping but not the armature and friction loss
  robosuite's ``RobotModel`` adds on load (docs/hebero.md, Limitations, measured). Actuators:
  ``robot/act1..7`` (arm joint targets, rad) and
  ``robot/gripper/finger_joint{1,2}_act`` (finger targets, m);
* cameras: LIBERO's ``agentview`` of the problem class and the wrist camera ``eye_in_hand`` on
  ``robot/right_hand`` (:func:`~simkit.sims.hebero.cameras.add_cameras`, definitions in
  :mod:`simkit.scenes.hebero.cameras`; robosuite's own arm cameras are dropped), clipping planes at
  0.01 / 20 m, and ``birdview`` (top-down, for contact sheets). The floor, table top and legs are in
  geom group 1, which the cameras draw (visual geoms only).

Frames: world, z up, metres; quaternions (w, x, y, z).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.assets.mujoco_log import import_mujoco
from simkit.core.errors import InputError, SampleRejected
from simkit.scenes.hebero.placement import (
    SHRINK_PROBLEMS,
    TABLE_FRICTION,
    TABLE_TOP,
    draw_between,
    fixture_z,
    object_quat,
    parent_offset_box,
    shrunk_ranges,
    yaw_quat,
)
from simkit.sims.hebero.cameras import add_cameras, set_clip_planes
from simkit.sims.hebero.predicates import (
    ZONE_HALF_HEIGHT,
    ZONE_Z_BELOW_TOP,
    Binding,
    PredicateEvaluator,
    touch_pairs,
)

#: LIBERO MountedPanda init_qpos (rad), the arm's home pose
ROBOT_HOME = (0.0, -0.161037389, 0.0, -2.44459747, 0.0, 2.2267522, math.pi / 4.0)
ARM_KP = 400.0  #: N m / rad, joint position gain (with gravity compensation)
GRIPPER_OPEN = 0.04  #: m, finger opening of each finger when open
#: m, each finger's opening at reset: robosuite's ``PandaGripper.init_qpos`` (1.4.0 and 1.5)
GRIPPER_HOME = 0.020833
PLACE_CLEARANCE = 0.001  #: m, gap between an object's lowest collision point and its support when placed
PENETRATION_TOL = 0.001  #: m, contact depth between two entities that rejects a layout
LIFT_STEP = 0.005  #: m, lift step when regions force an overlap
MAX_LIFT = 0.15  #: m, most an entity is lifted
SIM_DT = 0.002  #: s, physics time step (robosuite/LIBERO's 500 Hz)
#: m, half thickness below which a horizontal collision box of a fixture is a "thin plate" (LIBERO's
#: flat stove: a 1 mm plate over its burner), and the half thickness it is given, top face kept
THIN_PLATE_HALF, PLATE_HALF = 0.001, 0.005

#: world position (m) of the Panda base per LIBERO problem class: x from LIBERO's base_xpos_offset
#: (0.16 m + half the table length behind the table centre; 0.25 m for the study table; (-0.6, 0) on the
#: floor), z = where LIBERO's compiled model has ``robot0_base`` (0.912 m on robosuite's RethinkMount for
#: the mounted arm, the ``base_xpos_offset`` height for the arm standing on the ground beside the low
#: living-room / coffee tables, 0 on the floor; measured with tools/libero_dump.py)
ROBOT_BASE = {
    "libero_tabletop_manipulation": (-0.66, 0.0, 0.912),
    "libero_kitchen_tabletop_manipulation": (-0.66, 0.0, 0.912),
    "libero_study_tabletop_manipulation": (-0.75, 0.0, 0.912),
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
        binding: names -> ids for :class:`~simkit.sims.hebero.predicates.PredicateEvaluator`.
        evaluator: a ready evaluator.
        placements: entity -> (x, y, z, quat) chosen: root-body position (m), orientation (w, x, y, z).
        warnings: asset problems tolerated while loading (missing visual files, ...).
        arm_qpos_adr: qpos addresses of the 7 arm joints.
    """

    model: Any
    data: Any
    spec: Any
    binding: Binding
    evaluator: PredicateEvaluator
    descriptor: dict
    placements: dict[str, tuple[float, float, float, tuple[float, ...]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    arm_qpos_adr: list[int] = field(default_factory=list)
    layout: Layout | None = None
    #: absolute paths of the files the model was compiled from (asset MJCF, meshes, textures)
    inputs: list[str] = field(default_factory=list)
    #: the warnings of loading and binding the model (``warnings`` adds those of the layouts drawn)
    compile_warnings: list[str] = field(default_factory=list)

    def reset(self, rng: np.random.Generator) -> None:
        """Draw a new initial state into ``data``: robot home, ``:init`` joints, region layout (seeded by ``rng``)."""
        import mujoco

        assert self.layout is not None
        self.layout.init_state(self.data, self.evaluator, self.warnings)
        self.layout.sample(self.data, rng, self.warnings)
        self.placements = dict(self.layout.placed)
        mujoco.mj_forward(self.model, self.data)

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


def _thicken_plates(child_spec, path) -> list[str]:
    """Give every thin horizontal collision plate of a fixture asset that lies on a collision box of
    its own body (a box whose smallest half extent, below :data:`THIN_PLATE_HALF`, points along z, on
    a body rigidly attached to the asset's root, with a box of the same body under its whole
    footprint whose top is less than 2 :data:`PLATE_HALF` below the plate) the half thickness
    :data:`PLATE_HALF`, grown downwards into that box: its top face, footprint and mass stay, and
    nothing outside the fixture's collision volume changes.

    Why: an object LIBERO's initial states drop from its sampler height (up to 7 cm, about 1.2 m/s at
    impact, 2.3 mm per 2 ms step) passes the 1 mm plate over the flat stove's burner beyond its
    midplane within a step; MuJoCo 4's box-box collision then pushes it down through the plate (the
    bowl rests 3.0 mm deep), where MuJoCo 3.8 (LIBERO's) pushed it back up. LIBERO's own model shows
    the same 3.0 mm under MuJoCo 4.0.0. Returns one warning line per plate changed (naming ``path``).
    """
    import mujoco

    m = child_spec.compile()
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    notes = []
    for b, body in enumerate(child_spec.bodies):
        if b == 0 or any(m.body_jntnum[p] for p in _chain(m, b)):
            continue  # the world, or a body that moves against the asset's root
        for j, geom in enumerate(body.geoms):
            g = int(m.body_geomadr[b]) + j
            lo, hi, i, up = _plate(m, d, g)
            if i < 0 or not _supported(m, d, b, g, lo, hi):
                continue
            rot = np.zeros(9)
            mujoco.mju_quat2Mat(rot, m.geom_quat[g])
            axis = rot.reshape(3, 3)[:, i]  # the thin axis in the body frame
            size = np.array(m.geom_size[g])
            if not geom.mass > 0:  # unset (NaN): keep LIBERO's density times the plate's own volume
                geom.mass = float(geom.density * 8 * np.prod(size))
            geom.pos = list(m.geom_pos[g] - np.sign(up) * (PLATE_HALF - size[i]) * axis)
            size[i] = PLATE_HALF
            geom.size = list(size)
            notes.append(
                f"{path}: collision plate {geom.name or g} {2e3 * float(m.geom_size[g][i]):.1f} mm thick, "
                f"made {2e3 * PLATE_HALF:.0f} mm downwards (top face kept)"
            )
    return notes


def _chain(m, b: int) -> list[int]:
    """Body b and its ancestors up to (not including) the world."""
    out = []
    while b > 0:
        out.append(b)
        b = int(m.body_parentid[b])
    return out


def _plate(m, d, g: int) -> tuple[np.ndarray, np.ndarray, int, float]:
    """(AABB lo, hi (3,) in the asset frame, thin axis index, its z component) of a thin horizontal
    collision box; index -1 for any other geom."""
    import mujoco

    none = (np.zeros(3), np.zeros(3), -1, 0.0)
    if m.geom_type[g] != mujoco.mjtGeom.mjGEOM_BOX or not (m.geom_contype[g] or m.geom_conaffinity[g]):
        return none
    i = int(np.argmin(m.geom_size[g]))
    rot = d.geom_xmat[g].reshape(3, 3)
    if m.geom_size[g][i] >= THIN_PLATE_HALF or abs(rot[2, i]) < 0.999:
        return none
    half = np.abs(rot) @ m.geom_size[g]
    return d.geom_xpos[g] - half, d.geom_xpos[g] + half, i, float(rot[2, i])


def _supported(m, d, b: int, g: int, lo: np.ndarray, hi: np.ndarray) -> bool:
    """True where another collision box of body b covers the plate's footprint (1 mm slack) with its
    top between the plate's bottom and 2 :data:`PLATE_HALF` below its top."""
    import mujoco

    for h in range(int(m.body_geomadr[b]), int(m.body_geomadr[b] + m.body_geomnum[b])):
        if (
            h == g
            or m.geom_type[h] != mujoco.mjtGeom.mjGEOM_BOX
            or not (m.geom_contype[h] or m.geom_conaffinity[h])
        ):
            continue
        half = np.abs(d.geom_xmat[h].reshape(3, 3)) @ m.geom_size[h]
        blo, bhi = d.geom_xpos[h] - half, d.geom_xpos[h] + half
        covers = np.all(blo[:2] <= lo[:2] + 1e-3) and np.all(bhi[:2] >= hi[:2] - 1e-3)
        if covers and hi[2] - 2 * PLATE_HALF <= bhi[2] <= lo[2] + 1e-9:
            return True
    return False


def _horizontal_radius(child_spec, lo, hi) -> float:
    """Placement radius (m): x of LIBERO's ``horizontal_radius_site`` (robosuite's
    ``MujocoXMLObject.horizontal_radius``), else half the smaller AABB side."""
    for site in child_spec.sites:
        if site.name == "horizontal_radius_site":
            return float(abs(site.pos[0]))
    return float(min(hi[0] - lo[0], hi[1] - lo[1]) / 2)


def _bottom_site_z(child_spec) -> float | None:
    """z (m, asset frame) of the asset's ``bottom_site`` (robosuite's ``bottom_offset``), None without one."""
    for site in child_spec.sites:
        if site.name == "bottom_site":
            return float(site.pos[2])
    return None


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


def _add_panda(spec, base_pos) -> None:
    import mujoco

    from simkit.assets.mjcf2usd import load_mjcf

    root = panda_dir()
    arm: Any = load_mjcf(root / "robots" / "panda" / "robot.xml", compile_check=False).spec
    grip: Any = load_mjcf(root / "grippers" / "panda_gripper.xml", compile_check=False).spec
    # drop robosuite's torque motors / gripper servos and F/T sensors: simkit adds its own actuators below
    for sp in (arm, grip):
        for el in list(sp.actuators) + list(sp.sensors):
            sp.delete(el)
    for cam in list(arm.cameras):  # its wrist camera is re-added from simkit.scenes.hebero.cameras
        arm.delete(cam)
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


def _new_spec(desc: dict):
    """An ``MjSpec`` with the arena: floor, lights, the table (box top + visual legs), a top-down camera."""
    import mujoco

    arena = desc["arena"]
    ox, oy, oz = arena["offset"]
    spec = mujoco.MjSpec()
    spec.modelname = desc["name"][:60]
    spec.option.timestep = SIM_DT
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    # only collision geoms (group 0) give mass and inertia, as in robosuite's base.xml, which every
    # LIBERO scene is compiled under (compiler/@inertiagrouprange = "0 0")
    spec.compiler.inertiagrouprange = [0, 0]
    spec.visual.global_.offwidth = 1280
    spec.visual.global_.offheight = 960
    wb = spec.worldbody
    # group 1 (drawn by the cameras, which show visual geoms only, as robosuite does): the floor, table, legs
    wb.add_geom(
        name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[3, 3, 0.1], rgba=[0.55, 0.55, 0.58, 1], group=1
    )
    wb.add_light(pos=[1, 1, 4], dir=[-0.2, -0.2, -1], diffuse=[0.7, 0.7, 0.7])
    wb.add_light(pos=[-2, -2, 4], dir=[0.4, 0.4, -1], diffuse=[0.5, 0.5, 0.5])
    if arena["kind"] == "table":
        sx, sy, th = arena["size"]
        problem = arena["problem"].lower()
        top = TABLE_TOP.get(problem, oz)  # the collision top of LIBERO's arena (a mesh for some)
        tb = wb.add_body(name="table", pos=[ox, oy, top - th / 2])
        tb.add_geom(
            name="table_top",
            type=mujoco.mjtGeom.mjGEOM_BOX,
            size=[sx / 2, sy / 2, th / 2],
            rgba=[0.62, 0.47, 0.33, 1],
            friction=[TABLE_FRICTION.get(problem, 1.0), 0.005, 0.0001],
            group=1,
        )
        leg_h = (top - th) / 2
        for i, (lx, ly) in enumerate(((1, 1), (1, -1), (-1, 1), (-1, -1))):
            tb.add_geom(
                name=f"table_leg{i}",
                type=mujoco.mjtGeom.mjGEOM_CYLINDER,
                size=[0.025, leg_h, 0],
                pos=[lx * (sx / 2 - 0.05), ly * (sy / 2 - 0.05), -th / 2 - leg_h],
                contype=0,
                conaffinity=0,
                rgba=[0.3, 0.3, 0.3, 1],
                group=1,
            )
    # a top-down camera over the workspace (contact sheets); the observation cameras: add_cameras
    wb.add_camera(name="birdview", pos=[ox, oy, oz + 1.6], xyaxes=[0, 1, 0, -1, 0, 0])
    # workspace regions: box sites (LIBERO TargetZone), centre of the first range
    for rname, r in desc["regions"].items():
        if r["kind"] != "workspace":
            continue
        x0, y0, x1, y1 = r["ranges_world"][0]
        wb.add_site(
            name=rname,
            type=mujoco.mjtGeom.mjGEOM_BOX,
            pos=[(x0 + x1) / 2, (y0 + y1) / 2, oz - ZONE_Z_BELOW_TOP],
            size=[max((x1 - x0) / 2, 1e-3), max((y1 - y0) / 2, 1e-3), ZONE_HALF_HEIGHT],
            rgba=[0.9, 0.2, 0.2, 0.0],
        )
    return spec


@dataclass
class _Asset:
    kind: str  # "fixture" | "object"
    spec: object  # the loaded MjSpec while the scene is assembled, then None
    extent: tuple[np.ndarray, np.ndarray]
    radius: float
    category: str = ""
    bottom_site_z: float | None = None


def strip_visuals(spec) -> None:
    """Delete visual-only geoms (``contype = conaffinity = 0``) and the meshes, textures and materials
    nothing references any more. LIBERO's visual meshes are most of a task model's memory (about
    200 MB per task); physics and the goal tests use only collision geometry."""
    for g in list(spec.geoms):
        if g.contype == 0 and g.conaffinity == 0:
            spec.delete(g)
    used = {g.meshname for g in spec.geoms}
    for m in list(spec.meshes):
        if m.name not in used:
            spec.delete(m)
    used_mat = {g.material for g in spec.geoms} | {s.material for s in spec.sites}
    for mat in list(spec.materials):
        if mat.name not in used_mat:
            spec.delete(mat)
    used_tex = {t for mat in spec.materials for t in mat.textures if t}
    for tex in list(spec.textures):
        if tex.name not in used_tex:
            spec.delete(tex)


def _freeze_inertia(spec) -> None:
    """Give every body the mass and inertia its full model has (from its collision geoms only, as
    LIBERO's scenes compute them: ``inertiagrouprange`` 0 0), so that :func:`strip_visuals` leaves
    the dynamics unchanged."""
    full = spec.copy().compile()
    for b in spec.bodies:
        if b.name == "world":
            continue
        i = full.body(b.name).id
        b.explicitinertial = True
        b.mass = float(full.body_mass[i])
        b.ipos = list(full.body_ipos[i])
        b.iquat = list(full.body_iquat[i])
        b.inertia = list(full.body_inertia[i])


#: collision extents of loaded assets by :func:`_extent_key`: assets repeat across tasks (the 40 tasks
#: use 28 assets 256 times) and measuring one compiles it
_EXTENTS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _extent_key(loaded) -> tuple:
    """What an asset's collision extent depends on: its rewritten MJCF text (absolute file names) and
    the size and modification time of every mesh, texture, height field and skin file it names."""
    stamps = []
    for el in (*loaded.spec.meshes, *loaded.spec.textures, *loaded.spec.hfields, *loaded.spec.skins):
        if el.file:
            try:
                st = Path(el.file).stat()
                stamps.append((el.file, st.st_size, st.st_mtime_ns))
            except OSError:
                stamps.append((el.file, -1, -1))
    return (loaded.xml, tuple(stamps))


def _load_assets(
    desc: dict, root: Path, warnings: list[str], where: str = "under --libero-root"
) -> dict[str, _Asset]:
    """Load every fixture and object asset of a descriptor (MJCF), with its collision extent and radius."""
    from simkit.assets.mjcf2usd import load_mjcf

    out: dict[str, _Asset] = {}
    entities = {
        **{n: ("fixture", v) for n, v in desc["fixtures"].items()},
        **{n: ("object", v) for n, v in desc["objects"].items()},
    }
    for name, (kind, info) in entities.items():
        if info["asset"] is None:
            raise InputError(
                None, f"task {desc['task_id']}: no known asset for category {info['category']!r} ({name})"
            )
        path = root / info["asset"]
        if not path.is_file():
            raise InputError(path, f"asset of {name} ({info['category']}) not found {where}")
        loaded = load_mjcf(path, compile_check=False, merged=True)
        warnings += loaded.warnings
        # merged into LIBERO's scene, an asset compiles under robosuite's base.xml compiler: only its
        # collision geoms (group 0) give mass and inertia (an attached spec keeps its own compiler)
        loaded.spec.compiler.inertiagrouprange = [0, 0]
        # LIBERO (robosuite MujocoXMLObject) places the body named "object" at the sampled pose and
        # ignores its authored pos/quat; do the same
        obj = _object_body(loaded.spec)
        obj.pos = [0.0, 0.0, 0.0]
        obj.quat = [1.0, 0.0, 0.0, 0.0]
        parent = obj.parent
        if parent is not None and hasattr(parent, "pos") and parent.name != "world":
            parent.pos = [0.0, 0.0, 0.0]
        key = _extent_key(loaded)
        if key not in _EXTENTS:
            try:
                _EXTENTS[key] = _collision_extent(loaded.spec)
            except (ValueError, RuntimeError) as exc:
                raise InputError(path, f"MuJoCo rejects the model: {exc}") from None
        ext = (_EXTENTS[key][0].copy(), _EXTENTS[key][1].copy())
        if kind == "fixture":
            warnings += _thicken_plates(loaded.spec, path)
        out[name] = _Asset(
            kind,
            loaded.spec,
            ext,
            _horizontal_radius(loaded.spec, *ext),
            info["category"],
            _bottom_site_z(loaded.spec),
        )
    return out


def _placement_plan(
    desc: dict, names: list[str]
) -> tuple[list[tuple[str, dict]], list[tuple[str, str, str]]]:
    """Split the ``:init`` placement atoms: workspace-region draws (in order) and entities on/in others."""
    ws_plan: list[tuple[str, dict]] = []
    deferred: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for atom in desc["init"]:
        if atom[0] not in ("on", "in") or atom[1] not in names or atom[1] in seen:
            continue
        ent, reg = atom[1], atom[2]
        seen.add(ent)
        r = desc["regions"].get(reg)
        if r is not None and r["kind"] == "workspace":
            ws_plan.append((ent, r))
        else:
            deferred.append((atom[0], ent, reg))
    missing = [n for n in names if n not in seen]
    if missing:
        raise InputError(None, f"task {desc['task_id']}: no placement atom (On/In a region) for {missing}")
    return ws_plan, deferred


def _bind(desc: dict, model, names: list[str], categories: dict[str, str], warnings: list[str]) -> Binding:
    """Names -> ids of every entity, region site and articulated joint (for the predicates)."""
    import mujoco

    binding = Binding(categories=dict(categories))
    hinge_slide = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
    for name in names:
        bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
        binding.bodies[name] = bid
        sub = subtree_bodies(model, bid)
        collide = (model.geom_contype != 0) | (model.geom_conaffinity != 0)
        binding.subtree_geoms[name] = np.flatnonzero(np.isin(model.geom_bodyid, sub) & collide).astype(int)
        binding.joints[name] = [
            j
            for j in range(model.njnt)
            if model.jnt_bodyid[j] in sub and int(model.jnt_type[j]) in hinge_slide
        ]
    for rname, r in desc["regions"].items():
        sname = rname if r["kind"] == "workspace" else f"{r['target']}/{r['site']}"
        sid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, sname)
        if sid < 0:
            warnings.append(f"task {desc['task_id']}: region {rname}: site {sname!r} not found in the asset")
            continue
        binding.sites[rname] = sid
        binding.site_size[rname] = np.array(model.site_size[sid])
        binding.site_parent[rname] = None if r["kind"] == "workspace" else r["target"]
        if r["kind"] != "workspace":
            sb = int(model.site_bodyid[sid])
            binding.site_joints[rname] = [
                j
                for j in range(model.njnt)
                if model.jnt_bodyid[j] == sb and int(model.jnt_type[j]) != int(mujoco.mjtJoint.mjJNT_FREE)
            ]
    return binding


def build_scene(
    desc: dict,
    libero_root: str | Path | None = None,
    rng: np.random.Generator | None = None,
    with_robot: bool = True,
    max_tries: int = 1000,
    max_layouts: int = 10,
    visual: bool = True,
) -> Scene:
    """Assemble, place and compile the MuJoCo scene of one task descriptor.

    Args:
        desc: a descriptor from :func:`simkit.scenes.hebero.compile_task`.
        libero_root: folder holding ``assets/``; None: the installed LIBERO asset tree
            (:func:`simkit.assets.libero_assets.libero_root`).
        rng: randomness for region sampling (default: ``np.random.default_rng(0)``).
        with_robot: add the Panda arm and gripper.
        max_tries: circle-test draws per entity and layout.
        max_layouts: full layouts drawn before penetrating movable objects are lifted apart.
        visual: keep visual-only geoms and their meshes/textures (False: :func:`strip_visuals`, for
            simulation without rendering; a tenth of the memory).

    Returns:
        :class:`Scene` (after ``mj_forward``; nothing has been simulated). Fixtures are mocap
        bodies (welded; pose in ``data.mocap_pos/mocap_quat``), so one model serves every layout.

    Raises:
        InputError: an asset is missing or unloadable (naming the file), an
            entity has no placement atom.
        LiberoAssetsMissing: ``libero_root`` is None and the asset wheels are not installed.
        SampleRejected: no collision-free placement within ``max_tries`` draws, or
            penetrations that lifting movable objects by :data:`MAX_LIFT` does not remove.
    """
    mujoco = import_mujoco()
    where = "under --libero-root"
    if libero_root is None:
        from simkit.assets.libero_assets import libero_root as installed_root

        libero_root, where = installed_root(), "in the installed LIBERO asset tree"
    warnings: list[str] = []
    assets = _load_assets(desc, Path(libero_root), warnings, where)
    names = list(assets)
    _placement_plan(desc, names)  # an entity without a placement atom fails before the compile
    spec = _new_spec(desc)
    for i, name in enumerate(names):  # provisional poses; the layout below moves them
        a = assets[name]
        body = spec.worldbody.add_body(name=name, pos=[0.0, 0.0, 5.0 + 2.0 * i], mocap=a.kind == "fixture")
        if a.kind == "object":
            body.add_freejoint(name=f"{name}/free")
        body.add_frame().attach_body(_object_body(a.spec), f"{name}/", "")
    for a_name, b_name in touch_pairs(
        desc
    ):  # contact sensors for the goal's touching tests (batched backends)
        spec.add_sensor(
            name=f"touch:{a_name}:{b_name}",
            type=mujoco.mjtSensor.mjSENS_CONTACT,
            objtype=mujoco.mjtObj.mjOBJ_XBODY,
            objname=a_name,
            reftype=mujoco.mjtObj.mjOBJ_XBODY,
            refname=b_name,
            intprm=[1, 0, 1],  # data = found (number of contacts), no reduction, one slot
        )
    if with_robot:
        top = desc["arena"]["offset"][2]
        _add_panda(spec, ROBOT_BASE.get(desc["arena"]["problem"].lower(), (-0.66, 0.0, top)))
    add_cameras(spec, desc["arena"]["problem"], with_robot)
    inputs = _input_files(spec, Path(libero_root), desc, with_robot)
    if not visual:
        _freeze_inertia(spec)
        strip_visuals(spec)
    try:
        model = spec.compile()
    except (ValueError, RuntimeError) as exc:
        raise InputError(None, f"task {desc['task_id']}: scene does not compile: {exc}") from None
    set_clip_planes(model)
    for a in assets.values():  # the asset specs (visual meshes included) are no longer needed
        a.spec = None
    scene = scene_from_model(desc, model, assets, warnings, with_robot, max_tries, max_layouts, rng, spec)
    scene.inputs = inputs
    return scene


def _input_files(spec, root: Path, desc: dict, with_robot: bool) -> list[str]:
    """Absolute paths of every file a task scene is compiled from: the entities' MJCF files, the
    Panda arm and gripper MJCF files (with the robot) and every mesh and texture file the assembled
    spec references (visual ones included: the visual model draws them)."""
    files = {
        str((root / info["asset"]).resolve()) for info in {**desc["fixtures"], **desc["objects"]}.values()
    }
    if with_robot:
        pd = panda_dir()
        files |= {str(pd / "robots" / "panda" / "robot.xml"), str(pd / "grippers" / "panda_gripper.xml")}
    for el in (*spec.meshes, *spec.textures, *spec.hfields, *spec.skins):
        if el.file:
            files.add(str(Path(el.file).resolve()))
    return sorted(files)


def scene_from_model(
    desc: dict,
    model,
    assets: dict[str, _Asset],
    warnings: list[str],
    with_robot: bool = True,
    max_tries: int = 1000,
    max_layouts: int = 10,
    rng: np.random.Generator | None = None,
    spec=None,
) -> Scene:
    """The :class:`Scene` of a compiled task model (from :func:`build_scene` or a compiled-model cache):
    bindings, goal evaluator and layout sampler derived from ``model``, then ``reset(rng)`` (default
    ``np.random.default_rng(0)``). ``assets``: entity -> :class:`_Asset` (its ``spec`` may be None);
    ``spec``: the ``MjSpec`` compiled, None for a model read from a binary."""
    mujoco = import_mujoco()
    names = list(assets)
    ws_plan, deferred = _placement_plan(desc, names)
    data = mujoco.MjData(model)
    found: list[str] = []
    binding = _bind(
        desc,
        model,
        names,
        {n: v["category"] for n, v in {**desc["fixtures"], **desc["objects"]}.items()},
        found,
    )
    warnings = list(warnings) + [w for w in found if w not in warnings]
    for a_name, b_name in touch_pairs(desc):
        sid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SENSOR, f"touch:{a_name}:{b_name}")
        binding.touch[(a_name, b_name)] = binding.touch[(b_name, a_name)] = int(model.sensor_adr[sid])
    layout = Layout(desc, model, assets, ws_plan, deferred, with_robot, max_tries, max_layouts)
    scene = Scene(model, data, spec, binding, PredicateEvaluator(model, binding), desc, layout=layout)
    scene.warnings = warnings
    scene.compile_warnings = list(warnings)
    scene.arm_qpos_adr = layout.arm_qpos_adr
    scene.reset(rng if rng is not None else np.random.default_rng(0))
    return scene


class Layout:
    """Initial-state sampler of one compiled task scene (robot home, ``:init`` joints, region draws).

    Placement follows the module doc: workspace draws with the circle test, deferred entities on
    or in their parents, MuJoCo contacts reject layouts whose entities penetrate by more than
    :data:`PENETRATION_TOL`. When the regions force an overlap after ``max_layouts`` layouts, only
    movable objects are lifted (:data:`LIFT_STEP` steps, at most :data:`MAX_LIFT`); a fixture is
    never moved off its support.
    """

    def __init__(
        self, desc, model, assets: dict[str, _Asset], ws_plan, deferred, with_robot, max_tries, max_layouts
    ):
        import mujoco

        self.desc, self.model, self.assets = desc, model, assets
        self.ws_plan, self.deferred = ws_plan, deferred
        self.max_tries, self.max_layouts = max_tries, max_layouts
        self.names = list(assets)
        self.problem = desc["arena"]["problem"].lower()
        self.offset_z = float(desc["arena"]["offset"][2])
        #: support height (m) of the workspace: the collision top of LIBERO's table, or the floor
        self.top = TABLE_TOP.get(self.problem, self.offset_z) if desc["arena"]["kind"] == "table" else 0.0
        self.shrink = self.problem in SHRINK_PROBLEMS
        self._scratch = mujoco.MjData(model)
        self._extents: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.bodies = {n: mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n) for n in self.names}
        self.owner = np.full(model.ngeom, -1, int)  # geom -> entity index (len(names) = robot)
        for g in range(model.ngeom):
            b = int(model.geom_bodyid[g])
            for k, n in enumerate(self.names):
                if _is_descendant(model, b, self.bodies[n]):
                    self.owner[g] = k
            if (mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) or "").startswith("robot/"):
                self.owner[g] = len(self.names)
        self.arm_qpos_adr: list[int] = []
        self.home: list[tuple[int, int, float]] = []  # (qpos adr, actuator id, value)
        if with_robot:
            joints = [(f"robot/joint{i}", f"robot/act{i}", q) for i, q in enumerate(ROBOT_HOME, start=1)]
            joints += [
                ("robot/gripper/finger_joint1", "robot/gripper/finger_joint1_act", GRIPPER_HOME),
                ("robot/gripper/finger_joint2", "robot/gripper/finger_joint2_act", -GRIPPER_HOME),
            ]
            for jn, an, q in joints:
                adr = int(model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, jn)])
                self.home.append((adr, mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, an), q))
            self.arm_qpos_adr = [h[0] for h in self.home[:7]]
        #: entity -> (x, y, z, quat): root-body position (m) and orientation (w, x, y, z)
        self.placed: dict[str, tuple[float, float, float, tuple[float, ...]]] = {}

    def set_pose(self, data, name: str, x: float, y: float, z: float, quat) -> None:
        """Put an entity's root body at (x, y, z) m with orientation ``quat`` (w, x, y, z) (free joint
        qpos or mocap pose)."""
        bid = self.bodies[name]
        if self.assets[name].kind == "object":
            adr = self.model.jnt_qposadr[self.model.body_jntadr[bid]]
            data.qpos[adr : adr + 3] = [x, y, z]
            data.qpos[adr + 3 : adr + 7] = quat
        else:
            mid = self.model.body_mocapid[bid]
            data.mocap_pos[mid] = [x, y, z]
            data.mocap_quat[mid] = quat

    def extent_at(self, name: str, quat) -> tuple[np.ndarray, np.ndarray]:
        """Collision AABB (lo, hi), m, of an entity relative to its root-body origin at orientation
        ``quat`` (w, x, y, z); cached per orientation."""
        import mujoco

        key = (name, *np.round(np.asarray(quat, float), 9))
        if key not in self._extents:
            d = self._scratch
            mujoco.mj_resetData(self.model, d)
            self.set_pose(d, name, 0.0, 0.0, 0.0, quat)
            mujoco.mj_kinematics(self.model, d)
            lo, hi = _entity_aabb(self.model, d, name)
            self._extents[key] = (np.array(lo), np.array(hi))
        return self._extents[key]

    def _rest_z(self, ent: str, quat) -> float:
        """Root-body z (m) of a workspace entity: fixtures at LIBERO's bottom-site height, objects with
        their lowest collision point :data:`PLACE_CLEARANCE` above the support."""
        a = self.assets[ent]
        if a.kind == "fixture" and a.bottom_site_z is not None:
            return fixture_z(self.problem, self.offset_z, a.bottom_site_z)
        return self.top - float(self.extent_at(ent, quat)[0][2]) + PLACE_CLEARANCE

    def penetrating(self, data) -> list[tuple[int, int]]:
        """Entity pairs (indices; len(names) = robot) in contact deeper than :data:`PENETRATION_TOL`."""
        import mujoco

        mujoco.mj_forward(self.model, data)
        out = []
        for c in data.contact[: data.ncon]:
            a, b = self.owner[c.geom1], self.owner[c.geom2]
            if a >= 0 and b >= 0 and a != b and c.dist < -PENETRATION_TOL:
                out.append((int(a), int(b)))
        return out

    def init_state(self, data, evaluator: PredicateEvaluator, warnings: list[str]) -> None:
        """Reset ``data``, put the robot at home (controls holding it) and set ``:init`` joint atoms."""
        import mujoco

        mujoco.mj_resetData(self.model, data)
        for adr, act, q in self.home:
            data.qpos[adr] = q
            data.ctrl[act] = q
        for atom in self.desc["init"]:
            if atom[0] in ("open", "close", "turnon", "turnoff"):
                joints, cat = evaluator.joints_of(atom[1])
                qi = INIT_QPOS.get(cat, {}).get(atom[0])
                if qi is None:
                    warnings.append(
                        f"task {self.desc['task_id']}: cannot set {atom} (no joint values for {cat!r})"
                    )
                    continue
                for j in joints:
                    data.qpos[self.model.jnt_qposadr[j]] = qi

    def draw_workspace(self, data, rng: np.random.Generator, movable_only: bool = False) -> None:
        """Draw every workspace-region entity (circle test); ``movable_only`` keeps fixtures where they are."""
        circles: list[tuple[float, float, float]] = []
        for ent, r in self.ws_plan:
            a = self.assets[ent]
            if movable_only and a.kind == "fixture":
                x, y, _, _ = self.placed[ent]
                circles.append((x, y, a.radius))
                continue
            x, y, quat = self._draw_one(ent, r, circles, rng)
            circles.append((x, y, a.radius))
            self.placed[ent] = (x, y, self._rest_z(ent, quat), quat)
            self.set_pose(data, ent, *self.placed[ent])

    def _draw_one(self, ent: str, r: dict, circles, rng: np.random.Generator) -> tuple[float, float, tuple]:
        """(x, y, quat) of one workspace entity, LIBERO's way: a movable object's centre in its region
        shrunk by its radius (tabletop/floor problem classes) and its class orientation
        (:func:`~simkit.scenes.hebero.placement.object_quat`); a fixture's in the whole region with a
        yaw from the region's ``:yaw_rotation``."""
        a = self.assets[ent]
        ranges = r["ranges_world"]
        if a.kind == "object" and self.shrink:
            ranges = shrunk_ranges(ranges, a.radius)
        yaws = r["yaw_ranges"] or [[0.0, 0.0]]
        for _ in range(self.max_tries):
            x0, y0, x1, y1 = ranges[int(rng.integers(len(ranges)))]
            x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
            if a.kind == "object":
                quat = object_quat(a.category, rng)
            else:
                ya, yb = yaws[int(rng.integers(len(yaws)))]
                quat = yaw_quat(float(rng.uniform(ya, yb)))
            if all(math.hypot(x - fx, y - fy) > a.radius + fr for fx, fy, fr in circles):
                return x, y, quat
        raise SampleRejected(
            f"task {self.desc['task_id']}: no collision-free placement for {ent} in "
            f"{r['target']} region after {self.max_tries} draws"
        )

    def place_deferred(self, data, rng: np.random.Generator | None = None) -> None:
        """Put entities whose init atom names a site or another entity on / in it (after their parents)."""
        import mujoco

        pending = list(self.deferred)
        while pending:
            mujoco.mj_forward(self.model, data)
            still = [p for p in pending if not self._place_on_parent(data, p[0], p[1], p[2], rng)]
            if len(still) == len(pending):
                raise InputError(
                    None,
                    f"task {self.desc['task_id']}: cannot place {[x[1] for x in still]} "
                    "(their regions belong to entities that are not placed)",
                )
            pending = still

    def _place_on_parent(
        self, data, pred: str, ent: str, reg: str, rng: np.random.Generator | None = None
    ) -> bool:
        """Put ``ent`` on / in its parent as LIBERO's site and object samplers do
        (:func:`~simkit.scenes.hebero.placement.parent_offset_box`): its root body at the parent
        site's world x, y plus an offset drawn in the box, or at the parent object's body x, y; its
        lowest collision point :data:`PLACE_CLEARANCE` above the surface there (the site's top face
        or the parent's highest collision box under that point for ``On``, the site's bottom face
        for ``In``). False while the parent is not placed yet."""
        import mujoco

        model = self.model
        rng = rng or np.random.default_rng(0)
        a = self.assets[ent]
        quat = object_quat(a.category, rng) if a.kind == "object" else yaw_quat(0.0)
        lo, _ = self.extent_at(ent, quat)
        if reg in self.assets:  # On(a, b), b an asset: at b's body x, y, on top of b's collision box
            if reg not in self.placed:
                return False
            _, phi = _entity_aabb(model, data, reg)
            bx, by = data.xpos[self.bodies[reg]][:2]
            self.placed[ent] = (float(bx), float(by), float(phi[2] - lo[2] + PLACE_CLEARANCE), quat)
            self.set_pose(data, ent, *self.placed[ent])
            return True
        r = self.desc["regions"].get(reg)
        parent = None if r is None else r["target"]
        if r is None or parent not in self.placed:
            return False
        sid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, f"{parent}/{r['site']}")
        if sid < 0:
            raise InputError(
                self.desc["fixtures"].get(parent, self.desc["objects"].get(parent, {})).get("asset"),
                f"site {r['site']!r} (region {reg}) not found",
            )
        x0, y0, x1, y1 = parent_offset_box(pred, model.site_size[sid][:2], a.radius)
        sp = np.array(data.site_xpos[sid])
        x, y = float(sp[0] + draw_between(rng, (x0, x1))), float(sp[1] + draw_between(rng, (y0, y1)))
        half = np.abs(data.site_xmat[sid].reshape(3, 3) @ model.site_size[sid])
        base = sp[2] + half[2] if pred == "on" else sp[2] - half[2]
        if pred == "on":  # rest on the parent's highest collision surface under the new centre
            base = max(base, _surface_below(model, data, parent, (x, y, sp[2])))
        self.placed[ent] = (x, y, float(base - lo[2] + PLACE_CLEARANCE), quat)
        self.set_pose(data, ent, *self.placed[ent])
        return True

    def sample(self, data, rng: np.random.Generator, warnings: list[str]) -> None:
        """Draw a full layout into ``data``: up to ``max_layouts`` layouts, then redraws of the movable
        objects only, then lifting of penetrating movable objects (never fixtures)."""
        pens: list[tuple[int, int]] = []
        self.placed.clear()
        for attempt in range(2 * self.max_layouts):
            self.draw_workspace(data, rng, movable_only=attempt >= self.max_layouts)
            self.place_deferred(data, rng)
            pens = self.penetrating(data)
            if not pens:
                return
        self._lift_apart(data, pens, warnings)

    def _lift_apart(self, data, pens: list[tuple[int, int]], warnings: list[str]) -> None:
        order = [e for e, _ in self.ws_plan] + [d[1] for d in self.deferred]
        lifted: set[str] = set()
        for _ in range(int(MAX_LIFT / LIFT_STEP)):
            if not pens:
                break
            for a, b in pens:
                cand = [
                    self.names[k]
                    for k in (a, b)
                    if k < len(self.names) and self.assets[self.names[k]].kind == "object"
                ]
                if not cand:
                    continue
                e = max(cand, key=order.index)
                x, y, z, quat = self.placed[e]
                self.placed[e] = (x, y, z + LIFT_STEP, quat)
                self.set_pose(data, e, *self.placed[e])
                lifted.add(e)
            pens = self.penetrating(data)
        if pens:
            who = sorted({self.names[k] if k < len(self.names) else "robot" for p in pens for k in p})
            raise SampleRejected(f"task {self.desc['task_id']}: cannot separate {who}")
        warnings.append(
            f"task {self.desc['task_id']}: regions overlap; lifted {sorted(lifted)} to rest on their neighbours"
        )


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


def subtree_bodies(model, root: int) -> np.ndarray:
    """Ids (int64, ascending) of body ``root`` and its descendants; empty for the world body or -1."""
    return np.array([b for b in range(model.nbody) if _is_descendant(model, b, root)], np.int64)


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
    imported; raises when no GL context can be made. Triton's library, where installed, is loaded first
    (:func:`simkit.core.llvm.load_llvm_libraries`).
    """
    import mujoco

    from simkit.core.llvm import load_llvm_libraries

    load_llvm_libraries()

    out = []
    opt = mujoco.MjvOption()
    opt.sitegroup[:] = 0  # hide helper sites (regions, grip markers)
    with mujoco.Renderer(scene.model, height, width) as r:
        for cam in cameras:
            r.update_scene(scene.data, camera=cam, scene_option=opt)
            out.append(r.render().copy())
    return out
