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
class Listing:
    """What ``simkit list`` shows of a shipped generator without importing it: its class's ``version``,
    ``extra`` and ``description`` (a test holds them equal to the class's own attributes)."""

    version: str
    extra: str
    description: str


@dataclass(frozen=True)
class Family:
    """One family (a research system's data side): its name, generators (name -> ``module:Class``),
    their listings (name -> :class:`Listing`), Gymnasium environments and CLI command modules (each
    exposes ``register(groups)``)."""

    name: str
    generators: dict[str, str] = field(default_factory=dict)
    listings: dict[str, Listing] = field(default_factory=dict)
    envs: tuple[EnvEntry, ...] = ()
    commands: tuple[str, ...] = ()


FAMILIES: tuple[Family, ...] = (
    Family(
        "packing",
        generators={"packing": "simkit.generators.packing.generator:PackingGenerator"},
        listings={
            "packing": Listing(
                "2",
                "packing",
                "layout-first box-packing trajectories (heightmaps, buffers, expert actions) with pybullet replay",
            )
        },
        envs=(EnvEntry("simkit/Packing-v0", "simkit.envs.packing.env:PackingEnv"),),
        commands=("simkit.commands.packing", "simkit.commands.packing_eval"),
    ),
    Family(
        "foa",
        generators={"foa-qa": "simkit.generators.foa.generator:FoaQaGenerator"},
        listings={
            "foa-qa": Listing(
                "7",
                "audio",
                "first-order Ambisonics scenes (AmbiX) with direction/motion/3D/camera-rotation QA",
            )
        },
    ),
    Family(
        "nav",
        generators={"foa-nav": "simkit.generators.nav.generator:FoaNavGenerator"},
        listings={
            "foa-nav": Listing(
                "3",
                "nav",
                "sound-guided navigation: floor plans, shortest-path episodes, egocentric FOA per step, waypoints",
            )
        },
        envs=(EnvEntry("simkit/FoaNav-v0", "simkit.envs.nav.env:FoaNavEnv"),),
        commands=("simkit.commands.nav",),
    ),
    Family(
        "wrop",
        generators={"wrop": "simkit.generators.wrop:WropGenerator"},
        listings={
            "wrop": Listing(
                "2",
                "blender",
                "object permanence / solidity video continuation (Blender; OP-1..OS-3 task generators)",
            )
        },
        commands=("simkit.commands.wrop_eval",),
    ),
    Family(
        "hebero",
        generators={"hebero-demos": "simkit.generators.hebero.generator:HeberoDemosGenerator"},
        listings={
            "hebero-demos": Listing(
                "7",
                "hebero",
                "scripted demonstrations of the Hebero/LIBERO tasks (MuJoCo states, actions, success)",
            )
        },
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
        listings={
            "pairs": Listing(
                "1",
                "blender",
                "object pairs with exact dense correspondence + covisibility (Blender; FreeMatching Sec. 3.3)",
            )
        },
        commands=("simkit.commands.pairs",),
    ),
)


def generators() -> dict[str, str]:
    """Every shipped generator: name -> ``"module:Class"``, in table order."""
    return {name: target for fam in FAMILIES for name, target in fam.generators.items()}


def listings() -> dict[str, Listing]:
    """Every shipped generator's :class:`Listing`: name -> listing, in table order."""
    return {name: item for fam in FAMILIES for name, item in fam.listings.items()}


def envs() -> tuple[EnvEntry, ...]:
    """Every shipped Gymnasium id, in table order."""
    return tuple(e for fam in FAMILIES for e in fam.envs)


def command_modules() -> tuple[str, ...]:
    """Every CLI command module, in table order."""
    return tuple(m for fam in FAMILIES for m in fam.commands)
