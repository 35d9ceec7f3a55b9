"""Hebero cameras: LIBERO's agentview and robosuite's wrist camera in the task models, images checked
against the pinhole model (segmentation, depth), the env's camera API and obs modes, demos with video."""

import os
import xml.etree.ElementTree as ET

os.environ.setdefault("MUJOCO_GL", "egl")

import gymnasium
import mujoco
import numpy as np
import pytest

from simkit.core.errors import InputError
from simkit.envs.hebero.single import HeberoEnv
from simkit.envs.hebero.vector_env import HeberoVectorEnv
from simkit.scenes.hebero.cameras import (
    AGENTVIEW_POSES,
    EYE_IN_HAND,
    MUJOCO_DEFAULT_FOVY,
    ZFAR,
    pixel_rays,
    project,
)
from simkit.scenes.hebero.placement import TABLE_TOP
from simkit.sims.hebero.cameras import CameraRenderer
from simkit.sims.hebero.scene import panda_dir, subtree_bodies

TASK = "goal/put_the_bowl_on_the_plate"
S = 96  # px: small, but the objects span several pixels


@pytest.fixture(scope="module")
def venv():
    env = HeberoVectorEnv(num_envs=2, tasks=[TASK], obs_mode="state+rgb", image_size=S, nthread=1)
    obs, _ = env.reset(seed=1)
    yield env, obs
    env.close()


@pytest.fixture(scope="module")
def shot(venv):
    """Env 0's model, data and agentview / wrist images with depth and segmentation (S px), drawn by
    the env's own renderer."""
    env, _ = venv
    model = env.tasks[0].model
    data = env._render_data(0)
    renderer: CameraRenderer = env._renderers[(0, S)]
    return model, data, renderer.render(data, ("agentview", "eye_in_hand"), depth=True, segmentation=True)


def _geom_mask(model, seg: np.ndarray, bodies) -> np.ndarray:
    """Pixels (H, W) bool whose segmentation is a geom of one of ``bodies``."""
    is_geom = seg[..., 1] == int(mujoco.mjtObj.mjOBJ_GEOM)
    ids = np.where(is_geom, seg[..., 0], 0)
    return is_geom & np.isin(model.geom_bodyid[ids], np.asarray(list(bodies)))


def test_camera_definitions_are_libero_and_robosuite_ones(venv):
    env, _ = venv
    model = env.tasks[0].model
    # the wrist camera as robosuite's Panda model declares it, on simkit's copy of the same body
    xml = ET.parse(panda_dir() / "robots" / "panda" / "robot.xml")
    hand = next(b for b in xml.iter("body") if b.get("name") == "right_hand")
    cam = next(c for c in hand.iter("camera") if c.get("name") == "eye_in_hand")
    assert [float(x) for x in cam.get("pos").split()] == list(EYE_IN_HAND.pos)
    assert [float(x) for x in cam.get("quat").split()] == list(EYE_IN_HAND.quat)
    assert float(cam.get("fovy")) == EYE_IN_HAND.fovy
    wrist = model.camera("eye_in_hand")
    assert model.body(int(wrist.bodyid[0])).name == "robot/right_hand"
    np.testing.assert_allclose(wrist.pos, EYE_IN_HAND.pos, atol=1e-12)
    np.testing.assert_allclose(wrist.fovy, 75.0)
    # agentview: LIBERO's tabletop pose, world-fixed, MuJoCo's default fovy
    pos, quat = AGENTVIEW_POSES["libero_tabletop_manipulation"]
    av = model.camera("agentview")
    assert int(av.bodyid[0]) == 0
    np.testing.assert_allclose(av.pos, pos, atol=1e-12)
    np.testing.assert_allclose(av.quat, np.asarray(quat) / np.linalg.norm(quat), atol=1e-9)
    assert av.fovy[0] == MUJOCO_DEFAULT_FOVY
    assert (
        len([model.camera(i).name for i in range(model.ncam) if "eye_in_hand" in model.camera(i).name]) == 1
    )


