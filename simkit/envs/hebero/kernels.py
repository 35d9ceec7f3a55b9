"""Array kernels of ``simkit/Hebero-v0``: controller, observation, reward, over batches of envs.

One definition for both backends, written against the array namespace of :mod:`simkit.core.xp`:
numpy arrays on the CPU backend (:class:`~simkit.envs.hebero.vector_env.HeberoVectorEnv`, float64),
torch tensors of any device and float dtype on the GPU backend (:mod:`simkit.envs.hebero.warp`, float32
CUDA tensors, captured into CUDA graphs). Every function works over a leading batch axis n (no
per-env loop), with static shapes and no host synchronisation: no ``.item()``, no Python branch on
array values, no boolean-mask indexing; the torch constants are made once per device and dtype. On
numpy the operations are the ones the CPU env always ran (LAPACK's solve, ``np.clip``), so its
float64 results are unchanged to the bit (``tests/test_hebero_kernels.py``).

Frames: world, z up, metres, radians; quaternions (w, x, y, z); rotation matrices row-major when
flattened to 9 (MuJoCo's ``xmat``).

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

from typing import Any

import numpy as np

from simkit.core.xp import namespace
from simkit.sims.hebero.batched_tasks import SLOT_BODY, SLOT_CONST, SLOT_SITE, rot6

#: Panda joint speed limits (rad/s), Franka Emika datasheet
PANDA_VMAX = np.array([2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61])
GRIPPER_OPEN = 0.04  #: m, finger target when open
OBS_DIM = 300  #: 7 + 36 + 23 + 26 * 9
PROPRIO_DIM = 23
N_SLOTS, SLOT_FEATURES = 26, 9


def dls_delta_q(jac, dx, damping: float):
    """Joint displacement (n, 7) realising task displacements dx (n, 6) with Jacobians jac (n, 6, 7).

    dq = J^T (J J^T + lambda^2 I)^-1 dx (damped least squares; Nakamura & Hanafusa 1986; Buss 2004,
    eq. 11). The 6 x 6 solve is the namespace's :meth:`~simkit.core.xp.NumpyNamespace.solve_spd`:
    LAPACK on numpy, unrolled Gauss-Jordan elimination on torch.
    """
    xp = namespace(jac, dx)
    jjt = jac @ xp.matrix_transpose(jac) + (damping**2) * xp.eye(6, like=jac)
    return xp.einsum("nji,nj->ni", jac, xp.solve_spd(jjt, dx))


def hinge_jacobian(anchor, axis, point):
    """Geometric Jacobian of a serial chain of hinge joints at world points (what ``mj_jac`` gives for them).

    Args:
        anchor, axis: (n, k, 3) world anchor points (m) and unit axes of the k hinges
            (MuJoCo's ``xanchor``, ``xaxis``).
        point: (n, 3) world point, m.

    Returns:
        jacp (n, 3, k) = axis_i x (point - anchor_i); jacr (n, 3, k) = axis_i.
    """
    xp = namespace(anchor, axis, point)
    r = point[:, None, :] - anchor
    ax, ay, az = axis[..., 0], axis[..., 1], axis[..., 2]
    rx, ry, rz = r[..., 0], r[..., 1], r[..., 2]
    jacp = xp.stack([ay * rz - az * ry, az * rx - ax * rz, ax * ry - ay * rx], axis=1)  # (n, 3, k)
    return jacp, xp.matrix_transpose(axis)


def arm_targets(action, q, jacp, jacr, qrange, pos_scale: float, rot_scale: float, damping: float):
    """Joint position targets (n, 7) of the arm and finger targets (n, 2) for actions (n, 7).

    dx = [s_p a[0:3]; s_R a[3:6]] (world frame), q* = clip(q + J^T (J J^T + lambda^2 I)^-1 dx, limits);
    fingers (0, -0) m when a[6] > 0 (close), (0.04, -0.04) m otherwise (robosuite's sign).

    Args:
        action: (n, 7) in [-1, 1]. q: (n, 7) arm joint positions, rad.
        jacp, jacr: (n, 3, 7) translational / rotational Jacobians of the grip site on the arm dofs.
        qrange: (n, 7, 2) joint limits, rad (or broadcasting to it, e.g. (1, 7, 2)).
        pos_scale: s_p, m. rot_scale: s_R, rad. damping: lambda.

    Returns:
        targets (n, 7) and fingers (n, 2), of ``q``'s dtype.
    """
    xp = namespace(action, q, jacp)
    dx = xp.concat([pos_scale * action[:, 0:3], rot_scale * action[:, 3:6]], axis=1)
    dq = dls_delta_q(xp.concat([jacp, jacr], axis=1), dx, damping)
    target = xp.clip(q + dq, qrange[..., 0], qrange[..., 1])
    opening = GRIPPER_OPEN * xp.astype(action[:, 6:7] <= 0, like=q)
    return target, xp.concat([opening, -opening], axis=1)


def rot6d(mat):
    """First two columns of rotation matrices (..., 9) row-major -> (..., 6) (Zhou et al. 2019)."""
    return rot6(mat.reshape(*mat.shape[:-1], 3, 3))


def slot_features(xpos, xmat, site_xpos, site_xmat, kind, ids, base, const=None):
    """Object-target pose buffer (n, 26 * 9): per slot [p - p_base (3), rot6d (6)], zeros when unused.

    Args:
        xpos (n, nbody, 3); xmat (n, nbody, 9) or (n, nbody, 3, 3); site_xpos (n, nsite, 3);
            site_xmat (n, nsite, 9) or (n, nsite, 3, 3).
        kind: (n, 26) int: 0 unused, 1 body (entity root), 2 site (region), 3 constant
            (:data:`~simkit.sims.hebero.batched_tasks.SLOT_BODY` ...). ids: (n, 26) int body/site ids.
        base: (n, 3) robot base position, m.
        const: (n, 26, 9) world position (3) and rot6d (6) of constant slots (a pose fixed at compile
            time, e.g. a region welded to the table, which the GPU backend's task programs store
            instead of a site); None: no constant slots.
    """
    xp = namespace(xpos, kind)
    n, nb, ns = kind.shape[0], xpos.shape[1], site_xpos.shape[1]
    rows = xp.arange(n, like=kind)[:, None]
    is_body = kind == SLOT_BODY
    bid = xp.where(is_body, ids, 0)
    pos, rot = xpos[rows, bid], xmat.reshape(n, nb, 9)[rows, bid]
    if ns:  # a model without sites has no site slots
        sid = xp.where(kind == SLOT_SITE, ids, 0)
        pos = xp.where(is_body[..., None], pos, site_xpos[rows, sid])
        rot = xp.where(is_body[..., None], rot, site_xmat.reshape(n, ns, 9)[rows, sid])
    pos, r6 = pos - base[:, None], rot6d(rot)
    if const is not None:
        is_const = (kind == SLOT_CONST)[..., None]
        c = xp.astype(const, like=pos)
        pos, r6 = xp.where(is_const, c[..., :3] - base[:, None], pos), xp.where(is_const, c[..., 3:], r6)
    feat = xp.concat([pos, r6], axis=-1) * xp.astype(kind > 0, like=pos)[..., None]
    return feat.reshape(n, N_SLOTS * SLOT_FEATURES)


def proprioception(q, dq, fingers, ee_pos, ee_quat, base):
    """(n, 23): arm q (7, rad), arm dq (7, rad/s), finger q (2, m), grip-site position relative to
    the robot base (3, m, world axes), end-effector body quaternion (4, w x y z, world)."""
    return namespace(q).concat([q, dq, fingers, ee_pos - base, ee_quat], axis=1)


def task_reward(success, action, prev_action, q, dq, qrange, w) -> dict[str, Any]:
    """Reward terms (n,) each and their total ``reward`` = r_goal - r_reg - r_safe.

    r_joint_limit sums ((|q - c| - k h)^+ / h)^2 over the arm joints (c, h: centre and half width
    of the joint range, k = ``soft_limit``), r_vel_limit ((|dq| - k_v v_max)^+ / v_max)^2
    (:data:`PANDA_VMAX`); each term is weighted by its :class:`~simkit.envs.hebero.config.RewardWeights` field.

    Args:
        success: (n,) bool. action, prev_action: (n, 7). q, dq: (n, 7) arm joints (rad, rad/s).
        qrange: (n, 7, 2) rad (or broadcasting to it). w: :class:`~simkit.envs.hebero.config.RewardWeights`.

    Returns:
        ``r_goal``, ``r_smooth``, ``r_action``, ``r_joint_vel``, ``r_joint_limit``, ``r_vel_limit``,
        ``reward``: (n,) arrays of ``q``'s dtype.
    """
    xp = namespace(q, dq)
    lo, hi = qrange[..., 0], qrange[..., 1]
    centre, half = (lo + hi) / 2, (hi - lo) / 2
    vmax = xp.constant("panda_vmax", PANDA_VMAX, like=dq)
    over = xp.maximum(abs(q - centre) - w.soft_limit * half, 0.0) / half
    vover = xp.maximum(abs(dq) - w.soft_vel * vmax, 0.0) / vmax
    terms = {
        "r_goal": w.success * xp.astype(success, like=q),
        "r_smooth": w.smoothness * xp.sum((action - prev_action) ** 2, axis=1),
        "r_action": w.action * xp.sum(action**2, axis=1),
        "r_joint_vel": w.joint_vel * xp.sum(dq**2, axis=1),
        "r_joint_limit": w.joint_limit * xp.sum(over**2, axis=1),
        "r_vel_limit": w.vel_limit * xp.sum(vover**2, axis=1),
    }
    terms["reward"] = terms["r_goal"] - sum(v for k, v in terms.items() if k != "r_goal")
    return terms
