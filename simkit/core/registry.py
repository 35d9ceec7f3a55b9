"""Generator registry.

Built-in generators come from the registration table (:mod:`simkit.core.families`); third-party packages add their own through
the ``simkit.generators`` entry-point group::

    [project.entry-points."simkit.generators"]
    my-gen = "my_package.module:MyGenerator"

or, without packaging, through the environment variable
``SIMKIT_GENERATORS="my-gen=my_module:MyGenerator,other=pkg.mod:Other"``
(the module must be importable in every worker).

Loading a generator imports only its module (which must keep heavy imports lazy).
"""

from __future__ import annotations

import importlib
import os
from functools import lru_cache
from typing import TYPE_CHECKING

from simkit.core import families
from simkit.core.errors import SimkitError

if TYPE_CHECKING:
    from simkit.core.generator import Generator

ENTRY_POINT_GROUP = "simkit.generators"

#: name -> "module:Class" of the generators that ship with simkit (from the registration table)
BUILTIN: dict[str, str] = families.generators()


ENV_VAR = "SIMKIT_GENERATORS"


@lru_cache(maxsize=1)
def _entry_points() -> dict[str, str]:
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available() -> dict[str, str]:
    """All registered generators: name -> "module:Class" (built-ins, entry points, then $SIMKIT_GENERATORS)."""
    table = dict(BUILTIN)
    for name, value in _entry_points().items():
        table.setdefault(name, value)
    for item in filter(None, (x.strip() for x in os.environ.get(ENV_VAR, "").split(","))):
        name, sep, value = item.partition("=")
        if not sep or ":" not in value:
            raise SimkitError(f"${ENV_VAR}: expected name=module:Class, got {item!r}")
        table[name.strip()] = value.strip()
    return table


def load(name: str) -> type[Generator]:
    """The generator class registered as ``name``.

    Raises:
        SimkitError: unknown name (the message lists the registered ones) or a broken entry.
        ExtraMissing: the generator's module imports an optional module that is not installed.
    """
    table = available()
    if name not in table:
        raise SimkitError(f"unknown generator {name!r}; registered: {', '.join(sorted(table))}")
    module_name, _, attr = table[name].partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        from simkit.core.extras import as_extra_missing

        missing = as_extra_missing(exc)  # its module imports an optional module at the top
        if missing is not None:
            raise missing from exc
        raise SimkitError(f"generator {name!r} ({table[name]}) cannot be loaded: {exc}") from exc
    from simkit.core.generator import Generator

    if not (isinstance(cls, type) and issubclass(cls, Generator)):
        raise SimkitError(f"generator {name!r} ({table[name]}) is not a simkit Generator subclass")
    return cls