def test_agentview_projects_each_object_onto_its_own_pixels(shot):
    model, data, imgs = shot
    seg = imgs["agentview_segmentation"]
    cid = model.camera("agentview").id
    seen = off_centre = 0
    for name in ("akita_black_bowl_1", "plate_1", "wine_bottle_1", "cream_cheese_1"):
        bid = model.body(name).id
        mask = _geom_mask(model, seg, subtree_bodies(model, bid))
        if mask.sum() < 10:
            continue
        seen += 1
        # centre of the object's collision box, projected with the pinhole model
        geoms = [g for g in range(model.ngeom) if model.geom_bodyid[g] in subtree_bodies(model, bid)]
        centre = np.mean([data.geom_xpos[g] for g in geoms], axis=0)
        uv, depth = project(centre[None], data.cam_xpos[cid], data.cam_xmat[cid], 45.0, S, S)
        u, v = uv[0]
        assert depth[0] > 0
        rows, cols = np.nonzero(mask)
        # the projected centre lands among the object's pixels (upright: row 0 = top) ...
        assert rows.min() - 1 <= v <= rows.max() + 2 and cols.min() - 1 <= u <= cols.max() + 2, name
        # ... near their centroid, and a vertically flipped image would put it elsewhere
        assert abs(rows.mean() + 0.5 - v) < 4 and abs(cols.mean() + 0.5 - u) < 4, name
        if abs(v - S / 2) > 8:
            assert abs((S - rows.mean() - 0.5) - v) > 8, name
            off_centre += 1
    assert seen >= 3 and off_centre >= 1


def test_agentview_depth_is_the_distance_to_the_table_along_the_optical_axis(shot):
    model, data, imgs = shot
    cid = model.camera("agentview").id
    table = _geom_mask(model, imgs["agentview_segmentation"], [model.body("table").id])
    top = _geom_mask(model, imgs["agentview_segmentation"], [model.body("table").id]) & (
        imgs["agentview_segmentation"][..., 0] == model.geom("table_top").id
    )
    assert top.sum() > 0.1 * S * S and table.sum() >= top.sum()
    rays = pixel_rays(data.cam_xmat[cid], 45.0, S, S)
    z_top = TABLE_TOP["libero_tabletop_manipulation"]
    analytic = (z_top - data.cam_xpos[cid][2]) / rays[..., 2]  # ray-plane intersection, depth units
    # interior pixels of the table top only (edges mix in the table's side faces)
    inner = top & np.roll(top, 1, 0) & np.roll(top, -1, 0) & np.roll(top, 1, 1) & np.roll(top, -1, 1)
    err = np.abs(imgs["agentview_depth"][inner] - analytic[inner])
    assert np.median(err) < 0.002 and np.percentile(err, 95) < 0.005, (np.median(err), err.max())


def test_wrist_camera_sees_the_fingers_in_the_lower_part(shot):
    model, data, imgs = shot
    fingers = [
        b for b in range(model.nbody) if "finger" in model.body(b).name and "robot/" in model.body(b).name
    ]
    assert fingers
    mask = _geom_mask(model, imgs["eye_in_hand_segmentation"], fingers)
    rows, _ = np.nonzero(mask)
    assert mask.sum() > 20 and rows.mean() > 0.6 * S  # hand +x is the camera's up: the fingers are below
    # the finger geoms' projection agrees with where they are drawn
    cid = model.camera("eye_in_hand").id
    centre = np.mean(
        [data.geom_xpos[g] for g in range(model.ngeom) if model.geom_bodyid[g] in fingers], axis=0
    )
    uv, _ = project(centre[None], data.cam_xpos[cid], data.cam_xmat[cid], EYE_IN_HAND.fovy, S, S)
    assert uv[0, 1] > S / 2 and abs(uv[0, 0] - S / 2) < S / 4
    # the RGB image is drawn where the segmentation says something is
    assert imgs["eye_in_hand_rgb"].dtype == np.uint8 and imgs["eye_in_hand_rgb"].std() > 5


def test_camera_images_api(venv):
    env, obs = venv
    out = env.camera_images(("agentview", "eye_in_hand"), size=S, depth=True)
    assert set(out) == {"agentview_rgb", "eye_in_hand_rgb", "agentview_depth", "eye_in_hand_depth"}
    assert out["agentview_rgb"].shape == (2, S, S, 3) and out["agentview_rgb"].dtype == np.uint8
    assert out["eye_in_hand_depth"].shape == (2, S, S) and out["eye_in_hand_depth"].dtype == np.float32
    d = out["agentview_depth"]  # metres: the scene within 3 m, the background (nothing drawn) at ZFAR
    assert d.min() > 0.5 and d.max() <= ZFAR + 1e-3 and (d < 3.0).mean() > 0.5
    one = env.camera_images(("agentview",), envs=[1])
    assert one["agentview_rgb"].shape == (1, S, S, 3)
    np.testing.assert_array_equal(one["agentview_rgb"][0], obs["agentview_rgb"][1])
    with pytest.raises(InputError, match="cameras must be among"):
        env.camera_images(("frontview",))
    with pytest.raises(InputError, match="size"):
        env.camera_images(size=4)
    with pytest.raises(InputError, match="obs_mode"):
        HeberoVectorEnv(num_envs=1, tasks=[TASK], obs_mode="depth")
    with pytest.raises(InputError, match="need the visual task models"):
        HeberoVectorEnv(num_envs=1, tasks=[TASK]).camera_images()


