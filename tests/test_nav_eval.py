"""Navigation metrics by hand, the waypoint -> action rule, the Gymnasium env and the oracle closed loop."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest
from enginehelp import simkit_cli
from gymnasium.utils.env_checker import check_env
from navhelp import SMALL

from simkit.core.errors import SimkitError
from simkit.envs import register_envs
from simkit.envs.nav.env import FoaNavEnv
from simkit.eval.nav.evaluate import evaluate
from simkit.eval.nav.metrics import episode_metrics, summarise
from simkit.eval.nav.policies import FORWARD, LEFT, RIGHT, STOP, make_policy, waypoints_to_actions


def test_spl_by_hand_on_a_three_step_episode():
    """Shortest path l = 0.5 m; the agent walks 0.25 + 0.25 + 0.25 m (one step sideways), ending
    0.1 m from the goal, and stops: S = 1, SPL = 0.5 / 0.75, SoftSPL = (1 - 0.1/0.5) * 0.5/0.75."""
    m = episode_metrics(0.5, 0.75, [0.5, 0.3, 0.25, 0.1], stopped=True, success_radius_m=0.2)
    assert m == pytest.approx(
        {"SR": 1.0, "SPL": 2 / 3, "SoftSPL": 0.8 * 2 / 3, "NE": 0.1, "OS": 1.0, "TL": 0.75}
    )
    # the same walk without calling stop fails, though it passed within the radius (oracle success)
    m = episode_metrics(0.5, 0.75, [0.5, 0.3, 0.25, 0.1], stopped=False, success_radius_m=0.2)
    assert m["SR"] == 0.0 and m["SPL"] == 0.0 and m["OS"] == 1.0
    # a shorter path than the geodesic (stopping early inside the radius) caps efficiency at 1
    assert episode_metrics(2.0, 1.0, [2.0, 1.0], True, 3.0)["SPL"] == 1.0
    assert summarise([m, m])["episodes"] == 2.0
    with pytest.raises(ValueError):
        episode_metrics(0.0, 1.0, [1.0], True)


def test_waypoints_to_actions_by_dominant_displacement_or_yaw():
    assert waypoints_to_actions(np.zeros((0, 3))) == [STOP]
    assert waypoints_to_actions([[0.1, 0.0, 0.0]] * 8) == [STOP]  # self-stop: < 0.3 m, no yaw
    assert waypoints_to_actions([[1.0, 0.0, 0.0]]) == [FORWARD] * 4  # straight ahead
    assert waypoints_to_actions([[0.0, 0.5, math.pi / 2]]) == [LEFT] * 6 + [FORWARD] * 2
    assert waypoints_to_actions([[0.05, 0.0, -math.pi / 4]]) == [RIGHT] * 3  # yaw dominates


def test_env_passes_check_env_and_is_deterministic():
    register_envs()
    env = gym.make("simkit/FoaNav-v0", **SMALL)
    check_env(env.unwrapped, skip_render_check=True)
    a, _ = env.reset(seed=3)
    b, _ = env.reset(seed=3)
    np.testing.assert_array_equal(a["foa"], b["foa"])
    assert a["foa"].shape == (1600, 4) and a["pose"].tolist() == [0.0, 0.0, 0.0]
    obs, reward, term, trunc, info = env.step(1)
    assert not term and info["distance_to_goal"] > 0
    with pytest.raises(ValueError, match="action must be"):
        env.step(7)


def test_env_foa_points_at_the_source_and_reward_tracks_the_geodesic():
    from simkit.renderers.foa.windows import intensity_direction
    from simkit.sims.nav.episodes import source_in_agent_frame

    env = FoaNavEnv(**SMALL)
    env.reset(seed=12)
    # a continuous sound (speech): a silent window between footsteps or rings has no direction
    assert env.label == "speech"
    u = env
    for _ in range(24):  # turn a full circle; the walls between agent and source only scale the level
        obs, r, *_, info = env.step(2)
        want = source_in_agent_frame(u.agent.pose[None], u.source, u.ear_height)[0, 0]
        az, _ = intensity_direction(obs["foa"].astype(np.float64))
        assert abs((az - want + math.pi) % (2 * math.pi) - math.pi) < math.radians(3.0)
        assert r == pytest.approx(-0.01)  # turning in place: no geodesic progress


def test_scene_reuse_keeps_plan_and_clip_for_unseeded_resets_only():
    from simkit.assets.sounds import loudness_lufs

    env = FoaNavEnv(**SMALL, scene_reuse=3)
    env.reset(seed=5)
    plan, label, stem0, lufs0 = env.plan, env.label, env.stem.copy(), env._lufs
    goals = {tuple(env.task.goal)}
    for _ in range(2):
        env.reset()
        assert env.plan is plan and env.label == label
        goals.add(tuple(env.task.goal))
        # the same clip at the new loudness: a pure gain, and BS.1770 measures the new target
        ratio = env.stem / stem0
        np.testing.assert_allclose(ratio, 10 ** ((env._lufs - lufs0) / 20), rtol=1e-9)
        assert loudness_lufs(env.stem, env.fs) == pytest.approx(env._lufs, abs=1e-6)
    assert len(goals) == 3  # new episodes in the same plan
    env.reset()
    assert env.plan is not plan  # the fourth unseeded reset draws a new scene
    # a seeded reset is always a new scene, the same bytes as without reuse
    a, _ = FoaNavEnv(**SMALL).reset(seed=7)
    b, _ = env.reset(seed=7)
    np.testing.assert_array_equal(a["foa"], b["foa"])
    with pytest.raises(SimkitError, match="scene_reuse must be >= 1"):
        FoaNavEnv(scene_reuse=0)


def test_oracle_scores_sr_one_including_goals_behind_walls():
    res = evaluate(
        "oracle",
        episodes=4,
        seed=0,
        env_kwargs={**SMALL, "geodesic_m": (2.0, 6.0), "min_geodesic_ratio": 1.2, "success_radius_m": 0.2},
    )
    s = res["summary"]
    assert s["SR"] == 1.0 and s["OS"] == 1.0 and s["SPL"] >= 0.9
    assert all(r["end"] == "stop" and r["NE"] <= 0.2 for r in res["episodes"])
    assert all(r["geodesic_m"] >= 2.0 for r in res["episodes"])


def test_policy_specs(tmp_path, monkeypatch):
    (tmp_path / "mypol.py").write_text("def act(obs):\n    return 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    pol = make_policy("mypol:act")
    assert pol.act({}) == 0
    with pytest.raises(SimkitError, match="unknown navigation policy"):
        make_policy("nope")
    with pytest.raises(SimkitError, match="cannot load"):
        make_policy("no_such_module_xyz:act")


@pytest.mark.slow
def test_cli_eval_nav_prints_sr_and_spl():
    out = simkit_cli("eval", "nav", "--policy", "oracle", "--episodes", "2", check=True).stdout
    assert "SR 1.000" in out and "SPL" in out
    bad = simkit_cli("eval", "nav", "--policy", "nope")
    assert bad.returncode == 2 and "unknown navigation policy" in bad.stderr


@pytest.mark.parametrize("where", ["file/x.json", "folder"])
def test_cli_eval_nav_refuses_an_unwritable_out_before_running(where, tmp_path):
    (tmp_path / "file").write_text("x")
    (tmp_path / "folder").mkdir()
    bad = simkit_cli("eval", "nav", "--policy", "oracle", "--episodes", "1", "--out", str(tmp_path / where))
    assert bad.returncode == 2 and f"--out {tmp_path / where}: " in bad.stderr
    assert "SR " not in bad.stdout  # refused before any episode ran


def test_env_frames_depth_matches_ray_casting():
    from simkit.scenes.nav.floorplan import ray_distance

    env = FoaNavEnv(**SMALL, frames=True, image_size=(32, 24))
    obs, _ = env.reset(seed=2)
    assert obs["rgb"].shape == (24, 32, 3) and obs["depth"].shape == (24, 32, 1)
    for a in (2, 2, 1):
        obs, *_ = env.step(a)
        want = ray_distance(env.plan, env.agent.position, env.agent.yaw, env.ear_height)
        assert float(obs["depth"][11:13, 15:17].mean()) == pytest.approx(want, abs=0.02)


def test_waypoint_decisions_reach_the_goal_within_the_decision_limit():
    from simkit.eval.nav.evaluate import run_episode

    env = FoaNavEnv(**{**SMALL, "geodesic_m": (2.0, 5.0), "success_radius_m": 0.5})
    pol = make_policy("oracle-waypoints")  # the corpus's waypoint target, predicted perfectly
    rows = [run_episode(env, pol, seed=s, max_decisions=50) for s in range(3)]
    assert all(r["end"] == "stop" and r["SR"] == 1.0 for r in rows), rows
    assert all(1 <= r["decisions"] <= 50 and r["steps"] > r["decisions"] and r["SPL"] > 0.85 for r in rows)
    short = run_episode(env, pol, seed=0, max_decisions=1)
    assert short["end"] == "decisions" and short["decisions"] == 1 and short["SR"] == 0.0


def test_sound_policy_walks_to_the_source_in_free_field(tmp_path):
    """FOA only, an empty 8 x 6 m room: the intensity heading leads to the source; stopping within 1 m in
    at least 4 of 6 episodes (it measured 5 of 6, median final distance 0.2 m)."""
    import trimesh

    floor = trimesh.creation.box(extents=(8.0, 6.0, 0.05))
    floor.apply_translation((4.0, 3.0, -0.025))
    floor.export(tmp_path / "room.ply")
    res = evaluate(
        "sound", episodes=6, env_kwargs={"scene": str(tmp_path / "room.ply"), "success_radius_m": 1.0}
    )
    assert res["summary"]["SR"] >= 4 / 6
    assert np.median([r["NE"] for r in res["episodes"]]) < 0.5


def test_gymnasium_make_without_importing_simkit():
    """Gymnasium's module-prefixed id imports simkit's envs itself: no prior ``import simkit``."""
    import subprocess
    import sys

    code = (
        "import sys, gymnasium as gym\n"
        "env = gym.make('simkit.envs:simkit/FoaNav-v0', window_s=0.1)\n"
        "obs, info = env.reset(seed=0)\n"
        "print(obs['foa'].shape, info['distance_to_goal'] > 0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(1600, 4) True"


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"geodesic_m": 5.0}, "geodesic_m"), ({"width_m": (12.0, 8.0)}, "width_m"), ({"lufs": "loud"}, "lufs")],
)
def test_env_range_arguments_that_are_not_pairs_are_one_clear_error(kwargs, name):
    with pytest.raises(SimkitError, match=rf"FoaNav-v0 {name} must be a \[min, max\] pair") as ei:
        FoaNavEnv(**kwargs)
    assert "\n" not in str(ei.value)


def test_user_policies_by_explicit_form_never_by_arity(tmp_path, monkeypatch):
    (tmp_path / "userpol.py").write_text(
        "def pol(obs, info=None):\n    return 3\n"
        "class Pol:\n    def act(self, obs):\n        return 2\n"
        "def make():\n    return lambda obs: 1\n"
        "def make_obj():\n    return Pol()\n"
        "def broken():\n    raise RuntimeError('no weights')\n"
        "NOT_CALLABLE = 5\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert make_policy("userpol:pol").act({}) == 3  # two parameters: still an act function, not a factory
    assert make_policy("userpol:Pol").act({}) == 2  # a class: its instance
    assert make_policy("userpol:make()").act({}) == 1  # the factory form is explicit
    assert make_policy("userpol:make_obj()").act({}) == 2
    with pytest.raises(SimkitError, match=r"the factory failed \(RuntimeError: no weights\)"):
        make_policy("userpol:broken()")
    with pytest.raises(SimkitError, match="'NOT_CALLABLE' is not callable, so not a factory"):
        make_policy("userpol:NOT_CALLABLE()")
    with pytest.raises(SimkitError, match="neither a policy"):
        make_policy("userpol:NOT_CALLABLE")
