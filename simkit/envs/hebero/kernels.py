"""Array kernels of ``simkit/Hebero-v0``: controller, observation, reward, over batches of envs.

Everything here is numpy over a leading batch axis n (no per-env loop), so the same code ports
to torch/warp arrays. Frames: world, z up, metres, radians; quaternions (w, x, y, z).

Controller (operational-space delta command, robosuite ``OSC_POSE`` convention as LIBERO uses it):
the action a in [-1, 1]^7 asks for an end-effector displacement dp = s_p a[0:3] (world frame, m)
and rotation dR = Exp(s_R a[3:6]) (world-frame rotation vector, rad) per control step; the
command is resolved by damped least squares on the end-effector Jacobian J (6 x 7, MuJoCo's
``mj_jac`` at the grip site), dq = J^T (J J^T + lambda^2 I)^-1 [dp; s_R a[3:6]] (Nakamura &
Hanafusa 1986; Buss 2004), and tracked by the arm's gravity-compensated joint impedance
(``ARM_KP`` = 400 N m/rad, critical damping) for the control period. a[6] > 0 closes the
gripper (finger targets 0 m), a[6] <= 0 opens it (0.04 m per finger) -- robosuite's sign.
"""

from __future__ import annotations

import numpy as np

from simkit.sims.hebero.batched_tasks import rot6

#: Panda joint speed limits (rad/s), Franka Emika datasheet
PANDA_VMAX = np.array([2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61])
GRIPPER_OPEN = 0.04  #: m, finger target when open
OBS_DIM = 300  #: 7 + 36 + 23 + 26 * 9
PROPRIO_DIM = 23
N_SLOTS, SLOT_FEATURES = 26, 9


def dls_delta_q(jac: np.ndarray, dx: np.ndarray, damping: float) -> np.ndarray:
    """Joint displacement (n, 7) realising task displacements dx (n, 6) with Jacobians jac (n, 6, 7).

    dq = J^T (J J^T + lambda^2 I)^-1 dx (damped least squares).
    """
    jjt = jac @ np.swapaxes(jac, 1, 2) + (damping**2) * np.eye(6)
    return np.einsum("nji,nj->ni", jac, np.linalg.solve(jjt, dx[..., None])[..., 0])


