"""Structural recipes of the WROP task generators: what makes two generators the same cognitive situation.

The paper's 150 generators are hand-designed situations, not re-parameterised copies. A generator's
*structural recipe* is the 4-tuple

1. ``kinds``: the set of object kinds in its composition (ground slab excluded) at a fixed structural seed;
2. ``compose``: the qualified name of the ``compose`` method that defines its choreography (the class in
   the MRO whose body defines ``compose``: a subclass that only changes parameter ranges shares its
   parent's);
3. ``events``: the set of event names it declares;
4. ``space``: its structural parameter space, as (name, type, range) triples in declaration order.

Two generators with equal recipes are copies (:func:`duplicates`); no rendering is involved, only
``compose`` at 120 frames and 24 fps (the paper's clip).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simkit.generators.wrop.base import Clip, Task, catalogue

#: the clip recipes are composed at (the paper's: 120 frames, 24 fps)
RECIPE_CLIP = Clip(120, 24.0)
#: structural seeds tried in turn until one composes (a draw may not fit the clip; the engine redraws it)
RECIPE_SEEDS = range(16)


@dataclass(frozen=True)
class Recipe:
    """A generator's structural recipe (module docstring)."""

    kinds: frozenset[str]
    compose: str
    events: frozenset[str]
    space: tuple[tuple[str, str, str], ...]


def compose_owner(task_cls: type[Task]) -> str:
    """``module.Class.compose`` of the class in ``task_cls``'s MRO whose body defines ``compose``."""
    for klass in task_cls.__mro__:
        if "compose" in vars(klass):
            return f"{klass.__module__}.{klass.__qualname__}.compose"
    raise TypeError(f"{task_cls.__name__} defines no compose")


def compose_fixed(task_cls: type[Task], clip: Clip = RECIPE_CLIP) -> tuple[int, dict[str, Any], Any]:
    """(structural seed, structural params, :class:`~simkit.generators.wrop.base.Composition`) of the first
    seed in :data:`RECIPE_SEEDS` whose structure composes on ``clip`` (surface seed 0).

    Raises:
        ValueError: no seed composes (the generator cannot render this clip).
    """
    task = task_cls()
    look = task.sample_surface(0)
    last: Exception | None = None
    for seed in RECIPE_SEEDS:
        s = task.sample_structural(seed)
        try:
            return seed, s, task.compose(s, clip, look)
        except ValueError as exc:
            last = exc
    raise ValueError(f"{task_cls.id()}: no structural seed in {RECIPE_SEEDS} composes ({last})")


def structural_recipe(task_cls: type[Task]) -> Recipe:
    """The :class:`Recipe` of ``task_cls`` (composed at :data:`RECIPE_CLIP`, see :func:`compose_fixed`)."""
    _, _, comp = compose_fixed(task_cls)
    kinds = frozenset(o.kind for o in comp.objects if o.role != "ground")
    space = tuple((name, type(spec).__name__, spec.describe()) for name, spec in task_cls.structural.items())
    return Recipe(kinds, compose_owner(task_cls), frozenset(comp.events), space)


def duplicates(tasks: dict[str, type[Task]] | None = None) -> list[tuple[str, str]]:
    """Pairs (first id, second id) of generators with equal recipes, in catalogue order (``tasks``: default
    the whole catalogue)."""
    seen: dict[Recipe, str] = {}
    pairs = []
    for gid, cls in (tasks if tasks is not None else catalogue()).items():
        r = structural_recipe(cls)
        if r in seen:
            pairs.append((seen[r], gid))
        else:
            seen[r] = gid
    return pairs
