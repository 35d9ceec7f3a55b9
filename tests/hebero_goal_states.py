"""Test helper: a Hebero scene put where its goal atoms hold (shared by the goal-predicate tests)."""

from __future__ import annotations

#: articulation targets of the articulation atoms (m or rad; past LIBERO's open/close/on/off thresholds)
JOINT_TARGETS = {"open": -0.16, "close": 0.005, "turnon": 0.8, "turnoff": -0.01}


def place_goal(sc, atoms) -> None:
    """Set the joints and object poses of scene ``sc`` so that each goal atom (pred, *args) holds
    (kinematics only: objects upright 3 cm above a target site, 6 cm above a target body, at an ``in``
    target itself), then run the forward kinematics."""
    import mujoco

    m, d, b = sc.model, sc.data, sc.binding
    for pred, *args in atoms:
        if pred in JOINT_TARGETS:
            joints = b.site_joints[args[0]] if args[0] in b.sites else b.joints[args[0]]
            for j in joints:
                d.qpos[m.jnt_qposadr[j]] = JOINT_TARGETS[pred]
            continue
        mujoco.mj_forward(m, d)
        target = d.site_xpos[b.sites[args[1]]] if args[1] in b.sites else d.xpos[b.bodies[args[1]]]
        lift = 0.0 if pred == "in" else (0.06 if args[1] in b.bodies else 0.03)
        adr = m.jnt_qposadr[m.body_jntadr[b.bodies[args[0]]]]
        d.qpos[adr : adr + 3] = [target[0], target[1], target[2] + lift]
        d.qpos[adr + 3 : adr + 7] = [1, 0, 0, 0]
    mujoco.mj_forward(m, d)
