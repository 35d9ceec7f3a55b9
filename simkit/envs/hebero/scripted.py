"""Scripted demonstrations for the libero_goal tasks: waypoint plans driving the env's controller.

A plan is a list of :class:`Waypoint` (grip-site position target, gripper command, tolerance,
step budget, hold steps) computed from the initial state of one environment. The tracker turns
a waypoint into the env's 7-dim action: a[0:3] = clip((p* - p) / s_p, -1, 1) (a proportional
step towards the target, saturating at the controller's s_p per step), a[3:6] = clip(e_R / s_R,
-1, 1) with e_R the rotation vector from the current to the initial grip orientation plus the
waypoint's yaw (keeps the gripper pointing down), a[6] = +1 to close, -1 to open.

Primitives (positions in metres, world frame): pick-and-place (approach above, descend, close,
lift, carry, lower, open, retreat), push (closed fingers behind the object, slide through it),
drawer pull (closed fingers hooked between handle and drawer face, slide along the drawer's
opening direction) and knob turn (grasp the knob, rotate the gripper about z).
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


def pick_place(grasp: np.ndarray, place: np.ndarray, carry_z: float) -> list[Waypoint]:
    """Grasp at ``grasp`` (3,), release with the grip site at ``place`` (3,), carrying at ``carry_z``."""
    up = np.array([0.0, 0.0, APPROACH])
    return [
        Waypoint(grasp + up, -1.0, tol=0.02, budget=40),
        Waypoint(grasp, -1.0, tol=0.004, budget=40),
        Waypoint(grasp, 1.0, tol=1.0, budget=1, hold=10),
        Waypoint(np.array([grasp[0], grasp[1], carry_z]), 1.0, tol=0.02, budget=40),
        Waypoint(np.array([place[0], place[1], carry_z]), 1.0, tol=0.015, budget=60),
        Waypoint(place, 1.0, tol=0.008, budget=40, hold=3),
        Waypoint(place, -1.0, tol=1.0, budget=1, hold=8),
        Waypoint(np.array([place[0], place[1], carry_z]), -1.0, tol=0.03, budget=30),
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
        Waypoint(knob, 1.0, tol=1.0, budget=30, yaw=yaw),
        Waypoint(knob, -1.0, tol=1.0, budget=1, hold=8, yaw=yaw),
        Waypoint(knob + up, -1.0, tol=0.03, budget=30, yaw=yaw),
    ]


def _atoms(f: dict) -> list[dict]:
    if "op" in f:
        return [a for x in f["args"] for a in _atoms(x)]
    return [f]


def _grasp_point(category: str, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Grip-site grasp target (3,) of an object from its collision box (lo, hi) (m, world).

    Bowls and plates are taken by the rim wall on their +y side (the fingers close along y across
    the wall); boxes across their middle, bottles 4 cm below the top.
    """
    c = (lo + hi) / 2
    if "bowl" in category:
        return np.array([c[0], hi[1] - 0.008, hi[2] - 0.02])
    if "plate" in category:  # the low rim on the +y side, fingertips just above the table
        return np.array([c[0], hi[1] - 0.008, hi[2] - 0.011])
    if "bottle" in category:
        return np.array([c[0], c[1], hi[2] - 0.04])
    return np.array([c[0], c[1], max(c[2], lo[2] + 0.012)])


