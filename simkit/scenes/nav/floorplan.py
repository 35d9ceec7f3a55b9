"""Procedural multi-room floor plans: rooms, walls with doorways, furniture blocks -> a GLB mesh.

A plan is drawn by binary space partitioning (BSP) of a rectangular footprint:

1. the footprint (``width`` x ``depth`` metres) is split recursively, always across the longer
   side of the chosen room, at a random position that leaves both halves at least
   ``min_room_m`` wide, until the plan has ``n_rooms`` rooms;
2. every split line becomes an interior wall with **one doorway** in the span shared by the two
   halves. Both halves are connected inside (induction over the splits), so the doorways make
   the whole plan one connected region. The split position is drawn only where the new wall's two
   ends stay at least one wall thickness away from the doorways of the walls they meet, so no later
   wall enters an earlier doorway (:func:`plan_problems` checks both properties, the connectivity
   on the walkable area eroded by the agent radius, :mod:`simkit.scenes.nav.walkable`);
3. furniture blocks (axis-aligned boxes lower than the wall, 0.35-0.9 m high) are placed in the
   rooms at least ``clearance_m`` from every wall, doorway and other block, so that each block is
   an island of obstacle surrounded by a walkable ring and never disconnects the plan.

Everything is a list of axis-aligned boxes (``kind`` wall or furniture) over a floor slab whose top
is at z = 0. Frame: world, right-handed, z up, metres; the footprint spans
``[0, width] x [0, depth]``.

:func:`plan_mesh` builds the triangle mesh (trimesh), :func:`write_glb` / :func:`glb_bytes` export
it as glTF binary. glTF is y-up (glTF 2.0 spec, sec. 3.4), so the export rotates z-up to y-up:
``(x, y, z) -> (x, z, -y)`` (the convention Habitat uses for GLB scenes); :func:`load_scene_mesh`
(in :mod:`simkit.scenes.nav.meshes`) undoes it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: rotation taking simkit's z-up world to glTF's y-up frame: (x, y, z) -> (x, z, -y)
Z_UP_TO_Y_UP = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1]], dtype=float)

#: colours (RGBA, uint8) of the mesh parts
COLOURS = {"floor": (180, 170, 150, 255), "wall": (225, 225, 220, 255), "furniture": (140, 90, 60, 255)}


@dataclass(frozen=True)
class FloorPlanParams:
    """Ranges the compiler draws from (metres unless stated).

    Attributes:
        width_m, depth_m: [min, max] footprint size along x and y.
        n_rooms: [min, max] number of rooms (BSP leaves).
        min_room_m: smallest room side.
        wall_height_m, wall_thickness_m: wall box size.
        door_width_m: [min, max] doorway width.
        furniture_per_room: [min, max] blocks per room.
        clearance_m: free distance kept around furniture (to walls, doorways and other blocks).
    """

    width_m: tuple[float, float] = (8.0, 12.0)
    depth_m: tuple[float, float] = (6.0, 10.0)
    n_rooms: tuple[int, int] = (3, 6)
    min_room_m: float = 2.5
    wall_height_m: float = 2.5
    wall_thickness_m: float = 0.1
    door_width_m: tuple[float, float] = (0.9, 1.2)
    furniture_per_room: tuple[int, int] = (0, 2)
    clearance_m: float = 0.6


@dataclass(frozen=True)
class Box:
    """An axis-aligned box: ``lo`` and ``hi`` corners (x, y, z) in metres, world frame."""

    kind: str
    lo: tuple[float, float, float]
    hi: tuple[float, float, float]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "lo": list(self.lo), "hi": list(self.hi)}


@dataclass(frozen=True)
class FloorPlan:
    """A compiled plan.

    Attributes:
        size: (width, depth) of the footprint in metres.
        rooms: room rectangles ``(x0, y0, x1, y1)``.
        doors: doorways ``{"axis": "x"|"y", "at": wall coordinate, "lo", "hi": span}``; ``axis`` is the
            wall's normal (a wall of axis ``x`` lies on the line x = at).
        boxes: walls and furniture.
        wall_height: metres.
    """

    size: tuple[float, float]
    rooms: tuple[tuple[float, float, float, float], ...]
    doors: tuple[dict[str, Any], ...]
    boxes: tuple[Box, ...]
    wall_height: float

    def to_json(self) -> dict[str, Any]:
        """JSON form (the ``scene`` field of ``foa-nav`` episodes); :func:`plan_from_json` inverts it."""
        return {
            "size_m": list(self.size),
            "rooms": [list(r) for r in self.rooms],
            "doors": [dict(d) for d in self.doors],
            "boxes": [b.to_json() for b in self.boxes],
            "wall_height_m": self.wall_height,
        }

    def room_of(self, x: float, y: float) -> int:
        """Index of the room containing (x, y), or -1 (inside a wall or outside)."""
        for i, (x0, y0, x1, y1) in enumerate(self.rooms):
            if x0 <= x <= x1 and y0 <= y <= y1:
                return i
        return -1


def wall_slabs(plan: FloorPlan) -> tuple[np.ndarray, np.ndarray]:
    """The wall boxes' (x, y) corners as arrays ``lo``, ``hi`` float64 (W, 2), metres: what
    :func:`walls_between` tests, built once per plan by callers that test many segments."""
    walls = [bx for bx in plan.boxes if bx.kind == "wall"]
    lo = np.array([bx.lo[:2] for bx in walls], dtype=np.float64).reshape(-1, 2)
    hi = np.array([bx.hi[:2] for bx in walls], dtype=np.float64).reshape(-1, 2)
    return lo, hi


def walls_between(plan: FloorPlan, a, b, slabs: tuple[np.ndarray, np.ndarray] | None = None) -> int:
    """Number of wall boxes the straight segment a-b (world (x, y), metres) crosses (slab test in 2D,
    vectorised over the boxes); the cross-room attenuation counts them. ``slabs``: the plan's
    :func:`wall_slabs`, when the caller keeps them."""
    a, b = np.asarray(a, dtype=np.float64)[:2], np.asarray(b, dtype=np.float64)[:2]
    d = b - a
    lo, hi = wall_slabs(plan) if slabs is None else slabs
    if not lo.shape[0]:
        return 0
    t0, t1 = np.zeros(lo.shape[0]), np.ones(lo.shape[0])
    for k in range(2):
        if abs(d[k]) < 1e-12:
            out = ~((lo[:, k] <= a[k]) & (a[k] <= hi[:, k]))
            t0, t1 = np.where(out, 1.0, t0), np.where(out, 0.0, t1)
            continue
        u, v = (lo[:, k] - a[k]) / d[k], (hi[:, k] - a[k]) / d[k]
        t0, t1 = np.maximum(t0, np.minimum(u, v)), np.minimum(t1, np.maximum(u, v))
    return int(np.count_nonzero(t0 < t1))


def plan_from_json(d: dict[str, Any]) -> FloorPlan:
    """Inverse of :meth:`FloorPlan.to_json`."""
    return FloorPlan(
        size=(float(d["size_m"][0]), float(d["size_m"][1])),
        rooms=tuple(tuple(float(v) for v in r) for r in d["rooms"]),  # type: ignore[misc]
        doors=tuple(dict(x) for x in d["doors"]),
        boxes=tuple(Box(b["kind"], tuple(b["lo"]), tuple(b["hi"])) for b in d["boxes"]),
        wall_height=float(d["wall_height_m"]),
    )


def _r3(v: float) -> float:
    return round(float(v), 3)


def _allowed(a0: float, a1: float, banned: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The parts of [a0, a1] outside every ``banned`` interval (sorted, disjoint)."""
    out, cur = [], a0
    for b0, b1 in sorted(banned):
        if b0 > cur:
            out.append((cur, min(b0, a1)))
        cur = max(cur, b1)
        if cur >= a1:
            break
    if cur < a1:
        out.append((cur, a1))
    return [(u, v) for u, v in out if v - u > 1e-9]


