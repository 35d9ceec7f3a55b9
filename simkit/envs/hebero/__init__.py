"""``simkit/Hebero-v0``: the 40 LIBERO tasks as one heterogeneous Gymnasium vector env (and a single env).

Heavy imports (mujoco, gymnasium) happen when an env is built; ``import simkit.envs.hebero`` is light.
"""

from __future__ import annotations

from typing import Any


def make_vector_env(num_envs: int = 40, **kwargs: Any):
    """Gymnasium ``vector_entry_point`` of ``simkit/Hebero-v0``: a :class:`~.vector_env.HeberoVectorEnv`."""
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    if kwargs.get("backend") == "warp":  # the GPU backend (MuJoCo Warp): simkit.envs.hebero.warp
        from simkit.envs.hebero.warp import make_warp_vector_env

        return make_warp_vector_env(num_envs=num_envs, **kwargs)
    return HeberoVectorEnv(num_envs=num_envs, **kwargs)


def make_env(**kwargs: Any):
    """Gymnasium ``entry_point`` of ``simkit/Hebero-v0``: a single :class:`~.single.HeberoEnv`."""
    from simkit.envs.hebero.single import HeberoEnv

    return HeberoEnv(**kwargs)