def test_rgb_observations_follow_the_state_and_autoreset(venv):
    env, obs = venv
    assert isinstance(env.observation_space, gymnasium.spaces.Dict)
    assert env.observation_space.contains(obs)
    assert not np.array_equal(obs["agentview_rgb"][0], obs["agentview_rgb"][1])  # two layouts
    env.cfg.horizon = 1
    try:
        nxt, _, _, trunc, info = env.step(np.tile([[0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0]], (2, 1)))
    finally:
        env.cfg.horizon = 600
    # Gymnasium's same-step convention: final_obs (N,) holds each finished env's own Dict observation
    assert trunc.all() and info["_final_obs"].all() and all(set(f) == set(obs) for f in info["final_obs"])
    # the finished episode's last wrist image shows the hand moved; the returned one the new episode
    for i, f in enumerate(info["final_obs"]):
        assert not np.array_equal(f["eye_in_hand_rgb"], nxt["eye_in_hand_rgb"][i])
    assert env.observation_space.contains(nxt)


def test_single_env_with_images_passes_check_env():
    from gymnasium.utils.env_checker import check_env

    # the study scene: the fewest meshes of the 40 tasks, the quickest visual model to build
    task = "long/STUDY_SCENE1_pick_up_the_book_and_place_it_in_the_back_compartment_of_the_caddy"
    env = HeberoEnv(task=task, obs_mode="rgb", cameras=("eye_in_hand",), image_size=16, nthread=1)
    try:
        assert set(env.observation_space.spaces) == {"eye_in_hand_rgb"}
        assert env.observation_space["eye_in_hand_rgb"].shape == (16, 16, 3)
        check_env(env, skip_render_check=True)
    finally:
        env.close()


def test_demo_corpus_stores_upright_videos_and_depth_of_every_state(tmp_path, venv):
    from simkit.core.fields import check_stored, specs_from_json
    from simkit.episodes.reader import corpus_info, iter_corpus
    from simkit.executors.run import generate_corpus

    env, _ = venv
    # the images of a short, unfinished demo (require_success off: it cannot reach the goal); 22 steps:
    # the planner's settle steps, then the hand moves
    config = {
        "tasks": [TASK],
        "max_steps": 22,
        "require_success": False,
        "cameras": ["agentview", "eye_in_hand"],
        "image_size": S,
    }
    summary = generate_corpus("hebero-demos", 1, tmp_path / "c", seed=2, config={**config, "depth": True})
    assert summary.exit_code == 0
    specs = specs_from_json(corpus_info(tmp_path / "c")["field_schema"])
    (sample,) = list(iter_corpus(tmp_path / "c"))
    assert check_stored(specs, sample, {s.name: s.codec for s in specs if s.name in sample}) == []
    states = np.asarray(sample["states"])
    rgb, depth = np.asarray(sample["eye_in_hand_rgb"]), np.asarray(sample["agentview_depth"])
    assert rgb.shape == (len(states), S, S, 3) and rgb.dtype == np.uint8
    assert depth.shape == (len(states), S, S) and depth.dtype == np.float16
    # frame k shows state k: render the stored states again in the test's env and compare (H.264 is lossy)
    errs = []
    for k in (0, len(states) - 1):
        env.backend.set_state(0, np.array([0]), states[k : k + 1])
        again = env.camera_images(("agentview", "eye_in_hand"), depth=True, envs=[0])
        errs.append(np.abs(rgb[k].astype(float) - again["eye_in_hand_rgb"][0]).mean())
        np.testing.assert_allclose(depth[k], again["agentview_depth"][0], rtol=1e-3)
    assert max(errs) < 4.5, errs  # H.264 at this size: mean error of a few grey levels
    assert np.abs(rgb[0].astype(float) - rgb[-1]).mean() > 2 * max(
        errs
    )  # the hand moved: far above the codec