def _doorway_bans(room, axis: str, doors: list[dict[str, Any]], margin: float) -> list[tuple[float, float]]:
    """Intervals of split positions along ``axis`` whose wall would end inside (or within ``margin``
    of) a doorway of the walls bounding ``room`` at the new wall's two ends."""
    x0, y0, x1, y1 = room
    ends = (y0, y1) if axis == "x" else (x0, x1)  # the new wall runs between these lines
    other = "y" if axis == "x" else "x"
    return [
        (d["lo"] - margin, d["hi"] + margin)
        for d in doors
        if d["axis"] == other and any(abs(d["at"] - e) < 1e-6 for e in ends)
    ]


def _draw_in(rng: np.random.Generator, parts: list[tuple[float, float]]) -> float:
    """A uniform draw from the union of the intervals ``parts`` (one ``rng.uniform`` call)."""
    lens = np.array([v - u for u, v in parts])
    t = float(rng.uniform(0.0, float(lens.sum())))
    for (u, _v), length in zip(parts, lens, strict=True):
        if t <= length:
            return u + t
        t -= length
    return parts[-1][1]


def _split_rooms(rng, size, n: int, p: FloorPlanParams):
    """BSP with doorways: returns (rooms, doors, boxes of the interior walls).

    Each split is drawn among positions whose new wall ends at least ``wall_thickness_m`` away from
    every doorway of the two walls it meets, so no later wall enters an earlier doorway."""
    rooms = [(0.0, 0.0, size[0], size[1])]
    doors: list[dict[str, Any]] = []
    boxes: list[Box] = []
    t, h = p.wall_thickness_m, p.wall_height_m
    for _ in range(n - 1):
        for i in rng.permutation(len(rooms)):
            x0, y0, x1, y1 = rooms[i]
            axis = "x" if (x1 - x0) >= (y1 - y0) else "y"
            a0, a1 = (x0, x1) if axis == "x" else (y0, y1)
            if a1 - a0 < 2 * p.min_room_m:
                continue
            parts = _allowed(a0 + p.min_room_m, a1 - p.min_room_m, _doorway_bans(rooms[i], axis, doors, t))
            if not parts:
                continue
            at = _r3(_draw_in(rng, parts))
            if axis == "x":
                rooms[i : i + 1] = [(x0, y0, at, y1), (at, y0, x1, y1)]
                lo, hi = y0, y1
            else:
                rooms[i : i + 1] = [(x0, y0, x1, at), (x0, at, x1, y1)]
                lo, hi = x0, x1
            width = float(rng.uniform(*p.door_width_m))
            centre = _r3(rng.uniform(lo + t + width / 2 + 0.05, hi - t - width / 2 - 0.05))
            gap = (_r3(centre - width / 2), _r3(centre + width / 2))
            doors.append({"axis": axis, "at": at, "lo": gap[0], "hi": gap[1]})
            boxes += _wall_boxes(axis, at, lo, hi, [gap], t, h)
            break
        else:
            break  # no room is large enough to split again
    return rooms, doors, boxes


