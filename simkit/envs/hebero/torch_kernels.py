"""The array kernels of :mod:`simkit.envs.hebero.kernels` in torch: one definition for both backends.

Each function computes exactly what its numpy namesake computes (same formulas, frames, clipping,
reward terms and :class:`~simkit.envs.hebero.config.HeberoConfig` fields), on torch tensors of any
device and float dtype: the GPU backend (:mod:`simkit.envs.hebero.warp`) runs them on MuJoCo Warp's
arrays, the tests check them against the numpy kernels on the CPU env's own states.

Written for CUDA-graph capture: static shapes, no host synchronisation (no ``.item()``, no boolean
mask indexing, no ``nonzero``, no numpy round trip, no host-to-device copy after the first call of
a device and dtype, no ``torch.linalg`` solver -- the 6 x 6 solve is
:func:`~simkit.sims.hebero.batched_tasks.solve_spd6`'s unrolled Gauss-Jordan elimination).

Frames: world, z up, metres, radians; quaternions (w, x, y, z); rotation matrices row-major when
flattened to 9 (MuJoCo's ``xmat``).
"""

from __future__ import annotations

from typing import Any

from simkit.envs.hebero.kernels import GRIPPER_OPEN, N_SLOTS, PANDA_VMAX, SLOT_FEATURES
from simkit.sims.hebero.batched_tasks import SLOT_BODY, SLOT_CONST, SLOT_SITE, solve_spd6

_CONSTANTS: dict[tuple[str, Any, Any], Any] = {}


def _panda_vmax(like):
    """:data:`~simkit.envs.hebero.kernels.PANDA_VMAX` as a tensor of ``like``'s device and dtype, made
    once per device and dtype (a host-to-device copy must not happen inside a captured graph)."""
    import torch

    key = ("vmax", like.device, like.dtype)
    if key not in _CONSTANTS:
        _CONSTANTS[key] = torch.as_tensor(PANDA_VMAX, dtype=like.dtype).to(like.device)
    return _CONSTANTS[key]


def hinge_jacobian(anchor, axis, point):
    """Geometric Jacobian of a chain of hinges at world points (:func:`kernels.hinge_jacobian`).

    Args:
        anchor, axis: (n, k, 3) world anchors (m) and unit axes of the k hinges (``xanchor``, ``xaxis``).
        point: (n, 3) world point, m.

    Returns:
        jacp (n, 3, k) = axis_i x (point - anchor_i); jacr (n, 3, k) = axis_i.
    """
    import torch

    jacp = torch.cross(axis, point[:, None, :] - anchor, dim=-1)  # (n, k, 3)
    return jacp.transpose(1, 2), axis.transpose(1, 2)


def dls_delta_q(jac, dx, damping: float):
    """dq (n, 7) = J^T (J J^T + lambda^2 I)^-1 dx for Jacobians (n, 6, 7) and displacements dx (n, 6).

    Damped least squares (Nakamura & Hanafusa 1986; Buss 2004, eq. 11), as :func:`kernels.dls_delta_q`.
    """
    import torch

    eye = torch.eye(6, device=jac.device, dtype=jac.dtype)
    jjt = jac @ jac.transpose(1, 2) + (damping**2) * eye
    return (jac.transpose(1, 2) @ solve_spd6(jjt, dx)[..., None])[..., 0]


def arm_targets(action, q, jacp, jacr, qrange, pos_scale: float, rot_scale: float, damping: float):
    """Arm joint targets (n, 7, rad) and finger targets (n, 2, m) for actions (n, 7): :func:`kernels.arm_targets`.

    dx = [s_p a[0:3]; s_R a[3:6]] (world frame), q* = clip(q + J^T (J J^T + lambda^2 I)^-1 dx, limits);
    fingers (0, 0) m when a[6] > 0 (close), (0.04, -0.04) m otherwise (robosuite's sign).

    Args:
        action: (n, 7) in [-1, 1]. q: (n, 7) arm joint positions, rad.
        jacp, jacr: (n, 3, 7) translational / rotational Jacobians of the grip site on the arm dofs.
        qrange: (n, 7, 2) joint limits, rad (any shape broadcasting to it, e.g. (1, 7, 2)).
        pos_scale: s_p, m. rot_scale: s_R, rad. damping: lambda.
    """
    import torch

    dx = torch.cat([pos_scale * action[:, 0:3], rot_scale * action[:, 3:6]], 1)
    dq = dls_delta_q(torch.cat([jacp, jacr], 1), dx, damping)
    target = torch.minimum(torch.maximum(q + dq, qrange[..., 0]), qrange[..., 1])
    wide = torch.full_like(q[:, :1], GRIPPER_OPEN)
    opening = torch.where(action[:, 6:7] > 0, torch.zeros_like(wide), wide)
    return target, torch.cat([opening, -opening], 1)


