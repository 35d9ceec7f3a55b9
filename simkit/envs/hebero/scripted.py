"""Scripted demonstrations for the 40 Hebero (LIBERO) tasks: waypoint plans driving the env's controller.

:class:`ScriptedPolicy` works through the goal's atoms (:func:`goal_atoms`) closed loop: each atom
is planned (:func:`plan_atom`) from the state the previous one left, an atom whose plan did not
make it hold is planned again, a grasp that did not lift its object aborts its plan.
A plan is a list of :class:`Waypoint` (grip-site position target, gripper command, tolerance,
step budget, hold steps). The tracker turns
a waypoint into the env's 7-dim action: a[0:3] = clip((p* - p) / s_p, -1, 1) (a proportional
step towards the target, saturating at the controller's s_p per step), a[3:6] = clip(e_R / s_R,
-1, 1) with e_R the rotation vector from the current to the initial grip orientation plus the
waypoint's yaw (keeps the gripper pointing down), a[6] = +1 to close, -1 to open.

Primitives (positions in metres, world frame): pick-and-place (approach above, descend, close,
lift, carry over the obstacles in the way, lower, open, retreat; grasps chosen from the object's
collision boxes, :func:`grasp_pose`), push (closed fingers behind the object, slide through it),
drawer pull (the gripper turned horizontal, closing on the handle bar, pulled along the drawer's
opening direction), drawer push (closed fingers against the handle, the hand leaned fingertips
ahead, back to the closed limit),
door swing (closed fingers along the arc about the hinge), knob turn (grasp the knob, rotate
the gripper about z) and clearing (an object set aside from where a drawer will open).
Pick-and-place stays within the arm's reach (:func:`reach_margin`: the wrist within
:data:`REACH` of the shoulder): a wall grasp takes a side the arm reaches, the hand leans towards
a far grasp or place (:func:`lean_for`), the carry height is capped where the arm would stretch
out (:func:`reach_top`); an object is turned about the grip site to fit a narrow region
(:func:`_turn_to_fit`), and a slot (a caddy compartment) gets the footprint centred and the
fingertips kept above its walls (:func:`_tight_rim`), or, when one of its walls is lower, the
object released leaned onto that wall (:func:`_lean_into_slot`). Near neighbours an object is
turned 90 degrees when that gives the open fingers more room (:func:`_turn_for_room`,
:func:`_turn_for_fingers`), and the hand crosses at the carry height when a wall lies on its
straight way to the next grasp (:func:`_approach_over`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CARRY_CLEARANCE = 0.12  #: m, carry height above the highest point between pick and place
APPROACH = 0.10  #: m, height above a grasp point where the approach starts


@dataclass
class Waypoint:
    """One target of a plan: grip-site position (3,) m, gripper (+1 close / -1 open), yaw offset (rad)."""

    pos: np.ndarray
    grip: float
    tol: float = 0.01
    budget: int = 40
    hold: int = 0
    yaw: float = 0.0
    tilt: float = 0.0  #: rad, rotation about world x applied before the yaw (-pi/2: fingers point along -y)
    #: world rotation vector (3,), rad, applied after the yaw: the hand leaned towards a far target
    lean: np.ndarray | None = None
    #: (entity, z) when reaching this waypoint means the entity's root body must be above z (m): a
    #: grasp that did not lift it aborts the plan (:class:`ScriptedPolicy` replans)
    lifted: tuple[str, float] | None = None


class Tracker:
    """Follow a plan in one env; :meth:`action` gives the next action, :attr:`done` when the plan ends."""

    def __init__(self, plan: list[Waypoint], rot0: np.ndarray, pos_scale: float, rot_scale: float):
        self.plan, self.rot0 = plan, rot0
        self.s_p, self.s_R = pos_scale, rot_scale
        self.k, self.steps, self.held = 0, 0, 0

    @property
    def done(self) -> bool:
        return self.k >= len(self.plan)

    def action(self, ee: np.ndarray, rot: np.ndarray) -> np.ndarray:
        """Action (7,) for the grip-site position ee (3,) and orientation rot (3, 3)."""
        a = np.zeros(7)
        if self.done:
            a[6] = -1.0
            return a
        wp = self.plan[self.k]
        err = wp.pos - ee
        a[0:3] = np.clip(err / self.s_p, -1.0, 1.0)
        c, s = np.cos(wp.yaw), np.sin(wp.yaw)
        ct, st = np.cos(wp.tilt), np.sin(wp.tilt)
        tilt = np.array([[1.0, 0.0, 0.0], [0.0, ct, -st], [0.0, st, ct]])
        target = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ tilt @ self.rot0
        if wp.lean is not None:
            target = (
                _axis_rotation(wp.lean / np.linalg.norm(wp.lean), float(np.linalg.norm(wp.lean))) @ target
            )
        a[3:6] = np.clip(_rotvec(target @ rot.T) / self.s_R, -1.0, 1.0)
        a[6] = wp.grip
        self.steps += 1
        if np.linalg.norm(err) < wp.tol or self.steps >= wp.budget:
            self.held += 1
            if self.held > wp.hold:
                self.k, self.steps, self.held = self.k + 1, 0, 0
        return a


def _rotvec(r: np.ndarray) -> np.ndarray:
    """Rotation vector (3,) of a rotation matrix (log map)."""
    from scipy.spatial.transform import Rotation

    return Rotation.from_matrix(r).as_rotvec()


def pick_place(
    grasp: np.ndarray,
    place: np.ndarray,
    carry_z: float,
    yaw: float = 0.0,
    lifted: tuple[str, float] | None = None,
    lean: np.ndarray | None = None,
    turn: float = 0.0,
) -> list[Waypoint]:
    """Grasp at ``grasp`` (3,), release with the grip site at ``place`` (3,), carrying at ``carry_z``;
    the gripper turned by ``yaw`` rad about z (and leaned by ``lean``, :func:`lean_for`) throughout,
    by ``turn`` rad more from above the place on (the object turned to fit its target);
    ``lifted`` the check once lifted."""
    up = np.array([0.0, 0.0, APPROACH])
    lift = np.array([grasp[0], grasp[1], carry_z])
    over = np.array([place[0], place[1], carry_z])
    y, t = yaw, yaw + turn
    return [
        Waypoint(grasp + up, -1.0, tol=0.01, budget=60, yaw=y, lean=lean),
        Waypoint(grasp, -1.0, tol=0.004, budget=60, yaw=y, lean=lean),
        Waypoint(grasp, 1.0, tol=1.0, budget=1, hold=10, yaw=y, lean=lean),
        Waypoint(grasp + up / 2, 1.0, tol=0.02, budget=20, lifted=lifted, yaw=y, lean=lean),
        Waypoint(lift, 1.0, tol=0.02, budget=50, yaw=y, lean=lean),
        Waypoint(over, 1.0, tol=0.015, budget=70, yaw=t, lean=lean),
        Waypoint(place, 1.0, tol=0.008, budget=40, hold=3, yaw=t, lean=lean),
        Waypoint(place, -1.0, tol=1.0, budget=1, hold=8, yaw=t, lean=lean),
        Waypoint(over, -1.0, tol=0.015, budget=50, yaw=t, lean=lean),
    ]


def push(start: np.ndarray, end: np.ndarray, yaw: float = 0.0) -> list[Waypoint]:
    """Closed fingers down at ``start`` (3,), slide to ``end`` (3,), lift; gripper turned by ``yaw`` rad."""
    up = np.array([0.0, 0.0, APPROACH])
    return [
        Waypoint(start + up, 1.0, tol=0.02, budget=40, yaw=yaw),
        Waypoint(start, 1.0, tol=0.006, budget=40, yaw=yaw),
        Waypoint(start + 0.5 * (end - start), 1.0, tol=0.01, budget=40, yaw=yaw),
        Waypoint(end, 1.0, tol=0.008, budget=60, hold=3, yaw=yaw),
        Waypoint(end + up, 1.0, tol=0.03, budget=30, yaw=yaw),
    ]


def handle_pull(handle: np.ndarray, direction: np.ndarray, distance: float) -> list[Waypoint]:
    """Fingers pointing against ``direction`` (3,) (horizontal), closing vertically on a horizontal
    handle bar at ``handle`` (3,), then pulled along ``direction`` by ``distance`` m."""
    tilt = -np.pi / 2 if direction[1] >= 0 else np.pi / 2
    yaw = float(np.arctan2(direction[1], direction[0]) - np.sign(direction[1] or 1.0) * np.pi / 2)
    away = handle + direction * 0.12
    up = np.array([0.0, 0.0, 0.08])
    end = handle + direction * distance
    return [
        Waypoint(away + up, -1.0, tol=0.03, budget=60, tilt=tilt, yaw=yaw),
        Waypoint(away, -1.0, tol=0.01, budget=50, tilt=tilt, yaw=yaw),
        Waypoint(handle + direction * 0.005, -1.0, tol=0.006, budget=50, tilt=tilt, yaw=yaw),
        Waypoint(handle + direction * 0.005, 1.0, tol=1.0, budget=1, hold=10, tilt=tilt, yaw=yaw),
        Waypoint(end, 1.0, tol=0.01, budget=80, hold=3, tilt=tilt, yaw=yaw),
        Waypoint(end, -1.0, tol=1.0, budget=1, hold=8, tilt=tilt, yaw=yaw),
        Waypoint(end + direction * 0.1, -1.0, tol=0.03, budget=40, tilt=tilt, yaw=yaw),
        Waypoint(end + direction * 0.1 + 2 * up, -1.0, tol=0.03, budget=40, tilt=tilt, yaw=yaw),
    ]


def hook_pull(slot: np.ndarray, direction: np.ndarray, distance: float) -> list[Waypoint]:
    """Closed fingers lowered into ``slot`` (3,) (between a handle and its drawer face), pulled along
    ``direction`` (3,) unit by ``distance`` m."""
    up = np.array([0.0, 0.0, 0.06])
    end = slot + direction * distance
    return [
        Waypoint(slot + up, 1.0, tol=0.01, budget=50),
        Waypoint(slot, 1.0, tol=0.006, budget=40),
        Waypoint(slot + 0.5 * direction * distance, 1.0, tol=0.01, budget=40),
        Waypoint(end, 1.0, tol=0.01, budget=60, hold=3),
        Waypoint(end + up, 1.0, tol=0.03, budget=30),
    ]


def knob_turn(knob: np.ndarray, yaw: float) -> list[Waypoint]:
    """Grasp the knob top at ``knob`` (3,), turn the gripper by ``yaw`` rad about z, release."""
    up = np.array([0.0, 0.0, APPROACH])
    return [
        Waypoint(knob + up, -1.0, tol=0.02, budget=40),
        Waypoint(knob, -1.0, tol=0.006, budget=40),
        Waypoint(knob, 1.0, tol=1.0, budget=1, hold=10),
        Waypoint(knob, 1.0, tol=1.0, budget=50, yaw=yaw),
        Waypoint(knob, -1.0, tol=1.0, budget=1, hold=8, yaw=yaw),
        Waypoint(knob + up, -1.0, tol=0.03, budget=30, yaw=yaw),
    ]


TURN_DEG = 130.0  #: gripper turn (degrees about z) that takes a stove knob past its on threshold
LIFT_CHECK = 0.008  #: m, rise of a grasped object's root body, 5 cm into the lift, that counts as lifted
SETTLE_STEPS = 15  #: still steps (0.75 s at 20 Hz) before the first plan, while placed objects settle
GRIP_WIDTH = 0.072  #: m, widest span the fingers close across with margin (Panda: 0.08 m fully open)
RIM_INSET = 0.008  #: m, grasp point inside a rim's outer edge (the wall of a bowl or mug)
SURFACE_CATEGORIES = ("table", "floor")  #: entities that are the ground, never obstacles
#: m, grip site to the wrist centre (the Panda's joint-6 axis) with the gripper pointing down at home,
#: world frame (measured on simkit's Panda); its horizontal part, the 0.088 m link offset, can point
#: any way (joint 7 takes the gripper's yaw), :func:`_wrist_offset` turns it towards the shoulder
WRIST_OFFSET = np.array([-0.078, 0.004, 0.208])
#: m, farthest the wrist centre gets from the shoulder (joint-2 axis) with margin: the Panda's links
#: sqrt(0.316^2 + 0.0825^2) + sqrt(0.384^2 + 0.0825^2) = 0.719 m (Franka Emika DH parameters) less 15 mm
REACH = 0.704

_CORNER_SIGNS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)


def _shoulder(scene, data) -> np.ndarray | None:
    """World position (3,) of the arm's shoulder (joint-2 anchor), m; None without the Panda."""
    import mujoco

    j = mujoco.mj_name2id(scene.model, mujoco.mjtObj.mjOBJ_JOINT, "robot/joint2")
    return None if j < 0 else np.array(data.xanchor[j])


