"""rsl_rl's ``VecEnv`` interface over a Gymnasium vector env with same-step autoreset (Hebero's).

:class:`RslRlVecEnv` wraps any object that behaves like ``simkit/Hebero-v0``'s vector envs (CPU
:class:`HeberoVectorEnv`, numpy; GPU ``HeberoWarpVecEnv``, torch): ``num_envs``,
``single_action_space``, ``cfg.horizon``, ``reset(seed=...)`` and ``step(actions)`` returning
Gymnasium's ``(obs, reward, terminated, truncated, info)`` (:class:`VectorEnvLike`). It gives what
rsl_rl's ``OnPolicyRunner`` reads (rsl-rl-lib 5.x, ``rsl_rl.env.VecEnv``): ``num_envs``,
``num_actions``, ``max_episode_length``, ``episode_length_buf``, ``device``, ``cfg``,
``get_observations()`` -> a ``tensordict.TensorDict`` with one group ``"policy"`` (N, obs_dim), and
``step(actions)`` -> (observations, rewards (N,) float32, dones (N,) long = terminated | truncated,
extras) with ``extras["time_outs"]`` = truncated (rsl_rl bootstraps on them) and ``extras["log"]``
(means logged under ``/``-prefixed names). The reward is the env's plus
``r_demo_weight * (info["r_demo"] - r_demo_offset)`` (the demo-tracking reward of an env with
demos attached; an offset equal to r_demo's maximum makes the term a penalty, <= 0, so that
ending an episode early by success never forfeits demo reward).

rsl_rl itself is never imported here (``tensordict`` is, when observations are asked for): the
class is duck-typed to rsl_rl's abstract ``VecEnv``. :func:`load_policy` loads a policy exported by
``tools/train_hebero.py`` (a TorchScript module, no rsl_rl needed) for ``simkit eval hebero
--policy simkit.adapters.rsl_rl:load_policy --checkpoints DIR``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from simkit.core.errors import InputError, require


class VectorEnvLike(Protocol):
    """What :class:`RslRlVecEnv` needs of a vector env (``simkit/Hebero-v0`` on either backend)."""

    num_envs: int
    single_action_space: Any
    cfg: Any  #: has ``horizon`` (control steps before truncation)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]: ...

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict]: ...

    def close(self) -> None: ...


class RslRlVecEnv:
    """rsl_rl ``VecEnv`` adapter (see module doc).

    Args:
        env: a :class:`VectorEnvLike`. device: torch device of what rsl_rl gets (default: the env's
            tensors' device, or CPU for a numpy env). r_demo_weight, r_demo_offset: w and c in
            r = r_env + w (r_demo - c) (w != 0 needs ``info["r_demo"]``: demos attached).
            seed: first reset's seed.

    Attributes:
        episode_successes: task id -> [episodes ended, episodes whose goal held at their last step]
            since the last :meth:`pop_episode_stats` (from ``info["task_id"]``, ``info["success"]``).

    Raises:
        InputError: ``r_demo_weight`` set but the env reports no ``r_demo`` (no demos attached).
        MissingExtra: torch not installed (the ``rl`` extra).
    """

    def __init__(
        self,
        env: VectorEnvLike,
        device: Any = None,
        r_demo_weight: float = 0.0,
        r_demo_offset: float = 0.0,
        seed: int | None = 0,
    ):
        self.torch = require("torch", "rl")
        self.env, self.r_demo_weight, self.r_demo_offset = env, float(r_demo_weight), float(r_demo_offset)
        self.num_envs = int(env.num_envs)
        self.num_actions = int(np.prod(env.single_action_space.shape))
        self.max_episode_length = int(env.cfg.horizon)
        obs, _ = env.reset(seed=seed)
        self._numpy = isinstance(obs, np.ndarray)
        self.device = self.torch.device(device) if device is not None else self._device_of(obs)
        self._obs = self._tensor(obs, self.torch.float32)
        self.episode_length_buf = self.torch.zeros(self.num_envs, dtype=self.torch.long, device=self.device)
        self.cfg: dict[str, Any] = {"horizon": self.max_episode_length, "r_demo_weight": self.r_demo_weight}
        self.episode_successes: dict[int, list[int]] = {}

    def _device_of(self, x: Any) -> Any:
        return self.torch.device("cpu") if self._numpy else x.device

    def _tensor(self, x: Any, dtype: Any) -> Any:
        return self.torch.as_tensor(x, device=self.device).to(dtype)

    def get_observations(self) -> Any:
        """The current observations: ``TensorDict({"policy": (N, obs_dim) float32})``."""
        from tensordict import TensorDict

        return TensorDict({"policy": self._obs}, batch_size=[self.num_envs], device=self.device)

    def step(self, actions: Any) -> tuple[Any, Any, Any, dict]:
        """One step of every env with ``actions`` (N, num_actions) (see module doc for the outputs)."""
        torch = self.torch
        a = actions.detach().cpu().numpy() if self._numpy else actions
        obs, reward, term, trunc, info = self.env.step(a)
        self._obs = self._tensor(obs, torch.float32)
        rew = self._tensor(reward, torch.float32)
        if self.r_demo_weight:
            if "r_demo" not in info:
                raise InputError(None, "r_demo_weight is set but the env reports no r_demo (attach demos)")
            r_demo = self._tensor(info["r_demo"], torch.float32)
            rew = rew + self.r_demo_weight * (r_demo - self.r_demo_offset)
        term_t, trunc_t = self._tensor(term, torch.bool), self._tensor(trunc, torch.bool)
        done = term_t | trunc_t
        self.episode_length_buf = torch.where(
            done, torch.zeros_like(self.episode_length_buf), self.episode_length_buf + 1
        )
        success = self._tensor(info["success"], torch.float32)
        log = {"/success": success.mean()}
        if "r_demo" in info:
            log["/r_demo"] = self._tensor(info["r_demo"], torch.float32).mean()
        self._count(done, info)
        extras = {"time_outs": trunc_t, "log": log}
        return self.get_observations(), rew, done.long(), extras

    def _count(self, done: Any, info: dict) -> None:
        """Per task: episodes ended this step and whether their goal held at the end (one host copy)."""
        d = done.cpu().numpy()
        if not d.any():
            return
        tasks = np.asarray(_host(info["task_id"]))[d]
        ok = np.asarray(_host(info["success"]), bool)[d]
        for t, s in zip(tasks.tolist(), ok.tolist()):
            row = self.episode_successes.setdefault(int(t), [0, 0])
            row[0] += 1
            row[1] += int(s)

    def reset(self, seed: int | None = None) -> Any:
        """Reset every env (e.g. after an evaluation ran on it); clears the episode counters and stats.
        Returns :meth:`get_observations`."""
        obs, _ = self.env.reset(seed=seed)
        self._obs = self._tensor(obs, self.torch.float32)
        self.episode_length_buf = self.torch.zeros_like(self.episode_length_buf)
        self.episode_successes = {}
        return self.get_observations()

    def pop_episode_stats(self) -> dict[int, list[int]]:
        """Return and clear :attr:`episode_successes` (task index -> [episodes, successes])."""
        out, self.episode_successes = self.episode_successes, {}
        return out

    def close(self) -> None:
        self.env.close()


def _host(x: Any) -> Any:
    return x.cpu().numpy() if hasattr(x, "cpu") else x


def load_policy(path: str | Path) -> Callable[[Any, dict], Any]:
    """A policy ``policy(obs (N, 300), info) -> actions (N, 7)`` in [-1, 1] from a TorchScript actor
    written by ``tools/train_hebero.py`` (rsl_rl's ``as_jit`` export: observation normaliser, MLP,
    deterministic output). numpy observations give numpy actions (the CPU env, ``simkit eval hebero``);
    torch observations give tensors on their device (the GPU env).

    Raises:
        InputError: the file does not exist or is not a TorchScript module.
        MissingExtra: torch not installed.
    """
    torch = require("torch", "rl")
    p = Path(path)
    try:
        module = torch.jit.load(str(p), map_location="cpu")
    except (OSError, RuntimeError, ValueError) as exc:
        raise InputError(p, f"not a TorchScript policy ({type(exc).__name__})") from None
    module.eval()

    def policy(obs: Any, info: dict) -> Any:
        with torch.inference_mode():
            if isinstance(obs, np.ndarray):
                x = torch.as_tensor(obs, dtype=torch.float32)
                return module(x).clamp(-1.0, 1.0).numpy().astype(np.float64)
            return module.to(obs.device)(obs.float()).clamp(-1.0, 1.0)

    return policy
