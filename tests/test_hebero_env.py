"""simkit/Hebero-v0: spaces, task assignment, controller, goal tests, determinism, bad input."""

import subprocess
import sys

import numpy as np
import pytest

from simkit.core.errors import InputError
from simkit.envs.hebero.vector_env import HeberoVectorEnv

GOAL = [
    "goal/put_the_bowl_on_the_plate",
    "goal/turn_on_the_stove",
    "goal/open_the_middle_drawer_of_the_cabinet",
]


@pytest.fixture(scope="module")
def env():
    e = HeberoVectorEnv(num_envs=6, tasks=GOAL)
    yield e
    e.close()


def test_spaces_task_assignment_and_observation_layout(env):
    obs, info = env.reset(seed=0)
    assert obs.shape == (6, 300) and obs.dtype == np.float32
    assert list(info["task_id"]) == [0, 1, 2, 0, 1, 2]
    for i in range(6):
        t = env.tasks[i % 3]
        assert np.array_equal(obs[i, 7:43], t.desc["task_code"])  # task code slot
        q = obs[i, 43:50]
        assert np.allclose(q, [0.0, -0.161037389, 0.0, -2.44459747, 0.0, 2.2267522, np.pi / 4], atol=1e-6)
        assert np.allclose(obs[i, 57:59], [0.020833, -0.020833])  # robosuite's PandaGripper.init_qpos
    # slot 0 of put_the_bowl_on_the_plate is the bowl: its position relative to the robot base
    sc = env.tasks[0].scene
    grp = env.backend.groups[0]
    arr = env.backend.arrays(0)
    j = int(np.flatnonzero(grp.env_ids == 0)[0])
    bowl = arr["xpos"][j, sc.binding.bodies["akita_black_bowl_1"]]
    base = arr["xpos"][j, env.tasks[0].base_body]
    assert np.allclose(obs[0, 66:69], bowl - base, atol=1e-5)
    assert np.all(obs[0, 66 + 9 * len(sc.descriptor["entity_slots"]) :] == 0)  # unused slots are zero
    assert not info["success"].any()


def test_controller_moves_the_end_effector_by_s_p(env):
    env.reset(seed=1)
    ee0 = env.reset(seed=1)[0][:, 59:62].copy()
    a = np.zeros((6, 7))
    a[:, 0] = 1.0
    prev = ee0
    for _ in range(4):
        obs, *_ = env.step(a)
        # one step of +x at s_p = 0.05 m: the target is the current pose + 0.05 m (robosuite's delta
        # convention), tracked by the joint impedance over 50 ms, so the hand moves about 2 cm (docs/hebero.md)
        step = obs[:, 59] - prev[:, 0]
        assert np.all(step > 0.01) and np.all(step < 0.03), step
        prev = obs[:, 59:62].copy()
    dx = obs[:, 59:62] - ee0
    assert np.all(np.abs(dx[:, 1:]) < 0.1 * dx[:, :1]), dx
    assert np.allclose(obs[:, :7], a)  # previous action slot


def test_gripper_closes_on_positive_a6(env):
    env.reset(seed=2)
    a = np.zeros((6, 7))
    a[:, 6] = 1.0
    widths = []
    for _ in range(8):
        obs, *_ = env.step(a)
        widths.append(obs[:, 57].copy())
    assert np.all(np.diff(widths, axis=0) < 0)  # closing monotonically (finger servo, 0 m target)
    assert np.all(np.abs(obs[:, 57:59]) < 0.005)