def _wrist_offset(p: np.ndarray, shoulder: np.ndarray, lean: np.ndarray | None = None) -> np.ndarray:
    """Grip site to wrist centre (3,), m, with the grip site over ``p`` (3,): the arm turns the
    :data:`WRIST_OFFSET` link offset towards the ``shoulder`` (3,) whatever the gripper's yaw (joint 7
    takes the yaw), then the rotation vector ``lean`` tilts it."""
    u = shoulder[:2] - p[:2]
    u = u / (np.linalg.norm(u) + 1e-12)
    o = np.array([u[0] * np.hypot(*WRIST_OFFSET[:2]), u[1] * np.hypot(*WRIST_OFFSET[:2]), WRIST_OFFSET[2]])
    if lean is None or not np.any(lean):
        return o
    return _axis_rotation(lean / np.linalg.norm(lean), float(np.linalg.norm(lean))) @ o


def reach_margin(scene, data, p: np.ndarray, yaw: float = 0.0, lean: np.ndarray | None = None) -> float:
    """How far (m) inside the arm's reach (:data:`REACH`) the wrist is with the grip site at ``p``
    (3,) and the gripper pointing down turned by ``yaw`` rad (leaned by ``lean``); negative: out of
    reach."""
    s = _shoulder(scene, data)
    if s is None:
        return 1.0
    return REACH - float(np.linalg.norm(p + _wrist_offset(p, s, lean) - s))


LEAN_DEG = (0.0, 10.0, 20.0, 30.0)  #: hand leans (degrees from vertical) tried for far grasps


def lean_for(scene, data, points: list[np.ndarray], yaw: float) -> tuple[np.ndarray | None, float]:
    """The smallest lean of :data:`LEAN_DEG` (fingertips tilted away from the shoulder, the wrist
    drawn back towards it) that brings every grip-site point (3,) within reach at ``yaw``, else the
    one reaching farthest: (rotation vector (3,) rad or None for upright, least reach margin m)."""
    s = _shoulder(scene, data)
    if s is None:
        return None, 1.0
    d = np.mean(points, axis=0)[:2] - s[:2]
    axis = np.array([d[1], -d[0], 0.0]) / (np.linalg.norm(d) + 1e-12)  # d x z: fingertips lean along d
    best: tuple[np.ndarray | None, float] | None = None
    for deg in LEAN_DEG:
        lean = None if deg == 0 else axis * np.deg2rad(deg)
        m = min(reach_margin(scene, data, p, yaw, lean) for p in points)
        if m >= 0:
            return lean, m
        if best is None or m > best[1]:
            best = (lean, m)
    assert best is not None
    return best


def reach_top(scene, data, xy: np.ndarray, yaw: float = 0.0, lean: np.ndarray | None = None) -> float:
    """Highest grip-site z (m) over ``xy`` (2,) that the arm reaches with the gripper down at ``yaw``
    (and ``lean``; the wrist on the sphere of radius :data:`REACH` about the shoulder); +inf without
    the Panda, the shoulder's height less the wrist offset where ``xy`` is out of reach at any height."""
    s = _shoulder(scene, data)
    if s is None:
        return np.inf
    o = _wrist_offset(np.array([xy[0], xy[1], s[2]]), s, lean)
    h2 = float(np.sum((xy + o[:2] - s[:2]) ** 2))
    return float(s[2] - o[2] + np.sqrt(max(REACH**2 - h2, 0.0)))


