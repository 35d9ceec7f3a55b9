"""Layout groups: many heterogeneous Hebero tasks as few batched physics models.

GPU batch simulators (MuJoCo Warp 4.0) step one model *layout* (one kinematic
tree: the same bodies, joints and geoms) over many worlds; only selected model
fields (``body_pos``, ``body_quat``, ``body_gravcomp``, ...) may differ per
world. The 40 Hebero tasks have 40 different trees, and stepping 40 small
models costs one kernel launch sequence each (launch-latency bound). This
module puts many tasks into few models:

* :func:`group_tasks` partitions task descriptors into :class:`LayoutGroup` s.
  Tasks may share a group only when they share an arena (problem class, table
  size and offset: the robot base and the table are then identical). A group's
  entities are the *union* of its tasks' entities, matched by asset and kind
  (a task's ``plate_1`` and another's ``plate_1`` are one union entity; two
  plates in one task need two), so the union holds, per asset, the largest
  count any member task uses. Groups grow greedily in task order while the
  union stays within ``max_entities``.
* Entities a task does not use are *parked* in that task's worlds:
  :func:`parking_slots` gives each union entity a pose far outside the robot's
  reach and every camera's view, one :data:`PARK_SPACING` apart so parked
  entities never touch; the runtime holds parked free bodies there with
  per-world gravity compensation (``body_gravcomp = 1``), so with zero
  velocity they stay still and take part in no contact.
* :class:`WorldMap` maps environment ``i`` (running task ``i mod K``, the
  Hebero convention, spec "Heterogeneous vectorised simulation") to its group
  and its world index inside that group's batch, and back.
* :func:`union_descriptor` writes a group's union scene as a task descriptor
  whose every entity sits in its parking region, so the scene compiler
  (:func:`simkit.sims.hebero.scene.build_scene`) assembles the union model
  with no special path.

Pure Python and numpy: everything here runs (and is tested) without a GPU.
Frames: world, z up, metres.
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from simkit.core.errors import InputError

#: m, distance between neighbouring parking slots (larger than twice any LIBERO asset's radius)
PARK_SPACING = 1.0
#: m, world y of the first parking slot: beyond the Panda's reach (0.855 m, Franka datasheet) from any
#: LIBERO robot base and outside the agentview/birdview frusta of :func:`build_scene`'s cameras
PARK_Y0 = 6.0
#: m, half width of a parking region (tiny: the compiler samples inside it)
PARK_HALF = 1e-3
#: default upper bound on a group's union entity count
MAX_ENTITIES = 16


@dataclass(frozen=True)
class UnionEntity:
    """One entity of a group's union scene.

    Attributes:
        name: entity name in the union model (``<category>_u<k>``, k counts that asset from 1).
        kind: ``"fixture"`` (welded) or ``"object"`` (free joint).
        category: LIBERO category (``plate``, ``wooden_cabinet``, ...).
        asset: asset path relative to the LIBERO root (``assets/...``).
    """

    name: str
    kind: str
    category: str
    asset: str


@dataclass
class LayoutGroup:
    """Tasks simulated by one batched model.

    Attributes:
        key: a readable id, ``<arena problem>[/<suite>]#<n>`` (n counts groups of that class from 0).
        arena: the shared arena signature (problem, kind, size, offset).
        task_ids: member task ids in the order given to :func:`group_tasks`.
        entities: the union entities.
        names: per member task, task entity name -> union entity name.
    """

    key: str
    arena: tuple
    task_ids: list[str] = field(default_factory=list)
    entities: list[UnionEntity] = field(default_factory=list)
    names: dict[str, dict[str, str]] = field(default_factory=dict)

    def active(self) -> np.ndarray:
        """(n_tasks, n_entities) bool: entity j is used by member task t (else parked in its worlds)."""
        idx = {e.name: j for j, e in enumerate(self.entities)}
        out = np.zeros((len(self.task_ids), len(self.entities)), bool)
        for t, tid in enumerate(self.task_ids):
            for u in self.names[tid].values():
                out[t, idx[u]] = True
        return out


def arena_signature(desc: dict) -> tuple:
    """Hashable arena identity of a descriptor: (problem, kind, size, offset) rounded to 0.1 mm."""
    a = desc["arena"]
    size = None if a.get("size") is None else tuple(round(float(x), 4) for x in a["size"])
    return (a["problem"].lower(), a["kind"], size, tuple(round(float(x), 4) for x in a["offset"]))


def _entities(desc: dict) -> list[tuple[str, str, str, str]]:
    """(name, kind, category, asset) of a descriptor's entities, fixtures first, in declaration order."""
    out = []
    for kind, table in (("fixture", desc["fixtures"]), ("object", desc["objects"])):
        for name, info in table.items():
            if info.get("asset") is None:
                raise InputError(
                    None, f"task {desc['task_id']}: no known asset for {name} ({info['category']})"
                )
            out.append((name, kind, info["category"], info["asset"]))
    return out