def hinge_jacobian(anchor: np.ndarray, axis: np.ndarray, point: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Geometric Jacobian of a serial chain of hinge joints at world points (what ``mj_jac`` gives for them).

    Args:
        anchor, axis: (n, k, 3) world anchor points (m) and unit axes of the k hinges.
        point: (n, 3) world point, m.

    Returns:
        jacp (n, 3, k) = axis_i x (point - anchor_i); jacr (n, 3, k) = axis_i.
    """
    r = point[:, None, :] - anchor
    ax, ay, az = axis[..., 0], axis[..., 1], axis[..., 2]
    rx, ry, rz = r[..., 0], r[..., 1], r[..., 2]
    jacp = np.stack([ay * rz - az * ry, az * rx - ax * rz, ax * ry - ay * rx], axis=1)  # (n, 3, k)
    return jacp, np.swapaxes(axis, 1, 2)


def arm_targets(
    action: np.ndarray,
    q: np.ndarray,
    jacp: np.ndarray,
    jacr: np.ndarray,
    qrange: np.ndarray,
    pos_scale: float,
    rot_scale: float,
    damping: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Joint position targets (n, 7) of the arm and finger targets (n, 2) for actions (n, 7).

    Args:
        action: (n, 7) in [-1, 1]. q: (n, 7) arm joint positions, rad.
        jacp, jacr: (n, 3, 7) translational / rotational Jacobians of the grip site on the arm dofs.
        qrange: (n, 7, 2) joint limits, rad. pos_scale: s_p, m. rot_scale: s_R, rad. damping: lambda.
    """
    dx = np.concatenate([pos_scale * action[:, 0:3], rot_scale * action[:, 3:6]], axis=1)
    dq = dls_delta_q(np.concatenate([jacp, jacr], axis=1), dx, damping)
    target = np.clip(q + dq, qrange[..., 0], qrange[..., 1])
    closed = action[:, 6] > 0
    fingers = np.where(closed[:, None], 0.0, GRIPPER_OPEN) * np.array([1.0, -1.0])
    return target, fingers


def rot6d(mat: np.ndarray) -> np.ndarray:
    """First two columns of rotation matrices (..., 9) row-major -> (..., 6) (Zhou et al. 2019)."""
    return rot6(mat.reshape(*mat.shape[:-1], 3, 3))


def slot_features(
    xpos: np.ndarray,
    xmat: np.ndarray,
    site_xpos: np.ndarray,
    site_xmat: np.ndarray,
    kind: np.ndarray,
    ids: np.ndarray,
    base: np.ndarray,
) -> np.ndarray:
    """Object-target pose buffer (n, 26 * 9): per slot [p - p_base (3), rot6d (6)], zeros when unused.

    Args:
        xpos (n, nbody, 3), xmat (n, nbody, 9), site_xpos (n, nsite, 3), site_xmat (n, nsite, 9).
        kind: (n, 26) 0 unused, 1 body (entity root), 2 site (region). ids: (n, 26) body/site ids.
        base: (n, 3) robot base position, m.
    """
    rows = np.arange(len(kind))[:, None]
    is_body, is_site = kind == 1, kind == 2
    bid, sid = np.where(is_body, ids, 0), np.where(is_site, ids, 0)
    pos = np.where(is_body[..., None], xpos[rows, bid], site_xpos[rows, sid]) - base[:, None]
    rot = np.where(is_body[..., None], xmat[rows, bid], site_xmat[rows, sid])
    feat = np.concatenate([pos, rot6d(rot)], axis=-1) * (kind > 0)[..., None]
    return feat.reshape(len(kind), N_SLOTS * SLOT_FEATURES)


def proprioception(
    q: np.ndarray,
    dq: np.ndarray,
    fingers: np.ndarray,
    ee_pos: np.ndarray,
    ee_quat: np.ndarray,
    base: np.ndarray,
) -> np.ndarray:
    """(n, 23): arm q (7, rad), arm dq (7, rad/s), finger q (2, m), grip-site position relative to
    the robot base (3, m, world axes), end-effector body quaternion (4, w x y z, world)."""
    return np.concatenate([q, dq, fingers, ee_pos - base, ee_quat], axis=1)


def task_reward(
    success: np.ndarray,
    action: np.ndarray,
    prev_action: np.ndarray,
    q: np.ndarray,
    dq: np.ndarray,
    qrange: np.ndarray,
    w,
) -> dict[str, np.ndarray]:
    """Reward terms (n,) each and their total ``reward`` = r_goal - r_reg - r_safe.

    Args:
        success: (n,) bool. action, prev_action: (n, 7). q, dq: (n, 7) arm joints (rad, rad/s).
        qrange: (n, 7, 2) rad. w: :class:`~simkit.envs.hebero.config.RewardWeights`.
    """
    centre, half = qrange.mean(axis=2), (qrange[..., 1] - qrange[..., 0]) / 2
    over = np.maximum(0.0, np.abs(q - centre) - w.soft_limit * half) / half
    vover = np.maximum(0.0, np.abs(dq) - w.soft_vel * PANDA_VMAX) / PANDA_VMAX
    terms = {
        "r_goal": w.success * success.astype(np.float64),
        "r_smooth": w.smoothness * np.sum((action - prev_action) ** 2, axis=1),
        "r_action": w.action * np.sum(action**2, axis=1),
        "r_joint_vel": w.joint_vel * np.sum(dq**2, axis=1),
        "r_joint_limit": w.joint_limit * np.sum(over**2, axis=1),
        "r_vel_limit": w.vel_limit * np.sum(vover**2, axis=1),
    }
    terms["reward"] = terms["r_goal"] - sum(v for k, v in terms.items() if k != "r_goal")
    return terms