def _wall_boxes(
    axis: str, at: float, lo: float, hi: float, gaps: list[tuple[float, float]], t: float, h: float
):
    """Boxes of a wall on the line ``axis = at`` spanning [lo, hi], with doorway gaps cut out."""
    out, cur = [], lo
    for g0, g1 in sorted(gaps) + [(hi, hi)]:
        if g0 - cur > 1e-6:
            if axis == "x":
                out.append(Box("wall", (_r3(at - t / 2), _r3(cur), 0.0), (_r3(at + t / 2), _r3(g0), h)))
            else:
                out.append(Box("wall", (_r3(cur), _r3(at - t / 2), 0.0), (_r3(g0), _r3(at + t / 2), h)))
        cur = max(cur, g1)
    return out


def _furniture(rng, rooms, doors, p: FloorPlanParams) -> list[Box]:
    """Blocks inside rooms, ``clearance_m`` from walls, doorways and each other (rejection sampling)."""
    c = p.clearance_m
    placed: list[tuple[float, float, float, float]] = []
    out = []
    for x0, y0, x1, y1 in rooms:
        for _ in range(int(rng.integers(p.furniture_per_room[0], p.furniture_per_room[1] + 1))):
            for _try in range(20):
                w, d = rng.uniform(0.4, 1.2, size=2)
                cx = rng.uniform(x0 + c + w / 2, x1 - c - w / 2) if x1 - x0 > 2 * c + w else None
                cy = rng.uniform(y0 + c + d / 2, y1 - c - d / 2) if y1 - y0 > 2 * c + d else None
                if cx is None or cy is None:
                    continue
                r = (cx - w / 2, cy - d / 2, cx + w / 2, cy + d / 2)
                if any(
                    r[0] < q[2] + c and q[0] < r[2] + c and r[1] < q[3] + c and q[1] < r[3] + c
                    for q in placed
                ):
                    continue
                placed.append(r)
                z = _r3(rng.uniform(0.35, 0.9))
                out.append(Box("furniture", (_r3(r[0]), _r3(r[1]), 0.0), (_r3(r[2]), _r3(r[3]), z)))
                break
    return out


