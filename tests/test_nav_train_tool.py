"""tools/train_nav.py: the policy's features from the env's observation, and the PPO policy adapter."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from navhelp import SMALL

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("train_nav", ROOT / "tools" / "train_nav.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_features_point_at_the_source_and_track_moves_and_actions():
    from simkit.envs.nav.env import FoaNavEnv
    from simkit.sims.nav.episodes import source_in_agent_frame

    tool = _tool()
    env = tool.FeatureEnv(FoaNavEnv(**SMALL), stack=2)
    x, _ = env.reset(seed=12)  # speech: continuous, every window has a direction
    u = env.unwrapped
    assert x.shape == (26,) and x.dtype == np.float32
    np.testing.assert_array_equal(x[:13], x[13:])  # the history starts filled with the first step
    for a in (2, 1, 3):
        x, *_ = env.step(a)
        f = x[13:]  # the newest step
        az, el = source_in_agent_frame(u.agent.pose[None], u.source, u.ear_height)[0, :2]
        want = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        assert np.degrees(math.acos(min(1.0, float(f[:3] @ want)))) < 3.0
        assert f[4] == (1.0 if a == 1 and u.agent.last_moved > 0.01 else 0.0)  # moved flag
        assert f[5:9].tolist() == np.eye(4)[a].tolist()  # previous action, one-hot
        np.testing.assert_allclose(f[9:11], u.relative_pose()[:2] / 10, rtol=1e-6)


def test_ppo_policy_adapter_runs_an_eval_episode():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3 import PPO

    from simkit.envs.nav.env import FoaNavEnv

    tool = _tool()
    model = PPO("MlpPolicy", tool.FeatureEnv(FoaNavEnv(**SMALL), 2), n_steps=8, batch_size=8, device="cpu")
    res = tool.evaluate_policy(tool.PPOPolicy(model, 2, True), [3], SMALL)
    assert res["episodes"] == 1.0 and 0.0 <= res["SPL"] <= res["SR"] <= 1.0
    assert res["steps"] >= 1 and len(res["success"]) == 1
