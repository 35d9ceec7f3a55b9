"""RGB and depth frames of a box scene from the agent's eye, rendered offscreen with MuJoCo.

The scene is a list of axis-aligned boxes ``(lo, hi, kind)`` (metres, world, z up; ``kind`` picks
the colour) over a floor ``[0, W] x [0, D]``. The camera sits at the agent's (x, y) and
``eye_height`` and looks along its yaw (horizontal optical axis). MuJoCo cameras look along their
-z axis with +y up, so the camera's rotation has columns ``right = (sin yaw, -cos yaw, 0)``,
``up = (0, 0, 1)``, ``back = (-cos yaw, -sin yaw, 0)``.

Uses ``MUJOCO_GL`` (``egl`` by default, set before MuJoCo is imported; ``osmesa`` also works on
CPU-only machines with OSMesa installed).
"""

from __future__ import annotations

import os

import numpy as np

RGBA = {"wall": "0.88 0.88 0.86 1", "furniture": "0.55 0.35 0.24 1", "floor": "0.7 0.67 0.6 1"}


def _mjcf(boxes, size, width: int, height: int, fov_deg: float) -> str:
    geoms = []
    w, d = size
    geoms.append(
        f'<geom type="box" pos="{w / 2} {d / 2} -0.025" size="{w / 2 + 0.5} {d / 2 + 0.5} 0.025" rgba="{RGBA["floor"]}"/>'
    )
    for lo, hi, kind in boxes:
        c = [(a + b) / 2 for a, b in zip(lo, hi)]
        h = [max((b - a) / 2, 1e-3) for a, b in zip(lo, hi)]
        rgba = RGBA.get(kind, RGBA["wall"])
        geoms.append(
            f'<geom type="box" pos="{c[0]} {c[1]} {c[2]}" size="{h[0]} {h[1]} {h[2]}" rgba="{rgba}"/>'
        )
    return (
        f'<mujoco><visual><global offwidth="{width}" offheight="{height}"/>'
        '<headlight ambient="0.3 0.3 0.3" diffuse="0.4 0.4 0.4" specular="0 0 0"/></visual><worldbody>'
        '<light pos="0 0 6" dir="0.3 0.2 -1" directional="true" diffuse="0.4 0.4 0.4" specular="0 0 0"/>'
        + "".join(geoms)
        + f'<camera name="eye" pos="0 0 1.5" fovy="{fov_deg}"/></worldbody></mujoco>'
    )


def _gl_context(width: int, height: int):
    """An offscreen OpenGL context of the ``MUJOCO_GL`` kind (``egl`` by default, or ``osmesa``),
    created directly, so it does not depend on which backend MuJoCo chose when it was first imported.
    Triton's library, where installed, is loaded first (:func:`simkit.core.llvm.load_llvm_libraries`)."""
    from simkit.core.llvm import load_llvm_libraries

    load_llvm_libraries()
    kind = os.environ.get("MUJOCO_GL", "egl").lower()
    if kind == "osmesa":
        from mujoco.osmesa import GLContext
    else:
        from mujoco.egl import GLContext
    return GLContext(width, height)


class FrameRenderer:
    """Offscreen RGB + depth of a box scene (module docstring).

    One ``mjr_render`` per frame gives both images (``mjr_readPixels``); the depth buffer is
    linearised with MuJoCo's near/far planes (``znear``, ``zfar`` times the model extent), as
    ``mujoco.Renderer`` does.

    Args:
        boxes: ``[(lo (3,), hi (3,), kind), ...]`` metres, world.
        size: floor (W, D) metres.
        width, height: image size in pixels. fov_deg: vertical field of view, degrees.
    """

    def __init__(self, boxes, size, width: int = 128, height: int = 96, fov_deg: float = 60.0):
        os.environ.setdefault("MUJOCO_GL", "egl")
        import mujoco

        self._mj = mujoco
        self.model = mujoco.MjModel.from_xml_string(_mjcf(boxes, size, width, height, fov_deg))
        self.data = mujoco.MjData(self.model)
        self.width, self.height = width, height
        self.ctx = _gl_context(width, height)
        self.ctx.make_current()
        self.scene = mujoco.MjvScene(self.model, maxgeom=len(boxes) + 16)
        self.cam = mujoco.MjvCamera()
        self.cam.type = mujoco.mjtCamera.mjCAMERA_FIXED
        self.cam.fixedcamid = 0
        self.opt = mujoco.MjvOption()
        self.con = mujoco.MjrContext(self.model, mujoco.mjtFontScale.mjFONTSCALE_150)
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self.con)
        self.viewport = mujoco.MjrRect(0, 0, width, height)

    def render(self, pose, eye_height: float) -> tuple[np.ndarray, np.ndarray]:
        """Frames at ``pose`` (x, y, yaw): ``(rgb uint8 (H, W, 3), depth float32 (H, W) metres)``."""
        mj = self._mj
        x, y, yaw = (float(v) for v in pose[:3])
        rot = np.array(
            [[np.sin(yaw), 0.0, -np.cos(yaw)], [-np.cos(yaw), 0.0, -np.sin(yaw)], [0.0, 1.0, 0.0]],
            dtype=np.float64,
        )
        quat = np.zeros(4)
        mj.mju_mat2Quat(quat, rot.ravel())
        self.model.cam_pos[0] = (x, y, eye_height)
        self.model.cam_quat[0] = quat
        mj.mj_forward(self.model, self.data)
        self.ctx.make_current()
        mj.mjv_updateScene(
            self.model, self.data, self.opt, None, self.cam, mj.mjtCatBit.mjCAT_ALL, self.scene
        )
        mj.mjr_render(self.viewport, self.scene, self.con)
        rgb = np.empty((self.height, self.width, 3), dtype=np.uint8)
        z = np.empty((self.height, self.width), dtype=np.float32)
        mj.mjr_readPixels(rgb, z, self.viewport, self.con)
        extent = self.model.stat.extent
        near, far = self.model.vis.map.znear * extent, self.model.vis.map.zfar * extent
        depth = near / (1.0 - z * (1.0 - near / far))  # OpenGL depth buffer -> metres along the axis
        return np.flipud(rgb).copy(), np.flipud(depth).astype(np.float32)

    def close(self) -> None:
        """Free the GL resources."""
        self.con.free()
        self.ctx.free()
