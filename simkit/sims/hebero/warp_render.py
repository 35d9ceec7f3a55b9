"""Camera images of a layout group on the GPU with MuJoCo Warp's batch ray-tracing renderer.

The physics runs on the :func:`~simkit.sims.hebero.layout_models.physics_only` union model (no
visual geoms, meshes or textures). The pictures come from the group's *full* union model (its
visual meshes, materials and textures, as the CPU renderer draws them), saved beside it by
:func:`~simkit.sims.hebero.layout_models.export_groups` with ``visual=True``. Both models share
the kinematic tree (body, joint, site and camera ids are equal; geom ids differ), so every frame
the render model's poses are derived in torch from the physics state, with no second kinematics
pass: for each render geom g on body b,

    geom_xpos[g] = xpos[b] + xmat[b] @ geom_pos[g],   geom_xmat[g] = xmat[b] @ R(geom_quat[g])

and likewise the cameras (``cam_pos``/``cam_quat`` on ``cam_bodyid``; every simkit camera is
``mjCAMLIGHT_FIXED``) and lights. Then ``mujoco_warp.refit_bvh`` and ``mujoco_warp.render`` fill
the render context, and :meth:`WarpCameras.rgb` unpacks its packed pixels into torch uint8 tensors
(N, 3, H, W), row 0 at the top of the image (MuJoCo Warp casts its rays from the top-left pixel,
as ``mujoco.Renderer`` returns its images). Depth is the ray distance in metres (float32).

Every operation is a warp launch or a torch op on preallocated device tensors, so a frame can be
captured into a CUDA graph with the rest of a control step.

Frames: world, z up, metres; quaternions (w, x, y, z).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from simkit.core.errors import InputError


def quat_to_mat(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4) in (w, x, y, z) order."""
    q = np.asarray(q, dtype=np.float64)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )


def camera_ids(mjm: Any, cameras: Sequence[str]) -> list[int]:
    """Ids of the named cameras in ``mjm``.

    Raises:
        InputError: a camera is not in the model (the message lists the model's cameras).
    """
    import mujoco

    ids = [mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_CAMERA, c) for c in cameras]
    missing = [c for c, i in zip(cameras, ids, strict=True) if i < 0]
    if missing:
        have = [mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_CAMERA, i) for i in range(mjm.ncam)]
        raise InputError(None, f"cameras {missing} are not in the render model (it has {have})")
    return ids


class RigidAttach:
    """Poses of frames rigidly attached to bodies, from the bodies' world poses, in torch.

    Args:
        body: (K,) body id of each frame. pos: (K, 3) m, quat: (K, 4) local pose in the body frame.
        device, torch: where the tables live.
    """

    def __init__(self, body: np.ndarray, pos: np.ndarray, quat: np.ndarray, device: Any, torch: Any):
        self.body = torch.as_tensor(np.asarray(body, np.int64), device=device)
        self.pos = torch.as_tensor(np.asarray(pos, np.float32), device=device)
        self.rot = torch.as_tensor(quat_to_mat(quat).astype(np.float32), device=device)

    def apply(self, xpos: Any, xmat: Any, out_pos: Any, out_mat: Any | None) -> None:
        """Write world positions (W, K, 3) into ``out_pos`` and orientations (W, K, 3, 3) into ``out_mat``.

        ``xpos`` (W, nbody, 3), ``xmat`` (W, nbody, 3, 3) are the physics model's body poses.
        """
        bx, bm = xpos[:, self.body], xmat[:, self.body]  # (W, K, 3), (W, K, 3, 3)
        out_pos.copy_(bx + (bm @ self.pos[None, :, :, None])[..., 0])
        if out_mat is not None:
            out_mat.copy_(bm @ self.rot[None])


