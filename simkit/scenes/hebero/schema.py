"""Hebero task vocabulary and the stored task-descriptor schema.

The constants every BDDL module shares (suites, predicate arity, arenas, task-code and entity-slot
sizes) and the checks of a stored descriptor: :func:`validate_descriptor` (layout, version, task id,
content hash), :func:`load_descriptor` (read + validate) and :func:`descriptor_digest`.

Sources: LIBERO (Liu et al., NeurIPS 2023 Datasets & Benchmarks) for the predicates and arenas; the
Hebero paper (spec ``hebero.md``, "Interface") for the 36-dim task code and the 26 entity slots.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from simkit.core.errors import InputError

#: bump when the descriptor layout or its contents change (part of the cache key)
DESCRIPTOR_VERSION = 2

#: suites of Hebero (LIBERO folder names in tasks.json)
SUITES = ("goal", "object", "spatial", "long")

#: task code layout (Hebero "Interface": 6 shared sub-task indicators + 30 task-id bits)
TASK_CODE_DIM = 36
SUBTASKS = ("on", "in", "open", "close", "turnon", "turnoff")
#: task-id bits: [6, 16) index within the suite one-hot, [16, 20) suite one-hot,
#: [20, 25) arena one-hot, [25, 36) reserved (zero)
TASK_INDEX_OFFSET, SUITE_OFFSET, ARENA_OFFSET = 6, 16, 20

#: object-target buffer (Hebero "Interface": 26 entity slots x 9 features)
N_ENTITY_SLOTS = 26
SLOT_FEATURES = 9

#: predicate name (lower case) -> arity; LIBERO's registered predicates plus the connectives
PREDICATE_ARITY: dict[str, int] = {
    "on": 2,
    "in": 2,
    "stack": 2,
    "incontact": 2,
    "up": 1,
    "open": 1,
    "close": 1,
    "turnon": 1,
    "turnoff": 1,
    "printjointstate": 1,
    "true": 0,
    "false": 0,
}
CONNECTIVES = ("and", "or", "not")


@dataclass(frozen=True)
class Arena:
    """Workspace of a LIBERO problem class.

    Attributes:
        problem: BDDL problem name (e.g. ``LIBERO_Tabletop_Manipulation``).
        workspace: the fixture name that stands for the workspace (``main_table``).
        kind: ``table`` (robot mounted beside a table) or ``floor`` (robot on the ground).
        size: table full size (x, y, thickness) in metres; ``None`` for the floor.
        offset: world position (m) of the workspace frame origin = centre of the table top.
        scene_xml: LIBERO's default arena style file (visual reference only).
    """

    problem: str
    workspace: str
    kind: str
    size: tuple[float, float, float] | None
    offset: tuple[float, float, float]
    scene_xml: str


#: LIBERO's problem classes (libero/envs/problems/*.py): table size and offset in metres
ARENAS: dict[str, Arena] = {
    a.problem.lower(): a
    for a in (
        Arena(
            "LIBERO_Tabletop_Manipulation",
            "main_table",
            "table",
            (1.0, 1.2, 0.05),
            (0.0, 0.0, 0.90),
            "scenes/libero_tabletop_base_style.xml",
        ),
        Arena(
            "LIBERO_Kitchen_Tabletop_Manipulation",
            "kitchen_table",
            "table",
            (1.0, 1.2, 0.05),
            (0.0, 0.0, 0.90),
            "scenes/libero_kitchen_tabletop_base_style.xml",
        ),
        Arena(
            "LIBERO_Living_Room_Tabletop_Manipulation",
            "living_room_table",
            "table",
            (0.70, 1.6, 0.024),
            (0.0, 0.0, 0.41),
            "scenes/libero_living_room_tabletop_base_style.xml",
        ),
        Arena(
            "LIBERO_Study_Tabletop_Manipulation",
            "study_table",
            "table",
            (1.0, 1.2, 0.05),
            (-0.2, 0.0, 0.867),
            "scenes/libero_study_base_style.xml",
        ),
        Arena(
            "LIBERO_Coffee_Table_Manipulation",
            "coffee_table",
            "table",
            (0.70, 1.6, 0.024),
            (0.0, 0.0, 0.41),
            "scenes/libero_coffee_table_base_style.xml",
        ),
        Arena(
            "LIBERO_Floor_Manipulation",
            "floor",
            "floor",
            None,
            (0.0, 0.0, 0.0),
            "scenes/libero_floor_base_style.xml",
        ),
    )
}
ARENA_INDEX = {
    k: i
    for i, k in enumerate(
        (
            "libero_tabletop_manipulation",
            "libero_kitchen_tabletop_manipulation",
            "libero_living_room_tabletop_manipulation",
            "libero_study_tabletop_manipulation",
            "libero_floor_manipulation",
        )
    )
}


def descriptor_digest(desc: dict) -> str:
    """sha256 (hex) of a descriptor's content: canonical JSON (sorted keys) of every key but ``content_sha256``.

    :func:`compile_suites` stores it as ``content_sha256``; :func:`load_descriptor`
    recomputes it, so a descriptor edited or truncated after compilation is detected.
    """
    body = {k: v for k, v in desc.items() if k != "content_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


_SCHEMA = None


def _schema():
    """Pydantic model of a stored descriptor (built on first use; keeps this module's import light)."""
    global _SCHEMA
    if _SCHEMA is not None:
        return _SCHEMA
    from typing import Literal

    from pydantic import BaseModel, ConfigDict, Field, model_validator

    class _M(BaseModel):
        model_config = ConfigDict(extra="allow")

    class AssetRef(_M):
        category: str
        asset: str | None
        present: bool | None = None

    class ArenaRef(_M):
        problem: str
        workspace: str
        kind: Literal["table", "floor"]
        size: tuple[float, float, float] | None
        offset: tuple[float, float, float]
        scene_xml: str

    class RegionRef(_M):
        target: str
        kind: Literal["workspace", "site"]
        ranges_local: list[tuple[float, float, float, float]] | None = None
        ranges_world: list[tuple[float, float, float, float]] | None = None
        z_world: float | None = None
        site: str | None = None
        yaw_ranges: list[tuple[float, float]]

        @model_validator(mode="after")
        def _kind_keys(self):
            if self.kind == "workspace" and (not self.ranges_world or self.z_world is None):
                raise ValueError("a workspace region needs 'ranges_world' rows and 'z_world'")
            if self.kind == "site" and not self.site:
                raise ValueError("a site region needs 'site'")
            return self

    class AtomRef(_M):
        predicate: str
        args: list[str]
        thresholds: dict

    class OpRef(_M):
        op: Literal["and", "or", "not"]
        args: list[OpRef | AtomRef] = Field(min_length=1)

    OpRef.model_rebuild()

    class Slot(_M):
        slot: int
        name: str
        kind: Literal["object", "fixture", "region"]

    class Descriptor(_M):
        descriptor_version: int
        task_id: str
        suite: Literal[SUITES]  # type: ignore[valid-type]
        index: int = Field(ge=0, le=9)
        name: str
        instruction: str
        source: str
        source_sha256: str
        arena: ArenaRef
        fixtures: dict[str, AssetRef]
        objects: dict[str, AssetRef]
        regions: dict[str, RegionRef]
        init: list[list[str]]
        goal: OpRef | AtomRef
        obj_of_interest: list[str]
        task_code: list[int] = Field(min_length=TASK_CODE_DIM, max_length=TASK_CODE_DIM)
        entity_slots: list[Slot] = Field(max_length=N_ENTITY_SLOTS)
        warnings: list[str]
        cache_key: str
        content_sha256: str

    _SCHEMA = Descriptor
    return _SCHEMA


def validate_descriptor(desc, path: str | Path | None = None) -> dict:
    """Check a stored descriptor: layout (required keys and types), version, task id, content hash.

    Returns:
        ``desc`` unchanged.

    Raises:
        InputError: naming ``path`` and the first problem (a missing key, a value
            of the wrong type, another descriptor version, a content hash that does
            not match, i.e. the file was edited or damaged after compilation).
    """
    from pydantic import ValidationError

    p = None if path is None else Path(path)
    redo = "; recompile it with `simkit compile hebero`"
    if not isinstance(desc, dict):
        raise InputError(
            p, f"not a hebero task descriptor (a JSON {type(desc).__name__}, expected an object)"
        )
    if desc.get("descriptor_version") != DESCRIPTOR_VERSION:
        raise InputError(
            p, f"descriptor version {desc.get('descriptor_version')!r}, expected {DESCRIPTOR_VERSION}{redo}"
        )
    try:
        _schema().model_validate(desc)
    except ValidationError as exc:
        e = exc.errors()[0]
        loc = ".".join(str(x) for x in e["loc"]) or "(top level)"
        what = f"missing key {loc!r}" if e["type"] == "missing" else f"bad value at {loc!r}: {e['msg']}"
        raise InputError(p, f"invalid hebero task descriptor: {what}{redo}") from None
    if desc["task_id"] != f"{desc['suite']}/{desc['name']}":
        raise InputError(
            p, f"invalid hebero task descriptor: task_id {desc['task_id']!r} does not match suite/name{redo}"
        )
    if descriptor_digest(desc) != desc["content_sha256"]:
        raise InputError(p, f"descriptor content does not match its content_sha256 (edited or damaged){redo}")
    return desc


def load_descriptor(path: str | Path) -> dict:
    """Read and validate a descriptor written by :func:`compile_suites`.

    Raises:
        InputError: naming the file: missing, unreadable, not JSON, or failing
            :func:`validate_descriptor`.
    """
    p = Path(path)
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(p, "descriptor not found") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(p, f"not a JSON descriptor ({exc})") from None
    except OSError as exc:
        raise InputError(p, f"cannot read descriptor: {exc.strerror}") from None
    return validate_descriptor(d, p)
