"""Hebero demonstrations: scripted demos, replay through `simkit eval hebero`, HDF5 export/read, bad input."""

import json
import subprocess
import sys

import h5py
import numpy as np
import pytest

from simkit.adapters.hebero.demos import TaskInfo
from simkit.adapters.hebero.libero_hdf5 import write_libero_hdf5
from simkit.core.errors import InputError
from simkit.envs.hebero.demos import HOLD_STEPS, demo_env, goal_on_state, record_demo, replay
from simkit.envs.hebero.robomimic import qpos_names_of, read_hdf5
from simkit.envs.hebero.scripted import SETTLE_STEPS
from simkit.envs.hebero.stream import demo_cursor
from simkit.eval.hebero.evaluate import EvalReport, EvalResult, load_callable

TASK = "goal/turn_on_the_stove"


@pytest.fixture(scope="module")
def stove():
    env = demo_env(TASK)
    return env, record_demo(env, seed=4)


def test_scripted_demo_reaches_the_goal_and_replays_bit_exactly(stove):
    env, demo = stove
    assert demo.success and 10 < demo.length < 200
    assert demo.states.shape == (demo.length + 1, env.tasks[0].nstate)
    # the stored last state satisfies the goal by the contact-scan predicates, the first does not
    assert goal_on_state(TASK, demo.states[-1]) and not goal_on_state(TASK, demo.states[0])
    ok, flags = replay(env, demo)
    # the goal holds over the demo's last HOLD_STEPS steps (a demo ends on a held goal), as recorded
    assert ok and flags[-HOLD_STEPS:].all() and not flags[:SETTLE_STEPS].any()
    again = record_demo(env, seed=4)
    assert np.array_equal(again.states, demo.states) and np.array_equal(again.actions, demo.actions)


def test_command_stream_cursor():
    m, phi = demo_cursor(np.array([0, 5, 9, 0]), np.array([3, 3, 3, 0]), np.array([10, 10, 10, 1]))
    assert list(m) == [3, 8, 9, 0]
    assert np.allclose(phi, [3 / 9, 8 / 9, 1.0, 0.0])


def _sample(demo, env):
    model = env.tasks[0].model
    meta = {
        "task_id": TASK,
        "seed": demo.seed,
        "success": demo.success,
        "qpos_names": {str(k): v for k, v in qpos_names_of(model).items()},
    }
    return {
        "__key__": "hebero-demos-000000",
        "actions": demo.actions,
        "states": demo.states,
        "joint_states": demo.joint_states,
        "gripper_states": demo.gripper_states,
        "ee_pos": demo.ee_pos,
        "object_poses": demo.object_poses,
        "rewards": demo.rewards,
        "demo": meta,
    }


def test_hdf5_round_trip_maps_states_by_joint_names(stove, tmp_path):
    env, demo = stove
    model = env.tasks[0].model
    info = TaskInfo(  # identity orientations: read_hdf5 reads actions and states only
        TASK,
        "libero_goal",
        "Turn on the stove",
        "P",
        "robosuite",
        "",
        "<mujoco/>",
        {},
        ee_quat=lambda s: np.tile([1.0, 0.0, 0.0, 0.0], (len(s), 1)),
    )
    written = write_libero_hdf5(tmp_path / "out", [_sample(demo, env)], lambda task, meta: info)
    path, n = written[TASK]
    assert n == 1 and path == tmp_path / "out/libero_goal/turn_on_the_stove_demo.hdf5"
    with h5py.File(path) as f:  # robomimic layout
        g = f["data/demo_0"]
        assert g.attrs["num_samples"] == demo.length and f["data"].attrs["total"] == demo.length
        assert g["actions"].shape == (demo.length, 7) and g["obs/joint_states"].shape == (demo.length, 7)
        assert g["dones"][-1] == 1
    (d,) = read_hdf5(path, model)
    nq = model.nq
    assert np.array_equal(d.qpos, demo.states[:-1, 1 : 1 + nq]) and np.array_equal(d.actions, demo.actions)
    # a file whose state columns are in another order is mapped by the names it gives
    perm = np.random.default_rng(0).permutation(model.njnt)
    names = qpos_names_of(model)
    cols, mapping, c = [], {}, 0
    for j in perm:
        adr, w = int(model.jnt_qposadr[j]), {0: 7, 1: 4, 2: 1, 3: 1}[int(model.jnt_type[j])]
        cols.append(demo.states[:-1, 1 + adr : 1 + adr + w])
        mapping[c] = names[adr]
        c += w
    other = tmp_path / "libero_like.hdf5"
    with h5py.File(other, "w") as f:
        g = f.create_group("data/demo_0")
        g["actions"] = demo.actions
        g["states"] = np.concatenate([demo.states[:-1, :1], *cols], axis=1)
    (d2,) = read_hdf5(other, model, qpos_names=mapping)
    assert np.array_equal(d2.qpos, d.qpos)