def proprioception(q, dq, fingers, ee_pos, ee_quat, base):
    """(n, 23): arm q (7, rad), arm dq (7, rad/s), finger q (2, m), grip-site position minus the robot
    base position (3, m, world axes), end-effector body quaternion (4, w x y z, world):
    :func:`kernels.proprioception`."""
    import torch

    return torch.cat([q, dq, fingers, ee_pos - base, ee_quat], 1)


def slot_features(xpos, xmat, site_xpos, site_xmat, kind, ids, base, const=None):
    """Object-target buffer (n, 26 * 9): per slot [p - p_base (3), rot6d (6)], zeros when unused.

    :func:`kernels.slot_features`, plus constant slots (a pose fixed at compile time, e.g. a region
    welded to the table, which the GPU backend's task programs store instead of a site).

    Args:
        xpos (n, nbody, 3); xmat (n, nbody, 9) or (n, nbody, 3, 3); site_xpos (n, nsite, 3);
            site_xmat (n, nsite, 9) or (n, nsite, 3, 3).
        kind: (n, 26) int: 0 unused, 1 body (entity root), 2 site (region), 3 constant
            (:data:`~simkit.sims.hebero.batched_tasks.SLOT_BODY` ...). ids: (n, 26) int body/site ids.
        base: (n, 3) robot base position, m. const: (n, 26, 9) world position (3) and rot6d (6) of
            constant slots (None: no constant slots).
    """
    import torch

    n = kind.shape[0]
    rows = torch.arange(n, device=kind.device)[:, None]
    nb, ns = xpos.shape[1], site_xpos.shape[1]
    bid = torch.where(kind == SLOT_BODY, ids, 0).clamp(0, nb - 1)
    body = torch.cat([xpos[rows, bid], _rot6d(xmat.reshape(n, nb, 9)[rows, bid])], -1)
    out = torch.where((kind == SLOT_BODY)[..., None], body, torch.zeros_like(body))
    if ns:
        sid = torch.where(kind == SLOT_SITE, ids, 0).clamp(0, ns - 1)
        site = torch.cat([site_xpos[rows, sid], _rot6d(site_xmat.reshape(n, ns, 9)[rows, sid])], -1)
        out = torch.where((kind == SLOT_SITE)[..., None], site, out)
    if const is not None:
        out = torch.where((kind == SLOT_CONST)[..., None], const.to(out.dtype), out)
    used = (kind != 0)[..., None]
    shift = torch.cat([base, torch.zeros_like(out[:, 0, 3:])], -1)[:, None, :]  # position minus base
    out = torch.where(used, out - shift, out)
    return out.reshape(n, N_SLOTS * SLOT_FEATURES)


def _rot6d(mat9):
    """First two columns of row-major rotation matrices (..., 9) -> (..., 6) (Zhou et al., CVPR 2019)."""
    import torch

    return torch.cat([mat9[..., 0::3], mat9[..., 1::3]], -1)


def task_reward(success, action, prev_action, q, dq, qrange, w) -> dict[str, Any]:
    """Reward terms (n,) each and their total ``reward`` = r_goal - r_reg - r_safe: :func:`kernels.task_reward`.

    Args:
        success: (n,) bool. action, prev_action: (n, 7). q, dq: (n, 7) arm joints (rad, rad/s).
        qrange: (n, 7, 2) rad (or broadcasting to it). w: :class:`~simkit.envs.hebero.config.RewardWeights`.

    Returns:
        ``r_goal``, ``r_smooth``, ``r_action``, ``r_joint_vel``, ``r_joint_limit``, ``r_vel_limit``,
        ``reward``: (n,) tensors of ``q``'s dtype.
    """
    import torch

    lo, hi = qrange[..., 0], qrange[..., 1]
    centre, half = (lo + hi) / 2, (hi - lo) / 2
    vmax = _panda_vmax(dq)
    over = torch.relu((q - centre).abs() - w.soft_limit * half) / half
    vover = torch.relu(dq.abs() - w.soft_vel * vmax) / vmax
    terms = {
        "r_goal": w.success * success.to(q.dtype),
        "r_smooth": w.smoothness * ((action - prev_action) ** 2).sum(1),
        "r_action": w.action * (action**2).sum(1),
        "r_joint_vel": w.joint_vel * (dq**2).sum(1),
        "r_joint_limit": w.joint_limit * (over**2).sum(1),
        "r_vel_limit": w.vel_limit * (vover**2).sum(1),
    }
    penalty = terms["r_smooth"] + terms["r_action"] + terms["r_joint_vel"]
    terms["reward"] = terms["r_goal"] - (penalty + terms["r_joint_limit"] + terms["r_vel_limit"])
    return terms