def test_batched_goal_tests_agree_with_the_contact_scan(env):
    """The array goal test (contact sensors) and PredicateEvaluator (data.contact) on the same states."""
    import mujoco

    rng = np.random.default_rng(0)
    for t in env.tasks:
        sc, m, d = t.scene, t.model, t.scene.data
        hits = 0
        for k in range(30):
            sc.reset(np.random.default_rng(k))
            if k % 2 == 0 and "akita_black_bowl_1" in sc.binding.bodies:  # drop the bowl onto the plate
                bid = sc.binding.bodies["akita_black_bowl_1"]
                adr = m.jnt_qposadr[m.body_jntadr[bid]]
                d.qpos[adr : adr + 3] = d.xpos[sc.binding.bodies["plate_1"]] + [
                    rng.uniform(-0.04, 0.04),
                    0,
                    0.03,
                ]
            for j in sc.binding.joints.get("flat_stove_1", []) + sc.binding.joints.get(
                "wooden_cabinet_1", []
            ):
                d.qpos[m.jnt_qposadr[j]] = rng.uniform(*m.jnt_range[j])
            for _ in range(300):
                mujoco.mj_step(m, d)
            mujoco.mj_forward(m, d)
            arrays = {
                f: np.asarray(getattr(d, f))[None]
                for f in ("qpos", "xpos", "site_xpos", "site_xmat", "geom_xpos", "geom_xmat", "sensordata")
            }
            want = sc.success()
            assert bool(t.goal(arrays)[0]) == want, (t.desc["task_id"], k)
            hits += want
        assert 0 < hits < 30, (t.desc["task_id"], hits)  # both outcomes were exercised


def test_same_seed_same_rollout():
    a = HeberoVectorEnv(num_envs=2, tasks=GOAL[:1], nthread=1)
    b = HeberoVectorEnv(num_envs=2, tasks=GOAL[:1], nthread=2)
    acts = np.random.default_rng(5).uniform(-1, 1, (10, 2, 7))
    oa, _ = a.reset(seed=7)
    ob, _ = b.reset(seed=7)
    assert np.array_equal(oa, ob)
    for act in acts:
        oa, ra, *_ = a.step(act)
        ob, rb, *_ = b.step(act)
    assert np.array_equal(oa, ob) and np.array_equal(ra, rb)
    oc, _ = a.reset(seed=8)
    assert not np.array_equal(oc[:, 66:], ob[:, 66:])


def test_autoreset_on_horizon_returns_the_final_observation():
    e = HeberoVectorEnv(num_envs=2, tasks=GOAL[1:2], horizon=3)
    o0, _ = e.reset(seed=0)
    a = np.zeros((2, 7))
    a[:, 2] = 1.0
    for _ in range(2):
        _, _, te, tr, info = e.step(a)
        assert not tr.any() and "final_obs" not in info
    last = info  # the step before the end: its values are what final_info must repeat
    obs, _, te, tr, info = e.step(a)
    assert tr.all() and not te.any() and info["_final_obs"].all() and info["_final_info"].all()
    # Gymnasium 1.x same-step autoreset: final_obs an (N,) object array of per-env observations
    assert info["final_obs"].dtype == object and info["final_obs"].shape == (2,)
    assert info["final_obs"][0][61] > o0[0, 61] + 0.02  # the end effector had risen
    fin = info["final_info"]
    assert fin["_success"].all() and np.array_equal(fin["success"], info["success"])
    assert fin["reward"].shape == (2,) and set(fin) >= {"task_id", "_task_id", "r_smooth"}
    assert not np.array_equal(fin["r_joint_vel"], last["r_joint_vel"])  # this step's values, not the last
    assert abs(obs[0, 61] - o0[0, 61]) < 1e-3  # the new episode starts at home
    assert np.all(obs[:, :7] == 0)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"tasks": ["goal/fly_to_the_moon"]}, "unknown task 'goal/fly_to_the_moon'"),
        ({"suite": "kitchen"}, "suite must be one of"),
        ({"tasks": GOAL, "num_envs": 4, "equal_groups": True}, "num_envs=4 is not a multiple of the 3 tasks"),
        (
            {"tasks": GOAL[:1], "backend": "warp"},
            r"use gymnasium.make_vec\('simkit/Hebero-v0', backend='warp'",
        ),
        (
            {"tasks": GOAL[:1], "backend": "tpu"},
            r"backend must be 'cpu' or 'warp' \(a CUDA GPU\), not 'tpu'$",
        ),
        ({"tasks": GOAL[:1], "pos_scale": -1}, "Hebero config pos_scale"),
    ],
)
def test_bad_input_is_one_clear_line(kwargs, match):
    with pytest.raises(InputError, match=match) as ei:
        HeberoVectorEnv(**{"num_envs": 1, **kwargs})
    assert "\n" not in str(ei.value)


