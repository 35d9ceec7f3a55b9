"""Hebero task-descriptor compiler: a parsed BDDL problem -> a JSON-able task descriptor.

:func:`compile_task` gives the instruction, arena, assets, regions in world coordinates, init/goal
formulas with thresholds, objects of interest, the 36-dim task code and the 26 entity slots
(Hebero paper, spec ``hebero.md``, "Interface"); :func:`task_table` is the shipped task-id table.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

from simkit.core.errors import InputError
from simkit.scenes.hebero.parse import BddlProblem, parse_bddl
from simkit.scenes.hebero.predicate_thresholds import thresholds_for
from simkit.scenes.hebero.schema import (
    ARENA_INDEX,
    ARENA_OFFSET,
    CONNECTIVES,
    DESCRIPTOR_VERSION,
    N_ENTITY_SLOTS,
    SUBTASKS,
    SUITE_OFFSET,
    SUITES,
    TASK_CODE_DIM,
    TASK_INDEX_OFFSET,
)

# --------------------------------------------------------------------------- descriptor


#: the task-id table shipped with simkit (suite order, category -> asset path)
TASKS_JSON = Path(__file__).resolve().parents[2] / "data" / "hebero" / "tasks.json"


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
