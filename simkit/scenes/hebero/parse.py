"""LIBERO BDDL parser: s-expressions, regions and the syntax-checked :class:`BddlProblem`.

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

:func:`parse_bddl` -> :class:`BddlProblem`: every error is an
:class:`~simkit.core.errors.InputError` naming file:line:column.

Source: LIBERO (Liu et al., NeurIPS 2023 Datasets & Benchmarks) for the dialect, the workspace
offsets of its problem classes and its predicate semantics.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from simkit.core.errors import InputError
from simkit.scenes.hebero.schema import ARENAS, CONNECTIVES, PREDICATE_ARITY, Arena

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
