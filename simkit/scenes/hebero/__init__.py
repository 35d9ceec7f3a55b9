"""Hebero (LIBERO) scene compiler: BDDL parser, task-descriptor compiler, schema and cache.

Four modules, one direction (each imports only those before it):

* :mod:`~simkit.scenes.hebero.schema`: the task vocabulary (suites, predicate arity, arenas,
  task-code and entity-slot sizes) and the stored descriptor's schema
  (:func:`validate_descriptor`, :func:`load_descriptor`, :func:`descriptor_digest`).
* :mod:`~simkit.scenes.hebero.parse`: :func:`parse_bddl` -> :class:`BddlProblem`, a
  syntax-checked problem; every error is an :class:`~simkit.core.errors.InputError` naming
  file:line:column.
* :mod:`~simkit.scenes.hebero.compile`: :func:`compile_task` -> a JSON-able task descriptor
  (instruction, arena, assets, regions in world coordinates, init/goal formulas with thresholds,
  objects of interest, task code, entity slots).
* :mod:`~simkit.scenes.hebero.cache`: :func:`compile_suites` writes one descriptor per task,
  skipping tasks whose inputs are unchanged (content hash) and whose stored descriptor still
  validates.

:mod:`~simkit.scenes.hebero.predicate_thresholds` holds the per-predicate thresholds the compiler
writes into the descriptors. The names below are re-exported for ``from simkit.scenes.hebero import ...``.

Sources: LIBERO (Liu et al., NeurIPS 2023 Datasets & Benchmarks) for the dialect, the workspace
offsets of its problem classes and its predicate semantics; the Hebero paper (spec ``hebero.md``,
"Interface") for the 36-dim task code and the 26-slot object-target buffer.
"""

from simkit.scenes.hebero.cache import BUNDLED_ROOT, CompileReport, bddl_root, compile_suites, suite_files
from simkit.scenes.hebero.compile import TASKS_JSON, atoms, compile_task, entity_slots, task_code, task_table
from simkit.scenes.hebero.parse import Atom, BddlProblem, Region, SList, parse_bddl, parse_sexpr
from simkit.scenes.hebero.schema import (
    ARENAS,
    CONNECTIVES,
    DESCRIPTOR_VERSION,
    N_ENTITY_SLOTS,
    PREDICATE_ARITY,
    SLOT_FEATURES,
    SUBTASKS,
    SUITES,
    TASK_CODE_DIM,
    Arena,
    descriptor_digest,
    load_descriptor,
    validate_descriptor,
)

__all__ = [
    "ARENAS",
    "BUNDLED_ROOT",
    "CONNECTIVES",
    "DESCRIPTOR_VERSION",
    "N_ENTITY_SLOTS",
    "PREDICATE_ARITY",
    "SLOT_FEATURES",
    "SUBTASKS",
    "SUITES",
    "TASKS_JSON",
    "TASK_CODE_DIM",
    "Arena",
    "Atom",
    "BddlProblem",
    "CompileReport",
    "Region",
    "SList",
    "atoms",
    "bddl_root",
    "compile_suites",
    "compile_task",
    "descriptor_digest",
    "entity_slots",
    "load_descriptor",
    "parse_bddl",
    "parse_sexpr",
    "suite_files",
    "task_code",
    "task_table",
    "validate_descriptor",
]
