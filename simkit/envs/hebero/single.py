"""Single-environment form of ``simkit/Hebero-v0`` (a ``gymnasium.Env`` over a one-env vector env)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from simkit.envs.hebero.vector_env import HeberoVectorEnv


class HeberoEnv(gymnasium.Env):
    """One LIBERO task environment with the vector env's spaces, controller, rewards and resets.

    Args:
        task: a task id (``goal/turn_on_the_stove``) or name; default the first task of ``suite``.
        suite: goal | object | spatial | long | all, used when ``task`` is None.
        render_mode: None or "rgb_array". Other keyword arguments: as :class:`HeberoVectorEnv`.

    ``step`` returns (obs (300,) float32, reward float, terminated, truncated, info) with
    ``info["task_id"]`` (int), ``info["success"]`` (bool) and the reward terms. No autoreset:
    call ``reset`` after an episode ends, as with any ``gymnasium.Env``.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 20}

    def __init__(
        self, task: str | None = None, suite: str = "goal", render_mode: str | None = None, **kwargs: Any
    ):
        from simkit.envs.hebero.tasks import task_ids

        name = task if task is not None else task_ids(suite)[0]
        self.venv = HeberoVectorEnv(num_envs=1, tasks=[name], render_mode=render_mode, **kwargs)
        self.venv.cfg.terminate_on_success = True
        self.observation_space = self.venv.single_observation_space
        self.action_space = self.venv.single_action_space
        self.render_mode = render_mode
        self.task_name = self.venv.task_names[0]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        obs, info = self.venv.reset(seed=seed if seed is not None else int(self.np_random.integers(2**31)))
        return obs[0], _unbatch(info)

    def step(self, action):
        horizon = self.venv.cfg.horizon
        self.venv.cfg.horizon = 1 << 30  # the single env reports truncation itself and never autoresets
        try:
            obs, r, term, _, info = self.venv.step(np.asarray(action, np.float64)[None])
        finally:
            self.venv.cfg.horizon = horizon
        if "final_obs" in info:  # terminated: report the finished episode's last observation
            obs = info["final_obs"]  # (1,) object array: obs[0] is the observation
        trunc = bool(self.venv.elapsed[0] >= horizon) and not bool(term[0])
        if term[0]:
            self.venv.elapsed[0] = horizon  # keep stepping harmlessly until the caller resets
        return obs[0], float(r[0]), bool(term[0]), trunc, _unbatch(info)

    def render(self):
        return self.venv.render()

    def close(self) -> None:
        self.venv.close()


def _unbatch(info: dict) -> dict:
    skip = (
        "final_obs",
        "final_info",
    )  # Gymnasium's vector autoreset keys: the single env ends episodes itself
    return {
        k: (v[0].item() if np.ndim(v) == 1 else v[0])
        for k, v in info.items()
        if not k.startswith("_") and k not in skip
    }