def _asset_counts(desc: dict) -> Counter:
    return Counter((kind, cat, asset) for _n, kind, cat, asset in _entities(desc))


def _assign(group: LayoutGroup, desc: dict) -> None:
    """Add one task to a group, reusing union entities of the same asset and kind, adding the rest."""
    used: set[str] = set()
    names: dict[str, str] = {}
    for name, kind, cat, asset in _entities(desc):
        match = next(
            (
                e.name
                for e in group.entities
                if e.kind == kind and e.asset == asset and e.category == cat and e.name not in used
            ),
            None,
        )
        if match is None:
            k = 1 + sum(1 for e in group.entities if e.category == cat)
            match = f"{cat}_u{k}"
            group.entities.append(UnionEntity(match, kind, cat, asset))
        used.add(match)
        names[name] = match
    group.task_ids.append(desc["task_id"])
    group.names[desc["task_id"]] = names


def _union_size_with(group: LayoutGroup, desc: dict) -> int:
    have = Counter((e.kind, e.category, e.asset) for e in group.entities)
    need = _asset_counts(desc)
    return len(group.entities) + sum(max(0, n - have[k]) for k, n in need.items())


def group_tasks(
    descs: list[dict], max_entities: int = MAX_ENTITIES, split_suites: bool = False
) -> list[LayoutGroup]:
    """Partition task descriptors into layout groups (greedy, deterministic in the given order).

    Each task joins the first existing group of its arena (and suite, with ``split_suites``) whose
    union stays within ``max_entities`` entities; otherwise it opens a new group.

    Args:
        descs: task descriptors (:func:`simkit.scenes.hebero.compile_task`), unique task ids.
        max_entities: largest union entity count of a group (>= the largest task's count).
        split_suites: never put tasks of different suites into one group.

    Returns:
        groups in order of their first task.

    Raises:
        InputError: a repeated task id, an entity without a known asset, or a task with more
            entities than ``max_entities``.
    """
    seen: set[str] = set()
    groups: list[LayoutGroup] = []
    for d in descs:
        tid = d["task_id"]
        if tid in seen:
            raise InputError(None, f"task {tid} is listed twice")
        seen.add(tid)
        n = len(_entities(d))
        if n > max_entities:
            raise InputError(None, f"task {tid} has {n} entities, more than max_entities={max_entities}")
        sig = arena_signature(d)
        base = sig[0] + (f"/{d['suite']}" if split_suites else "")
        target = next(
            (
                g
                for g in groups
                if g.arena == sig and g.key.split("#")[0] == base and _union_size_with(g, d) <= max_entities
            ),
            None,
        )
        if target is None:
            k = sum(1 for g in groups if g.key.split("#")[0] == base)
            target = LayoutGroup(key=f"{base}#{k}", arena=sig)
            groups.append(target)
        _assign(target, d)
    return groups


