"""LIBERO BDDL: parser, task descriptor compiler, task code and entity slots.

LIBERO writes its tasks in a PDDL-like dialect of BDDL (Behavior Domain
Definition Language)::

    (define (problem LIBERO_Tabletop_Manipulation)
      (:domain robosuite)
      (:language Open the middle layer of the drawer)
      (:regions (plate_region (:target main_table) (:ranges ((x0 y0 x1 y1))) (:yaw_rotation ((a b)))) ...)
      (:fixtures main_table - table  wooden_cabinet_1 - wooden_cabinet)
      (:objects akita_black_bowl_1 - akita_black_bowl)
      (:obj_of_interest wooden_cabinet_1_middle_region)
      (:init (On akita_black_bowl_1 main_table_akita_black_bowl_region) ...)
      (:goal (And (Open wooden_cabinet_1_middle_region))))

A region named ``r`` with ``(:target t)`` is referred to as ``t_r`` in
``:init``/``:goal`` (LIBERO's naming). Regions whose target is the workspace
(``main_table``, ``kitchen_table``, ``floor``, ...) carry sampling ``:ranges``
``(x_min y_min x_max y_max)`` in metres in the workspace frame and optional
``:yaw_rotation`` ranges ``(yaw_min yaw_max)`` in radians; regions whose
target is a fixture/object name a MuJoCo site of that asset (``cook_region``,
``middle_region``, ...).

Three things come out of this module:

* :func:`parse_bddl` -> :class:`BddlProblem`: a syntax-checked problem; every
  error is an :class:`~simkit.core.errors.InputError` naming file:line:column.
* :func:`compile_task` -> a JSON-able task descriptor (instruction, arena,
  assets, regions in world coordinates, init/goal formulas with thresholds,
  objects of interest, task code, entity slots).
* :func:`compile_suites` writes one descriptor per task, skipping tasks whose
  inputs are unchanged (content hash) and whose stored descriptor still
  validates; :func:`load_descriptor` reads one back and validates it.

Sources: LIBERO (Liu et al., NeurIPS 2023 Datasets & Benchmarks) for the
dialect, the workspace offsets of its problem classes and its predicate
semantics; the Hebero paper (spec ``hebero.md``, "Interface") for the 36-dim
task code and the 26-slot object-target buffer.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from simkit.core.errors import InputError
from simkit.scenes.predicate_thresholds import thresholds_for

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


# --------------------------------------------------------------------------- s-expressions


@dataclass
class Atom:
    """A token with its 1-based source position."""

    text: str
    line: int
    col: int


@dataclass
class SList:
    """A parenthesised list with the position of its ``(``."""

    items: list
    line: int
    col: int

    def head(self) -> str | None:
        return self.items[0].text if self.items and isinstance(self.items[0], Atom) else None


def _tokenize(text: str, path: Path) -> Iterator[tuple[str, int, int]]:
    line, col, i, n = 1, 1, 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line, col, i = line + 1, 1, i + 1
            continue
        if c.isspace():
            col, i = col + 1, i + 1
            continue
        if c == ";":  # comment to end of line
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c in "()":
            yield c, line, col
            col, i = col + 1, i + 1
            continue
        j = i
        while j < n and not text[j].isspace() and text[j] not in "();":
            j += 1
        yield text[i:j], line, col
        col, i = col + (j - i), j


def parse_sexpr(text: str, path: str | Path = "<string>") -> SList:
    """Parse one top-level s-expression.

    Raises:
        InputError: unbalanced parentheses (naming the unclosed ``(`` or the stray
            ``)``), empty input, or text after the top-level expression.
    """
    path = Path(path)
    stack: list[SList] = []
    top: SList | None = None
    first_on_line: set[int] = set()  # ids of lists whose '(' starts its line
    suspect: SList | None = None  # first list left open when a sibling at its indentation began
    last_line = 0
    for tok, line, col in _tokenize(text, path):
        if top is not None:
            raise InputError(path, f"unexpected {tok!r} after the end of the top-level expression", line, col)
        starts_line = line != last_line
        last_line = line
        if tok == "(":
            if starts_line and suspect is None:
                for o in stack[1:]:
                    if id(o) in first_on_line and o.col >= col:
                        suspect = o
                        break
            stack.append(SList([], line, col))
            if starts_line:
                first_on_line.add(id(stack[-1]))
        elif tok == ")":
            if not stack:
                raise InputError(path, "unbalanced parentheses: ')' without a matching '('", line, col)
            done = stack.pop()
            if starts_line and suspect is None and id(done) in first_on_line and col < done.col:
                suspect = done  # a ')' left of its '(' closes an outer list: this one lost its ')'
            if stack:
                stack[-1].items.append(done)
            else:
                top = done
        else:
            if not stack:
                raise InputError(path, f"expected '(' but found {tok!r}", line, col)
            stack[-1].items.append(Atom(tok, line, col))
    if stack:
        o = suspect if suspect is not None else stack[-1]
        raise InputError(path, "unbalanced parentheses: '(' is never closed", o.line, o.col)
    if top is None:
        raise InputError(path, "empty BDDL file (no '(define ...)' found)", 1, 1)
    return top


# --------------------------------------------------------------------------- problem


@dataclass
class Region:
    """One ``:regions`` entry. ``ranges``: list of (x_min, y_min, x_max, y_max) m; ``yaw``: list of (min, max) rad."""

    name: str
    target: str
    ranges: list[tuple[float, float, float, float]] = field(default_factory=list)
    yaw: list[tuple[float, float]] = field(default_factory=list)
    rgba: tuple[float, ...] | None = None
    line: int = 0
    col: int = 0
    target_line: int = 0
    target_col: int = 0

    @property
    def full_name(self) -> str:
        """The name ``:init``/``:goal`` use: ``<target>_<name>``."""
        return f"{self.target}_{self.name}"


@dataclass
class BddlProblem:
    """A parsed LIBERO BDDL problem.

    ``init`` is a list of atoms; ``goal`` a formula. An atom is
    ``["on", "bowl_1", "plate_1"]`` (predicate lower case); a formula is an atom
    or ``["and", f1, f2, ...]`` / ``["or", ...]`` / ``["not", f]``.
    ``warnings`` lists problems that are tolerated (regions on absent fixtures).
    """

    path: str
    problem: str
    domain: str
    language: str
    regions: dict[str, Region]
    fixtures: dict[str, str]
    objects: dict[str, str]
    obj_of_interest: list[str]
    init: list[list]
    goal: list
    warnings: list[str] = field(default_factory=list)
    #: entity name -> (line, column) of its declaration (for compile-time errors)
    where: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def arena(self) -> Arena:
        return ARENAS[self.problem.lower()]


def _num(a, path) -> float:
    if not isinstance(a, Atom):
        raise InputError(path, "expected a number, found a list", a.line, a.col)
    try:
        v = float(a.text)
    except ValueError:
        raise InputError(path, f"expected a number, found {a.text!r}", a.line, a.col) from None
    if not math.isfinite(v):
        raise InputError(path, f"expected a finite number, found {a.text!r}", a.line, a.col)
    return v


def _numbers_rows(node: SList, width: int, path, what: str) -> list[tuple[float, ...]]:
    # (:ranges ( (a b c d) (a b c d) )) -> rows
    if len(node.items) != 2 or not isinstance(node.items[1], SList):
        raise InputError(path, f"{what} expects one list of rows", node.line, node.col)
    rows = []
    for row in node.items[1].items:
        if not isinstance(row, SList):
            raise InputError(
                path, f"{what} rows must be parenthesised lists of {width} numbers", row.line, row.col
            )
        vals = tuple(_num(a, path) for a in row.items)
        if len(vals) != width:
            raise InputError(path, f"{what} row has {len(vals)} numbers, expected {width}", row.line, row.col)
        rows.append(vals)
    return rows


def _typed_list(node: SList, path) -> dict[str, tuple[str, Atom]]:
    """``a b - type c - type2`` -> {name: (type, atom)}."""
    out: dict[str, tuple[str, Atom]] = {}
    pending: list[Atom] = []
    items = node.items[1:]
    i = 0
    while i < len(items):
        a = items[i]
        if not isinstance(a, Atom):
            raise InputError(path, "expected 'name - category', found a list", a.line, a.col)
        if a.text == "-":
            if i + 1 >= len(items) or not isinstance(items[i + 1], Atom) or not pending:
                raise InputError(path, "'-' must sit between names and a category", a.line, a.col)
            cat = items[i + 1].text
            for p in pending:
                if p.text in out:
                    raise InputError(path, f"{p.text!r} is declared twice", p.line, p.col)
                out[p.text] = (cat, p)
            pending = []
            i += 2
            continue
        pending.append(a)
        i += 1
    if pending:
        p = pending[0]
        raise InputError(path, f"{p.text!r} has no category ('name - category')", p.line, p.col)
    return out


def _formula(node, path, names: set[str]) -> list:
    if isinstance(node, Atom):
        raise InputError(
            path, f"expected a parenthesised predicate, found {node.text!r}", node.line, node.col
        )
    head = node.head()
    if head is None:
        raise InputError(path, "empty or malformed formula", node.line, node.col)
    h = head.lower()
    if h in CONNECTIVES:
        args = [_formula(x, path, names) for x in node.items[1:]]
        if h == "not" and len(args) != 1:
            raise InputError(path, f"Not takes one formula, found {len(args)}", node.line, node.col)
        if h != "not" and not args:
            raise InputError(path, f"{head} needs at least one formula", node.line, node.col)
        return [h, *args]
    if h not in PREDICATE_ARITY:
        raise InputError(
            path,
            f"unknown predicate {head!r} (known: {', '.join(sorted(PREDICATE_ARITY))}, And, Or, Not)",
            node.items[0].line,
            node.items[0].col,
        )
    args = node.items[1:]
    if len(args) != PREDICATE_ARITY[h]:
        raise InputError(
            path, f"{head} takes {PREDICATE_ARITY[h]} argument(s), found {len(args)}", node.line, node.col
        )
    out = [h]
    for a in args:
        if not isinstance(a, Atom):
            raise InputError(path, f"{head} arguments must be names, found a list", a.line, a.col)
        if a.text not in names:
            raise InputError(
                path,
                f"{head} refers to {a.text!r}, which is no declared object, fixture or region",
                a.line,
                a.col,
            )
        out.append(a.text)
    return out


def _sections(top: SList, path: Path) -> tuple[dict[str, SList], Atom | None]:
    """The ``(:section ...)`` lists of a ``(define ...)`` form by head, and the ``(problem NAME)`` atom."""
    if top.head() != "define":
        raise InputError(path, "a BDDL file starts with '(define (problem NAME) ...)'", top.line, top.col)
    sections: dict[str, SList] = {}
    problem = None
    for item in top.items[1:]:
        if not isinstance(item, SList) or item.head() is None:
            raise InputError(path, "expected a '(:section ...)'", item.line, item.col)
        h = item.head()
        if h == "problem":
            if len(item.items) != 2 or not isinstance(item.items[1], Atom):
                raise InputError(path, "'(problem NAME)' takes one name", item.line, item.col)
            problem = item.items[1]
            continue
        if h not in (
            ":domain",
            ":language",
            ":regions",
            ":fixtures",
            ":objects",
            ":obj_of_interest",
            ":init",
            ":goal",
            ":requirements",
        ):
            raise InputError(path, f"unknown section {h!r}", item.line, item.col)
        if h in sections:
            raise InputError(path, f"section {h} appears twice", item.line, item.col)
        sections[h] = item
    return sections, problem


def _regions(
    sections: dict[str, SList], path: Path, arena: Arena, entities: set[str], warnings: list[str]
) -> dict[str, Region]:
    """Parse ``:regions`` (see :func:`parse_bddl`); site regions on undeclared assets are warned about and dropped."""
    regions: dict[str, Region] = {}
    for rnode in sections[":regions"].items[1:] if ":regions" in sections else []:
        if not isinstance(rnode, SList) or not rnode.items or not isinstance(rnode.items[0], Atom):
            raise InputError(path, "a region is '(name (:target t) ...)'", rnode.line, rnode.col)
        reg = Region(rnode.items[0].text, "", line=rnode.line, col=rnode.col)
        for sub in rnode.items[1:]:
            if not isinstance(sub, SList) or sub.head() is None:
                raise InputError(path, "expected '(:key ...)' in a region", sub.line, sub.col)
            key = sub.head()
            if key == ":target":
                if len(sub.items) != 2 or not isinstance(sub.items[1], Atom):
                    raise InputError(path, ":target takes one name", sub.line, sub.col)
                reg.target, reg.target_line, reg.target_col = (
                    sub.items[1].text,
                    sub.items[1].line,
                    sub.items[1].col,
                )
            elif key == ":ranges":
                reg.ranges = _numbers_rows(sub, 4, path, ":ranges")  # type: ignore[assignment]
                for r, row in zip(reg.ranges, sub.items[1].items):
                    if r[2] < r[0] or r[3] < r[1]:
                        raise InputError(
                            path,
                            f":ranges row {r} must be (x_min y_min x_max y_max) with min <= max",
                            row.line,
                            row.col,
                        )
            elif key == ":yaw_rotation":
                reg.yaw = _numbers_rows(sub, 2, path, ":yaw_rotation")  # type: ignore[assignment]
            elif key == ":rgba":
                reg.rgba = tuple(_num(a, path) for a in sub.items[1:])
            else:
                raise InputError(path, f"unknown region key {key!r}", sub.line, sub.col)
        if not reg.target:
            raise InputError(path, f"region {reg.name!r} has no (:target ...)", rnode.line, rnode.col)
        if reg.target != arena.workspace and reg.target not in entities:
            if reg.ranges:
                raise InputError(
                    path,
                    f"region {reg.name!r} targets {reg.target!r}, which is neither the "
                    f"workspace {arena.workspace!r} nor a declared fixture or object",
                    reg.target_line,
                    reg.target_col,
                )
            # a site region on an asset the task does not use (LIBERO ignores these too)
            warnings.append(
                f"{path}:{reg.target_line}:{reg.target_col}: region {reg.name!r} targets "
                f"{reg.target!r}, which is not declared; region ignored"
            )
            continue
        if reg.full_name in regions:
            raise InputError(path, f"region {reg.full_name!r} is defined twice", rnode.line, rnode.col)
        regions[reg.full_name] = reg

    return regions


def parse_bddl(path: str | Path, text: str | None = None) -> BddlProblem:
    """Parse a LIBERO BDDL file.

    Args:
        path: the file (read unless ``text`` is given; used in messages).
        text: optional file contents.

    Returns:
        :class:`BddlProblem`.

    Raises:
        InputError: with file:line:column for unbalanced parentheses, unknown
            sections or predicates, wrong arities, names that are not declared,
            ranges that are not 4 numbers with min <= max, a region with
            ``:ranges`` on a target that is neither the workspace nor a declared
            fixture/object, a non-UTF-8 or unreadable file.
    """
    path = Path(path)
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(path, "file not found") from None
        except UnicodeDecodeError as exc:
            raise InputError(path, f"not a UTF-8 text file ({exc.reason})") from None
        except OSError as exc:
            raise InputError(path, f"cannot read file: {exc.strerror}") from None
    top = parse_sexpr(text, path)
    sections, problem = _sections(top, path)
    if problem is None:
        raise InputError(path, "missing '(problem NAME)'", top.line, top.col)
    if problem.text.lower() not in ARENAS:
        raise InputError(
            path,
            f"unknown problem class {problem.text!r} (known: "
            f"{', '.join(a.problem for a in ARENAS.values())})",
            problem.line,
            problem.col,
        )
    for need in (":language", ":fixtures", ":objects", ":goal"):
        if need not in sections:
            raise InputError(path, f"missing section {need}", top.line, top.col)
    arena = ARENAS[problem.text.lower()]
    domain = (
        sections[":domain"].items[1].text
        if ":domain" in sections and len(sections[":domain"].items) > 1
        else ""
    )
    lang_items = sections[":language"].items[1:]
    if not lang_items or not all(isinstance(a, Atom) for a in lang_items):
        s = sections[":language"]
        raise InputError(path, ":language must hold the instruction words", s.line, s.col)
    language = " ".join(a.text for a in lang_items)

    fixtures_t = _typed_list(sections[":fixtures"], path)
    objects_t = _typed_list(sections[":objects"], path)
    for name, (_, a) in objects_t.items():
        if name in fixtures_t:
            raise InputError(path, f"{name!r} is declared as both fixture and object", a.line, a.col)
    fixtures = {k: v[0] for k, v in fixtures_t.items()}
    where = {k: (v[1].line, v[1].col) for k, v in {**fixtures_t, **objects_t}.items()}
    objects = {k: v[0] for k, v in objects_t.items()}
    entities = set(fixtures) | set(objects)

    warnings: list[str] = []
    regions = _regions(sections, path, arena, entities, warnings)
    names = entities | set(regions)
    ooi = []
    for a in sections[":obj_of_interest"].items[1:] if ":obj_of_interest" in sections else []:
        if not isinstance(a, Atom) or a.text not in names:
            what = a.text if isinstance(a, Atom) else "a list"
            raise InputError(path, f":obj_of_interest names {what!r}, which is not declared", a.line, a.col)
        ooi.append(a.text)
    init = [_formula(x, path, names) for x in (sections[":init"].items[1:] if ":init" in sections else [])]
    goal_items = sections[":goal"].items[1:]
    if len(goal_items) != 1:
        g = sections[":goal"]
        raise InputError(path, f":goal holds one formula (use And), found {len(goal_items)}", g.line, g.col)
    goal = _formula(goal_items[0], path, names)
    return BddlProblem(
        str(path),
        problem.text,
        domain,
        language,
        regions,
        fixtures,
        objects,
        ooi,
        init,
        goal,
        warnings,
        where,
    )


# --------------------------------------------------------------------------- descriptor


#: the task-id table shipped with simkit (suite order, category -> asset path)
TASKS_JSON = Path(__file__).resolve().parent.parent / "data" / "hebero" / "tasks.json"


def _table() -> dict:
    return json.loads(TASKS_JSON.read_text())


def task_table() -> dict:
    """The Hebero task table: ``{"suites": {suite: {"libero_dir", "tasks": [10 names]}}, "assets": {category: path}}``.

    Task order inside each suite follows LIBERO's benchmark task map; the asset
    paths are relative to a LIBERO ``assets/`` folder.
    """
    return _table()


def atoms(formula: list) -> Iterator[list]:
    """Yield the predicate atoms of a formula (depth first)."""
    if formula and formula[0] in CONNECTIVES:
        for f in formula[1:]:
            yield from atoms(f)
    else:
        yield formula


def task_code(suite: str, index: int, problem: BddlProblem) -> list[int]:
    """The 36-dim multi-hot task code z_k (Hebero "Interface").

    Layout: ``z[0:6]`` shared sub-task indicators, one per goal predicate family
    present in the goal (``on, in, open, close, turnon, turnoff``, in that order);
    ``z[6 + index]`` index within the suite (10 bits); ``z[16 + s]`` suite
    (goal, object, spatial, long); ``z[20 + a]`` arena (tabletop, kitchen,
    living room, study, floor); ``z[25:36]`` reserved, zero. (suite, index) is
    unique per task, so the code identifies the task.

    Returns:
        list of 36 ints in {0, 1}.
    """
    z = [0] * TASK_CODE_DIM
    preds = {a[0] for a in atoms(problem.goal)}
    for i, s in enumerate(SUBTASKS):
        if s in preds:
            z[i] = 1
    if not 0 <= index < 10:
        raise ValueError(f"task index {index} outside 0..9")
    z[TASK_INDEX_OFFSET + index] = 1
    z[SUITE_OFFSET + SUITES.index(suite)] = 1
    z[ARENA_OFFSET + ARENA_INDEX.get(problem.problem.lower(), 0)] = 1
    return z


def entity_slots(problem: BddlProblem) -> list[dict]:
    """Assign task entities to the 26 slots of the object-target buffer.

    Order: movable objects (declaration order), then fixtures other than the
    workspace, then regions named in the goal (targets of On/In/Open/...).
    Each slot later holds 9 features (position 3 + 6D rotation, Hebero
    "Interface"); unused slots stay zero.

    Returns:
        list of ``{"slot", "name", "kind"}`` with kind in object|fixture|region.

    Raises:
        ValueError: more than 26 entities.
    """
    ws = problem.arena.workspace
    names = [(n, "object") for n in problem.objects]
    names += [(n, "fixture") for n in problem.fixtures if n != ws]
    seen = {n for n, _ in names}
    for a in atoms(problem.goal):
        for arg in a[1:]:
            if arg in problem.regions and arg not in seen:
                names.append((arg, "region"))
                seen.add(arg)
    if len(names) > N_ENTITY_SLOTS:
        raise ValueError(f"{problem.path}: {len(names)} entities exceed the {N_ENTITY_SLOTS} buffer slots")
    return [{"slot": i, "name": n, "kind": k} for i, (n, k) in enumerate(names)]


def _thresholds(atom: list, problem: BddlProblem) -> dict:
    cats = {**problem.fixtures, **problem.objects}
    args = atom[1:]
    # a region argument inherits the category of the asset it belongs to
    arg_cats = []
    for a in args:
        if a in problem.regions:
            arg_cats.append(cats.get(problem.regions[a].target, problem.arena.workspace))
        else:
            arg_cats.append(cats.get(a, ""))
    return thresholds_for(atom[0], args, arg_cats, [a in problem.regions for a in args])


def _formula_json(f: list, problem: BddlProblem) -> dict:
    if f[0] in CONNECTIVES:
        return {"op": f[0], "args": [_formula_json(x, problem) for x in f[1:]]}
    return {"predicate": f[0], "args": list(f[1:]), "thresholds": _thresholds(f, problem)}


def _asset(
    name: str, category: str, libero_root: Path | None, assets: dict[str, str], prob: BddlProblem
) -> dict:
    rel = assets.get(category)
    if rel is None:
        line, col = prob.where.get(name, (None, None))
        raise InputError(
            prob.path,
            f"{name!r}: category {category!r} has no asset in simkit's task table (simkit/data/hebero/tasks.json)",
            line,
            col,
        )
    out: dict[str, str | bool] = {"category": category, "asset": f"assets/{rel}"}
    if libero_root is not None:
        out["present"] = (libero_root / "assets" / rel).is_file()
    return out


def compile_task(path: str | Path, suite: str, index: int, libero_root: str | Path | None = None) -> dict:
    """Compile one BDDL file into a Hebero task descriptor (a JSON-able dict).

    Coordinates: world frame, z up, metres; the workspace frame is the world
    frame shifted by the arena offset (centre of the table top), so
    ``world = local + offset`` for region ranges. Yaw in radians about +z.

    Keys: ``task_id`` ("suite/name"), ``suite``, ``index``, ``name``,
    ``instruction``, ``arena`` (problem, workspace, kind, size, offset,
    scene_xml), ``fixtures``/``objects`` (name -> category, asset path relative
    to the LIBERO root, ``present``), ``regions`` (name -> target, kind
    ``workspace``|``site``, ``ranges_local``/``ranges_world`` rows
    (x_min, y_min, x_max, y_max), ``z_world`` of the support surface for
    workspace regions, ``yaw_ranges``), ``init`` (list of atoms), ``goal``
    (formula with thresholds), ``obj_of_interest``, ``task_code`` (36 ints),
    ``entity_slots``, ``warnings``, ``source_sha256``, ``descriptor_version``.

    Raises:
        InputError: from :func:`parse_bddl`; a fixture or object whose category has no asset in
            the task table (at the declaration's line:column).
    """
    path = Path(path)
    raw = path.read_bytes() if path.is_file() else None
    if raw is None:
        raise InputError(path, "file not found")
    prob = parse_bddl(path)
    arena = prob.arena
    root = None if libero_root is None else Path(libero_root)
    table = _table()
    assets = table["assets"]
    ox, oy, oz = arena.offset
    regions = {}
    for name, r in prob.regions.items():
        if r.target == arena.workspace:
            regions[name] = {
                "target": r.target,
                "kind": "workspace",
                "ranges_local": [list(x) for x in r.ranges],
                "ranges_world": [[x[0] + ox, x[1] + oy, x[2] + ox, x[3] + oy] for x in r.ranges],
                "z_world": oz,
                "yaw_ranges": [list(y) for y in r.yaw],
            }
        else:
            regions[name] = {
                "target": r.target,
                "kind": "site",
                "site": r.name,
                "yaw_ranges": [list(y) for y in r.yaw],
            }
    name = path.stem
    return {
        "descriptor_version": DESCRIPTOR_VERSION,
        "task_id": f"{suite}/{name}",
        "suite": suite,
        "index": index,
        "name": name,
        "instruction": prob.language,
        "source": path.name,
        "source_sha256": hashlib.sha256(raw).hexdigest(),
        "arena": {
            "problem": arena.problem,
            "workspace": arena.workspace,
            "kind": arena.kind,
            "size": None if arena.size is None else list(arena.size),
            "offset": list(arena.offset),
            "scene_xml": f"assets/{arena.scene_xml}",
        },
        "fixtures": {
            n: _asset(n, c, root, assets, prob) for n, c in prob.fixtures.items() if n != arena.workspace
        },
        "objects": {n: _asset(n, c, root, assets, prob) for n, c in prob.objects.items()},
        "regions": regions,
        "init": [list(a) for a in prob.init],
        "goal": _formula_json(prob.goal, prob),
        "obj_of_interest": prob.obj_of_interest,
        "task_code": task_code(suite, index, prob),
        "entity_slots": entity_slots(prob),
        "warnings": prob.warnings,
    }


def _cache_key(bddl: Path, presence: str) -> str:
    h = hashlib.sha256()
    h.update(f"v{DESCRIPTOR_VERSION}\n".encode())
    h.update(bddl.read_bytes())
    h.update(TASKS_JSON.read_bytes())
    h.update(presence.encode())
    return h.hexdigest()


def _asset_presence(libero_root: Path | None) -> str:
    """Which of the task table's asset files exist under ROOT (descriptors record it as ``present``)."""
    if libero_root is None:
        return ""
    assets = _table()["assets"]
    return "".join(
        "1" if (libero_root / "assets" / rel).is_file() else "0" for _, rel in sorted(assets.items())
    )


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


@dataclass
class CompileReport:
    """What :func:`compile_suites` did.

    ``written``/``cached``: descriptor paths; ``errors``: one line per failed
    task (``FILE[:LINE:COL]: reason``); ``removed``: stale descriptors deleted
    because their task failed; ``warnings``; ``index``: task id -> path
    relative to OUT, as written to ``OUT/index.json``.
    """

    written: list[Path] = field(default_factory=list)
    cached: list[Path] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    index: dict[str, str] = field(default_factory=dict)


#: simkit's copy of the 40 Hebero BDDL files (``bddl_files/<libero_dir>/<task>.bddl``), read out of
#: LIBERO's PyPI source archive by ``tools/bundle_libero_bddl.py``; ``bddl_files/SOURCE.json`` records
#: the archive's and every file's sha256, ``bddl_files/LICENSE`` LIBERO's MIT license
BUNDLED_ROOT = TASKS_JSON.parent


def bddl_root(libero_root: str | Path | None) -> Path:
    """Folder holding ``bddl_files/``: ``libero_root`` when given, else simkit's bundled copy."""
    return BUNDLED_ROOT if libero_root is None else Path(libero_root)


def suite_files(libero_root: str | Path | None, suite: str) -> list[tuple[int, Path]]:
    """(index, BDDL path) of a Hebero suite's ten tasks under ``ROOT/bddl_files`` (ROOT None: the bundled
    copy); missing files raise InputError."""
    out = []
    for i, t, p in _suite_paths(bddl_root(libero_root), suite):
        if not p.is_file():
            raise InputError(p, f"BDDL file of task {suite}/{t} not found under --libero-root")
        out.append((i, p))
    return out


def _suite_paths(root: Path, suite: str) -> list[tuple[int, str, Path]]:
    table = _table()["suites"][suite]
    d = root / "bddl_files" / table["libero_dir"]
    return [(i, t, d / f"{t}.bddl") for i, t in enumerate(table["tasks"])]


def compile_suites(
    libero_root: str | Path | None,
    out_dir: str | Path,
    suites: list[str] | tuple[str, ...] = SUITES,
    force: bool = False,
    assets_root: str | Path | None = None,
) -> CompileReport:
    """Compile the given suites to ``OUT/<suite>/<task>.json`` and rebuild ``OUT/index.json``.

    A descriptor is reused (a cache hit) only when it loads and passes
    :func:`validate_descriptor` (layout, version, content hash) and its
    ``cache_key`` (sha256 of the BDDL bytes, the task table, which table assets
    exist under ROOT and :data:`DESCRIPTOR_VERSION`) equals the current one;
    otherwise, or with ``force``, it is recompiled. Every task is tried: a
    missing, unreadable or malformed BDDL file adds one line to ``errors``
    and its stale descriptor, if any, is deleted (listed in ``removed``).

    ``index.json`` lists every valid descriptor under ``OUT/<suite>/`` for all
    suites, not only those compiled in this call (task id -> relative path);
    invalid descriptors found there are left out with a warning.

    ``libero_root`` None reads simkit's bundled BDDL files (:data:`BUNDLED_ROOT`) and checks asset
    presence under ``assets_root`` (a folder holding ``assets/``, e.g. the installed LIBERO asset
    tree); a given ``libero_root`` serves both.

    Raises:
        InputError: ROOT has no ``bddl_files`` folder.
    """
    root, out = bddl_root(libero_root), Path(out_dir)
    asset_root = Path(assets_root) if assets_root is not None else (None if libero_root is None else root)
    if not (root / "bddl_files").is_dir():
        raise InputError(
            root,
            "not a LIBERO root: no bddl_files/ folder (point --libero-root at the folder "
            "holding bddl_files/ and assets/)",
        )
    rep = CompileReport()
    presence = _asset_presence(asset_root)

    def fail(msg: str, dst: Path) -> None:
        if dst.is_file():
            dst.unlink()
            rep.removed.append(dst)
            msg += f" (stale descriptor {dst} removed)"
        rep.errors.append(msg)

    for suite in suites:
        for i, t, p in _suite_paths(root, suite):
            dst = out / suite / f"{t}.json"
            if not p.is_file():
                fail(str(InputError(p, f"BDDL file of task {suite}/{t} not found under --libero-root")), dst)
                continue
            try:
                key = _cache_key(p, presence)
            except OSError as exc:
                fail(str(InputError(p, f"cannot read file: {exc.strerror}")), dst)
                continue
            if not force and dst.is_file():
                try:
                    old = load_descriptor(dst)
                except InputError:
                    old = None
                if old is not None and old["cache_key"] == key and old["task_id"] == f"{suite}/{t}":
                    rep.cached.append(dst)
                    rep.warnings += old["warnings"]
                    continue
            try:
                desc = compile_task(p, suite, i, asset_root)
            except (InputError, ValueError) as exc:
                fail(str(exc), dst)
                continue
            desc["cache_key"] = key
            desc["content_sha256"] = descriptor_digest(desc)
            dst.parent.mkdir(parents=True, exist_ok=True)
            tmp = dst.with_suffix(".json.tmp")
            tmp.write_text(json.dumps(desc, indent=1))
            tmp.replace(dst)
            rep.written.append(dst)
            rep.warnings += desc["warnings"]

    for suite in SUITES:
        for f in sorted((out / suite).glob("*.json")):
            try:
                d = load_descriptor(f)
            except InputError as exc:
                rep.warnings.append(f"{exc}; not listed in index.json")
                continue
            if d["task_id"] != f"{suite}/{f.stem}":
                rep.warnings.append(
                    f"{f}: holds task {d['task_id']!r}, not {suite}/{f.stem}; not listed in index.json"
                )
                continue
            rep.index[d["task_id"]] = f"{suite}/{f.name}"
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "index.json.tmp"
    tmp.write_text(json.dumps(dict(sorted(rep.index.items())), indent=1))
    tmp.replace(out / "index.json")
    return rep
