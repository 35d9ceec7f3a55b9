"""Joint dynamics, actuators and articulation roots of an MJCF model, written as UsdPhysics / PhysX schema.

Used by :func:`simkit.assets.mjcf2usd.convert_mjcf_to_usd` after the joints are written. Every value
comes from MuJoCo's compiled model (defaults classes, ``compiler/@angle`` and ``autolimits`` already
applied; MuJoCo stores angles in radians).

Mapping (MuJoCo -> USD; hinge -> ``PhysicsRevoluteJoint`` with an ``angular`` drive, slide ->
``PhysicsPrismaticJoint`` with a ``linear`` drive):

* passive joint spring-damper ``tau = -stiffness (q - springref) - damping qdot`` (MuJoCo XML
  reference, ``joint/@stiffness``, ``@springref``, ``@damping``) -> ``UsdPhysics.DriveAPI`` of type
  ``force``, which UsdPhysics defines as ``F = stiffness (targetPosition - q) + damping
  (targetVelocity - qdot)``: ``stiffness`` and ``damping`` carried over, ``targetPosition =
  springref - qpos0`` (the stage is written at ``qpos0``, the joint's ``ref``, where the USD joint
  position is 0), ``targetVelocity = 0``;
* actuators on a joint (``actuator_trntype = joint``, no activation dynamics): a position servo
  (gain ``kp``, bias ``0, -kp, -kv``) adds ``kp gear^2`` to the drive stiffness and ``kv gear^2`` to
  its damping, a velocity servo (gain ``kv``, bias ``0, 0, -kv``) adds ``kv gear^2`` to the damping, a
  motor (no bias) adds nothing (effort control); the actuator's force range times ``|gear|`` (or, for a
  motor, its control range times ``|gear|``) and the joint's ``actuatorfrcrange`` give the drive's
  ``maxForce`` (the smallest bound that applies), a velocity servo's control range divided by
  ``|gear|`` gives ``physxJoint:maxJointVelocity``. Any other actuator (general gains, activation
  dynamics, tendon/site transmission) is not written and is listed as such;
* ``armature`` -> ``physxJoint:armature`` (kg m^2 for hinges, kg for slides, as in MuJoCo);
  ``frictionloss`` -> ``physxJoint:jointFriction``, the value carried as is (N m or N). PhysX reads
  ``jointFriction`` as a unitless coefficient scaled by the joint's constraint force, not as MuJoCo's
  fixed dry-friction bound, so the friction PhysX applies differs; the attribute keeps the MJCF value
  so that it round-trips.

Units (UsdPhysics ``PhysicsDriveAPI`` schema documentation; PhysX ``PhysxJointAPI``): an angular drive
takes stiffness per degree (N m/deg) and damping per degree per second (N m s/deg), targets in
degrees, and ``maxJointVelocity`` in deg/s, so hinge values are multiplied by ``pi/180`` (stiffness,
damping) or ``180/pi`` (springref, velocity); ``maxForce`` is N m (angular) or N (linear), armature
and friction need no angle conversion. Linear drives are SI throughout (stage in metres, kilograms).
The PhysX attributes are authored by name with ``PhysxJointAPI`` in the prim's applied schemas
(usd-core has no PhysxSchema).

Articulation roots: ``UsdPhysics.ArticulationRootAPI`` on the root rigid body of each tree of joints
(the group that is a joint parent but no joint's child: a floating base), or, when a joint attaches a
body to the world or to a static group (a fixed base), once on the asset's root Xform
(:func:`articulation_roots`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

#: the PhysX joint attributes written (usd-core has no PhysxSchema, so they are authored by name)
PHYSX_JOINT_API = "PhysxJointAPI"
ARMATURE_ATTR = "physxJoint:armature"
FRICTION_ATTR = "physxJoint:jointFriction"
MAX_VELOCITY_ATTR = "physxJoint:maxJointVelocity"


@dataclass
class JointDynamics:
    """Joint-space dynamics of one hinge/slide joint, in MuJoCo's units (radians for hinges).

    ``stiffness`` N m/rad or N/m, ``damping`` N m s/rad or N s/m, ``springref`` rad or m (from
    ``qpos0``, where the stage is written; 0 without a joint spring), ``armature``
    kg m^2 or kg, ``frictionloss`` N m or N, ``max_force`` N m or N (inf = none), ``max_velocity`` rad/s
    or m/s (inf = none), ``actuated``: an actuator drives the joint.
    """

    stiffness: float = 0.0
    damping: float = 0.0
    springref: float = 0.0
    armature: float = 0.0
    frictionloss: float = 0.0
    max_force: float = math.inf
    max_velocity: float = math.inf
    actuated: bool = False
    actuators: list[str] = field(default_factory=list)

    @property
    def has_drive(self) -> bool:
        """A drive is authored for a spring, a damper or an actuator."""
        return self.stiffness > 0 or self.damping > 0 or self.actuated


def _actuator_kind(model, a: int) -> str | None:
    """``position``, ``velocity``, ``motor`` or None (an actuator this mapping does not cover)."""
    import mujoco

    if int(model.actuator_trntype[a]) != mujoco.mjtTrn.mjTRN_JOINT:
        return None
    if int(model.actuator_dyntype[a]) != mujoco.mjtDyn.mjDYN_NONE:
        return None
    if int(model.actuator_gaintype[a]) != mujoco.mjtGain.mjGAIN_FIXED:
        return None
    gain, bias, bt = model.actuator_gainprm[a], model.actuator_biasprm[a], int(model.actuator_biastype[a])
    if bt == mujoco.mjtBias.mjBIAS_NONE:
        return "motor" if gain[0] == 1.0 else None
    if bt != mujoco.mjtBias.mjBIAS_AFFINE or bias[0] != 0.0:
        return None
    if gain[0] > 0 and bias[1] == -gain[0] and bias[2] <= 0:
        return "position"
    if gain[0] > 0 and bias[1] == 0.0 and bias[2] == -gain[0]:
        return "velocity"
    return None


def joint_dynamics(model, j: int, not_written: list[str]) -> JointDynamics:
    """Dynamics of hinge/slide joint ``j`` with its joint-transmission actuators (module docstring).

    Appends to ``not_written`` one line per actuator on the joint that the mapping does not cover.
    """
    import mujoco

    dof, qadr = int(model.jnt_dofadr[j]), int(model.jnt_qposadr[j])
    spring = float(model.jnt_stiffness[j])
    d = JointDynamics(
        stiffness=spring,
        damping=float(model.dof_damping[dof]),
        # the stage is written at qpos0 (joint position 0 in USD), so the spring's rest position is
        # measured from there; no spring -> no target
        springref=float(model.qpos_spring[qadr] - model.qpos0[qadr]) if spring > 0 else 0.0,
        armature=float(model.dof_armature[dof]),
        frictionloss=float(model.dof_frictionloss[dof]),
    )
    for a in range(model.nu):
        if int(model.actuator_trnid[a, 0]) != j:
            continue
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a) or f"actuator{a}"
        kind = _actuator_kind(model, a)
        if kind is None:
            if int(model.actuator_trntype[a]) == mujoco.mjtTrn.mjTRN_JOINT:
                not_written.append(
                    f"actuator {name!r}: gain/bias/dynamics other than position, velocity or motor"
                )
            continue
        _add_actuator(model, a, kind, d)
        d.actuators.append(f"{name} ({kind})")
    if d.actuated and model.jnt_actfrclimited[j]:  # bounds the actuators' total force at the joint
        d.max_force = min(d.max_force, float(np.max(np.abs(model.jnt_actfrcrange[j]))))
    return d


def _add_actuator(model, a: int, kind: str, d: JointDynamics) -> None:
    """Fold one position/velocity/motor actuator into the joint's drive (module docstring)."""
    gear = abs(float(model.actuator_gear[a, 0]))
    gain, bias = model.actuator_gainprm[a], model.actuator_biasprm[a]
    d.actuated = True
    if kind == "position":
        d.stiffness += float(gain[0]) * gear**2
        d.damping += -float(bias[2]) * gear**2
    elif kind == "velocity":
        d.damping += float(gain[0]) * gear**2
        if model.actuator_ctrllimited[a] and gear > 0:
            d.max_velocity = min(d.max_velocity, float(np.max(np.abs(model.actuator_ctrlrange[a]))) / gear)
    if model.actuator_forcelimited[a]:
        d.max_force = min(d.max_force, float(np.max(np.abs(model.actuator_forcerange[a]))) * gear)
    elif kind == "motor" and model.actuator_ctrllimited[a]:
        d.max_force = min(d.max_force, float(np.max(np.abs(model.actuator_ctrlrange[a]))) * gear)