def compile_floorplan(rng: np.random.Generator, params: FloorPlanParams | None = None) -> FloorPlan:
    """Draw a floor plan (module docstring for the algorithm); deterministic for a given ``rng`` state.

    Returns:
        :class:`FloorPlan` in the world frame (z up, metres), floor top at z = 0.
    """
    p = params or FloorPlanParams()
    size = (_r3(rng.uniform(*p.width_m)), _r3(rng.uniform(*p.depth_m)))
    n = int(rng.integers(p.n_rooms[0], p.n_rooms[1] + 1))
    rooms, doors, boxes = _split_rooms(rng, size, n, p)
    t, h = p.wall_thickness_m, p.wall_height_m
    W, D = size
    boxes += _wall_boxes("x", 0.0, -t / 2, D + t / 2, [], t, h) + _wall_boxes(
        "x", W, -t / 2, D + t / 2, [], t, h
    )
    boxes += _wall_boxes("y", 0.0, t / 2, W - t / 2, [], t, h) + _wall_boxes(
        "y", D, t / 2, W - t / 2, [], t, h
    )
    boxes += _furniture(rng, rooms, doors, p)
    return FloorPlan(size, tuple(rooms), tuple(doors), tuple(boxes), h)


def door_cuts(plan: FloorPlan) -> list[str]:
    """Doorways that a wall box enters: one line per (doorway, wall) pair, empty when none.

    A doorway is the rectangle of its span ``[lo, hi]`` along the wall times the wall's thickness
    across it (the thickness of the outer wall boxes)."""
    t = next((b.hi[0] - b.lo[0] for b in plan.boxes if b.kind == "wall" and b.lo[0] < 0), 0.1)
    out = []
    for n, d in enumerate(plan.doors):
        k, j = (0, 1) if d["axis"] == "x" else (1, 0)  # k: across the wall, j: along it
        for b in plan.boxes:
            if b.kind != "wall":
                continue
            across = b.lo[k] < d["at"] + t / 2 - 1e-6 and d["at"] - t / 2 + 1e-6 < b.hi[k]
            along = b.lo[j] < d["hi"] - 1e-6 and d["lo"] + 1e-6 < b.hi[j]
            if across and along:
                out.append(f"doorway {n} ({d['axis']} = {d['at']}, {d['lo']}-{d['hi']} m) is entered by "
                           f"the wall {list(b.lo[:2])}-{list(b.hi[:2])}")  # fmt: skip
    return out


def plan_islands(plan: FloorPlan, agent_radius: float = 0.18, climb: float = 0.2) -> int:
    """Number of walkable islands of the plan for an agent of ``agent_radius`` (m), from the boxes
    alone (no mesh): the connected parts of the floor minus every box taller than ``climb``, eroded
    by the agent (:func:`simkit.scenes.nav.walkable.plan_walkable`, the walkable area of the ``poly``
    navigation backend)."""
    from simkit.scenes.nav.walkable import plan_walkable

    return len(plan_walkable(plan, agent_radius, climb).geoms)


def plan_problems(plan: FloorPlan, agent_radius: float = 0.18) -> list[str]:
    """:func:`door_cuts` plus a line when the plan is not one walkable island (:func:`plan_islands`)."""
    out = door_cuts(plan)
    n = plan_islands(plan, agent_radius)
    if n != 1:
        out.append(f"the walkable area at radius {agent_radius} m has {n} islands (expected 1)")
    return out


