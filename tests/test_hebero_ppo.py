"""A short PPO run (Stable-Baselines3, CPU) on simkit/Hebero-v0 made through Gymnasium's registry."""

import numpy as np
import pytest


@pytest.mark.slow
def test_sb3_ppo_trains_on_hebero():
    import gymnasium
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_checker import check_env

    import simkit  # noqa: F401  (registers the Gymnasium ids)

    env = gymnasium.make("simkit/Hebero-v0", task="goal/turn_on_the_stove", max_episode_steps=100)
    check_env(env.unwrapped, warn=False)
    model = PPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=2, seed=0, device="cpu", verbose=0)
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    # the update changed the policy and it acts inside the action space
    assert any(
        not np.allclose(a.numpy(), b.detach().numpy()) for a, b in zip(before, model.policy.parameters())
    )
    obs, _ = env.reset(seed=1)
    act, _ = model.predict(obs, deterministic=True)
    assert act.shape == (7,) and np.all(np.abs(act) <= 1.0)
