"""Interactive environments (Gymnasium single and vector envs): packing, hebero, nav.

Environments compile scenes and step backends (``simkit.scenes``, ``simkit.sims``); they never
import generators. :func:`register_envs` registers every id; ``import simkit`` arms
:mod:`simkit.envs.gym_hook`, which calls it as soon as Gymnasium's registry is imported, so after
``import simkit`` ``gymnasium.make("simkit/...")`` and ``gymnasium.make_vec("simkit/Hebero-v0", ...)``
work, and ``gymnasium.make("simkit.envs:simkit/Packing-v0")`` works with no import at all.
"""

from __future__ import annotations


def register_envs() -> None:
    """Register every simkit environment id of the registration table (:mod:`simkit.core.families`)
    with Gymnasium (idempotent)."""
    from gymnasium.envs.registration import register, registry

    from simkit.core.families import envs

    for e in envs():
        if e.id not in registry:
            register(id=e.id, entry_point=e.entry_point, vector_entry_point=e.vector_entry_point)
