"""Hebero task logic as batched array code (torch; CPU or CUDA tensors alike).

One :class:`TaskProgram` per task encodes, on its layout group's union model,
everything the per-step logic needs as integer and float tables: the goal
atoms (which bodies, sites, joints and thresholds), the 26 object-target
slots and the task code. :func:`stack_programs` turns a list of programs into
tensors indexed by world; the functions below then evaluate all worlds with a
fixed number of tensor operations, no Python loop over worlds or tasks and no
device-to-host copy:

* :func:`touching` -- per-world entity contact matrix from the contact list;
* :func:`goal_success` -- the goal predicates (LIBERO semantics: the tests of
  :mod:`simkit.sims.hebero.goal_geometry`, which
  :class:`simkit.sims.hebero.predicates.PredicateEvaluator` and the CPU env's
  :class:`~simkit.sims.hebero.batch_predicates.BatchGoal` evaluate too).

Controller, observation and reward are the env's own definitions
(``simkit.envs.hebero.kernels``, array-generic), fed with these programs' slot tables.

Atoms supported on batched backends: ``On(a, b)`` (object on object), ``On(a,
region)``, ``In(a, region)``, ``Open/Close/Turnon/Turnoff(x)``, ``Up(a)`` --
every atom of the 40 Hebero goals; goals are conjunctions of atoms.

Frames: world, z up, metres, radians; rotation matrices act on column vectors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simkit.core.errors import InputError
from simkit.core.xp import namespace
from simkit.sims.hebero import goal_geometry as geo
from simkit.sims.hebero.goal_geometry import CMP_GE, CMP_GT, CMP_LT  # noqa: F401  (program codes)
from simkit.sims.hebero.predicates import ARTICULATION, UP_HEIGHT

#: atom kinds of a :class:`TaskProgram`
ATOM_NONE, ATOM_ON_OBJ, ATOM_ON_REGION, ATOM_IN_REGION, ATOM_JOINT, ATOM_UP = range(6)
#: slot sources
SLOT_NONE, SLOT_BODY, SLOT_SITE, SLOT_CONST = range(4)
MAX_ATOMS = 4  #: atoms per goal (the 40 goals use at most 3)
MAX_JOINTS = 4  #: joints per articulation atom
N_SLOTS = 26  #: Hebero object-target buffer slots (spec "Interface")


@dataclass
class TaskProgram:
    """One task's goal atoms and observation slots on its group's union model (numpy).

    Attributes:
        task_id: the task.
        kind: (A,) int atom kind (``ATOM_*``); unused atoms are ``ATOM_NONE`` (true).
        body_a, body_b: (A,) int body ids of the atom's first / second entity (-1 unused).
        ent_a, ent_b: (A,) int union entity indices for contact tests (-1: no contact needed).
        site: (A,) int region site id in the union model, -1 for workspace regions (constant pose).
        region_pos: (A, 3) float world centre of a constant region, m.
        region_rot: (A, 3, 3) float its orientation.
        region_size: (A, 3) float region half sizes, m.
        qadr: (A, J) int qpos addresses of an articulation atom's joints (-1 padding).
        cmp: (A,) int comparison (``CMP_*``); thr: (A,) float threshold (m or rad);
        any_joint: (A,) bool any (Open, Turnon) vs all (Close, Turnoff) joints.
        slot_kind: (26,) int ``SLOT_*``; slot_idx: (26,) int body/site id; slot_const: (26, 9) float.
        task_code: (36,) float the task code.
    """

    task_id: str
    kind: np.ndarray
    body_a: np.ndarray
    body_b: np.ndarray
    ent_a: np.ndarray
    ent_b: np.ndarray
    site: np.ndarray
    region_pos: np.ndarray
    region_rot: np.ndarray
    region_size: np.ndarray
    qadr: np.ndarray
    cmp: np.ndarray
    thr: np.ndarray
    any_joint: np.ndarray
    slot_kind: np.ndarray
    slot_idx: np.ndarray
    slot_const: np.ndarray
    task_code: np.ndarray

    def arrays(self) -> dict[str, np.ndarray]:
        """The array fields by name (for saving with ``np.savez``)."""
        return {k: v for k, v in self.__dict__.items() if isinstance(v, np.ndarray)}


def _empty_program(task_id: str, task_code) -> TaskProgram:
    a, j = MAX_ATOMS, MAX_JOINTS
    return TaskProgram(
        task_id,
        np.zeros(a, np.int64),
        np.full(a, -1, np.int64),
        np.full(a, -1, np.int64),
        np.full(a, -1, np.int64),
        np.full(a, -1, np.int64),
        np.full(a, -1, np.int64),
        np.zeros((a, 3)),
        np.tile(np.eye(3), (a, 1, 1)),
        np.zeros((a, 3)),
        np.full((a, j), -1, np.int64),
        np.zeros(a, np.int64),
        np.zeros(a),
        np.zeros(a, bool),
        np.zeros(N_SLOTS, np.int64),
        np.zeros(N_SLOTS, np.int64),
        np.zeros((N_SLOTS, 9)),
        np.asarray(task_code, float),
    )


def goal_atoms(desc: dict) -> list[list]:
    """The goal's atoms ``[pred, *args]`` when the goal is an atom or a conjunction of atoms.

    Raises:
        InputError: the goal uses Or/Not or nests connectives (batched backends evaluate
            conjunctions only), or has more than :data:`MAX_ATOMS` atoms.
    """
    g = desc["goal"]
    parts = g["args"] if g.get("op") == "and" else [g]
    if any("op" in p for p in parts):
        raise InputError(
            None, f"task {desc['task_id']}: batched backends evaluate conjunctions of atoms only"
        )
    if len(parts) > MAX_ATOMS:
        raise InputError(None, f"task {desc['task_id']}: more than {MAX_ATOMS} goal atoms")
    return [[p["predicate"], *p["args"]] for p in parts]


def rot6(r):
    """6-D rotation feature of rotation matrices (..., 3, 3) (numpy or torch): the first two columns, (..., 6).

    Source: Zhou et al., "On the Continuity of Rotation Representations in Neural Networks",
    CVPR 2019 (the Hebero pose buffer's rotation features).
    """
    return namespace(r).concat([r[..., :, 0], r[..., :, 1]], axis=-1)


def compile_program(
    desc: dict, binding: Any, task_data: Any, union_model: Any, names: dict[str, str], entities: list[str]
) -> TaskProgram:
    """Encode one task's goal and slots on the union model.

    Args:
        desc: the task descriptor.
        binding: the task scene's :class:`~simkit.sims.hebero.predicates.Binding` (its own model's ids).
        task_data: the task scene's ``MjData`` after ``mj_forward`` (constant region poses).
        union_model: the group's union ``MjModel`` (ids written into the program).
        names: task entity name -> union entity name.
        entities: union entity names in group order (contact indices).

    Raises:
        InputError: unsupported goal (see :func:`goal_atoms`) or a name with no union counterpart.
    """
    import mujoco

    um = union_model
    prog = _empty_program(desc["task_id"], desc["task_code"])

    def body(ent: str) -> int:
        return mujoco.mj_name2id(um, mujoco.mjtObj.mjOBJ_BODY, names[ent])

    def region(a: int, r: str) -> None:
        reg = desc["regions"][r]
        prog.region_size[a] = binding.site_size[r]
        if reg["kind"] == "workspace":
            sid = binding.sites[r]
            prog.region_pos[a] = task_data.site_xpos[sid]
            prog.region_rot[a] = np.asarray(task_data.site_xmat[sid]).reshape(3, 3)
        else:
            uname = f"{names[reg['target']]}/{reg['site']}"
            prog.site[a] = mujoco.mj_name2id(um, mujoco.mjtObj.mjOBJ_SITE, uname)
            if prog.site[a] < 0:
                raise InputError(None, f"task {desc['task_id']}: site {uname} not in the union model")

    for a, (pred, *args) in enumerate(goal_atoms(desc)):
        if pred == "on" and args[1] not in desc["regions"]:
            prog.kind[a] = ATOM_ON_OBJ
            prog.body_a[a], prog.body_b[a] = body(args[0]), body(args[1])
            prog.ent_a[a], prog.ent_b[a] = entities.index(names[args[0]]), entities.index(names[args[1]])
        elif pred in ("on", "in"):
            prog.kind[a] = ATOM_ON_REGION if pred == "on" else ATOM_IN_REGION
            prog.body_a[a] = body(args[0])
            region(a, args[1])
            parent = binding.site_parent.get(args[1])
            if pred == "on" and parent is not None:
                prog.ent_a[a], prog.ent_b[a] = entities.index(names[args[0]]), entities.index(names[parent])
        elif pred in ("open", "close", "turnon", "turnoff"):
            prog.kind[a] = ATOM_JOINT
            joints, cat = binding.joints_of(args[0])
            spec = ARTICULATION.get(cat, {}).get(pred)
            if spec is None or not joints or len(joints) > MAX_JOINTS:
                prog.kind[a] = ATOM_UP  # LIBERO: an unknown category is never open/closed ...
                prog.thr[a] = np.inf  # ... encoded as a height test that never holds
                prog.body_a[a] = 0
                continue
            prog.cmp[a], prog.thr[a] = geo.CMP_CODES[spec[0]], spec[1]
            prog.any_joint[a] = pred in ("open", "turnon")
            for k, jid in enumerate(joints):
                prog.qadr[a, k] = _union_qadr(um, task_data, jid, names, desc["task_id"])
        elif pred == "up":
            prog.kind[a], prog.body_a[a], prog.thr[a] = ATOM_UP, body(args[0]), UP_HEIGHT
        else:
            raise InputError(
                None, f"task {desc['task_id']}: atom {pred!r} is not supported on batched backends"
            )
    _compile_slots(prog, desc, binding, task_data, um, names)
    return prog


def _union_qadr(um: Any, task_data: Any, jid: int, names: dict[str, str], task_id: str) -> int:
    import mujoco

    tm = task_data.model
    jn = mujoco.mj_id2name(tm, mujoco.mjtObj.mjOBJ_JOINT, jid) or ""
    ent, _, rest = jn.partition("/")
    uj = mujoco.mj_name2id(um, mujoco.mjtObj.mjOBJ_JOINT, f"{names.get(ent, ent)}/{rest}")
    if uj < 0:
        raise InputError(None, f"task {task_id}: joint {jn} has no union counterpart")
    return int(um.jnt_qposadr[uj])


def _compile_slots(prog: TaskProgram, desc: dict, binding: Any, task_data: Any, um: Any, names) -> None:
    import mujoco

    for s in desc["entity_slots"][:N_SLOTS]:
        k, name = s["slot"], s["name"]
        if name in names:
            prog.slot_kind[k] = SLOT_BODY
            prog.slot_idx[k] = mujoco.mj_name2id(um, mujoco.mjtObj.mjOBJ_BODY, names[name])
        elif name in desc["regions"] and desc["regions"][name]["kind"] != "workspace":
            reg = desc["regions"][name]
            prog.slot_kind[k] = SLOT_SITE
            prog.slot_idx[k] = mujoco.mj_name2id(
                um, mujoco.mjtObj.mjOBJ_SITE, f"{names[reg['target']]}/{reg['site']}"
            )
        elif name in binding.sites:
            sid = binding.sites[name]
            prog.slot_kind[k] = SLOT_CONST
            r = np.asarray(task_data.site_xmat[sid]).reshape(3, 3)
            prog.slot_const[k] = np.concatenate([task_data.site_xpos[sid], rot6(r)])


def stack_programs(
    progs: list[Any], world_task: np.ndarray, device: Any = None, dtype: Any = None
) -> dict[str, Any]:
    """Per-world program tensors: field -> torch tensor (W, ...) for worlds running ``world_task``.

    Args:
        progs: the group's task programs, indexed by the group's task index.
        world_task: (W,) int group task index of each world.
        device: torch device of the tensors; dtype: float dtype (default float32, the GPU's).
    """
    import torch

    dtype = dtype or torch.float32
    out = {}
    idx = np.asarray(world_task, np.int64)
    for key in progs[0].arrays():
        arr = np.stack([getattr(p, key) for p in progs])[idx]
        t = torch.as_tensor(arr, device=device)
        out[key] = t.to(dtype) if t.dtype == torch.float64 else t
    return out


def touching(geom_entity: Any, geom_pairs: Any, contact_world: Any, ncontact: Any, nworld: int, nent: int):
    """Entity contact matrix (W, E, E) bool from a contact list, symmetric.

    Args:
        geom_entity: (ngeom,) int64 union entity of each geom (-1 for the robot, table, floor).
        geom_pairs: (C, 2) int contact geoms; contact_world: (C,) int world of each contact.
        ncontact: int or 0-d / (1,) int tensor, contacts in use (the first ``ncontact`` rows).
        nworld, nent: W and E.
    """
    import torch

    c = geom_pairs.shape[0]
    dev = geom_pairs.device
    valid = torch.arange(c, device=dev) < torch.as_tensor(ncontact, device=dev).reshape(-1)[0]
    e1 = geom_entity[geom_pairs[:, 0].long().clamp(min=0)]
    e2 = geom_entity[geom_pairs[:, 1].long().clamp(min=0)]
    ok = valid & (e1 >= 0) & (e2 >= 0)
    w = contact_world.long()
    trash = nworld * nent * nent
    flat = torch.zeros(trash + 1, dtype=torch.bool, device=dev)
    i12 = torch.where(ok, w * nent * nent + e1 * nent + e2, trash)
    i21 = torch.where(ok, w * nent * nent + e2 * nent + e1, trash)
    # index_fill_ takes the value as a kernel argument (a ``flat[i] = True`` would copy a host tensor,
    # which a CUDA graph capture refuses)
    flat.index_fill_(0, i12, True)
    flat.index_fill_(0, i21, True)
    return flat[:trash].view(nworld, nent, nent)


def _pair(t, a, b):
    """t (W, E, E) at per-world index pairs a, b (W, A) (-1 -> False)."""
    import torch

    w = torch.arange(t.shape[0], device=t.device)[:, None]
    v = t[w, a.clamp(min=0), b.clamp(min=0)]
    return v & (a >= 0) & (b >= 0)


def goal_success(p: dict[str, Any], qpos, xpos, site_xpos, site_xmat, touch):
    """Task success per world (W,) bool: the conjunction of the world's goal atoms.

    Args:
        p: per-world program tensors from :func:`stack_programs`.
        qpos: (W, nq); xpos: (W, nbody, 3); site_xpos: (W, nsite, 3); site_xmat: (W, nsite, 3, 3);
        touch: (W, E, E) bool from :func:`touching`. Positions in m, world frame.

    The tests and thresholds are :mod:`simkit.sims.hebero.goal_geometry`'s (LIBERO's). Every atom
    kind is computed for every atom and the kind selects (no branch on values: CUDA-graph safe).
    """
    import torch

    w = torch.arange(xpos.shape[0], device=xpos.device)[:, None]
    pa = xpos[w, p["body_a"].clamp(min=0)]  # (W, A, 3)
    pb = xpos[w, p["body_b"].clamp(min=0)]
    live = p["site"] >= 0
    pr = torch.where(live[..., None], site_xpos[w, p["site"].clamp(min=0)], p["region_pos"])
    rr = torch.where(live[..., None, None], site_xmat[w, p["site"].clamp(min=0)], p["region_rot"])
    s = p["region_size"]
    contact = _pair(touch, p["ent_a"], p["ent_b"])
    kind = p["kind"]
    on_obj = geo.on_object(pa, pb) & contact
    on_reg = geo.on_region(pa, pr, rr, s) & ((p["ent_b"] < 0) | contact)
    in_reg = geo.in_region(pa, pr, rr, s)
    q = torch.gather(qpos, 1, p["qadr"].clamp(min=0).flatten(1)).view_as(p["qadr"]).to(qpos.dtype)
    test = geo.compare(q, p["cmp"][..., None], p["thr"][..., None].to(qpos.dtype))
    used = p["qadr"] >= 0
    joint = torch.where(p["any_joint"], (test & used).any(-1), (test | ~used).all(-1) & used.any(-1))
    up = pa[..., 2] >= p["thr"]
    res = torch.ones_like(on_obj)
    for k, v in ((ATOM_ON_OBJ, on_obj), (ATOM_ON_REGION, on_reg), (ATOM_IN_REGION, in_reg)):
        res = torch.where(kind == k, v, res)
    res = torch.where(kind == ATOM_JOINT, joint, res)
    res = torch.where(kind == ATOM_UP, up, res)
    return res.all(-1)
