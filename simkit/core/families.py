"""The registration table: every family's generators, Gymnasium environments and CLI command modules.

One table, read by everything that registers something:

* :data:`simkit.core.registry.BUILTIN` (``simkit list``, ``simkit generate``) takes the generators;
* :func:`simkit.envs.register_envs` (Gymnasium ids, armed by ``import simkit``) takes the envs;
* :data:`simkit.cli.COMMAND_MODULES` (``simkit eval``, ``export``, ``compile`` ...) takes the command modules;
* pyproject.toml's ``[project.entry-points."simkit.generators"]`` repeats the generators for installed
  tools that read entry points only; a test holds it equal to this table.

The table holds only strings (``"module:attribute"``), so reading it imports no family code: ``simkit
--help`` and ``simkit list`` stay instant, and a family whose extra is missing fails only when used.
To add a family, add one :class:`Family` here; nothing else lists it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class EnvEntry:
    """One Gymnasium id: ``entry_point`` builds the single env, ``vector_entry_point`` (optional) the
    batched one ``gymnasium.make_vec`` returns."""

    id: str
    entry_point: str
    vector_entry_point: str | None = None


@dataclass(frozen=True)
class Family:
    """One family (a research system's data side): its name, generators (name -> ``module:Class``),
    Gymnasium environments and CLI command modules (each exposes ``register(groups)``)."""

    name: str
    generators: dict[str, str] = field(default_factory=dict)
    envs: tuple[EnvEntry, ...] = ()
    commands: tuple[str, ...] = ()


FAMILIES: tuple[Family, ...] = (
    Family(
        "packing",
        generators={"packing": "simkit.generators.packing.generator:PackingGenerator"},
        envs=(EnvEntry("simkit/Packing-v0", "simkit.envs.packing.env:PackingEnv"),),
        commands=("simkit.commands.packing", "simkit.commands.packing_eval"),
    ),
    Family("foa", generators={"foa-qa": "simkit.generators.foa.generator:FoaQaGenerator"}),
    Family(
        "nav",
        generators={"foa-nav": "simkit.generators.nav.generator:FoaNavGenerator"},
        envs=(EnvEntry("simkit/FoaNav-v0", "simkit.envs.nav.env:FoaNavEnv"),),
        commands=("simkit.commands.nav",),
    ),
    Family(
        "wrop",
        generators={"wrop": "simkit.generators.wrop:WropGenerator"},
        commands=("simkit.commands.wrop_eval",),
    ),
    Family(
        "hebero",
        generators={"hebero-demos": "simkit.generators.hebero.generator:HeberoDemosGenerator"},
        envs=(
            EnvEntry(
                "simkit/Hebero-v0",
                "simkit.envs.hebero:make_env",
                vector_entry_point="simkit.envs.hebero:make_vector_env",
            ),
        ),
        commands=("simkit.commands.hebero",),
    ),
    Family(
        "pairs",
        generators={"pairs": "simkit.generators.pairs.generator:PairsGenerator"},
        commands=("simkit.commands.pairs",),
    ),
)


def generators() -> dict[str, str]:
    """Every shipped generator: name -> ``"module:Class"``, in table order."""
    return {name: target for fam in FAMILIES for name, target in fam.generators.items()}


def envs() -> tuple[EnvEntry, ...]:
    """Every shipped Gymnasium id, in table order."""
    return tuple(e for fam in FAMILIES for e in fam.envs)


def command_modules() -> tuple[str, ...]:
    """Every CLI command module, in table order."""
    return tuple(m for fam in FAMILIES for m in fam.commands)
