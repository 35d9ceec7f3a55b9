"""GPU camera poses: the render model's geoms, cameras and lights posed from the physics bodies in torch
equal MuJoCo's own kinematics (the formulas :mod:`simkit.sims.hebero.warp_render` runs on the GPU)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.sims.hebero.warp_render import RigidAttach, camera_ids, quat_to_mat
from tests.test_hebero_scene import _scene

torch = pytest.importorskip("torch")
mujoco = pytest.importorskip("mujoco")


def test_quat_to_mat_matches_mujoco():
    rng = np.random.default_rng(0)
    for q in rng.normal(size=(20, 4)):
        q /= np.linalg.norm(q)
        ref = np.zeros(9)
        mujoco.mju_quat2Mat(ref, q)
        np.testing.assert_allclose(quat_to_mat(q), ref.reshape(3, 3), atol=1e-12)


def test_render_poses_from_physics_bodies_equal_mujoco_kinematics(libero_root):
    sc = _scene(libero_root, "open_the_middle_drawer_of_the_cabinet", seed=1, robot=True)
    m, d = sc.model, sc.data
    mujoco.mj_forward(m, d)  # a drawn layout: objects, fixtures and the arm at rest in general poses
    xpos = torch.as_tensor(np.array(d.xpos, np.float32))[None].repeat(2, 1, 1)  # two worlds
    xmat = torch.as_tensor(np.array(d.xmat, np.float32)).view(1, -1, 3, 3).repeat(2, 1, 1, 1)
    dev = torch.device("cpu")
    for body, pos, quat, ref_pos, ref_mat in (
        (m.geom_bodyid, m.geom_pos, m.geom_quat, d.geom_xpos, d.geom_xmat),
        (m.cam_bodyid, m.cam_pos, m.cam_quat, d.cam_xpos, d.cam_xmat),
    ):
        att = RigidAttach(body, pos, quat, dev, torch)
        out_p = torch.zeros(2, len(body), 3)
        out_m = torch.zeros(2, len(body), 3, 3)
        att.apply(xpos, xmat, out_p, out_m)
        np.testing.assert_allclose(out_p[1].numpy(), ref_pos, atol=2e-5)  # float32 on metre scales
        np.testing.assert_allclose(out_m[1].numpy().reshape(-1, 9), ref_mat, atol=2e-5)
    assert m.nlight > 0
    lights = RigidAttach(m.light_bodyid, m.light_pos, np.tile([1.0, 0, 0, 0], (m.nlight, 1)), dev, torch)
    out = torch.zeros(2, m.nlight, 3)
    lights.apply(xpos, xmat, out, None)
    np.testing.assert_allclose(out[0].numpy(), d.light_xpos, atol=2e-5)


def test_unknown_camera_names_the_model_cameras(libero_root):
    from simkit.core.errors import InputError

    sc = _scene(libero_root, "open_the_middle_drawer_of_the_cabinet", seed=1, robot=False)
    assert camera_ids(sc.model, ["agentview"]) == [
        mujoco.mj_name2id(sc.model, mujoco.mjtObj.mjOBJ_CAMERA, "agentview")
    ]
    with pytest.raises(InputError, match=r"\['wrist'\] are not in the render model .*agentview"):
        camera_ids(sc.model, ["wrist"])
