"""Interactive environments (Gymnasium single and vector envs): packing, hebero, nav.

Environments compile scenes and step backends (``simkit.scenes``, ``simkit.sims``); they never
import generators. :func:`register_envs` registers every id; the ``simkit-gymnasium.pth`` file
simkit installs calls it as soon as Gymnasium's registry is imported (:mod:`simkit.envs.gym_hook`),
so ``gymnasium.make("simkit/...")`` and ``gymnasium.make_vec("simkit/Hebero-v0", ...)`` work
without importing simkit.
"""

from __future__ import annotations


def register_envs() -> None:
    """Register every simkit environment id with Gymnasium (idempotent)."""
    from gymnasium.envs.registration import register, registry

    ids = {
        "simkit/Packing-v0": "simkit.envs.packing.env:PackingEnv",
        "simkit/FoaNav-v0": "simkit.envs.nav.env:FoaNavEnv",
    }
    for env_id, entry_point in ids.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point)
    if "simkit/Hebero-v0" not in registry:
        register(
            id="simkit/Hebero-v0",
            entry_point="simkit.envs.hebero:make_env",
            vector_entry_point="simkit.envs.hebero:make_vector_env",
        )
