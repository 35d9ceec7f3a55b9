"""Which tasks an env runs: suite names or explicit task ids -> compiled descriptors and scenes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from simkit.core.errors import InputError
from simkit.scenes.hebero import SUITES, compile_task, suite_files, task_table

SUITE_CHOICES = (*SUITES, "all")


def task_ids(suite: str | None = None, tasks: Sequence[str] | None = None) -> list[str]:
    """Task ids ``<suite>/<name>`` in Hebero order (suites goal, object, spatial, long; LIBERO order inside).

    Args:
        suite: goal | object | spatial | long | all (used when ``tasks`` is None).
        tasks: explicit ids ``<suite>/<name>`` or bare task names.

    Raises:
        InputError: an unknown suite or task (one line naming it).
    """
    table = task_table()["suites"]
    every = [f"{s}/{t}" for s in SUITES for t in table[s]["tasks"]]
    if tasks is None:
        s = suite or "all"
        if s not in SUITE_CHOICES:
            raise InputError(None, f"suite must be one of {', '.join(SUITE_CHOICES)}, not {s!r}")
        return every if s == "all" else [t for t in every if t.startswith(f"{s}/")]
    out = []
    for t in tasks:
        hit = [x for x in every if x == t or x.split("/", 1)[1] == t]
        if not hit:
            raise InputError(None, f"unknown task {t!r} (task ids look like 'goal/turn_on_the_stove')")
        out.append(hit[0])
    if not out:
        raise InputError(None, "the task list is empty")
    return out


def descriptors(ids: Sequence[str], libero_root: str | Path | None = None) -> list[dict]:
    """Compile the descriptors of ``ids`` (BDDL from ``libero_root/bddl_files`` or simkit's bundled copy)."""
    out = []
    for tid in ids:
        suite, name = tid.split("/", 1)
        for i, p in suite_files(libero_root, suite):
            if p.stem == name:
                out.append(compile_task(p, suite, i, libero_root))
                break
    return out
