"""Loader of the OR-Library ``thpack`` files (Bischoff & Ratcliff 1995 instances BR1..BR7).

Format (J. E. Beasley's OR-Library, "thpack1".."thpack7"; Bischoff & Ratcliff, "Issues in the
development of approaches to container loading", Omega 23(4), 1995), whitespace-separated integers::

    P                           number of problems in the file (100)
    p seed                      problem number, generator seed            } P times
    L W H                       container inner size, cm                  }
    n                           number of box types                       }
    type l vl w vw h vh count   n lines: dimensions (cm), each followed    }
                                by its vertical flag (1 = this dimension  }
                                may stand vertically), number of boxes    }

Orientation flags are honoured: a box can be placed with dimension d vertical only when d's flag
is 1; the other two dimensions then form its footprint in either yaw. Each allowed upright is one
variant of the item (:class:`~simkit.scenes.packing.case.Item`).

Errors (each an :class:`~simkit.core.errors.InputError` naming the file and the 1-based line):
a malformed line (wrong number of fields, a non-integer), a zero-size (or negative) box, a box
with no vertical flag set, a box that fits the container in none of its allowed orientations, a
file that ends early or has extra lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.core.errors import InputError
from simkit.scenes.packing.case import EvalCase, Item
from simkit.scenes.packing.geometry import Box, Container

#: the BR grid: the instances are in whole centimetres
BR_RESOLUTION = 0.01
#: box density (kg/m^3) for the physics masses: mass = density x volume (loaded cartons; only mass ratios matter
#: for resting stacks)
BR_DENSITY = 200.0
#: size limits of one problem (simkit's; the published BR1-BR7 reach 587 cm, 30.1 M cells, 476 boxes)
MAX_CONTAINER_SIDE = 2000
MAX_CONTAINER_CELLS = 64_000_000
MAX_BOX_TYPES = 1000
MAX_BOXES = 2000


@dataclass(frozen=True)
class BRBoxType:
    """One box type: dims (l, w, h) cm, vertical flags (vl, vw, vh), count, and the source line number."""

    type: int
    dims: tuple[int, int, int]
    vertical: tuple[bool, bool, bool]
    count: int
    line: int

    def uprights(self) -> list[tuple[int, int, int]]:
        """(footprint a, footprint b, height) for each dimension allowed to stand vertically."""
        out = []
        for d in range(3):
            if self.vertical[d]:
                a, b = [self.dims[i] for i in range(3) if i != d]
                out.append((a, b, self.dims[d]))
        return out


@dataclass(frozen=True)
class BRProblem:
    """One problem: set name (``br1``..), number p, seed, container (L, W, H) cm, box types."""

    set: str
    number: int
    seed: int
    container: tuple[int, int, int]
    types: tuple[BRBoxType, ...]
    path: str
    line: int

    @property
    def n_boxes(self) -> int:
        return sum(t.count for t in self.types)

    @property
    def name(self) -> str:
        return f"{self.set}-{self.number:03d}"

    def to_case(self, buffer_size: int = 5, order: str = "shuffled") -> EvalCase:
        """The problem as an :class:`EvalCase` on a 1 cm grid.

        Args:
            buffer_size: visible buffer (online packing with lookahead).
            order: ``"shuffled"`` (arrival order = a permutation drawn with
                ``numpy.random.default_rng(seed)`` from the problem's own seed; reproducible) or
                ``"file"`` (type by type, as listed).
        """
        L, W, H = self.container
        items: list[Item] = []
        rng_colour = np.random.default_rng(self.seed)
        for t in self.types:
            cr, cg, cb = (float(c) for c in rng_colour.uniform(0.2, 0.9, 3))
            colour = (cr, cg, cb)
            vol_m3 = t.dims[0] * t.dims[1] * t.dims[2] * BR_RESOLUTION**3
            mass = max(BR_DENSITY * vol_m3, 0.1)
            variants_sizes: list[tuple[int, int, int]] = []
            for a, b, h in t.uprights():
                fits = h <= H and ((a <= L and b <= W) or (b <= L and a <= W))
                key = (min(a, b), max(a, b), h)
                if fits and key not in [(min(s[0], s[1]), max(s[0], s[1]), s[2]) for s in variants_sizes]:
                    variants_sizes.append((a, b, h))
            for _ in range(t.count):
                bid = len(items)
                variants = tuple(
                    Box(bid, s, mass, colour, (0,) if s[0] == s[1] else (0, 1)) for s in variants_sizes
                )
                items.append(Item(bid, variants))
        ids = [it.id for it in items]
        if order == "shuffled":
            arrival = [int(i) for i in np.random.default_rng(self.seed).permutation(ids)]
        elif order == "file":
            arrival = ids
        else:
            raise ValueError(f"order must be 'shuffled' or 'file', got {order!r}")
        return EvalCase(
            self.name,
            self.set,
            Container((L, W, H), BR_RESOLUTION),
            items,
            arrival,
            int(buffer_size),
            None,
            {"source": Path(self.path).name, "line": self.line, "seed": self.seed, "order": order},
        )


def _set_name(path: Path) -> str:
    m = re.fullmatch(r"thpack(\d+)", path.stem)
    return f"br{m.group(1)}" if m else path.stem


def load_thpack(path: str | Path) -> list[BRProblem]:
    """Parse one ``thpack`` file (module docstring).

    Returns:
        The problems, in file order.
    Raises:
        InputError: unreadable file or any of the errors listed in the module docstring.
    """
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read BR file ({exc})") from None
    lines = [(i + 1, ln.split()) for i, ln in enumerate(text.splitlines()) if ln.strip()]
    pos = 0

    def take(n_fields: int, what: str) -> tuple[int, list[int]]:
        nonlocal pos
        if pos >= len(lines):
            raise InputError(path, f"file ends early: expected {what}", line=len(text.splitlines()) or 1)
        lineno, toks = lines[pos]
        pos += 1
        if len(toks) != n_fields:
            raise InputError(
                path,
                f"malformed line: expected {n_fields} integers ({what}), got {len(toks)} fields",
                line=lineno,
            )
        try:
            return lineno, [int(t) for t in toks]
        except ValueError:
            bad = next(t for t in toks if not re.fullmatch(r"[+-]?\d+", t))
            raise InputError(
                path, f"malformed line: {bad!r} is not an integer ({what})", line=lineno
            ) from None

    _, (n_problems,) = take(1, "the number of problems")
    if n_problems < 1:
        raise InputError(path, f"number of problems must be positive, got {n_problems}", line=lines[0][0])
    set_name = _set_name(path)
    problems = []
    for _ in range(n_problems):
        head_line, (number, seed) = take(2, "'problem-number seed'")
        cl, (L, W, H) = take(3, "container 'L W H' in cm")
        if min(L, W, H) <= 0:
            raise InputError(path, f"container size must be positive, got {L} x {W} x {H} cm", line=cl)
        if max(L, W, H) > MAX_CONTAINER_SIDE or L * W * H > MAX_CONTAINER_CELLS:
            raise InputError(
                path,
                f"container {L} x {W} x {H} cm is too large (limits: each side <= "
                f"{MAX_CONTAINER_SIDE} cm, L*W*H <= {MAX_CONTAINER_CELLS} cells of 1 cm^3)",
                line=cl,
            )
        tl, (n_types,) = take(1, "the number of box types")
        if n_types < 1:
            raise InputError(path, f"number of box types must be positive, got {n_types}", line=tl)
        if n_types > MAX_BOX_TYPES:
            raise InputError(path, f"{n_types} box types: at most {MAX_BOX_TYPES} per problem", line=tl)
        types = []
        n_boxes = 0
        for _ in range(n_types):
            ln, (ty, l, vl, w, vw, h, vh, count) = take(8, "'type l vl w vw h vh count'")
            if min(l, w, h) <= 0:
                raise InputError(
                    path, f"box type {ty} has a zero or negative size {l} x {w} x {h} cm", line=ln
                )
            if any(f not in (0, 1) for f in (vl, vw, vh)):
                raise InputError(
                    path, f"box type {ty}: vertical flags must be 0 or 1, got {vl} {vw} {vh}", line=ln
                )
            if count < 1:
                raise InputError(path, f"box type {ty}: count must be positive, got {count}", line=ln)
            n_boxes += count
            if n_boxes > MAX_BOXES:
                raise InputError(
                    path,
                    f"box type {ty}: the problem has more than {MAX_BOXES} boxes "
                    f"({n_boxes} so far; limit {MAX_BOXES} per problem)",
                    line=ln,
                )
            bt = BRBoxType(ty, (l, w, h), (bool(vl), bool(vw), bool(vh)), count, ln)
            ups = bt.uprights()
            if not ups:
                raise InputError(
                    path, f"box type {ty}: no dimension may stand vertically (all flags 0)", line=ln
                )
            if not any(hh <= H and ((a <= L and b <= W) or (b <= L and a <= W)) for a, b, hh in ups):
                raise InputError(
                    path,
                    f"box type {ty} ({l} x {w} x {h} cm) is larger than the container "
                    f"({L} x {W} x {H} cm) in every allowed orientation",
                    line=ln,
                )
            types.append(bt)
        problems.append(BRProblem(set_name, number, seed, (L, W, H), tuple(types), str(path), head_line))
    if pos < len(lines):
        raise InputError(path, f"extra content after the {n_problems} problems", line=lines[pos][0])
    return problems
