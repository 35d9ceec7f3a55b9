"""Generator registry.

Built-in generators are listed here; third-party packages add their own through
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

from simkit.core.errors import SimkitError
from simkit.core.generator import Generator

ENTRY_POINT_GROUP = "simkit.generators"

#: name -> "module:Class" of the generators that ship with simkit
BUILTIN: dict[str, str] = {
    "packing": "simkit.generators.packing.generator:PackingGenerator",
    "foa-qa": "simkit.generators.foa.generator:FoaQaGenerator",
    "foa-nav": "simkit.generators.nav.generator:FoaNavGenerator",
    "wrop": "simkit.generators.wrop:WropGenerator",
    "hebero-demos": "simkit.generators.hebero.generator:HeberoDemosGenerator",
    "pairs": "simkit.generators.pairs.generator:PairsGenerator",
}


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
    """
    table = available()
    if name not in table:
        raise SimkitError(f"unknown generator {name!r}; registered: {', '.join(sorted(table))}")
    module_name, _, attr = table[name].partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise SimkitError(f"generator {name!r} ({table[name]}) cannot be loaded: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Generator)):
        raise SimkitError(f"generator {name!r} ({table[name]}) is not a simkit Generator subclass")
    return cls