def plan_task(scene, data) -> list[Waypoint]:
    """A waypoint plan for a task from its initial state (``scene`` a :class:`~simkit.sims.hebero.scene.Scene`
    whose evaluator reads ``data``, an ``MjData`` after ``mj_forward``).

    Raises:
        ValueError: the goal uses a predicate/argument pattern the planner does not script.
    """
    desc, ev, b = scene.descriptor, scene.evaluator, scene.binding
    plan: list[Waypoint] = []
    for atom in _atoms(desc["goal"]):
        p, args = atom["predicate"], atom["args"]
        if p == "open":
            plan += _open_drawer(scene, data, args[0])
        elif p == "turnon":
            plan += _turn_knob(scene, data, args[0])
        elif p in ("on", "in"):
            obj, target = args
            lo, hi = ev.aabb(data, obj)
            if b.categories.get(obj) == "plate" and target in b.sites and b.site_parent.get(target) is None:
                plan += _push_to(scene, data, obj, target)
                continue
            shift = np.zeros(3)
            if (
                p == "in"
                and target in b.sites
                and b.site_parent.get(target)
                and not _is_open(scene, data, target)
            ):
                plan += _open_drawer(scene, data, target)
                shift = _drawer_travel(scene, data, target)  # the region moves with the drawer
            grasp = _grasp_point(b.categories[obj], lo, hi)
            below = grasp[2] - lo[2]
            if target in b.sites:
                sid = b.sites[target]
                centre = np.array(data.site_xpos[sid])
                half = np.abs(data.site_xmat[sid].reshape(3, 3) @ b.site_size[target])
                support = centre[2] - half[2] if p == "in" else centre[2] + half[2]
                spot = centre + shift
            else:
                tlo, thi = ev.aabb(data, target)
                spot = np.asarray(data.xpos[b.bodies[target]])
                support = tlo[2] + 0.01 if p == "on" and "bowl" in b.categories[target] else thi[2]
            offset = (
                grasp[:2] - np.asarray(data.xpos[b.bodies[obj]])[:2]
            )  # grip site vs the object's root body
            place = np.array([spot[0] + offset[0], spot[1] + offset[1], support + below + 0.02])
            carry = max(hi[2], place[2] + (hi[2] - grasp[2])) + CARRY_CLEARANCE
            plan += pick_place(grasp, place, max(carry, 1.05))
        else:
            raise ValueError(f"no scripted primitive for {p}({', '.join(args)})")
    return plan


def _is_open(scene, data, region: str) -> bool:
    return bool(scene.evaluator.articulation(data, "open", region))


def _open_drawer(scene, data, region: str) -> list[Waypoint]:
    """Hook the handle of the drawer holding ``region``'s site and pull it 0.17 m open."""
    m, b = scene.model, scene.binding
    joints = b.site_joints[region]
    j = joints[0]
    body = int(m.jnt_bodyid[j])
    direction = -np.array(data.xaxis[j])  # LIBERO's cabinets open at negative q
    geoms = [
        g for g in range(m.ngeom) if m.geom_bodyid[g] == body and (m.geom_contype[g] or m.geom_conaffinity[g])
    ]
    front = max(geoms, key=lambda g: float(np.dot(data.geom_xpos[g], direction)))
    handle = np.array(data.geom_xpos[front])
    return handle_pull(handle, direction, 0.17)


def _drawer_travel(scene, data, region: str) -> np.ndarray:
    """World displacement (3,) of the drawer holding ``region`` once pulled fully open (to its joint limit)."""
    m = scene.model
    j = scene.binding.site_joints[region][0]
    q_open = float(m.jnt_range[j][0])  # LIBERO's cabinets open towards negative q
    return np.array(data.xaxis[j]) * (q_open - float(data.qpos[m.jnt_qposadr[j]]))


def _turn_knob(scene, data, fixture: str) -> list[Waypoint]:
    """Grasp the knob on its hinge axis (fingers across its top) and turn the gripper by 100 degrees about +z."""
    m, b = scene.model, scene.binding
    j = b.joints[fixture][0]
    body = int(m.jnt_bodyid[j])
    anchor = np.array(data.xanchor[j])
    geoms = [
        g for g in range(m.ngeom) if m.geom_bodyid[g] == body and (m.geom_contype[g] or m.geom_conaffinity[g])
    ]
    top = max(float(data.geom_xpos[g][2] + m.geom_aabb[g][5]) for g in geoms)
    knob = np.array([anchor[0], anchor[1], top - 0.015])
    return knob_turn(knob, np.deg2rad(100.0))


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
