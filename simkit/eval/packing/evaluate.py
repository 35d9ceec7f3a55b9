"""Evaluate a policy over a case set (the bench or a BR file) and aggregate the metrics.

Used by ``simkit eval packing`` (:mod:`simkit.commands.packing_eval`). One pybullet client is
opened for the whole run and reset (with the case's container) between cases.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import InputError
from simkit.eval.packing.policies import make_policy
from simkit.scenes.packing.candidates import SupportRule, parse_support
from simkit.scenes.packing.case import EvalCase
from simkit.scenes.packing.metrics import aggregate
from simkit.sims.packing.episode import EpisodeResult, run_episode
from simkit.sims.packing.physics import EVAL_PHYSICS


def load_cases(
    spec: str, limit: int | None = None, buffer: int | None = None, order: str = "shuffled"
) -> tuple[list[EvalCase], str]:
    """Cases named by a ``--cases`` value.

    Args:
        spec: ``bench`` (the shipped bench), ``bench:PATH`` (another bench file) or ``br:PATH``
            (an OR-Library thpack file).
        limit: keep the first ``limit`` cases (per tier for the bench, in file order for BR).
        buffer: override the buffer size (BR default: 5; bench: the tier's).
        order: BR arrival order (``shuffled`` or ``file``).
    Returns:
        (cases, kind) with kind ``"bench"`` or ``"br"``.
    Raises:
        InputError: unknown spec, missing or malformed file.
    """
    if spec == "bench" or spec.startswith("bench:"):
        from simkit.scenes.packing.bench import load_bench

        cases = load_bench(spec[6:] or None if spec.startswith("bench:") else None)
        if limit is not None:
            seen: dict[str, int] = {}
            keep = []
            for c in cases:
                if seen.get(c.tier, 0) < limit:
                    keep.append(c)
                    seen[c.tier] = seen.get(c.tier, 0) + 1
            cases = keep
        if buffer is not None:
            cases = [c.with_buffer(buffer) for c in cases]
        return cases, "bench"
    if spec.startswith("br:"):
        from simkit.eval.packing.br import load_thpack

        path = Path(spec[3:])
        if not path.exists():
            raise InputError(path, "BR file not found")
        problems = load_thpack(path)
        if limit is not None:
            problems = problems[:limit]
        return [p.to_case(buffer if buffer is not None else 5, order) for p in problems], "br"
    raise InputError(None, f"unknown --cases {spec!r}: use 'bench', 'bench:PATH' or 'br:PATH/thpackN.txt'")


def evaluate(
    cases: list[EvalCase],
    policy: str,
    *,
    physics: bool = True,
    physics_kwargs: dict | None = None,
    check: bool = True,
    seed: int = 0,
    on_case: Callable[[EpisodeResult], None] | None = None,
    support: str | SupportRule = "com",
) -> dict[str, Any]:
    """Run ``policy`` closed loop on every case and aggregate.

    Args:
        cases: the cases; policy: a policy name (:func:`make_policy`).
        physics: run pybullet at every step (PackLab's protocol); False = geometry only.
        physics_kwargs: :class:`PackingPhysics` keyword arguments (default :data:`EVAL_PHYSICS`).
        check: run the geometric checker on every result.
        seed: seed of the policies' random generators (``random`` only); case i uses
            ``default_rng([seed, i])``.
        on_case: callback after each case (progress).
        support: the support rule (``com``, ``area:F``, ``full``; :func:`parse_support`) the policy's
            placements must meet and the checker verifies.
    Returns:
        ``{"policy", "support", "cases": [row, ...], "summary": aggregate(rows), "violations": n,
        "seconds": s}``.
    Raises:
        SimkitError: a bad ``support`` value.
    """
    rule = parse_support(support)
    pol = make_policy(policy)
    ph = None
    rows = []
    t0 = time.perf_counter()
    try:
        for i, case in enumerate(cases):
            if physics and ph is None:
                from simkit.sims.packing.physics import PackingPhysics

                ph = PackingPhysics(
                    case.container, **(EVAL_PHYSICS if physics_kwargs is None else physics_kwargs)
                )
            r = run_episode(case, pol, ph, np.random.default_rng([seed, i]), check=check, support=rule)
            rows.append(r.row())
            if on_case is not None:
                on_case(r)
    finally:
        if ph is not None:
            ph.close()
    return {
        "policy": pol.name,
        "support": str(rule),
        "physics": physics,
        "cases": rows,
        "summary": aggregate(rows),
        "violations": int(sum(len(r["violations"]) for r in rows)),
        "invalid_placements": int(sum(r["invalid_placements"] for r in rows)),
        "seconds": round(time.perf_counter() - t0, 3),
    }
