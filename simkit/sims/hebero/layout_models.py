"""Union models and layout banks of layout groups (MuJoCo, CPU side).

A :class:`~simkit.sims.hebero.layout_groups.LayoutGroup` becomes one compiled MuJoCo
model (:func:`build_group_model`: the union scene, every entity parked) plus,
per member task, a *layout bank* (:func:`task_layouts`): B initial states drawn
by the task's own scene compiler (:func:`~simkit.sims.hebero.scene.build_scene`
with seeds ``seed0 .. seed0 + B - 1``, the task model compiled once through the compiled-model
cache, :mod:`~simkit.sims.hebero.model_cache`: region sampling, collision rejection,
init joint states), copied onto the union model by entity name. A world of
the group starts (and autoresets) from one bank entry of its task: qpos,
the fixtures' mocap poses (``mocap_pos``/``mocap_quat``, state, not model) and per-world ``body_gravcomp``
(1 for the bodies of parked entities, so they float still where they are
parked; 0 for the task's own entities; the robot's as compiled).

Frames: world, z up, metres; quaternions (w, x, y, z).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import InputError, require
from simkit.sims.hebero.batched_tasks import TaskProgram, compile_program
from simkit.sims.hebero.layout_groups import LayoutGroup, parking_slots, union_descriptor
from simkit.sims.hebero.model_cache import cached_scene
from simkit.sims.hebero.scene import ROBOT_BASE, Scene, build_scene, subtree_bodies

#: m, height above the arena's support surface at which parked free bodies float
PARK_LIFT = 0.5


@dataclass
class GroupModel:
    """A group's compiled union model and where its entities live in it.

    Attributes:
        group: the layout group.
        scene: the union :class:`~simkit.sims.hebero.scene.Scene` (every entity parked).
        entity_body: (E,) int, root body id of each union entity.
        entity_qadr: (E,) int, qpos address of each entity's free joint (-1 for fixtures).
        entity_bodies: per entity, body ids of its subtree (gravity compensation when parked).
        park_pos: (E, 3) float64, parked root position of each entity, m.
    """

    group: LayoutGroup
    scene: Scene
    entity_body: np.ndarray
    entity_qadr: np.ndarray
    entity_bodies: list[np.ndarray]
    park_pos: np.ndarray

    @property
    def model(self):
        """The compiled ``mujoco.MjModel``."""
        return self.scene.model


@dataclass
class LayoutBank:
    """B initial states of one task on its group's union model.

    Attributes:
        task_id: the task.
        qpos: (B, nq) float64, joint positions (free-joint objects, articulations, robot).
        mocap_pos: (B, nmocap, 3) float64, fixture (mocap body) positions, placed or parked, m.
        mocap_quat: (B, nmocap, 4) float64, their orientations (w, x, y, z).
        gravcomp: (nbody,) float64, per-body gravity compensation for this task's worlds.
        seeds: (B,) int, the scene-compiler seeds.
        program: the task's goal atoms and observation slots on the union model.
        warnings: tolerated problems reported by the scene compiler.
    """

    task_id: str
    qpos: np.ndarray
    mocap_pos: np.ndarray
    mocap_quat: np.ndarray
    gravcomp: np.ndarray
    seeds: np.ndarray
    program: TaskProgram
    warnings: list[str] = field(default_factory=list)


def build_group_model(
    group: LayoutGroup, descs: dict[str, dict], libero_root: str | Path | None
) -> GroupModel:
    """Compile a group's union scene with every entity parked.

    Args:
        group: from :func:`~simkit.sims.hebero.layout_groups.group_tasks`.
        descs: task id -> descriptor of every member task.
        libero_root: folder holding ``assets/`` (None: the installed LIBERO asset wheels).

    Raises:
        InputError: an asset is missing or the union scene does not compile (from ``build_scene``).
    """
    mujoco = require("mujoco", "hebero")
    udesc = union_descriptor(group, descs)
    scene = build_scene(udesc, libero_root, np.random.default_rng(0), max_layouts=1)
    m: Any = scene.model
    base = ROBOT_BASE.get(udesc["arena"]["problem"].lower(), (-0.66, 0.0, 0.0))
    xy = parking_slots(group, (base[0], base[1]))
    top = float(udesc["arena"]["offset"][2])
    bodies, qadr, subs = [], [], []
    for e in group.entities:
        bid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, e.name)
        bodies.append(bid)
        jnt = int(m.body_jntadr[bid])
        free = jnt >= 0 and int(m.jnt_type[jnt]) == int(mujoco.mjtJoint.mjJNT_FREE)
        qadr.append(int(m.jnt_qposadr[jnt]) if free else -1)
        subs.append(subtree_bodies(m, bid))
    park = np.column_stack([xy, np.full(len(xy), top + PARK_LIFT)])
    return GroupModel(group, scene, np.array(bodies, np.int64), np.array(qadr, np.int64), subs, park)


def task_state_on_union(gm: GroupModel, sc: Scene, out_q, out_pos, out_quat) -> None:
    """Copy a member task scene's entity poses and joint positions onto union-model state arrays.

    Args:
        gm: the group model; sc: a scene of one member task (its current ``data``).
        out_q: (nq,) union qpos, written for the task's free bodies and articulations.
        out_pos, out_quat: (nmocap, 3) / (nmocap, 4) union mocap poses, written for its fixtures.
    """
    names = gm.group.names[sc.descriptor["task_id"]]
    import mujoco

    m: Any = gm.model
    tm: Any = sc.model
    td: Any = sc.data
    index = {e.name: j for j, e in enumerate(gm.group.entities)}
    for tname, uname in names.items():
        j = index[uname]
        tb = mujoco.mj_name2id(tm, mujoco.mjtObj.mjOBJ_BODY, tname)
        if gm.entity_qadr[j] >= 0:
            ta = int(tm.jnt_qposadr[tm.body_jntadr[tb]])
            out_q[gm.entity_qadr[j] : gm.entity_qadr[j] + 7] = td.qpos[ta : ta + 7]
        else:
            out_pos[m.body_mocapid[gm.entity_body[j]]] = td.mocap_pos[tm.body_mocapid[tb]]
            out_quat[m.body_mocapid[gm.entity_body[j]]] = td.mocap_quat[tm.body_mocapid[tb]]
        for jid in range(tm.njnt):  # articulations: '<task entity>/<joint>' -> '<union entity>/<joint>'
            jn = mujoco.mj_id2name(tm, mujoco.mjtObj.mjOBJ_JOINT, jid) or ""
            if not jn.startswith(tname + "/") or int(tm.jnt_type[jid]) == int(mujoco.mjtJoint.mjJNT_FREE):
                continue
            uj = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, uname + jn[len(tname) :])
            if uj < 0:
                raise InputError(None, f"joint {jn} of {sc.descriptor['task_id']} has no union counterpart")
            out_q[m.jnt_qposadr[uj]] = td.qpos[tm.jnt_qposadr[jid]]


def task_layouts(
    gm: GroupModel, desc: dict, libero_root: str | Path | None, n: int = 4, seed0: int = 0
) -> LayoutBank:
    """Draw ``n`` initial layouts of one member task and express them on the union model.

    Layout b is the initial state ``build_scene(desc, libero_root, np.random.default_rng(seed0 + b))``
    starts from: the task's scene is compiled once (through the compiled-model cache,
    :func:`~simkit.sims.hebero.model_cache.cached_scene`, without visual meshes: the same bodies,
    joints, sites, masses and collision geometry, so the same layouts) and reset with each seed; the robot
    keeps the union scene's home pose (the same ``ROBOT_HOME``); entities the task does not use
    stay parked (free bodies at :attr:`GroupModel.park_pos`, at rest).

    Raises:
        InputError: the task is not in the group, or a scene problem from ``build_scene``.
        SampleRejected: from ``build_scene`` (no collision-free layout).
    """
    tid = desc["task_id"]
    if n < 1:
        raise InputError(None, f"layout bank size must be >= 1, got {n}")
    if tid not in gm.group.names:
        raise InputError(None, f"task {tid} is not in layout group {gm.group.key}")
    m: Any = gm.model
    names = gm.group.names[tid]
    active = {names[k] for k in names}
    q0 = np.array(gm.scene.data.qpos)
    grav = np.array(m.body_gravcomp)
    for j, e in enumerate(gm.group.entities):
        grav[gm.entity_bodies[j]] = 0.0 if e.name in active else 1.0
        if gm.entity_qadr[j] >= 0:
            q0[gm.entity_qadr[j] : gm.entity_qadr[j] + 7] = [*gm.park_pos[j], 1.0, 0.0, 0.0, 0.0]
    qpos = np.repeat(q0[None], n, 0)
    ud: Any = gm.scene.data
    bpos = np.repeat(np.array(ud.mocap_pos)[None], n, 0)
    bquat = np.repeat(np.array(ud.mocap_quat)[None], n, 0)
    warnings: list[str] = []
    prog = None
    ents = [e.name for e in gm.group.entities]
    sc = cached_scene(desc, libero_root, np.random.default_rng(seed0), visual=False)
    for b in range(n):
        if b:
            sc.reset(np.random.default_rng(seed0 + b))
        warnings += sc.warnings
        task_state_on_union(gm, sc, qpos[b], bpos[b], bquat[b])
        if prog is None:
            prog = compile_program(desc, sc.binding, sc.data, m, names, ents)
    assert prog is not None  # n >= 1
    seeds = np.arange(seed0, seed0 + n)
    return LayoutBank(tid, qpos, bpos, bquat, grav, seeds, prog, sorted(set(warnings)))


def exclude_static_pairs(gm: GroupModel) -> int:
    """Exclude contact tests between bodies that never move: fixture roots, the table and the world.

    Fixtures are mocap bodies (placed through the state); MuJoCo's filter of contacts between
    bodies welded to the world does not cover mocap bodies, so without this every fixture's
    collision geoms are tested against the table, the floor and the other fixtures at every
    physics step (narrow phase on meshes), although none of them can move. Adds ``exclude`` pairs
    to the union scene's spec (compile it again, e.g. with :func:`physics_only`); parts of
    fixtures with joints (drawers, doors, knobs) keep colliding.

    Returns:
        the number of pairs added.
    """
    import mujoco

    spec: Any = gm.scene.spec
    m: Any = gm.model
    names: list[str] = []  # bodies of fixtures welded to their (mocap) root: MuJoCo excludes by body
    for j, e in enumerate(gm.group.entities):
        if e.kind == "fixture":
            root = int(gm.entity_body[j])
            names += [
                mujoco.mj_id2name(m, 1, int(b)) for b in gm.entity_bodies[j] if m.body_weldid[b] == root
            ]
    names += [b.name for b in spec.bodies if b.name in ("world", "table")]
    n = 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            spec.add_exclude(bodyname1=a, bodyname2=b)
            n += 1
    return n


def geom_entity(model, entity_bodies: list[np.ndarray]) -> np.ndarray:
    """(ngeom,) int64: union entity index of each collision geom of ``model``, -1 for all others.

    Args:
        model: the union ``MjModel`` (full or :func:`physics_only`; geom ids differ between them).
        entity_bodies: :attr:`GroupModel.entity_bodies`.
    """
    out = np.full(model.ngeom, -1, np.int64)
    coll = (np.asarray(model.geom_contype) != 0) | (np.asarray(model.geom_conaffinity) != 0)
    for j, bodies in enumerate(entity_bodies):
        out[np.isin(np.asarray(model.geom_bodyid), bodies) & coll] = j
    return out


def apply_layout(gm: GroupModel, bank: LayoutBank, b: int, model, data) -> None:
    """Put bank entry ``b`` into a CPU ``(model, data)`` of the union model (a copy of ``gm.model``).

    Sets ``body_gravcomp`` on ``model``, ``qpos`` and the mocap poses (velocities zero)
    and the actuator targets (robot home, fingers open) on ``data``, then runs ``mj_forward``.
    This is the CPU reference of what the GPU runtime writes per world on reset.
    """
    import mujoco

    model.body_gravcomp[:] = bank.gravcomp
    mujoco.mj_resetData(model, data)
    data.qpos[:] = bank.qpos[b]
    data.mocap_pos[:] = bank.mocap_pos[b]
    data.mocap_quat[:] = bank.mocap_quat[b]
    data.ctrl[:] = gm.scene.data.ctrl
    mujoco.mj_forward(model, data)


#: px, longest side of a render model's textures (LIBERO ships some at 4096 x 4096; cameras render 64-256 px)
RENDER_TEXTURE_MAX = 512


def render_model(scene: Scene, max_side: int = RENDER_TEXTURE_MAX):
    """The scene's full model with every texture longer than ``max_side`` px box-filtered down by an
    integer factor (embedded in the spec, flips already applied); everything else unchanged.

    A 128 x 128 camera image samples a 4096-px texture at far below its resolution, so the filtered
    texture shows the same colours; the goal suite's union model shrinks from about 175 MiB to about
    25 MiB. The scene's spec is modified in place (its textures).

    Returns:
        the compiled ``mujoco.MjModel``.
    """
    import mujoco

    m: Any = scene.model
    spec: Any = scene.spec
    for i, t in enumerate(spec.textures):
        if mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_TEXTURE, i) != (t.name or None):
            raise RuntimeError("texture order differs between spec and model")  # a bug, never user input
        w, h, c = int(m.tex_width[i]), int(m.tex_height[i]), int(m.tex_nchannel[i])
        f = -(-max(w, h) // max_side)
        if f <= 1:
            continue
        adr = int(m.tex_adr[i])
        img = np.asarray(m.tex_data[adr : adr + w * h * c], np.float64).reshape(h, w, c)
        hh, ww = h // f, w // f
        small = img[: hh * f, : ww * f].reshape(hh, f, ww, f, c).mean(axis=(1, 3))
        t.file, t.hflip, t.vflip = "", False, False
        t.width, t.height, t.nchannel = ww, hh, c
        t.data = np.round(small).astype(np.uint8).tobytes()
    return spec.compile()


def physics_only(scene: Scene):
    """Recompile a scene without visual geoms, meshes, materials, textures and sensors; same dynamics.

    Every body's inertial properties are first pinned to the compiled model's (MuJoCo derives them
    from all geoms, visual ones included), then geoms with ``contype = conaffinity = 0`` and the
    meshes, materials and textures nothing uses any more are deleted. Body, joint, site and
    actuator ids are unchanged; geom and mesh ids change. The scene's spec is modified in place.

    Returns:
        the new ``mujoco.MjModel`` (body masses, inertias and trajectories identical to
        ``scene.model``'s; a LIBERO task scene shrinks from about 50 MB to about 3 MB as ``.mjb``).
    """
    import mujoco

    m: Any = scene.model
    spec: Any = scene.spec
    for i, b in enumerate(spec.bodies):
        if i == 0:
            continue
        b.explicitinertial = True
        b.mass = float(m.body_mass[i])
        b.ipos = m.body_ipos[i].tolist()
        b.iquat = m.body_iquat[i].tolist()
        b.inertia = m.body_inertia[i].tolist()
        b.fullinertia = [np.nan] * 6
    for g in list(spec.geoms):
        if g.contype == 0 and g.conaffinity == 0:
            spec.delete(g)
    used = {g.meshname for g in spec.geoms if g.type == mujoco.mjtGeom.mjGEOM_MESH}
    for me in list(spec.meshes):
        if me.name not in used:
            spec.delete(me)
    for g in spec.geoms:
        g.material = ""
    for el in list(spec.materials) + list(spec.textures) + list(spec.sensors):
        spec.delete(el)  # sensors: batched backends read the contact list instead
    out = spec.compile()
    if out.nbody != m.nbody or out.njnt != m.njnt or out.nsite != m.nsite:
        raise RuntimeError("physics_only changed the kinematic tree")  # a bug, never user input
    out.body_gravcomp[:] = m.body_gravcomp
    return out


#: kinematic arrays stored with each bank entry (computed by ``mj_forward``): a reset world gets them
#: with its state, so its first observation needs no extra kinematics pass
BANK_KINEMATICS = ("xpos", "xmat", "xquat", "xanchor", "xaxis", "site_xpos", "site_xmat")
CACHE_VERSION = 1  #: bump when the layout-group cache format changes


def export_groups(
    descs: list[dict],
    libero_root: str | Path | None,
    out_dir: str | Path,
    bank: int = 4,
    max_entities: int = 16,
    split_suites: bool = False,
    progress=None,
    visual: bool = False,
) -> list[Path]:
    """Compile layout groups of ``descs`` into a cache folder a batched backend loads without assets.

    Writes, per group ``k``: ``group_<k>.mjb`` (the :func:`physics_only` union model) and
    ``group_<k>.npz`` (per member task: ``bank`` layouts from :func:`task_layouts` -- qpos, body
    poses, gravity compensation and the :data:`BANK_KINEMATICS` of each entry -- the task program
    arrays, and ``geom_entity``), plus ``groups.json`` (version, task order, group keys, members,
    union entities, task-name maps).

    Args:
        descs: task descriptors in environment order.
        libero_root: folder holding ``assets/`` (None: the installed LIBERO asset wheels).
        out_dir: created if missing; existing group files are overwritten.
        bank: layouts per task (>= 1).
        max_entities, split_suites: see :func:`~simkit.sims.hebero.layout_groups.group_tasks`.
        progress: optional callable ``progress(message)``.
        visual: also write ``group_<k>_visual.mjb``, the full union model (visual meshes, materials,
            textures; same bodies, joints, sites and cameras) that the GPU cameras render
            (:mod:`simkit.sims.hebero.warp_render`).

    Returns:
        the written paths.

    Raises:
        InputError / SampleRejected: from the scene compiler.
    """
    import json

    import mujoco

    from simkit.sims.hebero.layout_groups import group_tasks

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    by_id = {d["task_id"]: d for d in descs}
    groups = group_tasks(descs, max_entities=max_entities, split_suites=split_suites)
    written: list[Path] = []
    meta: dict[str, Any] = {"version": CACHE_VERSION, "task_ids": [d["task_id"] for d in descs], "groups": []}
    for k, g in enumerate(groups):
        gm = build_group_model(g, by_id, libero_root)
        banks = [task_layouts(gm, by_id[t], libero_root, n=bank) for t in g.task_ids]
        exclude_static_pairs(gm)
        if visual:
            written.append(out / f"group_{k}_visual.mjb")
            mujoco.mj_saveModel(render_model(gm.scene), str(written[-1]))
        um = physics_only(gm.scene)
        mjb, npz = out / f"group_{k}.mjb", out / f"group_{k}.npz"
        mujoco.mj_saveModel(um, str(mjb))
        ud = mujoco.MjData(um)
        arrays: dict[str, Any] = {"geom_entity": geom_entity(um, gm.entity_bodies)}
        kin: dict[str, list] = {name: [] for name in BANK_KINEMATICS}
        for bk in banks:
            for b in range(bank):
                apply_layout(gm, bk, b, um, ud)
                for name in BANK_KINEMATICS:
                    kin[name].append(np.array(getattr(ud, name)))
        t_n = len(banks)
        for name in BANK_KINEMATICS:
            arrays["kin_" + name] = np.stack(kin[name]).reshape(t_n, bank, *kin[name][0].shape)
        for name in ("qpos", "mocap_pos", "mocap_quat", "gravcomp"):
            arrays["bank_" + name] = np.stack([getattr(bk, name) for bk in banks])
        for name in banks[0].program.arrays():
            arrays["prog_" + name] = np.stack([getattr(bk.program, name) for bk in banks])
        arrays["home_ctrl"] = np.array(gm.scene.data.ctrl)
        np.savez_compressed(npz, **arrays)
        written += [mjb, npz]
        meta["groups"].append(
            {
                "key": g.key,
                "task_ids": g.task_ids,
                "entities": [e.__dict__ for e in g.entities],
                "names": g.names,
                "bank": bank,
            }
        )
        if progress is not None:
            progress(f"group {g.key}: {len(g.task_ids)} tasks, {len(g.entities)} entities, nv {um.nv}")
    (out / "groups.json").write_text(json.dumps(meta, indent=1))
    written.append(out / "groups.json")
    return written


def load_groups(cache_dir: str | Path) -> tuple[list[str], list[dict]]:
    """Read a folder written by :func:`export_groups`.

    Returns:
        (task ids in environment order, per group a dict with ``key``, ``task_ids``, ``names``,
        ``entities``, ``model`` (``mujoco.MjModel``), ``arrays`` (name -> numpy array) and
        ``render_model_path`` (the ``group_<k>_visual.mjb`` path, or None when it was not exported)).

    Raises:
        InputError: the folder, ``groups.json`` or a group file is missing, unreadable or of
            another cache version (the message names the file and says to re-export).
    """
    import json

    mujoco = require("mujoco", "hebero")
    root = Path(cache_dir)
    meta_path = root / "groups.json"
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(
            meta_path, f"cannot read the layout-group cache ({exc.__class__.__name__})"
        ) from None
    if meta.get("version") != CACHE_VERSION:
        raise InputError(
            meta_path, f"cache version {meta.get('version')} != {CACHE_VERSION}; export it again"
        )
    groups = []
    for k, g in enumerate(meta["groups"]):
        mjb, npz = root / f"group_{k}.mjb", root / f"group_{k}.npz"
        try:
            model = mujoco.MjModel.from_binary_path(str(mjb))
            with np.load(npz) as z:
                arrays = {name: z[name] for name in z.files}
        except (OSError, ValueError) as exc:
            raise InputError(mjb, f"cannot load layout group {g['key']}: {exc}") from None
        vis = root / f"group_{k}_visual.mjb"
        groups.append(
            {**g, "model": model, "arrays": arrays, "render_model_path": vis if vis.exists() else None}
        )
    return list(meta["task_ids"]), groups