def _atoms(f: dict) -> list[dict]:
    if "op" in f:
        return [a for x in f["args"] for a in _atoms(x)]
    return [f]


def goal_atoms(desc: dict) -> list[tuple[str, list[str]]]:
    """The goal's atoms as (predicate, args), in the order the planner does them: the BDDL order,
    except that Close/Turnoff atoms come last (the drawer or door closes on what was put inside)."""
    atoms = [(a["predicate"], list(a["args"])) for a in _atoms(desc["goal"])]
    late = ("close", "turnoff")
    return [a for a in atoms if a[0] not in late] + [a for a in atoms if a[0] in late]


def corners(scene, data, name: str) -> np.ndarray:
    """World corners (8 G, 3), m, of the oriented boxes bounding entity ``name``'s G collision geoms
    (:func:`corners_of_geom`)."""
    return np.concatenate([corners_of_geom(scene.model, data, g) for g in scene.binding.subtree_geoms[name]])


def _obstacles(scene, data, skip: tuple[str, ...]) -> list[tuple[np.ndarray, np.ndarray]]:
    """World AABBs (lo, hi) of every entity but the ground and ``skip``."""
    b = scene.binding
    return [
        scene.evaluator.aabb(data, n)
        for n in b.bodies
        if n not in skip
        and not any(s in b.categories.get(n, "") for s in SURFACE_CATEGORIES)
        and len(b.subtree_geoms[n])
    ]


def _geom_room(scene, data, skip: tuple[str, ...], point: np.ndarray, above: float) -> float:
    """Distance (m, at most 1) from ``point`` (3,) to the nearest oriented collision box of every
    entity but the ground and ``skip`` whose top is above z = ``above`` (finer than the entities'
    AABBs of :func:`_obstacles`: a turned drawer's walls, not the whole cabinet's box)."""
    b, m = scene.binding, scene.model
    best = 1.0
    for n in b.bodies:
        if n in skip or any(s in b.categories.get(n, "") for s in SURFACE_CATEGORIES):
            continue
        for g in b.subtree_geoms[n]:
            rot = np.asarray(data.geom_xmat[g]).reshape(3, 3)
            c = np.asarray(data.geom_xpos[g]) + rot @ m.geom_aabb[g][:3]
            h = np.asarray(m.geom_aabb[g][3:])
            if c[2] + float(np.abs(rot[2]) @ h) <= above:
                continue
            q = np.maximum(np.abs(rot.T @ (point - c)) - h, 0.0)
            best = min(best, float(np.linalg.norm(q)))
    return best


def _clearance(point: np.ndarray, boxes: list[tuple[np.ndarray, np.ndarray]], above: float) -> float:
    """Horizontal distance (m) from ``point`` (3,) to the nearest box whose top is above z = ``above``."""
    best = 1.0
    for lo, hi in boxes:
        if hi[2] <= above:
            continue
        d = np.maximum(np.maximum(lo[:2] - point[:2], point[:2] - hi[:2]), 0.0)
        best = min(best, float(np.hypot(*d)))
    return best


def grasp_pose(scene, data, obj: str) -> tuple[np.ndarray, float]:
    """Grip-site grasp target (3,) m (world) and gripper yaw (rad) for object ``obj``.

    From the corners of its collision geometry (:func:`corners`): the yaw in [-90, 90) degrees (15
    degree steps) across which the object is narrowest; if that span fits between the fingers
    (:data:`GRIP_WIDTH`), the grasp is centred on it, ``min(0.035, h / 2)`` below the top (h the
    object's height) and at least 12 mm above its bottom. Wider objects (bowls, mugs, plates) are
    taken by the wall on the side with the most room around it (:func:`rim_grasp`).
    """
    pts = corners(scene, data, obj)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    z = max(lo[2] + 0.012, hi[2] - min(0.035, (hi[2] - lo[2]) / 2))
    best = None
    for yaw in np.deg2rad(np.arange(-90, 90, 15)):
        across = np.array([-np.sin(yaw), np.cos(yaw)])  # fingers close along world y at yaw 0
        along = np.array([np.cos(yaw), np.sin(yaw)])
        w = pts[:, :2] @ across
        v = pts[:, :2] @ along
        mid = across * (w.max() + w.min()) / 2 + along * (v.max() + v.min()) / 2
        short = max(0.0, -lean_for(scene, data, [np.array([mid[0], mid[1], z])], float(yaw))[1])
        score = (w.max() - w.min()) + 0.002 * abs(yaw) + 10.0 * short  # out of reach: turn the wrist in
        if best is None or score < best[0]:
            best = (score, w.max() - w.min(), float(yaw), mid)
    assert best is not None
    cat = scene.binding.categories.get(obj, "")
    if best[1] > GRIP_WIDTH or any(k in cat for k in ("bowl", "mug", "plate")):
        return rim_grasp(scene, data, obj)
    return np.array([best[3][0], best[3][1], z]), best[2]


def rim_grasp(scene, data, obj: str) -> tuple[np.ndarray, float]:
    """Grasp on the wall of a wide open object (bowl, mug, plate): fingers across the wall at the
    side (+-x, +-y of its collision box) with the most horizontal room to the other entities, among
    the sides no handle sticks out of (those not more than 1 cm farther from the root body than the
    nearest side). Height: 20 mm below the rim (11 mm for a plate's low rim)."""
    lo, hi = scene.evaluator.aabb(data, obj)
    root = np.asarray(data.xpos[scene.binding.bodies[obj]])
    plate = "plate" in scene.binding.categories.get(obj, "")
    z = hi[2] - (0.011 if plate else 0.02)
    reach = {
        (1, 1): hi[1] - root[1],
        (1, -1): root[1] - lo[1],
        (0, 1): hi[0] - root[0],
        (0, -1): root[0] - lo[0],
    }
    r = min(reach.values())
    best = None
    for (axis, sign), extent in reach.items():
        if extent > r + 0.01:
            continue
        p = np.array([root[0], root[1], z])
        p[axis] = root[axis] + sign * (r - RIM_INSET)
        outer = p.copy()
        outer[axis] += sign * 0.03
        yaw = 0.0 if axis == 1 else np.pi / 2
        # sides the arm reaches (with APPROACH above) first, then the most room
        ok = lean_for(scene, data, [p, p + [0, 0, APPROACH]], yaw)[1]
        key = (min(ok, 0.0), _geom_room(scene, data, (obj,), outer, z - 0.01))
        if (
            best is None
            or key[0] > best[0][0] + 1e-3
            or (abs(key[0] - best[0][0]) <= 1e-3 and key[1] > best[0][1] + 1e-3)
        ):
            best = (key, p, yaw)
    assert best is not None
    return best[1], best[2]


def _region_box(scene, data, region: str) -> tuple[np.ndarray, np.ndarray]:
    """Centre (3,) and world half extents (3,) of a region site's box, m."""
    sid = scene.binding.sites[region]
    half = np.abs(np.asarray(data.site_xmat[sid]).reshape(3, 3) @ scene.binding.site_size[region])
    return np.array(data.site_xpos[sid]), half


SPOT_ROOM = 0.10  #: m, distance to the nearest neighbour beyond which region spots count as equally free
TABLE_SPOT_ROOM = 0.15  #: m, the same for a region of the table (no entity of its own)


def _free_spot(
    scene, data, obj: str, centre: np.ndarray, half: np.ndarray, margin: float, target: str
) -> np.ndarray:
    """The point (2,) of a 5 x 5 grid over a region (``centre`` +- ``half`` shrunk by ``margin``, m)
    farthest from the other movable objects in or beside it (:func:`_near_region`), up to
    :data:`SPOT_ROOM` (:data:`TABLE_SPOT_ROOM` on the table), nearest the centre on ties (a second
    object goes beside the first). The region's own container (the basket a region belongs to) is
    not an obstacle. An object that the goal puts into ``target`` before another one goes to the
    far end of the region's longer axis, leaving the other end for the next."""
    parent = scene.binding.site_parent.get(target)
    others = [
        np.asarray(data.xpos[scene.binding.bodies[n]])[:2]
        for n in scene.descriptor["objects"]
        if n not in (obj, parent) and _near_region(scene, data, n, centre, half)
    ]
    span = np.maximum(half[:2] - margin, 0.0)
    room = TABLE_SPOT_ROOM if parent is None else SPOT_ROOM
    if not others:
        if not _shares_region_later(scene, obj, target):
            return centre[:2].copy()
        box = half[:2] if parent is None else np.subtract(*scene.evaluator.aabb(data, parent)[::-1])[:2]
        axis = int(np.argmax(box))  # along the container's longer side
        spot = centre[:2].copy()
        spot[axis] -= span[axis]
        return spot
    best, spot = -1.0, centre[:2].copy()
    for u in np.linspace(-1, 1, 5):
        for v in np.linspace(-1, 1, 5):
            p = centre[:2] + span * np.array([u, v])
            score = min(min(float(np.linalg.norm(p - o)) for o in others), room) - 0.01 * float(
                np.hypot(u, v)
            )
            if score > best:
                best, spot = score, p
    return spot


