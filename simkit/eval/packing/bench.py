"""The PackLab-Bench-equivalent case set: 60 fixed layout-first cases (20 per tier) that ship with simkit.

PackLab-Bench (spec ``packing.md``, "Benchmark and metrics") has 60 test cases, 20 per tier,
sampled independently of the training data and checked for no overlap with it. simkit's
equivalent is ``simkit/data/packing/bench_v1.json``, written once by
``tools/make_packing_bench.py`` with :func:`build_bench` and read by
:func:`~simkit.scenes.packing.bench.load_bench` (below the env and the evaluation that both read it).

Seeds disjoint from training. A training episode i of the ``packing`` generator draws from
``SeedSequence([seed, stable_hash("packing"), i(, redraw)])`` (:mod:`simkit.core.seeding`).
Bench case i of tier k draws from ``SeedSequence([BENCH_SEED, stable_hash(BENCH_TAG), k, i])``;
the second entropy word differs (``stable_hash("packlab-bench-v1")`` vs ``stable_hash("packing")``),
so no training seed, whatever master seed or index, reproduces a bench stream. On top of this
seed argument, :func:`overlap_with_corpus` compares case *contents* (container size + multiset
of box sizes, :func:`~simkit.scenes.packing.case.overlap_digest`: also invariant to a 90 degree
turn of the container) with every episode of a training corpus.

Each bench case is kept only when its expert trajectory replays in physics with every placement
valid (the same test the generator applies); a case that fails is replaced by the next index
(the skipped indices are recorded in the file).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import SimkitError
from simkit.core.seeding import stable_hash
from simkit.scenes.packing.bench import load_bench
from simkit.scenes.packing.case import EvalCase, from_packing_case, overlap_digest

#: master seed of the shipped bench (fixed forever for bench_v1)
BENCH_SEED = 20240611
#: seed tag (second entropy word, see the module docstring)
BENCH_TAG = "packlab-bench-v1"
BENCH_TIERS = ("easy", "medium", "hard")
BENCH_PER_TIER = 20


def bench_rng(tier_index: int, i: int, seed: int = BENCH_SEED) -> np.random.Generator:
    """The generator of bench candidate ``i`` of tier number ``tier_index`` (module docstring)."""
    ss = np.random.SeedSequence([int(seed), stable_hash(BENCH_TAG), int(tier_index), int(i)])
    return np.random.Generator(np.random.PCG64(ss))


def build_bench(
    per_tier: int = BENCH_PER_TIER, seed: int = BENCH_SEED, validate: Callable[[EvalCase], bool] | None = None
) -> dict[str, Any]:
    """Compile the bench cases with the layout compiler.

    Args:
        per_tier: cases per tier (20 for the shipped bench).
        seed: master seed (:data:`BENCH_SEED`).
        validate: predicate a case must pass to be kept (default: expert replay valid in physics).
    Returns:
        The JSON-ready bench document (``cases``, ``digests``, ``skipped``, provenance).
    """
    from simkit.scenes.packing.layout import compile_case

    if validate is None:
        validate = expert_replays_valid
    cases: list[dict] = []
    digests: list[str] = []
    skipped: dict[str, list[int]] = {}
    for k, tier in enumerate(BENCH_TIERS):
        i = 0
        kept = 0
        while kept < per_tier:
            pc = compile_case(tier, bench_rng(k, i, seed))
            case = from_packing_case(pc, f"bench-{tier}-{kept:02d}", info={"tier_index": k, "seed_index": i})
            d = case.content_digest()
            if d in digests or not validate(case):
                skipped.setdefault(tier, []).append(i)
            else:
                cases.append(case.to_json())
                digests.append(d)
                kept += 1
            i += 1
    return {
        "name": "simkit PackLab-Bench equivalent",
        "version": 1,
        "seed": seed,
        "seed_tag": BENCH_TAG,
        "compiler": "simkit.scenes.packing.layout.compile_case",
        "per_tier": per_tier,
        "steps": int(sum(len(c["arrival"]) for c in cases)),
        "skipped": skipped,
        "cases": cases,
        "digests": digests,
    }


def expert_replays_valid(case: EvalCase) -> bool:
    """True when every expert placement of ``case`` is valid in :class:`PackingPhysics` (default settings)."""
    from simkit.sims.packing.physics import PackingPhysics

    with PackingPhysics(case.container) as ph:
        items = case.item_by_id
        return all(ph.place(items[p.box_id].box, p).valid for p in case.expert or [])


def _corpus_cases(corpus: str | Path) -> Iterable[tuple[str, dict]]:
    """(episode key, case json) of every stored episode of a ``packing`` corpus (only the ``case`` member is decoded)."""
    from simkit.episodes.reader import iter_corpus

    for sample in iter_corpus(corpus, decode_fields=False):  # one manifest read, shards in index order
        raw = sample.get("case")
        if raw is None:
            raise SimkitError(
                f"{corpus}: episode {sample['__key__']} has no 'case' field (not a packing corpus)"
            )
        yield sample["__key__"], json.loads(raw)


def overlap_with_corpus(corpus: str | Path, bench: list[EvalCase] | None = None) -> dict[str, Any]:
    """Compare a training corpus with the bench: overlap digests (container + box sizes) in common.

    The digest (:func:`~simkit.scenes.packing.case.overlap_digest`) is invariant to box order, to
    each box's footprint rotation and to a 90 degree turn of the container (L <-> W), so an
    episode that poses a bench case turned by 90 degrees is caught as well.

    Args:
        corpus: a ``packing`` corpus directory (episodes carry the ``case`` field).
        bench: the bench cases (default: the shipped bench).
    Returns:
        ``{"episodes": n, "bench_cases": m, "overlaps": [{"episode": key, "bench_case": name}, ...]}``.
    Raises:
        SimkitError: not a corpus, or an episode without a ``case`` field.
    """
    bench = load_bench() if bench is None else bench
    by_digest = {c.overlap_digest(): c.name for c in bench}
    n = 0
    overlaps = []
    for key, case in _corpus_cases(corpus):
        n += 1
        try:
            d = overlap_digest(case["container"]["size"], [b["size"] for b in case["boxes"]])
        except (KeyError, TypeError) as exc:
            raise SimkitError(f"{corpus}: episode {key} has a malformed 'case' field ({exc})") from None
        if d in by_digest:
            overlaps.append({"episode": key, "bench_case": by_digest[d]})
    return {"episodes": n, "bench_cases": len(bench), "overlaps": overlaps}