def write_joint_dynamics(prim, d: JointDynamics, angular: bool) -> list[str]:
    """Author ``d`` on a revolute (``angular``) or prismatic joint prim; returns what was written.

    Returns names from: ``drive``, ``stiffness``, ``damping``, ``springref``, ``maxForce``,
    ``armature``, ``frictionloss``, ``maxJointVelocity``.
    """
    from pxr import Sdf, UsdPhysics

    per_rad = math.pi / 180.0 if angular else 1.0  # value per rad -> per degree
    to_deg = 180.0 / math.pi if angular else 1.0  # rad -> degree
    written: list[str] = []
    if d.has_drive:
        drive = UsdPhysics.DriveAPI.Apply(prim, "angular" if angular else "linear")
        drive.CreateTypeAttr(UsdPhysics.Tokens.force)
        drive.CreateStiffnessAttr(d.stiffness * per_rad)
        drive.CreateDampingAttr(d.damping * per_rad)
        drive.CreateTargetPositionAttr(d.springref * to_deg)
        drive.CreateTargetVelocityAttr(0.0)
        written.append("drive")
        written += [k for k, v in (("stiffness", d.stiffness), ("damping", d.damping)) if v > 0]
        if d.springref != 0:
            written.append("springref")
        if math.isfinite(d.max_force):
            drive.CreateMaxForceAttr(d.max_force)
            written.append("maxForce")
    physx = (
        (ARMATURE_ATTR, d.armature, "armature"),
        (FRICTION_ATTR, d.frictionloss, "frictionloss"),
        (MAX_VELOCITY_ATTR, d.max_velocity * to_deg, "maxJointVelocity"),
    )
    for attr, value, what in physx:
        if value > 0 and math.isfinite(value):
            prim.AddAppliedSchema(
                PHYSX_JOINT_API
            )  # idempotent; unregistered in usd-core, so authored by name
            prim.CreateAttribute(attr, Sdf.ValueTypeNames.Float, custom=False).Set(float(value))
            written.append(what)
    return written