def parking_slots(group: LayoutGroup, robot_base_xy: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Parking position (x, y) of every union entity, m, world frame; shape (n_entities, 2) float64.

    Slot j is at ``(x_base, PARK_Y0 + j * PARK_SPACING)`` in a line to the robot's left: every slot
    is at least ``PARK_Y0 - |y_base|`` from the base (beyond the Panda's reach) and the slots are
    :data:`PARK_SPACING` apart (no two parked entities touch).
    """
    n = len(group.entities)
    xy = np.zeros((n, 2))
    xy[:, 0] = robot_base_xy[0]
    xy[:, 1] = PARK_Y0 + PARK_SPACING * np.arange(n)
    return xy


def union_descriptor(group: LayoutGroup, descs: dict[str, dict]) -> dict:
    """A task descriptor of the group's union scene with every entity in its parking region.

    The arena is the members' (identical by construction); regions are one workspace region
    ``park_<entity>`` per union entity (a :data:`PARK_HALF` square around its slot); ``:init`` puts
    each entity ``On`` its region; the goal is ``true``. Feed it to
    :func:`~simkit.sims.hebero.scene.build_scene` to compile the union model.

    Args:
        group: from :func:`group_tasks`.
        descs: task id -> descriptor, holding every member task.
    """
    from simkit.sims.hebero.scene import ROBOT_BASE

    first = descs[group.task_ids[0]]
    base = ROBOT_BASE.get(first["arena"]["problem"].lower(), (-0.66, 0.0, 0.0))
    xy = parking_slots(group, (base[0], base[1]))
    z = float(first["arena"]["offset"][2])
    out = {
        "task_id": f"union/{group.key}",
        "suite": "union",
        "index": 0,
        "name": "union_" + "".join(c if c.isalnum() else "_" for c in group.key),
        "arena": copy.deepcopy(first["arena"]),
        "fixtures": {},
        "objects": {},
        "regions": {},
        "init": [],
        "goal": {"predicate": "true", "args": []},
    }
    for e, (x, y) in zip(group.entities, xy):
        table = out["fixtures"] if e.kind == "fixture" else out["objects"]
        table[e.name] = {"category": e.category, "asset": e.asset, "present": True}
        r = f"park_{e.name}"
        out["regions"][r] = {
            "target": first["arena"]["workspace"],
            "kind": "workspace",
            "ranges_world": [[x - PARK_HALF, y - PARK_HALF, x + PARK_HALF, y + PARK_HALF]],
            "z_world": z,
            "yaw_ranges": [],
        }
        out["init"].append(["on", e.name, r])
    return out


@dataclass
class WorldMap:
    """Environment <-> (task, group, world-in-group) maps for ``num_envs`` environments.

    Environment ``i`` runs task ``i mod K`` of ``task_ids`` (K tasks). Inside a group, worlds are
    numbered in increasing environment order. All arrays are int64.

    Attributes:
        task_ids: the K tasks, in environment order.
        groups: the layout groups (every task in exactly one).
        env_task: (num_envs,) task index of each environment.
        env_group: (num_envs,) group index of each environment.
        env_world: (num_envs,) world index inside its group's batch.
        group_envs: per group, (n_worlds_g,) environment of each world (the inverse of the two above).
        group_task: per group, (n_worlds_g,) index of the world's task inside ``groups[g].task_ids``.
    """

    task_ids: list[str]
    groups: list[LayoutGroup]
    env_task: np.ndarray
    env_group: np.ndarray
    env_world: np.ndarray
    group_envs: list[np.ndarray]
    group_task: list[np.ndarray]

    @classmethod
    def build(cls, task_ids: list[str], groups: list[LayoutGroup], num_envs: int) -> WorldMap:
        """Build the maps.

        Raises:
            InputError: ``num_envs`` < 1, a task in no group or in two groups, a group task not
                in ``task_ids``.
        """
        if num_envs < 1:
            raise InputError(None, f"num_envs must be >= 1, got {num_envs}")
        where: dict[str, tuple[int, int]] = {}
        for gi, g in enumerate(groups):
            for ti, t in enumerate(g.task_ids):
                if t in where:
                    raise InputError(None, f"task {t} is in two layout groups")
                if t not in task_ids:
                    raise InputError(None, f"layout group {g.key} holds task {t}, which is not requested")
                where[t] = (gi, ti)
        missing = [t for t in task_ids if t not in where]
        if missing:
            raise InputError(None, f"tasks {missing} are in no layout group")
        k = len(task_ids)
        env_task = np.arange(num_envs, dtype=np.int64) % k
        env_group = np.array([where[task_ids[t]][0] for t in env_task], np.int64)
        env_world = np.zeros(num_envs, np.int64)
        group_envs, group_task = [], []
        for gi in range(len(groups)):
            envs = np.flatnonzero(env_group == gi).astype(np.int64)
            env_world[envs] = np.arange(len(envs))
            group_envs.append(envs)
            group_task.append(np.array([where[task_ids[env_task[e]]][1] for e in envs], np.int64))
        return cls(list(task_ids), groups, env_task, env_group, env_world, group_envs, group_task)

    def env_of(self, group: int, world: int) -> int:
        """Environment index of world ``world`` of group ``group``."""
        return int(self.group_envs[group][world])

    def task_of_env(self, env: int) -> str:
        """Task id run by environment ``env``."""
        return self.task_ids[int(self.env_task[env])]

    def balance(self) -> float:
        """Largest group's world count over the mean (1.0 = perfectly even)."""
        sizes = np.array([len(e) for e in self.group_envs], float)
        return float(sizes.max() / sizes.mean()) if len(sizes) else math.nan