def test_hdf5_of_the_wrong_layout_is_one_clear_line(stove, tmp_path):
    env, demo = stove
    model = env.tasks[0].model
    bad = tmp_path / "bad.hdf5"
    with h5py.File(bad, "w") as f:
        f.create_group("data/demo_0")["actions"] = np.zeros((3, 7))
        f["data"].attrs["simkit_qpos_names"] = json.dumps({TASK: {"0": "robot/joint1"}})
    with pytest.raises(InputError, match=r"bad.hdf5: data/demo_0/states: missing"):
        read_hdf5(bad, model)
    with h5py.File(bad, "a") as f:
        f["data/demo_0/states"] = np.zeros((3, 50))
        f["data"].attrs["simkit_qpos_names"] = json.dumps({TASK: {"0": "robot/elbow_of_a_ur5"}})
    with pytest.raises(InputError, match="joint 'robot/elbow_of_a_ur5' is not in simkit's scene"):
        read_hdf5(bad, model)
    not_h5 = tmp_path / "x.hdf5"
    not_h5.write_text("hello")
    with pytest.raises(InputError, match="not a readable HDF5 file"):
        read_hdf5(not_h5, model)


def test_policy_module_that_fails_to_import_is_one_clear_line(tmp_path, monkeypatch):
    (tmp_path / "broken_policy.py").write_text("import numpy\nraise RuntimeError('weights missing')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(
        InputError, match=r"module 'broken_policy' fails to import \(RuntimeError: weights missing\)"
    ):
        load_callable("broken_policy:act")
    with pytest.raises(InputError, match="expected random, zero, demo or module:callable"):
        load_callable("greedy")
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "simkit",
            "eval",
            "hebero",
            "--policy",
            "broken_policy:act",
            "--episodes",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**__import__("os").environ, "PYTHONPATH": str(tmp_path)},
    )
    assert res.returncode == 2 and "Traceback" not in res.stderr and "fails to import" in res.stderr


def test_metrics():
    ids = ["goal/a", "goal/b", "long/c", "long/d"]
    r = EvalResult(ids, np.array([1.0, 0.8, 0.5, 0.0]), 10)
    assert r.mean_sr == pytest.approx(0.575) and r.long_sr == pytest.approx(0.25) and r.coverage == 2
    rep = EvalReport([EvalResult(ids, np.full(4, v), 1) for v in (0.0, 0.5, 1.0)])
    assert rep.sr_auc == pytest.approx(0.5)  # trapezoid under 0, 0.5, 1 on [0, 1]