def test_single_env_passes_check_env():
    from gymnasium.utils.env_checker import check_env

    from simkit.envs.hebero.single import HeberoEnv

    e = HeberoEnv(task="goal/turn_on_the_stove")
    check_env(e, skip_render_check=True)
    obs, info = e.reset(seed=3)
    assert obs.shape == (300,) and info["task_id"] == 0 and info["success"] is False


@pytest.mark.slow
def test_make_vec_all_40_on_a_fresh_interpreter(tmp_path):
    code = (
        "import sys, gymnasium, numpy as np, simkit\n"
        "env = gymnasium.make_vec('simkit/Hebero-v0', num_envs=80, suite='all')\n"
        "obs, info = env.reset(seed=0)\n"
        "assert obs.shape == (80, 300), obs.shape\n"
        "assert info['task_id'].shape == (80,)\n"
        "assert (info['task_id'] == np.arange(80) % 40).all()\n"
        "codes = np.stack([t.desc['task_code'] for t in env.unwrapped.tasks])\n"
        "assert (obs[:, 7:43] == codes[np.arange(80) % 40]).all()\n"
        "obs, r, te, tr, info = env.step(np.zeros((80, 7), np.float32))\n"
        "assert obs.shape == (80, 300) and r.shape == (80,) and np.isfinite(obs).all()\n"
        "print('ok', len(env.unwrapped.backend.groups))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.startswith("ok")
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()


def test_hinge_jacobian_equals_mujoco_jac(env):
    from simkit.envs.hebero import kernels

    env.reset(seed=4)
    env.step(np.random.default_rng(1).uniform(-1, 1, (6, 7)))
    arr, ix = env.backend.arrays(0), env._index[0]
    rows = ix["rows"]
    ee = arr["site_xpos"][rows[:, 0], ix["ee_site"]]
    jp, jr = kernels.hinge_jacobian(
        arr["xanchor"][rows, ix["arm_jnt"]], arr["xaxis"][rows, ix["arm_jnt"]], ee
    )
    mp, mr = env.backend.jac(0, ix["ee_body"], ee)
    assert np.allclose(jp, np.take_along_axis(mp, ix["arm_v"][:, None, :], axis=2), atol=1e-12)
    assert np.allclose(jr, np.take_along_axis(mr, ix["arm_v"][:, None, :], axis=2), atol=1e-12)


def test_reset_boxes_from_demo_start_poses(env):
    from simkit.envs.hebero.vector_env import demo_boxes

    t = env.tasks[0]
    sc = t.scene
    names = list(t.desc["objects"])
    starts = []
    for k in range(4):  # start poses of four "demos": region layouts
        t.sample_state(np.random.default_rng(100 + k))
        starts.append(
            np.array([np.concatenate([sc.data.xpos[sc.binding.bodies[n]], [1, 0, 0, 0]]) for n in names])
        )
    boxes = demo_boxes(starts, names)
    assert sorted(boxes) == sorted(names)
    assert all(x0 <= x1 and y0 <= y1 for x0, y0, x1, y1 in boxes.values())
    inside = 0
    for k in range(20):
        t.sample_state(np.random.default_rng(k), boxes)
        assert not sc.layout.penetrating(sc.data)
        ok = all(
            boxes[n][0] - 1e-9 <= sc.data.xpos[sc.binding.bodies[n]][0] <= boxes[n][2] + 1e-9
            and boxes[n][1] - 1e-9 <= sc.data.xpos[sc.binding.bodies[n]][1] <= boxes[n][3] + 1e-9
            for n in names
        )
        inside += ok
    assert inside >= 15  # the rest fell back to the region layout (no collision-free draw)
    env.set_reset_boxes({env.task_names[0]: boxes})
    with pytest.raises(InputError, match="tasks this env does not run"):
        env.set_reset_boxes({"goal/turn_on_the_stove_twice": boxes})
    env.set_reset_boxes({})