def _near_region(scene, data, name: str, centre: np.ndarray, half: np.ndarray) -> bool:
    """Whether entity ``name``'s root body lies within 5 cm of the region box (``centre`` +- ``half``,
    (3,) m) horizontally, or its collision AABB within 2 cm (a mug on a plate beside the region)."""
    root = np.asarray(data.xpos[scene.binding.bodies[name]])[:2]
    if np.all(np.abs(root - centre[:2]) < half[:2] + 0.05):
        return True
    lo, hi = scene.evaluator.aabb(data, name)
    return bool(
        np.all(lo[:2] < centre[:2] + half[:2] + 0.02) and np.all(hi[:2] > centre[:2] - half[:2] - 0.02)
    )


def _shares_region_later(scene, obj: str, target: str) -> bool:
    """Whether a goal atom after ``obj``'s own puts another object into/onto the same ``target``."""
    placed = [a[0] for p, a in goal_atoms(scene.descriptor) if p in ("in", "on") and a[1] == target]
    return obj in placed and placed.index(obj) < len(placed) - 1


def _place_target(scene, data, pred: str, obj: str, target: str) -> tuple[np.ndarray, float]:
    """Where the object's root body goes: xy (2,) m and the support height z (m) its bottom rests on."""
    b, ev = scene.binding, scene.evaluator
    if target in b.sites:
        centre, half = _region_box(scene, data, target)
        lo, hi = ev.aabb(data, obj)
        # On a table region the root may come nearer its edge (room for the open fingers)
        inset = 0.4 if pred == "on" and b.site_parent.get(target) is None else 0.6
        margin = min(0.5 * float(max(hi[0] - lo[0], hi[1] - lo[1])), inset * float(min(half[:2])))
        spot = _free_spot(scene, data, obj, centre, half, margin, target)
        joints = b.site_joints.get(target) or []
        if joints and int(scene.model.jnt_type[joints[0]]) == 2:  # a drawer: as far out as it holds
            out = -np.asarray(data.xaxis[joints[0]])[:2]
            reach = float(np.abs(out) @ half[:2])
            spot = spot + out * max(reach - margin - 0.01, 0.0)
        support = centre[2] - half[2] if pred == "in" else centre[2] + half[2]
        if pred == "in" and b.site_parent.get(target):
            support = max(
                support, _floor_below(scene, data, b.site_parent[target], spot, centre[2] + half[2])
            )
        return spot, support
    tlo, thi = ev.aabb(data, target)
    spot = np.asarray(data.xpos[b.bodies[target]])[:2].copy()
    cat = b.categories.get(target, "")
    return spot, (tlo[2] + 0.01 if "bowl" in cat else thi[2])


def _floor_below(scene, data, entity: str, xy: np.ndarray, top: float) -> float:
    """Height (m) of the highest collision-box top of ``entity`` under the point ``xy`` below ``top``
    (the floor of a basket, drawer or compartment); -inf when none."""
    best = -np.inf
    for g in scene.binding.subtree_geoms[entity]:
        pts = corners_of_geom(scene.model, data, g)
        glo, ghi = pts.min(axis=0), pts.max(axis=0)
        if np.all(glo[:2] <= xy) and np.all(xy <= ghi[:2]) and ghi[2] < top:
            best = max(best, float(ghi[2]))
    return best


def _carry_height(
    scene,
    data,
    obj: str,
    a: np.ndarray,
    b: np.ndarray,
    hang: float,
    yaw: float = 0.0,
    lean: np.ndarray | None = None,
) -> float:
    """Grip-site height (m) to carry ``obj`` from ``a`` to ``b`` (3,): the highest entity top in a
    12 cm wide corridor between them plus the ``hang`` (m, grip site to the object's bottom) and
    :data:`CARRY_CLEARANCE` / 2, at least :data:`CARRY_CLEARANCE` above both ends; lowered to what
    the arm reaches over both ends (:func:`reach_top`, gripper at ``yaw``) but kept
    :data:`CARRY_CLEARANCE` / 2 over that highest top and 6 cm over both ends."""
    want = _corridor_top(scene, data, obj, a, b, max(a[2], b[2]) + CARRY_CLEARANCE - hang)
    need = _corridor_top(scene, data, obj, a, b, max(a[2], b[2]) + 0.06 - hang) + hang + CARRY_CLEARANCE / 2
    cap = min(reach_top(scene, data, a[:2], yaw, lean), reach_top(scene, data, b[:2], yaw, lean))
    return max(need, min(want + hang + CARRY_CLEARANCE / 2, cap))


def _corridor_top(scene, data, obj: str, a: np.ndarray, b: np.ndarray, top: float) -> float:
    """The highest entity top (m) in a 12 cm wide corridor from ``a`` to ``b`` (3,), at least ``top``."""
    seg = b[:2] - a[:2]
    length = float(np.linalg.norm(seg))
    for lo, hi in _obstacles(scene, data, (obj,)):
        c = np.clip((lo[:2] + hi[:2]) / 2, lo[:2], hi[:2])
        t = 0.0 if length < 1e-6 else float(np.clip(np.dot(c - a[:2], seg) / length**2, 0.0, 1.0))
        p = a[:2] + t * seg
        d = np.maximum(np.maximum(lo[:2] - p, p - hi[:2]), 0.0)
        if float(np.hypot(*d)) < 0.06:
            top = max(top, float(hi[2]))
    return top


def _pick_place_within_reach(
    scene,
    data,
    obj: str,
    grasp: np.ndarray,
    place: np.ndarray,
    hang: float,
    yaw: float,
    lifted,
    turn: float = 0.0,
) -> list[Waypoint]:
    """:func:`pick_place` with the hand leaned (:func:`lean_for`) so that the grasp, the point above
    it and the place are within the arm's reach, and the carry height (:func:`_carry_height`) too."""
    lean, _ = lean_for(scene, data, [grasp, grasp + [0.0, 0.0, APPROACH], place], yaw)
    carry = _carry_height(scene, data, obj, grasp, place, hang, yaw, lean)
    return pick_place(grasp, place, carry, yaw, lifted, lean, turn)