def articulation_roots(edges: list[tuple[int | None, int]]) -> list[int] | None:
    """Where ``UsdPhysics.ArticulationRootAPI`` goes.

    Args:
        edges: (parent group, or None when the parent is the world or a static group; child group)
            per written joint.

    Returns:
        ``None`` when some joint attaches a body to the world (a fixed-base articulation: the root
        goes on the asset's root Xform, above the bodies, which is where Isaac Lab's ``fix_root_link``
        moves it too), else the sorted root group of each tree of joints: a parent that is no
        joint's child (a floating-base articulation, root on its root rigid body).
    """
    if any(p is None for p, _ in edges):
        return None
    children = {c for _, c in edges}
    return sorted({p for p, _ in edges if p is not None and p not in children})


def unconverted_features(model) -> list[str]:
    """MJCF features of the compiled model that the USD stage does not carry (one line each).

    Covers actuators not on a hinge/slide joint, tendons, equality constraints, contact
    exclusions/pairs, sites, and non-default contact
    parameters: geom ``condim`` other than 3 (torsional/rolling friction), ``solref``/``solimp``/
    ``margin``/``gap`` on geoms and joint limits (MuJoCo's defaults: solref 0.02 1, solimp
    0.9 0.95 0.001 0.5 2, margin = gap = 0).
    """
    import mujoco

    out: list[str] = []
    hinge_slide = (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)
    other_trn = sum(
        int(model.actuator_trntype[a]) != mujoco.mjtTrn.mjTRN_JOINT
        or int(model.jnt_type[model.actuator_trnid[a, 0]]) not in hinge_slide
        for a in range(model.nu)
    )
    if other_trn:
        out.append(
            f"{other_trn} actuator(s) not on a hinge or slide joint (tendon, site, body, free or ball)"
        )
    for n, what in (
        (model.ntendon, "tendon(s)"),
        (model.neq, "equality constraint(s)"),
        (model.nexclude, "contact exclusion(s)"),
        (model.npair, "explicit contact pair(s)"),
        (model.nsite, "site(s)"),
    ):
        if n:
            out.append(f"{n} {what}")
    solref0, solimp0 = np.array([0.02, 1.0]), np.array([0.9, 0.95, 0.001, 0.5, 2.0])
    ng = model.ngeom
    counts = {
        "geom condim != 3": int(np.sum(model.geom_condim != 3)),
        "geom solref/solimp": int(
            np.sum(np.any(model.geom_solref != solref0, 1) | np.any(model.geom_solimp != solimp0, 1))
        )
        if ng
        else 0,
        "geom margin/gap": int(np.sum((model.geom_margin != 0) | (model.geom_gap != 0))),
        "joint limit solref/solimp": int(
            np.sum(np.any(model.jnt_solref != solref0, 1) | np.any(model.jnt_solimp != solimp0, 1))
        )
        if model.njnt
        else 0,
    }
    out += [f"{n} {what}" for what, n in counts.items() if n]
    return out