@pytest.mark.slow
def test_demo_policy_succeeds_on_at_least_9_of_10_goal_tasks_and_matches_the_demos(tmp_path):
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "simkit",
            "eval",
            "hebero",
            "--policy",
            "demo",
            "--suite",
            "goal",
            "--episodes",
            "1",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    line = next(l for l in res.stdout.splitlines() if l.startswith("Mean SR "))
    assert float(line.split()[2]) >= 0.9  # docs/hebero.md: at least 9 of the 10 demos succeed
    per_task = json.loads((tmp_path / "results.json").read_text())["results"][0]["tasks"]
    assert (tmp_path / "sr_per_task.png").stat().st_size > 10_000
    # the same demos recorded directly: a demo whose goal holds at its end succeeds when replayed (the
    # eval also counts a goal reached at any step, which a demo that loses it again is not)
    # (recorded again: every task the eval failed, where the first check bites, and two it passed)
    again = [t for t, sr in enumerate(per_task.values()) if sr < 1]
    again += [t for t, sr in enumerate(per_task.values()) if sr == 1][:2]
    for t, (task, sr) in enumerate(per_task.items()):
        if t not in again:
            continue
        demo = record_demo(demo_env(task), int(np.random.SeedSequence([0, t, 0]).generate_state(1)[0]), 600)
        assert sr == 1.0 or not demo.success, task
        assert demo.success == goal_on_state(task, demo.states[-1])
    assert sum(per_task.values()) >= 9
    # the one task docs/hebero.md names as unreliable: the bowl into the open top drawer
    assert {t for t, sr in per_task.items() if sr < 1} <= {"goal/open_the_top_drawer_and_put_the_bowl_inside"}