def _rot2(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def _turn_to_fit(
    scene, data, obj: str, target: str, spot: np.ndarray, grasp: np.ndarray, yaw: float
) -> float:
    """Turn (rad, about the grip site) that makes ``obj``'s footprint (its collision-box corners)
    fit best inside region ``target``'s box with its root body at ``spot`` (2,): 0, or the turn in
    (-pi/2, pi/2] that lines the fingers' closing direction (across the object's narrow side) up with
    the region's narrow axis, when that leaves at least 5 mm less of the footprint outside."""
    if target not in scene.binding.sites:
        return 0.0
    sid = scene.binding.sites[target]
    rs = np.asarray(data.site_xmat[sid]).reshape(3, 3)[:2, :2]
    half = np.asarray(scene.binding.site_size[target])[:2]
    centre = np.asarray(data.site_xpos[sid])[:2]
    root = np.asarray(data.xpos[scene.binding.bodies[obj]])[:2]
    q = corners(scene, data, obj)[:, :2] - grasp[:2]
    narrow = rs[:, int(np.argmin(half))]  # world direction of the region's narrow axis
    across = np.array([-np.sin(yaw), np.cos(yaw)])
    align = float(np.arctan2(across[0] * narrow[1] - across[1] * narrow[0], across @ narrow))
    align = (align + np.pi / 2) % np.pi - np.pi / 2  # the fingers are symmetric: mod pi

    def excess(turn: float) -> float:
        r = _rot2(turn)
        place = spot + r @ (grasp[:2] - root)
        local = (place + q @ r.T - centre) @ rs
        return float(np.max(np.abs(local) - half))

    return align if excess(align) < excess(0.0) - 0.005 else 0.0


OPEN_HALF_SPAN = 0.05  #: m, grip site to the outer face of an open finger (Panda: 0.04 opening, 1 cm finger)


def _fingers_and_footprint(
    scene, data, obj: str, spot: np.ndarray, grasp: np.ndarray, yaw: float, turn: float
) -> np.ndarray:
    """World xy points (2 + 8 G, 2), m, with ``obj`` (grasped at ``grasp`` (3,), gripper at ``yaw``
    rad) turned by ``turn`` rad about the grip site and its root body at ``spot`` (2,): the outer
    faces of the two open fingers (the grip site +- :data:`OPEN_HALF_SPAN` across the gripper) and
    the corners of its collision boxes."""
    root = np.asarray(data.xpos[scene.binding.bodies[obj]])[:2]
    foot = corners(scene, data, obj)[:, :2] - grasp[:2]
    r = _rot2(turn)
    g = spot + r @ (grasp[:2] - root)
    across = r @ np.array([-np.sin(yaw), np.cos(yaw)])
    return np.vstack([g + OPEN_HALF_SPAN * across, g - OPEN_HALF_SPAN * across, g + foot @ r.T])


def _turn_for_room(
    scene, data, obj: str, target: str, spot: np.ndarray, grasp: np.ndarray, yaw: float
) -> float:
    """Turn (rad about the grip site, 0 or pi/2) for putting ``obj`` onto the region ``target`` with
    its root body at ``spot`` (2,) that leaves the most room between the neighbours' collision AABBs
    (objects in or beside the region, :func:`_near_region`) and both the open fingers and the
    object's footprint (:func:`_fingers_and_footprint`); pi/2 only when that gains at least 1 cm.
    0 for entity targets and regions without neighbours."""
    if target not in scene.binding.sites:
        return 0.0
    centre, half = _region_box(scene, data, target)
    boxes = [
        scene.evaluator.aabb(data, n)
        for n in scene.descriptor["objects"]
        if n != obj and _near_region(scene, data, n, centre, half)
    ]
    if not boxes:
        return 0.0

    def room(turn: float) -> float:
        pts = _fingers_and_footprint(scene, data, obj, spot, grasp, yaw, turn)
        gaps = [np.max(np.maximum(lo[:2] - pts, pts - hi[:2]), axis=1) for lo, hi in boxes]
        return float(np.min(gaps))

    return np.pi / 2 if room(np.pi / 2) > room(0.0) + 0.01 else 0.0


def _turn_for_fingers(
    scene, data, obj: str, target: str, spot: np.ndarray, grasp: np.ndarray, yaw: float
) -> float:
    """Turn (rad about the grip site, 0 or pi/2) for putting ``obj`` into a container's region
    ``target`` with its root body at ``spot`` (2,) that keeps the open fingers and the footprint
    (:func:`_fingers_and_footprint`, gripper at ``yaw``) farthest inside the region's box (off the container's walls: an object at the end of a basket, fingers opening
    along that end, would put a finger on the wall); pi/2 only when that gains at least 1 cm."""
    centre, half = _region_box(scene, data, target)

    def room(turn: float) -> float:
        pts = _fingers_and_footprint(scene, data, obj, spot, grasp, yaw, turn)
        return float(np.min(half[:2] - np.abs(pts - centre[:2])))

    return np.pi / 2 if room(np.pi / 2) > room(0.0) + 0.01 else 0.0


FINGER_DEPTH = 0.02  #: m, how far the fingertips reach below the grip site (Panda hand)
SLOT_SLACK = 0.03  #: m, a region narrower than the object's narrow side plus this is a slot


def _tight_rim(scene, data, obj: str, target: str) -> float | None:
    """For a region ``target`` of an entity whose narrow side leaves less than :data:`SLOT_SLACK`
    beside ``obj``'s narrow side (a caddy compartment), the highest top (m) of that entity's collision
    boxes over the region grown by 2 cm (its walls); None for other targets."""
    b = scene.binding
    parent = b.site_parent.get(target) if target in b.sites else None
    if parent is None:
        return None
    pts = corners(scene, data, obj)[:, :2]
    narrow = min(float(np.ptp(pts @ [np.cos(a), np.sin(a)])) for a in np.deg2rad(np.arange(0, 180, 15)))
    _, half = _region_box(scene, data, target)
    if 2 * float(np.min(np.asarray(b.site_size[target])[:2])) > narrow + SLOT_SLACK:
        return None
    centre = np.asarray(data.site_xpos[b.sites[target]])
    top = -np.inf
    for g in b.subtree_geoms[parent]:
        c = corners_of_geom(scene.model, data, g)
        if np.all(c.min(axis=0)[:2] < centre[:2] + half[:2] + 0.02) and np.all(
            c.max(axis=0)[:2] > centre[:2] - half[:2] - 0.02
        ):
            top = max(top, float(c[:, 2].max()))
    return top if np.isfinite(top) else None


def plan_place(scene, data, pred: str, obj: str, target: str) -> list[Waypoint]:
    """Pick ``obj`` and put it On/In ``target`` (an entity or a region site) from the current state."""
    b = scene.binding
    if "plate" in b.categories.get(obj, "") and target in b.sites and b.site_parent.get(target) is None:
        return _push_to(scene, data, obj, target)  # a plate is too flat and wide to lift: slide it
    lo, _ = scene.evaluator.aabb(data, obj)
    grasp, yaw = grasp_pose(scene, data, obj)
    hang = float(grasp[2] - lo[2])
    spot, support = _place_target(scene, data, pred, obj, target)
    turn = (
        _turn_to_fit(scene, data, obj, target, spot, grasp, yaw)
        if pred == "in"
        else _turn_for_room(scene, data, obj, target, spot, grasp, yaw)
    )
    if pred == "in" and turn == 0.0 and b.site_parent.get(target):
        turn = _turn_for_fingers(scene, data, obj, target, spot, grasp, yaw)
    root = np.asarray(data.xpos[b.bodies[obj]])[:2]
    offset = _rot2(turn) @ (grasp[:2] - root)  # grip site vs the object's root body, turned with it
    place = np.array([spot[0] + offset[0], spot[1] + offset[1], support + hang + 0.02])
    rim = _tight_rim(scene, data, obj, target) if pred == "in" else None
    if rim is not None:  # a slot: centre the footprint, not the root; fingertips above its walls
        pts = corners(scene, data, obj)[:, :2]
        place[:2] -= _rot2(turn) @ ((pts.min(axis=0) + pts.max(axis=0)) / 2 - root)
        place[2] = max(place[2], rim + FINGER_DEPTH + 0.01)
    z0 = float(data.xpos[b.bodies[obj]][2])
    plan = _pick_place_within_reach(scene, data, obj, grasp, place, hang, yaw, (obj, z0 + LIFT_CHECK), turn)
    if rim is not None:
        lean_in = _lean_into_slot(scene, data, obj, target, grasp, yaw, turn)
        if lean_in is not None:
            plan = plan[:5] + _tilted_release(plan[5], *lean_in)
    return _approach_over(scene, data, obj, plan)


def _approach_over(scene, data, obj: str, plan: list[Waypoint]) -> list[Waypoint]:
    """``plan`` (a :func:`pick_place`) with the hand first rising to the carry height and crossing
    at it to above the approach point, when an entity in the 12 cm corridor from the grip site to
    that point reaches within 8 cm of the lower of the two (the open fingers would catch a basket's
    rim or handle on the straight line down from the last place)."""
    import mujoco

    sid = mujoco.mj_name2id(scene.model, mujoco.mjtObj.mjOBJ_SITE, "robot/gripper/grip_site")
    if sid < 0:
        return plan
    ee, first = np.array(data.site_xpos[sid]), plan[0]
    if _corridor_top(scene, data, obj, ee, first.pos, -np.inf) + 0.08 <= min(ee[2], first.pos[2]):
        return plan
    z = max(float(ee[2]), float(plan[4].pos[2]))
    up = [np.array([ee[0], ee[1], z]), np.array([first.pos[0], first.pos[1], z])]
    return [Waypoint(p, -1.0, tol=0.02, budget=50, yaw=first.yaw, lean=first.lean) for p in up] + plan


SLOT_LEAN_MAX_DEG = 35.0  #: largest lean (degrees from vertical) an object is released at in a slot
SLOT_DROP = 0.01  #: m, height of a leaned object's lowest corner above the slot's floor at release


def _slot_walls(scene, data, target: str) -> tuple[np.ndarray, float, float, float, float, float] | None:
    """The walls of the slot region ``target`` along its narrow axis: (n, a, c, h, floor, top_a) with
    n (3,) the horizontal unit from the higher wall towards the lower one, a and c (m, along n from
    the region's centre) the inner faces of the higher and the lower wall, h (m) the lower wall's
    top above the slot's floor, floor (m) the floor's height under the region's centre and top_a (m)
    the higher wall's top; walls are the parent entity's collision boxes overlapping the region's
    long extent within 1 cm outside its narrow sides. None when either wall or the floor is missing
    or the site's horizontal axes are not its x and y."""
    b = scene.binding
    parent = b.site_parent[target]
    centre, _ = _region_box(scene, data, target)
    rs = np.asarray(data.site_xmat[b.sites[target]]).reshape(3, 3)
    size = np.asarray(b.site_size[target])
    k = int(np.argmin(size[:2]))
    n, lng = rs[:, k] * np.array([1, 1, 0]), rs[:, 1 - k] * np.array([1, 1, 0])
    if min(np.linalg.norm(n), np.linalg.norm(lng)) < 0.5:  # the site's x or y axis is near vertical
        return None
    n, lng = n / np.linalg.norm(n), lng / np.linalg.norm(lng)
    sides: dict[int, tuple[float, float]] = {}
    for g in b.subtree_geoms[parent]:
        pts = corners_of_geom(scene.model, data, g) - centre
        s, u = pts @ n, pts @ lng
        if u.max() < -size[1 - k] or u.min() > size[1 - k]:
            continue
        for sign in (1, -1):
            inner = float((s * sign).min())
            if size[k] - 0.01 <= inner <= size[k] + 0.01 and (sign not in sides or inner < sides[sign][0]):
                sides[sign] = (inner, float(pts[:, 2].max() + centre[2]))
    floor = _floor_below(scene, data, parent, centre[:2], centre[2])
    if len(sides) < 2 or not np.isfinite(floor):
        return None
    low = 1 if sides[1][1] <= sides[-1][1] else -1
    return low * n, -sides[-low][0], sides[low][0], sides[low][1] - floor, floor, sides[-low][1]


def _lean_into_slot(
    scene, data, obj: str, target: str, grasp: np.ndarray, yaw: float, turn: float
) -> tuple[np.ndarray, np.ndarray] | None:
    """A grip-site release point (3,) and hand lean (rotation vector (3,), rad) that put ``obj``
    (grasped at ``grasp`` (3,) with the gripper at ``yaw`` rad, its narrow side squared up with the
    fingers' closing direction (to 0.5 degree), turned by ``turn`` rad about z) leaning in the slot
    ``target``: its lower edge on the slot's floor against the higher wall, its face on the lower
    wall's top edge, so its root body stands above the floor (an object standing on a caddy's base
    has its root below the bottom of LIBERO's ``In`` box). The lean theta satisfies
    tan(theta) = (c - s_e) / h (:func:`_slot_walls`), s_e the lower edge's position, t cos(theta)
    + 3 mm off the higher wall's face (t the object's thickness); released with its lowest corner
    :data:`SLOT_DROP` above the floor. None when the slot has no such walls or the
    lean would not tip the object onto the lower wall (its centre not past its lower edge)."""
    walls = _slot_walls(scene, data, target)
    if walls is None:
        return None
    n, a, c, h, floor, _ = walls
    centre, _ = _region_box(scene, data, target)
    pts = corners(scene, data, obj) - grasp
    z = np.array([0.0, 0.0, 1.0])
    across = np.array([-np.sin(yaw), np.cos(yaw), 0.0])
    square = min(  # the closing fingers square the object's narrow side up with their closing direction
        (np.deg2rad(d) for d in np.arange(-10.0, 10.5, 0.5)),
        key=lambda u: float(np.ptp(pts @ _axis_rotation(z, u).T @ across)),
    )
    q = pts @ _axis_rotation(z, turn + square).T  # corners about the grip site, as held and turned
    t, height = float(np.ptp(q @ n)), float(np.ptp(q[:, 2]))
    theta = 0.0
    for _ in range(3):  # the leaned object's far-side lower edge 3 mm off the higher wall
        edge = a + t * np.cos(theta) + 0.003
        theta = float(np.arctan2(c - edge, h))
    if not np.tan(theta) > t / height or theta > np.deg2rad(SLOT_LEAN_MAX_DEG):
        return None
    axis = np.cross(z, n)  # tips +z towards +n
    r = q @ _axis_rotation(axis, theta).T
    low = r[int(np.argmin(r[:, 2]))]
    lng = np.cross(n, z)
    along = float(((r @ lng).min() + (r @ lng).max()) / 2)
    g = centre.copy()
    g[:2] = centre[:2] + n[:2] * (edge - float(low @ n)) - lng[:2] * along
    g[2] = floor + SLOT_DROP - float(low[2])
    return g, axis * theta


def _tilted_release(over: Waypoint, place: np.ndarray, lean: np.ndarray) -> list[Waypoint]:
    """The end of a pick-and-place that releases the object leaned: from ``over`` (the waypoint above
    the place) the hand leans by ``lean`` (rotation vector (3,), rad), goes over ``place`` (3,),
    descends to it, opens and rises back to the carry height."""
    from scipy.spatial.transform import Rotation

    if over.lean is not None:
        lean = (Rotation.from_rotvec(lean) * Rotation.from_rotvec(over.lean)).as_rotvec()
    top = np.array([place[0], place[1], over.pos[2]])
    y = over.yaw
    return [
        Waypoint(over.pos, 1.0, tol=0.015, budget=70, yaw=y, lean=over.lean),
        Waypoint(top, 1.0, tol=0.01, budget=60, hold=5, yaw=y, lean=lean),
        Waypoint(place, 1.0, tol=0.006, budget=60, hold=5, yaw=y, lean=lean),
        Waypoint(place, -1.0, tol=1.0, budget=1, hold=10, yaw=y, lean=lean),
        Waypoint(top, -1.0, tol=0.015, budget=50, yaw=y, lean=lean),
    ]


def plan_atom(scene, data, pred: str, args: list[str]) -> list[Waypoint]:
    """Waypoints that make one goal atom hold, planned from the current state ``data``.

    Raises:
        ValueError: a predicate/argument pattern the planner does not script.
    """
    if pred == "open" and _drawer_joint(scene, args[0]) is not None:
        return _open_drawer(scene, data, args[0])
    if pred == "close" and _drawer_joint(scene, args[0]) is not None:
        return _close_drawer(scene, data, args[0])
    if pred == "close" and _door_joint(scene, args[0]) is not None:
        return _close_door(scene, data, args[0])
    if pred in ("turnon", "turnoff"):
        return _turn_knob(scene, data, args[0], on=pred == "turnon")
    if pred == "clear":
        return _clear_of_sweep(scene, data, *args)
    if pred in ("on", "in") and len(args) == 2:
        return plan_place(scene, data, pred, *args)
    raise ValueError(f"no scripted primitive for {pred}({', '.join(args)})")


def prerequisite(scene, data, pred: str, args: list[str]) -> tuple[str, list[str]] | None:
    """An atom that must hold before (pred, args) can be planned: Open(drawer) for In(x, region in a
    closed drawer), and before that ``clear(x, region)`` (x moved out of the space the opening
    drawer sweeps, :func:`_in_sweep`) when x lies there; ``None`` when there is none."""
    if pred == "in" and _drawer_joint(scene, args[1]) is not None and not _is_open(scene, data, args[1]):
        if _in_sweep(scene, data, *args):
            return ("clear", list(args))
        return ("open", [args[1]])
    return None


def holds(scene, data, pred: str, args: list[str]) -> bool:
    """Whether an atom holds: the goal predicates, and ``clear(x, region)``: x out of the sweep."""
    if pred == "clear":
        return not _in_sweep(scene, data, *args)
    return bool(scene.evaluator.atom(data, [pred, *args]))


def _sweep_box(scene, data, region: str) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal box (lo, hi) (2,), m, the drawer holding ``region`` covers once pulled 0.17 m open,
    widened by 4 cm (the hand's room)."""
    j = _drawer_joint(scene, region)
    assert j is not None
    m = scene.model
    body = int(m.jnt_bodyid[j])
    geoms = [
        g
        for g in scene.binding.subtree_geoms[scene.binding.site_parent[region] or ""]
        if m.geom_bodyid[g] == body
    ]
    pts = np.concatenate([corners_of_geom(m, data, g) for g in geoms])[:, :2]
    moved = pts + (-np.asarray(data.xaxis[j])[:2]) * 0.17
    both = np.concatenate([pts, moved])
    return both.min(axis=0) - 0.04, both.max(axis=0) + 0.04


def _in_sweep(scene, data, obj: str, region: str) -> bool:
    lo, hi = _sweep_box(scene, data, region)
    olo, ohi = scene.evaluator.aabb(data, obj)
    return bool(np.all(olo[:2] < hi) and np.all(ohi[:2] > lo))


def _clear_of_sweep(scene, data, obj: str, region: str) -> list[Waypoint]:
    """Pick ``obj`` and set it down beside the drawer's sweep (sideways, on the side it is on)."""
    b = scene.binding
    lo, hi = _sweep_box(scene, data, region)
    j = _drawer_joint(scene, region)
    assert j is not None
    out = -np.asarray(data.xaxis[j])[:2]
    side = np.array([-out[1], out[0]])
    olo, ohi = scene.evaluator.aabb(data, obj)
    root = np.asarray(data.xpos[b.bodies[obj]])
    r = 0.5 * float(np.max(ohi[:2] - olo[:2]))
    centre = (lo + hi) / 2
    half = float(np.abs(side) @ (hi - lo) / 2)
    sign = 1.0 if float((root[:2] - centre) @ side) >= 0 else -1.0
    spot = root[:2] + side * (float((centre - root[:2]) @ side) + sign * (half + r + 0.02))
    grasp, yaw = grasp_pose(scene, data, obj)
    hang = float(grasp[2] - olo[2])
    place = np.array([spot[0] + grasp[0] - root[0], spot[1] + grasp[1] - root[1], olo[2] + hang + 0.01])
    z0 = float(root[2])
    return _pick_place_within_reach(scene, data, obj, grasp, place, hang, yaw, (obj, z0 + LIFT_CHECK))


def plan_task(scene, data) -> list[Waypoint]:
    """An open-loop plan for the whole goal from one state: :func:`plan_atom` of every atom of
    :func:`goal_atoms` (with its :func:`prerequisite`) on ``data`` (an ``MjData`` after ``mj_forward``
    that ``scene``'s evaluator reads). :class:`ScriptedPolicy` replans each atom from the state the
    previous one left instead, which :func:`~simkit.envs.hebero.demos.record_demo` uses.

    Raises:
        ValueError: the goal uses a predicate/argument pattern the planner does not script.
    """
    plan: list[Waypoint] = []
    for pred, args in goal_atoms(scene.descriptor):
        pre = prerequisite(scene, data, pred, args)
        if pre is not None:
            plan += plan_atom(scene, data, *pre)
        plan += plan_atom(scene, data, pred, args)
    return plan


class ScriptedPolicy:
    """Closed-loop scripted policy: the goal's atoms one at a time, each planned from the state the
    previous one left (an atom already holding is skipped; one that does not hold after its plan is
    planned again, up to ``tries`` times; when the queue is empty and the goal does not hold, the
    atoms that fail are queued once more).

    The first :data:`SETTLE_STEPS` actions keep the arm still (the objects a reset placed settle
    first). :meth:`action` gives the env action (7,); ``finished`` is True once nothing is left to do (the
    gripper then stays open and still); ``log`` names the atoms given up on and why.
    """

    def __init__(self, scene, rot0: np.ndarray, pos_scale: float, rot_scale: float, tries: int = 2):
        self.scene, self.rot0, self.s_p, self.s_R, self.tries = scene, rot0, pos_scale, rot_scale, tries
        self.settle = SETTLE_STEPS
        self.queue = goal_atoms(scene.descriptor)
        self.tracker: Tracker | None = None
        self.attempts: dict[str, int] = {}
        self.pre_tried: set[tuple[str, str]] = set()
        self.requeued = False
        self.finished = False
        self.log: list[str] = []

    def action(self, data_now, ee: np.ndarray, rot: np.ndarray) -> np.ndarray:
        """Action (7,) for grip-site position ``ee`` (3,) and orientation ``rot`` (3, 3); ``data_now()``
        returns the current ``MjData`` (called only when the next atom is planned)."""
        if self.settle > 0:  # objects placed at reset are still dropping onto their supports
            self.settle -= 1
            return np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0])
        if not self.finished and (self.tracker is None or self.tracker.done):
            self._next(data_now())
        if self.tracker is None or self.finished:
            a = np.zeros(7)
            a[6] = -1.0
            return a
        k = self.tracker.k
        a = self.tracker.action(ee, rot)
        check = self.tracker.plan[k].lifted
        if self.tracker.k > k and check is not None:
            data = data_now()
            if float(data.xpos[self.scene.binding.bodies[check[0]]][2]) < check[1]:
                self.tracker = None  # the grasp missed: plan the atom again from here
        return a

    def _next(self, data) -> None:
        ev = self.scene.evaluator
        while True:
            if not self.queue and not self.requeued and not ev.formula(data, self.scene.descriptor["goal"]):
                self.requeued = True
                self.queue = [
                    a for a in goal_atoms(self.scene.descriptor) if not ev.atom(data, [a[0], *a[1]])
                ]
                self.attempts.clear()
                self.pre_tried.clear()
            if not self.queue:
                self.finished, self.tracker = True, None
                return
            pred, args = self.queue[0]
            name = f"{pred}({', '.join(args)})"
            if holds(self.scene, data, pred, args):
                self.queue.pop(0)
                continue
            pre = prerequisite(self.scene, data, pred, args)
            if pre is not None and (name, pre[0]) not in self.pre_tried:
                self.pre_tried.add((name, pre[0]))  # each prerequisite is tried once per atom
                self.queue.insert(0, pre)
                continue
            if self.attempts.get(name, 0) >= self.tries:
                self.log.append(f"{name} still false after {self.tries} plan(s)")
                self.queue.pop(0)
                continue
            self.attempts[name] = self.attempts.get(name, 0) + 1
            try:
                plan = plan_atom(self.scene, data, pred, args)
            except ValueError as exc:
                self.log.append(str(exc))
                self.queue.pop(0)
                continue
            self.tracker = Tracker(plan, self.rot0, self.s_p, self.s_R)
            return


