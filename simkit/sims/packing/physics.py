"""pybullet physics for box packing: drop a box, step until it is at rest, judge the placement.

PackLab's stability feedback (PackLab paper, "Simulation"): gravity -9.8 m/s^2
along the vertical axis; objects, container floor and walls are box collision shapes;
after a placement the simulation is stepped until the placed object's linear and
angular speeds are both under thresholds, and the post-placement state is recorded.
An object that never settles, tips, or leaves the container makes the placement invalid.

Frames and units: the container frame has its origin at the inner min corner of the
container floor, x along the container length L, y along its width W, z up (metres).
Box and placement sizes/positions arrive in integer grid cells of
``container.resolution`` metres (:mod:`simkit.scenes.packing.geometry`). Quaternions
are returned as (w, x, y, z) (simkit convention; pybullet itself uses (x, y, z, w)).

Speed: one client per worker (one :class:`PackingPhysics` per process); between
trajectories :meth:`PackingPhysics.reset` rebuilds the world inside the same client
(``resetSimulation``), which keeps every trajectory's physics independent of what the
worker simulated before (same seed -> same poses, whatever the worker history).

pybullet is imported lazily (inside the constructor): importing this module is cheap.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any

from simkit.core.errors import require
from simkit.scenes.packing.geometry import Box, Container, Placement

#: standard gravity used by PackLab (PackLab paper, "Gravity -9.8 m/s^2 along the vertical axis")
GRAVITY = -9.8

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]

#: physics settings of the evaluation: a 0.1 mm footprint shrink, pybullet's 50 solver iterations and a
#: contact ERP of 0.5, so that physically valid results also pass the 1 mm geometric checker (with pybullet's
#: default contact ERP a light box under a heavy overhanging load sinks ~1.2 mm into its support)
EVAL_PHYSICS: dict[str, Any] = {"footprint_shrink": 0.0001, "solver_iterations": 50, "contact_erp": 0.5}


@dataclass
class PlacementResult:
    """What physics made of one placement.

    Attributes:
        valid: True when the box settled, stayed upright, stayed inside the container and
            did not knock a previously placed box over or out.
        reason: "" when valid, else one of ``"not_settled"`` (the step budget ran out before the
            box was at rest), ``"tipped"`` (the box rotated beyond ``tilt_tol``),
            ``"left_container"`` (its centre left the container's inner volume),
            ``"disturbed"`` (a previously placed box tipped or left the container),
            ``"outside"`` (the placement footprint itself is outside the container footprint),
            ``"off_target"`` (the box came to rest more than ``pos_tol`` from its intended centre:
            it fell into a void under the heightmap's drop height or slid off its support).
        steps: simulation steps taken (``time_step`` seconds each).
        position: the box centre after settling, metres, container frame.
        quaternion: its orientation after settling, (w, x, y, z).
        max_displacement_m: the largest displacement (metres) of any previously placed box's
            centre during this placement (0.0 for the first box).
        position_error_m: distance between the settled centre and the intended centre
            (footprint centre at the heightmap drop height), metres.
        tilt_rad: rotation angle (radians) between the settled and intended orientation.
    """

    valid: bool
    reason: str
    steps: int
    position: Vec3
    quaternion: Quat
    max_displacement_m: float = 0.0
    position_error_m: float = 0.0
    tilt_rad: float = 0.0

    def to_dict(self) -> dict:
        """JSON-ready dict (floats rounded to micrometres / 1e-6)."""
        return {
            "valid": self.valid,
            "reason": self.reason,
            "steps": self.steps,
            "position": [round(v, 6) for v in self.position],
            "quaternion": [round(v, 6) for v in self.quaternion],
            "max_displacement_m": round(self.max_displacement_m, 6),
            "position_error_m": round(self.position_error_m, 6),
            "tilt_rad": round(self.tilt_rad, 6),
        }


@dataclass
class _Body:
    uid: int
    box: Box
    placement: Placement
    centre: Vec3
    quat_xyzw: tuple[float, float, float, float]
    last_pos: Vec3 = field(default=(0.0, 0.0, 0.0))
    ok: bool = True  # upright and inside after its own placement and every later one


def _import_pybullet():
    """Import pybullet without its "pybullet build time: ..." banner, which its C module prints on
    stdout or stderr depending on the release (3.2.7: stderr): both file descriptors point at
    /dev/null during the import (a failed import still raises, naming the extra)."""
    import os
    import sys

    if "pybullet" in sys.modules:
        return sys.modules["pybullet"]
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = {fd: os.dup(fd) for fd in (1, 2)}
    except (OSError, ValueError, AttributeError):  # no real stdout (embedded, captured): import as is
        return require("pybullet", "packing")
    try:
        with open(os.devnull, "w") as null:
            for fd in saved:
                os.dup2(null.fileno(), fd)
            return require("pybullet", "packing")
    finally:
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)


def yaw_quaternion_xyzw(orientation: int) -> tuple[float, float, float, float]:
    """pybullet (x, y, z, w) quaternion of orientation 0 (identity) or 1 (+90 deg about z)."""
    if orientation == 0:
        return (0.0, 0.0, 0.0, 1.0)
    if orientation == 1:
        s = math.sqrt(0.5)
        return (0.0, 0.0, s, s)
    raise ValueError(f"orientation must be 0 or 1, got {orientation}")


def intended_centre(box: Box, placement: Placement, resolution: float) -> Vec3:
    """Centre (metres, container frame) of ``box`` resting at ``placement`` (z = bottom in cells)."""
    lx, ly = box.footprint(placement.orientation)
    return (
        (placement.x + lx / 2.0) * resolution,
        (placement.y + ly / 2.0) * resolution,
        (placement.z + box.height / 2.0) * resolution,
    )


def _angle_between_xyzw(q1, q2) -> float:
    """Rotation angle (rad) between two unit quaternions in (x, y, z, w) order."""
    d = abs(sum(a * b for a, b in zip(q1, q2)))
    return 2.0 * math.acos(min(1.0, d))


class PackingPhysics:
    """A pybullet (DIRECT) world holding one open-top container; boxes are dropped in one at a time.

    Args:
        container: the container (inner size in cells of ``container.resolution`` metres).
        lin_speed_tol: m/s; the placed box counts as at rest when its linear speed is below this
            (default 0.01 m/s = 1 cm/s: two orders of magnitude under the ~0.2 m/s impact speed
            of the drop, and well above pybullet's resting-contact jitter of ~1e-4 m/s).
        ang_speed_tol: rad/s; the same for the angular speed (default 0.05 rad/s ~ 3 deg/s; a box
            starting to tip over an edge exceeds it within the settle window, see below).
        max_settle_steps: step budget per placement; a box not at rest by then is ``not_settled``
            (default 240 steps = 1 s of simulated time, 5x the time a tight drop needs).
        time_step: seconds per step (pybullet's default 1/240 s).
        drop_gap: metres; the box is released this far above its heightmap drop height
            (default 2 mm: clears numerical contact with the support without a hard impact).
        settle_window: consecutive steps both speeds must stay under the tolerances (default 6 = 25 ms:
            a box tipping over an edge reaches ``ang_speed_tol`` within that time for any overhang
            above ~1 mm, so a slow start of a tip-over is not taken for rest).
        tilt_tol: radians; a box (placed or earlier) rotated more than this from its intended
            orientation has ``tipped`` (default 0.1 rad ~ 5.7 deg; boxes rest on flat grid-aligned
            supports, so a resting box is tilted by < 0.01 rad and any real tip is much larger).
        footprint_shrink: metres removed from each horizontal side of a box's collision shape
            (default 0.1 mm). Boxes of a tight layout that touch exactly (zero gap) make pybullet's
            contact solver ~2.5x slower per step; a 0.1 mm gap removes that cost. In true geometry two
            boxes pressed together then overlap by 2 x shrink + contact penetration (~0.3 mm), and a
            box can turn about z by 2 x shrink / length before meeting a neighbour: both stay under
            the geometric checker's 1 mm for shrink <= 0.1 mm, but not for 0.5 mm (which the checker
            flags on the metre-long Bischoff-Ratcliff boxes). Heights are always exact.
        pos_tol: metres; a settled box further than this from its intended centre is ``off_target``
            (default half a grid cell, ``0.5 * container.resolution``: positions are grid-aligned, so a
            correctly supported box ends within ~1 mm of its target).
        friction: Coulomb friction coefficient of every surface (default 0.5, cardboard on cardboard).
        contact_erp: pybullet's contact error-reduction parameter (``contactERP``: the fraction of a
            contact's penetration corrected per step); None keeps pybullet's default. 0.5 (used by the
            evaluation) keeps a light box under a heavy overhanging load from sinking > 1 mm into its
            support, at ~30 % more time per step.
        solver_iterations: pybullet constraint-solver iterations per step (default 50, pybullet's own
            default; with 20, heavy 3-4 layer stacks sink ~1.3 mm into each other, beyond the 1 mm
            tolerance of the geometric checker).
        solver_residual_threshold: pybullet's ``solverResidualThreshold``: the sequential-impulse solver
            stops iterating within a step once the squared impulse change of an iteration falls under it,
            so ``solver_iterations`` is a cap (Bullet's ``btSequentialImpulseConstraintSolver``); None keeps
            pybullet's default 1e-7. The packing generator uses 1e-5: resting stacks converge in a few
            iterations and the sink into supports stays that of 50 full iterations (~0.4 mm on hard
            cases), while 1e-4 lets it reach ~0.8 mm (docs/benchmarks.md, packing physics).
        cone_friction: pybullet's ``enableConeFriction``: True (pybullet's default) solves the Coulomb
            friction cone; False uses Bullet's two orthogonal friction directions (a pyramid, the classic
            Bullet model), ~15 % less work per step.

    Raises:
        ExtraMissing: pybullet is not installed (``pip install 'simkit[packing]'``).
    """

    def __init__(
        self,
        container: Container,
        *,
        lin_speed_tol: float = 0.01,
        ang_speed_tol: float = 0.05,
        max_settle_steps: int = 240,
        time_step: float = 1.0 / 240.0,
        drop_gap: float = 0.002,
        settle_window: int = 6,
        tilt_tol: float = 0.1,
        footprint_shrink: float = 0.0001,
        pos_tol: float | None = None,
        friction: float = 0.5,
        solver_iterations: int = 50,
        contact_erp: float | None = None,
        solver_residual_threshold: float | None = None,
        cone_friction: bool = True,
    ) -> None:
        if lin_speed_tol <= 0 or ang_speed_tol <= 0 or max_settle_steps < 1 or time_step <= 0 or drop_gap < 0:
            raise ValueError("tolerances, step budget and time step must be positive (drop_gap >= 0)")
        if solver_residual_threshold is not None and not solver_residual_threshold > 0:
            raise ValueError(
                f"solver_residual_threshold must be > 0 or None, got {solver_residual_threshold}"
            )
        self.p = _import_pybullet()
        self.container = container
        self.lin_speed_tol = float(lin_speed_tol)
        self.ang_speed_tol = float(ang_speed_tol)
        self.max_settle_steps = int(max_settle_steps)
        self.time_step = float(time_step)
        self.drop_gap = float(drop_gap)
        self.settle_window = int(settle_window)
        self.tilt_tol = float(tilt_tol)
        self.footprint_shrink = float(footprint_shrink)
        self._pos_tol_arg = pos_tol
        self.pos_tol = 0.5 * container.resolution if pos_tol is None else float(pos_tol)
        self.friction = float(friction)
        self.solver_iterations = int(solver_iterations)
        self.contact_erp = None if contact_erp is None else float(contact_erp)
        self.solver_residual_threshold = (
            None if solver_residual_threshold is None else float(solver_residual_threshold)
        )
        self.cone_friction = bool(cone_friction)
        self.client = self.p.connect(self.p.DIRECT)
        self._bodies: dict[int, _Body] = {}
        self._shapes: dict[tuple[float, float, float], int] = {}
        self._build_world()

    # -- world -------------------------------------------------------------------------------
    def _build_world(self) -> None:
        p, c = self.p, self.client
        p.resetSimulation(physicsClientId=c)
        p.setGravity(0.0, 0.0, GRAVITY, physicsClientId=c)
        p.setPhysicsEngineParameter(
            fixedTimeStep=self.time_step,
            numSolverIterations=self.solver_iterations,
            deterministicOverlappingPairs=1,
            physicsClientId=c,
        )
        if self.contact_erp is not None:
            p.setPhysicsEngineParameter(contactERP=self.contact_erp, physicsClientId=c)
        if self.solver_residual_threshold is not None:
            p.setPhysicsEngineParameter(
                solverResidualThreshold=self.solver_residual_threshold, physicsClientId=c
            )
        if not self.cone_friction:
            p.setPhysicsEngineParameter(enableConeFriction=0, physicsClientId=c)
        self._shapes.clear()
        self._bodies.clear()
        L, W, H = self.container.size_m
        t = 0.05  # wall/floor thickness, metres
        hw = H + 0.5  # walls rise above the rim so that a bounced box is still caught
        statics = [
            ((L / 2, W / 2, -t / 2), (L / 2 + t, W / 2 + t, t / 2)),  # floor, top face at z = 0
            ((-t / 2, W / 2, hw / 2), (t / 2, W / 2 + t, hw / 2)),  # wall x = 0
            ((L + t / 2, W / 2, hw / 2), (t / 2, W / 2 + t, hw / 2)),  # wall x = L
            ((L / 2, -t / 2, hw / 2), (L / 2 + t, t / 2, hw / 2)),  # wall y = 0
            ((L / 2, W + t / 2, hw / 2), (L / 2 + t, t / 2, hw / 2)),  # wall y = W
        ]
        self._static_ids = []
        for pos, half in statics:
            shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=half, physicsClientId=c)
            uid = p.createMultiBody(
                baseMass=0.0, baseCollisionShapeIndex=shape, basePosition=pos, physicsClientId=c
            )
            p.changeDynamics(uid, -1, lateralFriction=self.friction, restitution=0.0, physicsClientId=c)
            self._static_ids.append(uid)

    def _shape(self, half: tuple[float, float, float]) -> int:
        key = (round(half[0], 9), round(half[1], 9), round(half[2], 9))
        sid = self._shapes.get(key)
        if sid is None:
            sid = self.p.createCollisionShape(self.p.GEOM_BOX, halfExtents=key, physicsClientId=self.client)
            self._shapes[key] = sid
        return sid

    def reset(self, container: Container | None = None) -> None:
        """Remove every box (the client stays open; the world is rebuilt so runs are independent).

        Args:
            container: optionally switch to another container (same client, new floor and walls).
        """
        if container is not None:
            self.container = container
            self.pos_tol = self._pos_tol_arg if self._pos_tol_arg is not None else 0.5 * container.resolution
        self._build_world()

    def close(self) -> None:
        """Disconnect the pybullet client (idempotent)."""
        if self.client is not None and self.client >= 0:
            with contextlib.suppress(Exception):  # already gone
                self.p.disconnect(physicsClientId=self.client)
            self.client = -1

    def __enter__(self) -> PackingPhysics:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - interpreter shutdown
        with contextlib.suppress(Exception):
            self.close()

    # -- placements --------------------------------------------------------------------------
    def place(self, box: Box, placement: Placement) -> PlacementResult:
        """Drop ``box`` at ``placement`` (``placement.z`` = heightmap drop height in cells) and let it settle.

        The box is released at rest, ``drop_gap`` metres above ``placement.z``, in the yaw of
        ``placement.orientation``; the world is stepped until the box's linear and angular speeds stay
        under ``lin_speed_tol``/``ang_speed_tol`` for ``settle_window`` consecutive steps, or
        ``max_settle_steps`` run out. The box stays in the world whatever the verdict (a later
        :meth:`reset` removes it).

        Returns:
            :class:`PlacementResult`.
        Raises:
            ValueError: ``placement.box_id != box.id`` or a box id placed twice.
        """
        p, c = self.p, self.client
        if placement.box_id != box.id:
            raise ValueError(f"placement is for box {placement.box_id}, got box {box.id}")
        if box.id in self._bodies:
            raise ValueError(f"box {box.id} is already in the container")
        res = self.container.resolution
        lx, ly = box.footprint(placement.orientation)
        L, W, Hc = self.container.size
        target = intended_centre(box, placement, res)
        q = yaw_quaternion_xyzw(placement.orientation)
        outside = placement.x < 0 or placement.y < 0 or placement.x + lx > L or placement.y + ly > W
        l, w, h = (s * res for s in box.size)
        half = (max(l / 2 - self.footprint_shrink, 1e-4), max(w / 2 - self.footprint_shrink, 1e-4), h / 2)
        start = (target[0], target[1], target[2] + self.drop_gap)
        uid = p.createMultiBody(
            baseMass=float(box.mass),
            baseCollisionShapeIndex=self._shape(half),
            basePosition=start,
            baseOrientation=q,
            physicsClientId=c,
        )
        p.changeDynamics(uid, -1, lateralFriction=self.friction, restitution=0.0, physicsClientId=c)
        others = list(self._bodies.values())
        body = _Body(uid, box, placement, target, q)
        self._bodies[box.id] = body

        calm = 0
        steps = 0
        settled = False
        while steps < self.max_settle_steps:
            p.stepSimulation(physicsClientId=c)
            steps += 1
            v, w_ = p.getBaseVelocity(uid, physicsClientId=c)
            if (
                v[0] * v[0] + v[1] * v[1] + v[2] * v[2] < self.lin_speed_tol**2
                and w_[0] * w_[0] + w_[1] * w_[1] + w_[2] * w_[2] < self.ang_speed_tol**2
            ):
                calm += 1
                if calm >= self.settle_window:
                    settled = True
                    break
            else:
                calm = 0
        pos, orn = p.getBasePositionAndOrientation(uid, physicsClientId=c)
        body.last_pos = pos
        tilt = _angle_between_xyzw(orn, q)
        err = math.dist(pos, target)

        # earlier boxes: displacement, tipping, escape
        max_disp = 0.0
        disturbed = False
        for b in others:
            bp, bo = p.getBasePositionAndOrientation(b.uid, physicsClientId=c)
            max_disp = max(max_disp, math.dist(bp, b.last_pos))
            b.last_pos = bp
            if b.ok and (_angle_between_xyzw(bo, b.quat_xyzw) > self.tilt_tol or not self._inside(bp)):
                b.ok = False
                disturbed = True

        reason = ""
        if outside:
            reason = "outside"
        elif not self._inside(pos):
            reason = "left_container"
        elif tilt > self.tilt_tol:
            reason = "tipped"
        elif not settled:
            reason = "not_settled"
        elif err > self.pos_tol:
            reason = "off_target"
        elif disturbed:
            reason = "disturbed"
        body.ok = reason not in ("outside", "left_container", "tipped")
        quat = (orn[3], orn[0], orn[1], orn[2])
        return PlacementResult(reason == "", reason, steps, tuple(pos), quat, max_disp, err, tilt)

    def _inside(self, pos) -> bool:
        L, W, H = self.container.size_m
        return 0.0 <= pos[0] <= L and 0.0 <= pos[1] <= W and -1e-3 <= pos[2] <= H

    def poses(self) -> dict[int, tuple[Vec3, Quat]]:
        """Current pose of every box: box id -> (centre in metres, quaternion (w, x, y, z)), container frame."""
        out = {}
        for bid, b in self._bodies.items():
            pos, orn = self.p.getBasePositionAndOrientation(b.uid, physicsClientId=self.client)
            out[bid] = (tuple(pos), (orn[3], orn[0], orn[1], orn[2]))
        return out

    def settle(self, steps: int) -> None:
        """Step the world ``steps`` more times (e.g. a final rest before reading poses)."""
        for _ in range(int(steps)):
            self.p.stepSimulation(physicsClientId=self.client)
