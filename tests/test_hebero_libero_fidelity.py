"""Hebero starts as LIBERO starts: orientations, radius-shrunk regions, fixture and table heights,
LIBERO's fixed initial states (read without torch). Values pinned from LIBERO's own env
(hf-libero 0.1.4, robosuite 1.4.0; tools/libero_dump.py); the slow test at the end reruns the
oracle where LIBERO is installed (SIMKIT_LIBERO_PYTHON = that environment's python)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from simkit.core.errors import InputError
from simkit.scenes.hebero import init_states as lis
from simkit.scenes.hebero.placement import (
    TABLE_FRICTION,
    TABLE_TOP,
    fixture_z,
    object_quat,
    parent_offset_box,
    shrunk_ranges,
)

ROOT = Path(__file__).resolve().parent.parent
R2 = 0.5**0.5


def _up(q) -> np.ndarray:
    w, x, y, z = q
    return np.array([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)])


@pytest.mark.parametrize(
    "category, want",
    [
        # MuJoCo quaternions LIBERO's reset writes (read from its env), up to sign
        ("akita_black_bowl", (R2, 0, 0, R2)),
        ("cream_cheese", (0, 0, 0, 1)),
        ("alphabet_soup", (0, 0, R2, R2)),
        ("ketchup", (0.5, 0.5, 0.5, 0.5)),
        ("salad_dressing", (0.5, 0.5, 0.5, 0.5)),
        ("porcelain_mug", (-R2, 0, 0, R2)),
        ("moka_pot", (0, 0, 0, 1)),
        ("basket", (R2, 0, 0, R2)),
    ],
)
def test_object_orientation_is_libero_s(category, want):
    q = np.array(object_quat(category, np.random.default_rng(0)))
    assert min(np.abs(q - want).max(), np.abs(q + want).max()) < 1e-12


def test_upright_hope_objects_stand_on_an_other_axis():
    # the bottles and cans LIBERO stands up are tilted, the bowls only turned about z
    assert np.allclose(_up(object_quat("ketchup", np.random.default_rng(0))), [0, 1, 0], atol=1e-12)
    assert np.allclose(_up(object_quat("alphabet_soup", np.random.default_rng(0))), [0, 1, 0], atol=1e-12)
    assert np.allclose(_up(object_quat("plate", np.random.default_rng(0))), [0, 0, 1], atol=1e-12)


def test_book_heading_is_drawn_in_libero_s_range():
    yaws = []
    for s in range(200):
        w, x, y, z = object_quat("black_book", np.random.default_rng(s))
        assert abs(x) < 1e-12 and abs(y) < 1e-12
        yaws.append(np.degrees(2 * np.arctan2(z, w)) % 360)
    # angle a in [-90, -45] deg about x in robosuite's order is a yaw of 180 - a in MuJoCo's
    assert 225 - 1e-9 <= min(yaws) < 226 and 269 < max(yaws) <= 270 + 1e-9


def test_region_shrinks_by_radius_and_crossed_bounds_sort():
    # goal/turn_on_the_stove: wine bottle region 2 cm wide, radius 2.5 cm (LIBERO's box, from its sampler)
    box = shrunk_ranges([(-0.21, -0.06, -0.19, -0.04)], 0.025)[0]
    assert np.allclose(box, (-0.215, -0.065, -0.185, -0.035))
    assert np.allclose(shrunk_ranges([(0.0, 0.0, 0.2, 0.1)], 0.03)[0], (0.03, 0.03, 0.17, 0.07))


def test_parent_offset_box_is_libero_s_site_sampler():
    # SiteRegionRandomSampler: ranges +-size/2 (size = MJCF half extents), shrunk by the radius
    box = parent_offset_box("on", (0.12534, 0.09438), 0.025)  # wooden cabinet top_side, black bowl
    assert np.allclose(box, (-0.03767, -0.02219, 0.03767, 0.02219))
    assert np.allclose(parent_offset_box("on", (0.075, 0.075), 0.025), (-0.0125, -0.0125, 0.0125, 0.0125))
    # narrower than 4 r: the bounds cross and numpy draws between them
    assert np.allclose(parent_offset_box("on", (0.03, 0.03), 0.05), (-0.035, -0.035, 0.035, 0.035))
    assert parent_offset_box("in", (0.2, 0.2), 0.05) == (0.0, 0.0, 0.0, 0.0)  # InSiteRegionRandomSampler


def test_fixture_and_table_heights_are_libero_s():
    # LIBERO's reset: wooden cabinet and flat stove bodies at 0.905 m, wine rack 0.92 m on the 0.90 m table
    assert fixture_z("libero_tabletop_manipulation", 0.90, -0.045) == pytest.approx(0.905)
    assert TABLE_TOP["libero_living_room_tabletop_manipulation"] == pytest.approx(0.4368, abs=5e-4)
    assert TABLE_TOP["libero_study_tabletop_manipulation"] == pytest.approx(0.8851, abs=5e-4)
    assert TABLE_FRICTION == {"libero_tabletop_manipulation": 0.6}


def _torch_like_zip(obj, path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps(obj, protocol=2))
        z.writestr("archive/version", "3\n")
    path.write_bytes(buf.getvalue())


def test_pruned_init_reader_round_trip_and_refusals(tmp_path):
    a = np.random.default_rng(0).normal(size=(50, 79))
    _torch_like_zip(a, tmp_path / "ok.pruned_init")
    assert np.array_equal(lis.read_pruned_init(tmp_path / "ok.pruned_init"), a)
    _torch_like_zip(os.getcwd, tmp_path / "evil.pruned_init")  # not a numpy array: refused, never called
    with pytest.raises(InputError, match=r"evil\.pruned_init"):
        lis.read_pruned_init(tmp_path / "evil.pruned_init")
    (tmp_path / "junk.pruned_init").write_bytes(b"not a zip")
    with pytest.raises(InputError, match=r"junk\.pruned_init"):
        lis.read_pruned_init(tmp_path / "junk.pruned_init")


def test_shipped_init_states_load_with_their_hashes():
    src = json.loads((lis.DATA / "SOURCE.json").read_text())
    assert len(src["tasks"]) == 40 and (lis.DATA / "LICENSE").is_file()
    for tid, rec in src["tasks"].items():
        path = lis.DATA / rec["file"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == src["files"][rec["file"]]
        states = lis.load_task_states(tid)
        assert states.shape == (50, 1 + rec["nq"] + rec["nv"]), tid
        assert np.all(np.isfinite(states))


def test_reader_does_not_import_torch():
    code = (
        "import sys; from simkit.scenes.hebero.init_states import load_task_states;"
        "load_task_states('goal/turn_on_the_stove'); assert 'torch' not in sys.modules"
    )
    subprocess.run(
        [sys.executable, "-c", code], check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )


def test_joint_names_map_onto_simkit():
    ents = ["akita_black_bowl_1", "wooden_cabinet_1", "flat_stove_1"]
    m = lis.libero_to_simkit_joint
    assert m("robot0_joint3", ents) == "robot/joint3"
    assert m("gripper0_finger_joint2", ents) == "robot/gripper/finger_joint2"
    assert m("akita_black_bowl_1_joint0", ents) == "akita_black_bowl_1/free"
    assert m("wooden_cabinet_1_top_level", ents) == "wooden_cabinet_1/top_level"
    assert m("mount0_unknown", ents) is None


@pytest.fixture(scope="module")
def stove_env():
    import gymnasium

    import simkit.envs  # noqa: F401

    env = gymnasium.make_vec("simkit/Hebero-v0", num_envs=2, tasks=["goal/turn_on_the_stove"])
    yield env
    env.close()


def _pose(venv, e: int, name: str) -> np.ndarray:
    import mujoco

    g = next(g for g, grp in enumerate(venv.backend.groups) if e in grp.env_ids)
    local = int(np.flatnonzero(venv.backend.groups[g].env_ids == e)[0])
    model, data = venv.backend.get_data(g, local)
    b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
    return np.concatenate([data.xpos[b], data.xquat[b]])


def test_scene_starts_as_libero(stove_env):
    venv = stove_env.unwrapped
    _, info = stove_env.reset(seed=0)
    assert not info["success"].any()
    for name, z in (("wooden_cabinet_1", 0.905), ("flat_stove_1", 0.905), ("wine_rack_1", 0.92)):
        assert _pose(venv, 0, name)[2] == pytest.approx(z, abs=1e-6), name
    bowl = _pose(venv, 0, "akita_black_bowl_1")
    assert np.allclose(np.abs(bowl[3:]), [R2, 0, 0, R2], atol=1e-9)
    # LIBERO's sampler box of the bowl (region shrunk by its 2.5 cm radius)
    for s in range(10):
        stove_env.reset(seed=s)
        x, y = _pose(venv, 1, "akita_black_bowl_1")[:2]
        assert -0.105 - 1e-9 <= x <= -0.075 + 1e-9 and -0.015 - 1e-9 <= y <= 0.015 + 1e-9


def test_libero_initial_states_load_by_joint_name(stove_env):
    venv = stove_env.unwrapped
    states = lis.load_task_states("goal/turn_on_the_stove")
    jmap = {
        n: q
        for n, _, q, _ in lis.joint_map("goal/turn_on_the_stove", list(venv.tasks[0].scene.binding.bodies))
    }
    _, info = stove_env.reset(options={"init_state": [3, 49]})
    assert not info["success"].any()
    for e, k in ((0, 3), (1, 49)):
        q = jmap["akita_black_bowl_1/free"]
        assert np.allclose(_pose(venv, e, "akita_black_bowl_1")[:3], states[k][1 + q : 4 + q], atol=1e-9)
    with pytest.raises(InputError, match="init_state"):
        stove_env.reset(options={"init_state": 50})


def _backend_state(venv, e: int) -> np.ndarray:
    g = next(g for g, grp in enumerate(venv.backend.groups) if e in grp.env_ids)
    return venv.backend.states(g)[int(np.flatnonzero(venv.backend.groups[g].env_ids == e)[0])].copy()


def test_libero_wait_is_five_held_control_steps(stove_env):
    """``init_wait`` = LIBERO's evaluation's 5 zero-action steps after ``set_init_state``: the state
    the env starts from is the loaded state stepped by the env's own batch backend for 5 control
    periods with the arm held at its joint positions and the fingers at LIBERO's zero gripper action
    (0.02 m); the episode still starts at step 0 with a zero previous action. The recorded objects
    above their support drop during the wait and rest without penetrating anything by 1 mm."""
    from simkit.envs.hebero.init_wait import LIBERO_WAIT_STEPS, LIBERO_ZERO_FINGERS

    venv = stove_env.unwrapped
    tm = venv.tasks[0]
    assert LIBERO_WAIT_STEPS == 5
    venv.cfg.init_wait = 0
    stove_env.reset(options={"init_state": [3, 49]})
    z0 = [_pose(venv, e, "akita_black_bowl_1")[2] for e in (0, 1)]
    for _ in range(LIBERO_WAIT_STEPS):  # the wait by hand, on the batch backend
        for g in range(len(venv.backend.groups)):
            arr = venv.backend.arrays(g)
            arr["ctrl"][:, tm.arm_act] = np.clip(arr["qpos"][:, tm.arm_q], tm.qrange[:, 0], tm.qrange[:, 1])
            arr["ctrl"][:, tm.grip_act] = LIBERO_ZERO_FINGERS
        venv.backend.step(venv.substeps)
    by_hand = [_backend_state(venv, e) for e in (0, 1)]
    venv.cfg.init_wait = LIBERO_WAIT_STEPS
    try:
        obs, info = stove_env.reset(options={"init_state": [3, 49]})
    finally:
        venv.cfg.init_wait = 0
    assert not info["success"].any() and np.all(obs[:, :7] == 0) and np.all(venv.elapsed == 0)
    for e in (0, 1):
        assert np.allclose(_backend_state(venv, e), by_hand[e], rtol=0, atol=1e-9)
        assert _pose(venv, e, "akita_black_bowl_1")[2] < z0[e] - 1e-4  # dropped from LIBERO's height
    for g in range(len(venv.backend.groups)):
        for j in range(len(venv.backend.groups[g].env_ids)):
            model, data = venv.backend.get_data(g, j)
            pen = [-c.dist for c in data.contact[: data.ncon]]
            assert max(pen, default=0.0) < 1e-3


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("SIMKIT_LIBERO_PYTHON"), reason="needs LIBERO (SIMKIT_LIBERO_PYTHON)")
def test_oracle_against_libero(tmp_path):
    task = "goal/put_the_bowl_on_the_plate"
    dump = tmp_path / "libero.json"
    subprocess.run(
        [
            os.environ["SIMKIT_LIBERO_PYTHON"],
            str(ROOT / "tools" / "libero_dump.py"),
            str(dump),
            "--task",
            task,
        ],
        check=True,
        cwd=tmp_path,
    )
    sys.path.insert(0, str(ROOT / "tools"))
    import libero_oracle

    (row,) = libero_oracle.compare(json.loads(dump.read_text()), [task], 20)
    assert row["entity_mismatch"] == [] and row["in_range"] == 1.0 and row["up_deg"] < 5
    assert abs(row["table_mm"]) < 2 and abs(row["fixture_mm"]) < 2 and abs(row["site_mm"]) < 2
    assert not row["success_libero"] and not row["success_simkit"]
    assert row["init_loaded"] == 50 and row["init_pos_mm"] < 2 and row["init_pen_mm"] < 1
    assert row["settled_pen_mm"] < 1 and row["settled_pos_mm"] < 2
    rb = row["robot"]
    assert rb["base_mm"] < 1e-6 and rb["damping"] < 1e-9 and rb["home"] < 1e-6 and rb["mass"] < 1e-9


SPATIAL_STOVE = "spatial/pick_up_the_black_bowl_on_the_stove_and_place_it_on_the_plate"
SPATIAL_COOKIES = "spatial/pick_up_the_black_bowl_on_the_cookie_box_and_place_it_on_the_plate"


@pytest.fixture(scope="module")
def spatial_env():
    import gymnasium

    import simkit.envs  # noqa: F401

    env = gymnasium.make_vec("simkit/Hebero-v0", num_envs=2, tasks=[SPATIAL_STOVE, SPATIAL_COOKIES])
    yield env
    env.close()


def _site_xy(venv, e: int, site: str) -> np.ndarray:
    import mujoco

    g = next(g for g, grp in enumerate(venv.backend.groups) if e in grp.env_ids)
    local = int(np.flatnonzero(venv.backend.groups[g].env_ids == e)[0])
    model, data = venv.backend.get_data(g, local)
    return np.array(data.site_xpos[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, site)][:2])


def test_bowls_on_sites_and_objects_are_placed_as_libero_does(spatial_env):
    venv = spatial_env.unwrapped
    ids = [venv.tasks[int(venv.task_of[e])].desc["task_id"] for e in range(2)]
    e_stove, e_cookies = ids.index(SPATIAL_STOVE), ids.index(SPATIAL_COOKIES)
    # LIBERO's offset boxes (tools/libero_dump.py, parent_samplers): stove cook_region +-12.5 mm,
    # cabinet top_side +-37.7 x +-22.2 mm (world axes, whatever the cabinet's yaw)
    seen = []
    for s in range(12):
        spatial_env.reset(seed=s)
        d1 = _pose(venv, e_stove, "akita_black_bowl_1")[:2] - _site_xy(
            venv, e_stove, "flat_stove_1/cook_region"
        )
        d2 = _pose(venv, e_stove, "akita_black_bowl_2")[:2] - _site_xy(
            venv, e_stove, "wooden_cabinet_1/top_side"
        )
        assert np.all(np.abs(d1) <= 0.0125 + 1e-9), d1
        assert abs(d2[0]) <= 0.03767 + 1e-6 and abs(d2[1]) <= 0.02219 + 1e-6, d2
        seen.append(d2)
        # ObjectBasedSampler: the bowl's body straight over the cookie box's body
        bowl, box = _pose(venv, e_cookies, "akita_black_bowl_1"), _pose(venv, e_cookies, "cookies_1")
        assert np.allclose(bowl[:2], box[:2], atol=1e-9) and bowl[2] > box[2]
    spread = np.ptp(np.array(seen), axis=0)
    assert spread[0] > 0.02 and spread[1] > 0.01  # drawn over the box, not centred


def test_panda_base_home_and_damping_are_libero_s(stove_env):
    import mujoco

    venv = stove_env.unwrapped
    stove_env.reset(seed=0)
    g = next(g for g, grp in enumerate(venv.backend.groups) if 0 in grp.env_ids)
    model, data = venv.backend.get_data(g, 0)

    def dof(name):
        j = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
        return int(model.jnt_dofadr[j]), int(model.jnt_qposadr[j])

    # values of LIBERO's compiled model (robosuite 1.4.0 RobotModel + MountedPanda, tools/libero_dump.py);
    # its arm armature 5 / (i + 1) and friction loss 0.1 are a documented difference (docs/hebero.md)
    for i in range(7):
        v, _ = dof(f"robot/joint{i + 1}")
        assert model.dof_damping[v] == pytest.approx(0.1 if i < 5 else 0.01)
        assert model.dof_armature[v] == 0.0 and model.dof_frictionloss[v] == 0.0
    for name, q in (("robot/gripper/finger_joint1", 0.020833), ("robot/gripper/finger_joint2", -0.020833)):
        v, a = dof(name)
        assert data.qpos[a] == pytest.approx(q) and model.dof_damping[v] == pytest.approx(100.0)
    base = data.xpos[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "robot/base")]
    assert np.allclose(base, (-0.66, 0.0, 0.912), atol=1e-9)


#: entity masses (kg) of LIBERO's own compiled model of SPATIAL_STOVE (tools/libero_dump.py, hf-libero
#: 0.1.4 on robosuite 1.4.0, 2026-12-02): robosuite's base.xml compiles every scene with
#: inertiagrouprange "0 0", so only collision geoms count
LIBERO_MASS = {
    "akita_black_bowl_1": 0.005591296580799999,
    "cookies_1": 0.009642613248,
    "glazed_rim_porcelain_ramekin_1": 0.009659550681600003,
    "plate_1": 0.011522081577600004,
    "wooden_cabinet_1": 9.1762386449728,
    "flat_stove_1": 4.4801,
}


def test_masses_are_libero_s_and_a_bowl_rests_on_the_stove(spatial_env):
    """Entity masses equal LIBERO's (collision geoms only); the bowl LIBERO's states drop onto the
    flat stove (about 1.2 m/s at impact) rests on the burner plate after LIBERO's wait, at the height
    LIBERO's own model settles it (0.92889 m, state 0) and without penetrating it, not 3 mm inside."""
    import mujoco

    from simkit.envs.hebero.init_wait import LIBERO_WAIT_STEPS

    venv = spatial_env.unwrapped
    e = next(i for i in range(2) if venv.tasks[int(venv.task_of[i])].desc["task_id"] == SPATIAL_STOVE)
    tm = venv.tasks[int(venv.task_of[e])]
    m = tm.model
    for name, kg in LIBERO_MASS.items():
        b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, name)
        assert m.body_subtreemass[b] == pytest.approx(kg, rel=1e-9), name
    plate = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "flat_stove_1/collision_burner")
    assert 2 * m.geom_size[plate][2] == pytest.approx(0.01)
    data = mujoco.MjData(m)
    mujoco.mj_setState(m, data, tm.libero_state(0, LIBERO_WAIT_STEPS, venv.substeps), tm.state_spec)
    mujoco.mj_forward(m, data)
    top = data.geom_xpos[plate][2] + m.geom_size[plate][2]
    assert top == pytest.approx(0.905 + 0.0255, abs=1e-9)  # the plate's top face as LIBERO's
    bowl = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "akita_black_bowl_1")
    assert data.xpos[bowl][2] == pytest.approx(0.92889, abs=5e-4)
    assert max((-c.dist for c in data.contact[: data.ncon]), default=0.0) < 1e-3