def plan_mesh(plan: FloorPlan, floor_thickness: float = 0.05):
    """The plan as one ``trimesh.Trimesh`` (z up, metres) with per-face colours (:data:`COLOURS`).

    The floor is a slab ``[-t/2, W + t/2] x [-t/2, D + t/2] x [-floor_thickness, 0]``.
    """
    import trimesh

    def box(kind, lo, hi):
        lo, hi = np.asarray(lo, float), np.asarray(hi, float)
        m = trimesh.creation.box(
            extents=hi - lo, transform=trimesh.transformations.translation_matrix((lo + hi) / 2)
        )
        m.visual.face_colors = np.tile(COLOURS[kind], (len(m.faces), 1))
        return m

    W, D = plan.size
    parts = [box("floor", (-0.05, -0.05, -floor_thickness), (W + 0.05, D + 0.05, 0.0))]
    parts += [box(b.kind, b.lo, b.hi) for b in plan.boxes]
    return trimesh.util.concatenate(parts)


def glb_bytes(plan: FloorPlan) -> bytes:
    """The plan's mesh as glTF binary (y up: ``(x, y, z) -> (x, z, -y)``, see the module docstring)."""
    mesh = plan_mesh(plan)
    mesh.apply_transform(Z_UP_TO_Y_UP)
    buf = io.BytesIO()
    mesh.export(buf, file_type="glb")
    return buf.getvalue()


def write_glb(plan: FloorPlan, path: str | Path) -> Path:
    """Write :func:`glb_bytes` to ``path``; returns the path."""
    path = Path(path)
    path.write_bytes(glb_bytes(plan))
    return path


def room_box(plan: FloorPlan, p) -> tuple[tuple[float, float, float], tuple[float, float, float]] | None:
    """``(origin, size)`` (metres, world) of the box of the room holding ``p`` (floor to wall top,
    between the walls' inner faces), or None when ``p`` is in no room (a doorway)."""
    i = plan.room_of(float(p[0]), float(p[1]))
    if i < 0:
        return None
    x0, y0, x1, y1 = plan.rooms[i]
    t = next((b.hi[0] - b.lo[0] for b in plan.boxes if b.kind == "wall" and b.lo[0] < 0), 0.1)
    lo = (x0 + t / 2, y0 + t / 2, 0.0)
    size = (max(x1 - x0 - t, 0.1), max(y1 - y0 - t, 0.1), plan.wall_height)
    return lo, size


def cross_room_gain(
    plan: FloorPlan, a, b, wall_loss_db: float, slabs: tuple[np.ndarray, np.ndarray] | None = None
) -> float:
    """Linear amplitude gain ``10 ** (-wall_loss_db * n / 20)`` for the ``n`` walls between ``a`` and ``b``
    (:func:`walls_between`, ``slabs`` as there): a sound-transmission-loss model with one loss per partition."""
    return float(10 ** (-wall_loss_db * walls_between(plan, a, b, slabs) / 20))


def ray_distance(plan: FloorPlan, origin, yaw: float, z: float) -> float:
    """Distance (m) along the horizontal ray from ``origin`` (x, y) at height ``z`` in direction ``yaw``
    to the first box whose height range contains ``z`` (slab test); inf when it meets none."""
    o = np.asarray(origin, dtype=np.float64)[:2]
    d = np.array([np.cos(yaw), np.sin(yaw)])
    best = np.inf
    for box in plan.boxes:
        if not box.lo[2] <= z <= box.hi[2]:
            continue
        t0, t1 = 0.0, np.inf
        for k in range(2):
            if abs(d[k]) < 1e-12:
                if not box.lo[k] <= o[k] <= box.hi[k]:
                    t0, t1 = 1.0, 0.0
                continue
            u, v = (box.lo[k] - o[k]) / d[k], (box.hi[k] - o[k]) / d[k]
            t0, t1 = max(t0, min(u, v)), min(t1, max(u, v))
        if t0 <= t1:
            best = min(best, t0)
    return float(best)
