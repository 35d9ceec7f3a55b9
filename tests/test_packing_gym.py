"""Gymnasium env simkit/Packing-v0: registration, check_env, the invalid-action rule, vector envs."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import simkit.envs.packing.env as sgym
from simkit.scenes.packing.bench import load_bench
from simkit.scenes.packing.layout import TIERS


def test_import_registers_the_env_id():
    assert "simkit/Packing-v0" in gym.registry
    env = gym.make("simkit/Packing-v0")
    assert isinstance(env.unwrapped, sgym.PackingEnv)
    env.close()


@pytest.mark.parametrize("tier", ["easy", "hard"])
def test_check_env_passes(tier):
    env = sgym.PackingEnv(tier=tier)
    check_env(env, skip_render_check=True)
    env.close()


def test_spaces_follow_the_tier_limits():
    env = sgym.PackingEnv(tier="medium")
    spec = TIERS["medium"]
    assert env.observation_space["heightmap"].shape == (spec.length[1], spec.width[1])
    assert env.observation_space["buffer"].shape == (spec.buffer_size, 3)
    assert list(env.action_space.nvec) == [spec.buffer_size, 2, spec.length[1], spec.width[1]]
    env.close()


def test_expert_actions_through_the_env_score_one_and_rewards_sum_to_success():
    case = next(c for c in load_bench() if c.tier == "easy")
    env = sgym.PackingEnv(tier="easy", cases=[case])
    obs, info = env.reset(seed=0)
    L, W, H = case.container.size
    assert obs["container"].tolist() == [L, W, H]
    assert (obs["heightmap"][:L, :W] == 0).all() and (obs["heightmap"][L:, :] == H).all()
    total = 0.0
    for p in case.expert:
        slot = [int(i) for i in np.nonzero(obs["buffer"].any(axis=1))[0]]
        sizes = [tuple(obs["buffer"][i]) for i in slot]
        want = tuple(case.item_by_id[p.box_id].box.size)
        assert want in sizes  # the expert's next box is always visible
        # the buffer is in arrival order; pick the slot holding box p.box_id
        ids = [it.id for it in env.unwrapped._ep.buffer]
        obs, r, term, trunc, info = env.step(np.array([ids.index(p.box_id), p.orientation, p.x, p.y]))
        assert not info["invalid_action"] and info["physics_valid"]
        total += r
    assert term and not trunc
    assert total == pytest.approx(1.0) and info["overall"] == pytest.approx(1.0) and info["violations"] == 0
    env.close()


def test_invalid_action_rule_discards_the_item():
    env = sgym.PackingEnv(tier="easy", physics=False)
    obs, info = env.reset(seed=3)
    n = info["items"]
    # x beyond the container: the selected item is discarded, reward 0
    obs, r, term, trunc, info = env.step(np.array([0, 0, env.L - 1, env.W - 1]))
    assert info["invalid_action"] and r == 0.0
    steps = 1
    while not term:
        obs, r, term, trunc, info = env.step(np.array([0, 0, env.L - 1, env.W - 1]))
        steps += 1
    assert steps == n and info["success_ratio"] < 1.0
    env.close()


def test_same_seed_same_episode():
    env = sgym.PackingEnv(tier="medium")
    a, _ = env.reset(seed=11)
    b, _ = env.reset(seed=11)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    env.close()


def test_sync_and_async_vector_envs():
    for cls in (gym.vector.SyncVectorEnv, gym.vector.AsyncVectorEnv):
        venv = cls([lambda: gym.make("simkit/Packing-v0", tier="easy") for _ in range(2)])
        obs, _ = venv.reset(seed=0)
        assert obs["heightmap"].shape == (2, TIERS["easy"].length[1], TIERS["easy"].width[1])
        for _ in range(10):
            obs, r, term, trunc, info = venv.step(venv.action_space.sample())
            assert r.shape == (2,) and (r >= 0).all()
        venv.close()