def _is_open(scene, data, region: str) -> bool:
    return bool(scene.evaluator.articulation(data, "open", region))


def _drawer_joint(scene, x: str) -> int | None:
    """The slide joint of the drawer holding region ``x`` (None when ``x`` is not in a drawer)."""
    joints = scene.binding.site_joints.get(x) or []
    return joints[0] if joints and int(scene.model.jnt_type[joints[0]]) == 2 else None


def _door_joint(scene, x: str) -> int | None:
    """The hinge joint of a door (an entity whose only articulation is one hinge, e.g. the microwave)."""
    joints = scene.binding.joints.get(x) or []
    cat = scene.binding.categories.get(x, "")
    return (
        joints[0]
        if len(joints) == 1 and int(scene.model.jnt_type[joints[0]]) == 3 and "stove" not in cat
        else None
    )


def _handle(scene, data, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Position (3,) of the collision geom farthest out along the opening direction of the drawer on
    slide joint ``j`` (its handle bar), and that unit direction (3,) (LIBERO's cabinets open at
    negative q)."""
    m = scene.model
    body = int(m.jnt_bodyid[j])
    direction = -np.array(data.xaxis[j])
    geoms = [
        g for g in range(m.ngeom) if m.geom_bodyid[g] == body and (m.geom_contype[g] or m.geom_conaffinity[g])
    ]
    front = max(geoms, key=lambda g: float(np.dot(data.geom_xpos[g], direction)))
    return np.array(data.geom_xpos[front]), direction


def _open_drawer(scene, data, region: str) -> list[Waypoint]:
    """Hook the handle of the drawer holding ``region``'s site and pull it 0.17 m open."""
    j = _drawer_joint(scene, region)
    assert j is not None
    handle, direction = _handle(scene, data, j)
    return handle_pull(handle, direction, 0.17)


PUSH_LEAN_DEG = 45.0  #: hand lean (degrees from vertical, fingertips ahead) for a drawer push


def _close_drawer(scene, data, region: str) -> list[Waypoint]:
    """Push the drawer holding ``region`` shut: closed fingers lowered 6 cm in front of its handle,
    moved against the opening direction by the drawer's travel to its closed limit plus 1.5 cm, then
    back out and up. The hand is turned with its thin side along the push and leaned by
    :data:`PUSH_LEAN_DEG`, fingertips ahead (:func:`drawer_push`): upright, the palm (2.4 cm above
    the grip site, 10.5 cm to either side of it along the fingers' closing axis) meets the cabinet's
    front and the next drawer's handle above the handle before the drawer is shut."""
    m = scene.model
    j = _drawer_joint(scene, region)
    assert j is not None
    handle, direction = _handle(scene, data, j)
    travel = float(m.jnt_range[j][1] - data.qpos[m.jnt_qposadr[j]])
    return drawer_push(handle, direction, travel + 0.015)


def drawer_push(handle: np.ndarray, direction: np.ndarray, distance: float) -> list[Waypoint]:
    """Closed fingers lowered 6 cm out from a drawer's ``handle`` (3,) along its opening ``direction``
    (3,), a horizontal unit vector, pushed against it to ``distance`` m past the handle, then drawn back and
    up. The gripper is turned so that its closing axis is across the push (its 7 cm thin side along
    it) and leaned by :data:`PUSH_LEAN_DEG` about the horizontal axis push x z (fingertips towards
    the drawer, the palm back and up, away from the cabinet's front above the handle)."""
    p = -np.asarray(direction, float)
    yaw = float(np.arctan2(p[1], p[0]))
    axis = np.cross(p, [0.0, 0.0, 1.0])
    lean = axis / (np.linalg.norm(axis) + 1e-12) * np.deg2rad(PUSH_LEAN_DEG)
    start = handle + direction * 0.06
    end = handle + p * distance
    up = np.array([0.0, 0.0, APPROACH])
    return [
        Waypoint(start + up, 1.0, tol=0.02, budget=50, yaw=yaw, lean=lean),
        Waypoint(start, 1.0, tol=0.008, budget=40, yaw=yaw, lean=lean),
        Waypoint(end, 1.0, tol=0.01, budget=80, hold=5, yaw=yaw, lean=lean),
        Waypoint(end + direction * 0.08, 1.0, tol=0.02, budget=30, yaw=yaw, lean=lean),
        Waypoint(end + direction * 0.08 + up, 1.0, tol=0.03, budget=30, yaw=yaw, lean=lean),
    ]


def _close_door(scene, data, fixture: str) -> list[Waypoint]:
    """Swing a hinged door shut: closed fingers placed against the door's outer face at 70 % of its
    width from the hinge and mid height, then moved along the arc about the hinge axis to the closed
    angle (its joint limit nearer zero) plus 5 degrees, then lifted away."""
    m = scene.model
    j = _door_joint(scene, fixture)
    assert j is not None
    q = float(data.qpos[m.jnt_qposadr[j]])
    lo_q, hi_q = (float(v) for v in m.jnt_range[j])
    q_closed = lo_q if abs(lo_q) < abs(hi_q) else hi_q
    axis, anchor = np.array(data.xaxis[j]), np.array(data.xanchor[j])
    body = int(m.jnt_bodyid[j])
    geoms = [g for g in scene.binding.subtree_geoms[fixture] if m.geom_bodyid[g] == body]
    pts = np.concatenate([corners_of_geom(m, data, g) for g in geoms])
    radial = pts - anchor
    radial -= np.outer(radial @ axis, axis)
    far = pts[np.argmax(np.linalg.norm(radial, axis=1))]
    z_mid = float((pts[:, 2].min() + pts[:, 2].max()) / 2)
    arm = far - anchor
    arm -= np.dot(arm, axis) * axis
    sweep = (q_closed - q) + np.sign(q_closed - q) * np.deg2rad(5.0)
    plan: list[Waypoint] = []
    for k, f in enumerate(np.linspace(0.0, 1.0, 7)):
        ang = f * sweep
        r = _axis_rotation(axis, ang) @ (0.7 * arm)
        tangent = np.cross(axis, r) * np.sign(sweep)
        tangent /= np.linalg.norm(tangent) + 1e-12
        p = anchor + r - tangent * (0.05 if k == 0 else 0.015)
        p[2] = z_mid
        if k == 0:
            plan.append(Waypoint(p + np.array([0.0, 0.0, 0.15]), 1.0, tol=0.02, budget=60))
        plan.append(Waypoint(p, 1.0, tol=0.012, budget=40))
    last = plan[-1].pos
    plan.append(Waypoint(last + np.array([0.0, 0.0, 0.15]), 1.0, tol=0.03, budget=40))
    return plan


def corners_of_geom(m, data, g: int) -> np.ndarray:
    """World corners (8, 3), m, of geom ``g``'s oriented bounding box."""
    c, h = np.asarray(m.geom_aabb[g][:3]), np.asarray(m.geom_aabb[g][3:])
    rot = np.asarray(data.geom_xmat[g]).reshape(3, 3)
    return np.asarray(data.geom_xpos[g]) + (c + _CORNER_SIGNS * h) @ rot.T


def _axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation matrix (3, 3) of ``angle`` rad about the unit ``axis`` (3,) (Rodrigues)."""
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def _turn_knob(scene, data, fixture: str, on: bool = True) -> list[Waypoint]:
    """Grasp the knob on its hinge axis (fingers across its top) and turn the gripper by :data:`TURN_DEG`
    about +z (on) or -z (off)."""
    m, b = scene.model, scene.binding
    j = b.joints[fixture][0]
    body = int(m.jnt_bodyid[j])
    anchor = np.array(data.xanchor[j])
    geoms = [
        g for g in range(m.ngeom) if m.geom_bodyid[g] == body and (m.geom_contype[g] or m.geom_conaffinity[g])
    ]
    top = max(float(data.geom_xpos[g][2] + m.geom_aabb[g][5]) for g in geoms)
    knob = np.array([anchor[0], anchor[1], top - 0.015])
    return knob_turn(knob, np.deg2rad(TURN_DEG if on else -TURN_DEG))


def _push_to(scene, data, obj: str, target: str) -> list[Waypoint]:
    """Push a flat object (too wide to grasp) onto the target region's centre: first along x, then
    along y with the gripper turned 90 degrees (its long side along the push, clear of neighbours)."""
    lo, hi = scene.evaluator.aabb(data, obj)
    c = (lo + hi) / 2
    r = 0.5 * max(hi[0] - lo[0], hi[1] - lo[1])
    goal = np.array(data.site_xpos[scene.binding.sites[target]])
    z = lo[2] + 0.014
    plan: list[Waypoint] = []
    sx = np.sign(goal[0] - c[0]) or 1.0
    if abs(goal[0] - c[0]) > 0.02:
        start = np.array([c[0] - sx * (r + 0.012), c[1], z])
        plan += push(start, np.array([goal[0] - sx * (r + 0.004), c[1], z]))
    sy = np.sign(goal[1] - c[1]) or 1.0
    if abs(goal[1] - c[1]) > 0.02:
        start = np.array([goal[0], c[1] - sy * (r + 0.006), z])
        plan += push(start, np.array([goal[0], goal[1] - sy * (r + 0.004), z]), yaw=np.pi / 2)
    return plan
