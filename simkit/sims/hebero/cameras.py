"""The observation cameras in MuJoCo task models, and their offscreen renderer (CPU).

:func:`add_cameras` puts the cameras of :mod:`simkit.scenes.hebero.cameras` (names, poses, field of
view: one definition for every backend) into a task's ``MjSpec``; :func:`~simkit.sims.hebero.scene.build_scene`
calls it for every task model. :class:`CameraRenderer` renders them with MuJoCo's offscreen
renderer (``mujoco.Renderer``): OpenGL through ``MUJOCO_GL`` (``egl`` where a GPU driver exists or
Mesa's EGL on a CPU, ``osmesa`` on a headless box without EGL), chosen by whoever imports mujoco
first (:func:`gl_default` sets ``egl`` when unset). Triton's library, where installed, is loaded
before the first draw (:func:`simkit.core.llvm.load_llvm_libraries`).

Image conventions (upright, row 0 = top; depth along the optical axis in metres) are those of
:mod:`simkit.scenes.hebero.cameras`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from simkit.core.errors import InputError, SimkitError
from simkit.scenes.hebero.cameras import CAMERA_NAMES, ZFAR, ZNEAR, camera_defs


def gl_default() -> None:
    """Set ``MUJOCO_GL=egl`` when it is unset and mujoco is not imported yet (MuJoCo reads it once)."""
    if "mujoco" not in sys.modules:
        os.environ.setdefault("MUJOCO_GL", "egl")


def add_cameras(spec: Any, problem: str, with_robot: bool = True) -> None:
    """Add the observation cameras of a LIBERO problem class to ``spec`` (a ``mujoco.MjSpec``).

    ``agentview`` goes on the world body; ``eye_in_hand`` on its robot body (``robot/right_hand``),
    only when the robot is in the spec (``with_robot``). Poses, ``fovy``: :func:`camera_defs`.
    """
    import mujoco

    for cam in camera_defs(problem):
        if cam.body == "world":
            body = spec.worldbody
        elif with_robot:
            body = spec.body(cam.body)
        else:
            continue
        body.add_camera(
            name=cam.name,
            pos=list(cam.pos),
            quat=list(cam.quat),
            fovy=cam.fovy,
            mode=mujoco.mjtCamLight.mjCAMLIGHT_FIXED,
        )


def set_clip_planes(model: Any) -> None:
    """Put a compiled model's clipping planes at :data:`ZNEAR` / :data:`ZFAR` metres (MuJoCo scales
    ``vis.map.znear/zfar`` by ``stat.extent``; visualisation only, the dynamics do not read them)."""
    model.vis.map.znear = ZNEAR / model.stat.extent
    model.vis.map.zfar = ZFAR / model.stat.extent


def check_cameras(cameras: Sequence[str]) -> tuple[str, ...]:
    """``cameras`` as a tuple, each one of :data:`CAMERA_NAMES`.

    Raises:
        InputError: an unknown camera name, or none.
    """
    cams = tuple(cameras)
    bad = [c for c in cams if c not in CAMERA_NAMES]
    if bad or not cams:
        raise InputError(None, f"cameras must be among {list(CAMERA_NAMES)}, got {list(cams)}")
    return cams


class CameraRenderer:
    """Offscreen images of one task model's cameras, ``size`` x ``size`` px.

    Args:
        model: a compiled ``mujoco.MjModel`` holding the cameras, a visual model
            (:func:`~simkit.sims.hebero.scene.build_scene` with ``visual=True``: only visual geoms are
            drawn, so a physics-only model shows the table and floor alone).
        size: image side, px (at most the model's offscreen buffer, 1280 x 960 for task models).

    Raises:
        SimkitError: no OpenGL context can be made (one line naming ``MUJOCO_GL``).
    """

    def __init__(self, model: Any, size: int):
        from simkit.core.llvm import load_llvm_libraries

        load_llvm_libraries()
        import mujoco

        self._mj = mujoco
        self.model, self.size = model, int(size)
        try:
            self._r = mujoco.Renderer(model, self.size, self.size)
        except Exception as exc:  # no GL context: MuJoCo raises its own FatalError types
            raise SimkitError(
                f"offscreen rendering failed ({exc}); set MUJOCO_GL=egl or osmesa before importing mujoco"
            ) from None
        set_clip_planes(model)
        self._opt = mujoco.MjvOption()
        self._opt.sitegroup[:] = 0  # hide helper sites (regions, grip markers)
        self._opt.geomgroup[0] = 0  # collision geoms (robosuite's cameras draw visual geoms only)
        flags = self._r.scene.flags  # LIBERO's lights cast no shadows; each shadow is a pass per light
        flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False
        flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = False

    def render(
        self, data: Any, cameras: Sequence[str], depth: bool = False, segmentation: bool = False
    ) -> dict[str, np.ndarray]:
        """Images of ``data`` (kinematics current, e.g. after ``mj_forward``) from each camera.

        Returns:
            ``<camera>_rgb`` (S, S, 3) uint8; with ``depth`` ``<camera>_depth`` (S, S) float32, m along
            the optical axis; with ``segmentation`` ``<camera>_segmentation`` (S, S, 2) int32: MuJoCo
            object id and ``mjtObj`` type per pixel (-1 where nothing is drawn). Upright (row 0 = top).
        """
        r, out = self._r, {}
        for cam in cameras:
            r.update_scene(data, camera=cam, scene_option=self._opt)
            out[f"{cam}_rgb"] = r.render().copy()
            if depth:
                r.enable_depth_rendering()
                out[f"{cam}_depth"] = r.render().astype(np.float32)
                r.disable_depth_rendering()
            if segmentation:
                r.enable_segmentation_rendering()
                out[f"{cam}_segmentation"] = r.render().astype(np.int32)
                r.disable_segmentation_rendering()
        return out

    def close(self) -> None:
        """Free the OpenGL context."""
        self._r.close()