class WarpCameras:
    """The named cameras of a group's render model, rendered for every world of a physics group.

    Args:
        render_model: the full (visual) union ``mujoco.MjModel`` of the group.
        nworld: worlds of the physics group (one image per world and camera).
        cameras: camera names in ``render_model`` (e.g. ``("agentview", "eye_in_hand")``).
        size: image side, px (square images, as LIBERO's 128 x 128).
        depth: also render depth.
        geom_groups: MuJoCo geom groups drawn (visual and collision geoms by default, as the CPU
            renderer draws both: some assets ship without their visual meshes).

    Raises:
        InputError: a camera is not in the model.
        ExtraMissing: warp, mujoco_warp or torch is not installed (the ``[gpu]`` extra).
    """

    def __init__(
        self,
        render_model: Any,
        nworld: int,
        cameras: Sequence[str],
        size: int = 128,
        depth: bool = False,
        geom_groups: Sequence[int] = (0, 1, 2),
    ):
        from simkit.sims.hebero.warp_batch import require_gpu

        wp, mjw, torch = require_gpu()
        self.wp, self.mjw, self.torch = wp, mjw, torch
        self.cameras, self.size, self.depth = tuple(cameras), int(size), bool(depth)
        mjm = render_model
        ids = camera_ids(mjm, self.cameras)
        self.m = mjw.put_model(mjm)
        self.d = mjw.make_data(mjm, nworld=nworld, nconmax=1, njmax=1)
        self.rc = mjw.create_render_context(
            mjm,
            nworld=nworld,
            cam_res=(self.size, self.size),
            render_rgb=True,
            render_depth=self.depth,
            cam_active=ids,
            enabled_geom_groups=list(geom_groups),
        )
        dev = torch.device("cuda")
        tt = wp.to_torch
        self.t = {k: tt(getattr(self.d, k)) for k in ("geom_xpos", "geom_xmat", "cam_xpos", "cam_xmat")}
        self.t["light_xpos"], self.t["light_xdir"] = tt(self.d.light_xpos), tt(self.d.light_xdir)
        self.geoms = RigidAttach(mjm.geom_bodyid, mjm.geom_pos, mjm.geom_quat, dev, torch)
        self.cams = RigidAttach(mjm.cam_bodyid, mjm.cam_pos, mjm.cam_quat, dev, torch)
        self.lights = RigidAttach(
            mjm.light_bodyid, mjm.light_pos, np.tile([1.0, 0, 0, 0], (mjm.nlight, 1)), dev, torch
        )
        self.light_dir = torch.as_tensor(np.asarray(mjm.light_dir, np.float32), device=dev)
        self.packed = tt(self.rc.rgb_data).view(torch.int32)  # (W, total pixels), ABGR per pixel
        self.rgb_adr = [int(a) for a in self.rc.rgb_adr.numpy()]
        self.depth_data = tt(self.rc.depth_data) if self.depth else None
        self.depth_adr = [int(a) for a in self.rc.depth_adr.numpy()] if self.depth else []
        self.stream = wp.Stream(wp.get_device())

    def render(self, xpos: Any, xmat: Any) -> None:
        """Pose the render model from the physics bodies (``xpos`` (W, nbody, 3), ``xmat`` (W, nbody, 3, 3),
        torch, current stream) and render every camera into the render context."""
        t = self.t
        self.geoms.apply(xpos, xmat, t["geom_xpos"], t["geom_xmat"])
        self.cams.apply(xpos, xmat, t["cam_xpos"], t["cam_xmat"])
        self.lights.apply(xpos, xmat, t["light_xpos"], None)
        bm = xmat[:, self.lights.body]
        t["light_xdir"].copy_((bm @ self.light_dir[None, :, :, None])[..., 0])
        self.mjw.refit_bvh(self.m, self.d, self.rc)
        self.mjw.render(self.m, self.d, self.rc)

    def rgb(self, k: int) -> Any:
        """Camera ``k``'s images, torch uint8 (W, 3, H, W), channels R, G, B, row 0 at the top."""
        s = self.size
        p = self.packed[:, self.rgb_adr[k] : self.rgb_adr[k] + s * s].reshape(-1, 1, s, s)
        shifts = self.torch.tensor([16, 8, 0], device=p.device, dtype=self.torch.int32).view(1, 3, 1, 1)
        return ((p >> shifts) & 0xFF).to(self.torch.uint8)

    def depth_m(self, k: int) -> Any:
        """Camera ``k``'s ray distances, torch float32 (W, 1, H, W), metres.

        Raises:
            ValueError: the cameras were built without ``depth``.
        """
        if self.depth_data is None:
            raise ValueError("these cameras render no depth (build them with depth=True)")
        s = self.size
        return self.depth_data[:, self.depth_adr[k] : self.depth_adr[k] + s * s].reshape(-1, 1, s, s)