@pytest.mark.slow
def test_demo_corpus_is_the_same_for_any_worker_count_and_validates(tmp_path):
    from simkit.episodes.reader import iter_corpus

    def gen(out, workers):
        cmd = [
            sys.executable,
            "-m",
            "simkit",
            "generate",
            "hebero-demos",
            "--n",
            "2",
            "--out",
            str(out),
            "--seed",
            "3",
            "--workers",
            str(workers),
            "--set",
            "tasks=[goal/turn_on_the_stove]",
            "--set",
            "max_steps=200",
        ]
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
        assert res.returncode == 0, res.stderr[-2000:]
        return {s["__key__"]: s for s in iter_corpus(out)}

    a, b = gen(tmp_path / "a", 1), gen(tmp_path / "b", 2)
    assert sorted(a) == sorted(b) and len(a) == 2
    for k in a:
        for f in ("actions", "states", "object_poses"):
            assert np.array_equal(a[k][f], b[k][f]), (k, f)
        assert a[k]["demo"]["success"] == goal_on_state(TASK, a[k]["states"][-1])
    res = subprocess.run(
        [sys.executable, "-m", "simkit", "validate", str(tmp_path / "a")], capture_output=True, text=True
    )
    assert res.returncode == 0 and "PASS" in res.stdout, res.stdout + res.stderr
    out = tmp_path / "demos"
    res = subprocess.run(
        [sys.executable, "-m", "simkit", "export", "hebero-hdf5", str(tmp_path / "a"), str(out)],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0 and "wrote 2 demo(s)" in res.stdout, res.stderr
    with h5py.File(out / "libero_goal/turn_on_the_stove_demo.hdf5") as f:
        assert sorted(f["data"]) == ["demo_0", "demo_1"]


def test_command_stream_demo_start_resets_and_tracking_reward(stove):
    _, demo = stove
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    env = HeberoVectorEnv(num_envs=2, tasks=[TASK], terminate_on_success=False)
    env.set_demos({TASK: [demo]}, demo_start=True)
    obs, _ = env.reset(seed=5)
    r0 = env.stream.r.copy()
    assert np.all(r0 < demo.length)
    for e in range(2):  # each env starts at its demo state r_e
        assert np.allclose(obs[e, 43:50], demo.joint_states[r0[e]], atol=1e-6)
    w = env.cfg.demo_reward
    top = w.ee_pos + w.arm_qpos + w.arm_qvel + w.gripper + w.objects + w.articulation
    follow = []
    for k in range(6):
        acts = np.zeros((2, 7))
        idx = min(r0[0] + k, demo.length - 1)
        acts[0] = demo.actions[idx]  # env 0 follows its demo
        _, _, _, _, info = env.step(acts)
        follow.append(info["r_demo"][0])
        assert np.allclose(info["phi"], np.minimum(r0 + k + 1, demo.length - 1) / (demo.length - 1))
    assert min(follow) > top - w.arm_qvel - 0.05  # every pose term at its maximum while following
    assert max(follow) <= top + 1e-9


def test_inspect_draws_trajectories_not_the_raw_state_matrix(tmp_path):
    from simkit.generators.hebero.generator import HeberoDemosGenerator

    T = 20
    rng = np.random.default_rng(0)
    sample = {
        "__key__": "hebero_demos_00000000",
        "ee_pos": rng.normal(size=(T + 1, 3)),
        "gripper_states": rng.normal(size=(T + 1, 2)),
        "object_poses": rng.normal(size=(T + 1, 2, 7)),
        "articulation": rng.normal(size=(T + 1, 1)),
        "rewards": rng.normal(size=T).astype(np.float32),
        "states": rng.normal(size=(T + 1, 50)),
        "demo": {"task_id": "goal/x", "instruction": "do x", "success": True, "object_names": ["a", "b"],
                 "articulation_names": ["drawer"]},
    }  # fmt: skip
    paths = HeberoDemosGenerator().inspect([sample], tmp_path)
    assert [p.name for p in paths] == ["demo_hebero_demos_00000000.png"] and paths[0].stat().st_size > 10_000
    assert not (tmp_path / "contact_sheet.png").exists()


@pytest.mark.parametrize("policy", ["random", "zero", "demo"])
def test_checkpoints_with_a_builtin_policy_are_refused_not_ignored(policy, tmp_path):
    from simkit.core.errors import InputError
    from simkit.eval.hebero.evaluate import evaluate

    with pytest.raises(InputError, match="--checkpoints needs --policy module:callable"):
        evaluate(policy, "goal", None, 1, 1, 0, tmp_path)


def test_the_demo_policy_refuses_reset_boxes_it_would_not_use():
    from simkit.core.errors import InputError
    from simkit.eval.hebero.evaluate import evaluate

    boxes = {"goal/turn_on_the_stove": {"flat_stove_1": ((0.0, 0.0), (0.1, 0.1))}}
    with pytest.raises(InputError, match=r"drop --demos \(reset boxes\)"):
        evaluate("demo", "goal", None, 1, 1, 0, boxes=boxes)


def test_a_missing_checkpoints_folder_is_refused(tmp_path):
    from simkit.core.errors import InputError
    from simkit.eval.hebero.evaluate import evaluate

    with pytest.raises(InputError, match="--checkpoints: no such folder"):
        evaluate("os.path:join", "goal", None, 1, 1, 0, tmp_path / "nonexistent")


@pytest.mark.parametrize(
    ("suite", "max_steps", "message"),
    [
        ("goal", 0, "--max-steps must be >= 1, not 0"),
        ("nope", 600, "--suite must be one of goal, object, spatial, long, all, not 'nope'"),
    ],
)
def test_a_bad_suite_or_max_steps_names_its_flag(suite, max_steps, message):
    from simkit.eval.hebero.evaluate import evaluate

    with pytest.raises(InputError) as exc:
        evaluate("zero", suite, None, 1, max_steps)
    assert str(exc.value) == message


def test_an_odd_image_size_says_so_once():
    from simkit.core.config import build_config
    from simkit.generators.hebero.generator import HeberoDemosConfig

    with pytest.raises(InputError) as exc:
        build_config(HeberoDemosConfig, None, ["image_size=33"])
    assert str(exc.value).startswith(
        "invalid config: image_size: Value error, must be even (H.264 video) (got 33). Valid keys: suite,"
    ), str(exc.value)
