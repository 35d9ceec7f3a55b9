"""Interactive environments (Gymnasium single and vector envs): packing, hebero, nav.

Environments compile scenes and step backends (``simkit.scenes``, ``simkit.sims``); they never
import generators. :func:`register_envs` is Gymnasium's plugin entry point (``gymnasium.envs``
group in ``pyproject.toml``), so ``gymnasium.make("simkit/...")`` works without importing simkit.
"""

from __future__ import annotations


def register_envs() -> None:
    """Register every simkit environment id with Gymnasium (idempotent)."""
    from gymnasium.envs.registration import register, registry

    ids = {
        "simkit/Packing-v0": "simkit.envs.packing:PackingEnv",
    }
    for env_id, entry_point in ids.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point)
