"""The shipped PackLab-Bench-equivalent cases, the overlap check and the ``simkit eval`` commands."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from simkit.cli import app
from simkit.core.seeding import episode_rng
from simkit.eval.packing.bench import BENCH_SEED, bench_rng, overlap_with_corpus
from simkit.eval.packing.policies import make_policy
from simkit.scenes.packing.bench import bench_path, load_bench
from simkit.scenes.packing.case import from_packing_case
from simkit.scenes.packing.layout import TIERS, compile_case
from simkit.sims.packing.episode import run_episode

runner = CliRunner()


@pytest.fixture(scope="module")
def bench():
    return load_bench()


def test_bench_has_20_cases_per_tier_within_the_tier_ranges(bench):
    assert len(bench) == 60
    for tier, spec in TIERS.items():
        cases = [c for c in bench if c.tier == tier]
        assert len(cases) == 20
        for c in cases:
            assert c.buffer_size == spec.buffer_size
            assert spec.objects[0] <= len(c.items) <= spec.objects[1]
            assert spec.length[0] <= c.container.size[0] <= spec.length[1]
            assert c.container.resolution == 0.025
            # layout-first: the boxes fill the container exactly
            L, W, H = c.container.size
            assert c.total_volume == L * W * H
    digests = [c.content_digest() for c in bench]
    assert len(set(digests)) == 60
    assert json.loads(bench_path().read_text())["digests"] == digests


def test_bench_cases_are_reproducible_from_their_seeds(bench):
    # the first case of each tier is recompiled from (BENCH_SEED, BENCH_TAG, tier index, seed index)
    for k, tier in enumerate(("easy", "medium", "hard")):
        c = next(x for x in bench if x.tier == tier)
        pc = compile_case(tier, bench_rng(k, c.info["seed_index"]))
        fresh = from_packing_case(pc, c.name, info=c.info)
        assert fresh.to_json() == c.to_json()


def test_bench_seed_stream_is_disjoint_from_training_seeds(bench):
    # training: SeedSequence([seed, stable_hash("packing"), i(, redraw)]); bench: [.., stable_hash(BENCH_TAG), k, i]
    # with the same seed, bench candidate (k, i) would be training episode k's redraw i if the tags collided:
    # no bench case's stream may start like any such training stream
    top = max(int(c.info["seed_index"]) for c in bench) + 1
    streams = {bench_rng(k, i).bit_generator.random_raw() for k in range(len(TIERS)) for i in range(top)}
    training = {
        episode_rng(BENCH_SEED, "packing", k, r).bit_generator.random_raw()
        for k in range(len(TIERS))
        for r in range(top)
    }
    assert len(streams) == len(TIERS) * top and streams.isdisjoint(training)


def test_expert_replays_every_bench_case_to_full_success(bench):
    # geometry only for all 60 (fast); physics is covered by the bench build and the next test
    for c in bench:
        r = run_episode(c, make_policy("expert"), None)
        assert r.metrics.overall == 1.0 and r.discarded == 0, c.name


@pytest.mark.slow
def test_expert_with_physics_on_one_case_per_tier(bench):
    from simkit.sims.packing.physics import EVAL_PHYSICS, PackingPhysics

    ph = PackingPhysics(bench[0].container, **EVAL_PHYSICS)
    try:
        for tier in ("easy", "medium", "hard"):
            c = next(x for x in bench if x.tier == tier)
            r = run_episode(c, make_policy("expert"), ph)
            assert r.invalid_placements == 0 and r.violations == []
            assert r.metrics.success_ratio == 1.0 and r.metrics.overall == pytest.approx(1.0)
    finally:
        ph.close()


def test_overlap_check_on_a_generated_corpus(tmp_path, bench):
    out = tmp_path / "corpus"
    res = runner.invoke(app, ["generate", "packing", "--n", "3", "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    rep = overlap_with_corpus(out, bench)
    assert rep["episodes"] == 3 and rep["bench_cases"] == 60 and rep["overlaps"] == []
    res = runner.invoke(app, ["eval", "packing-overlap", str(out)])
    assert res.exit_code == 0 and "PASS" in res.output and "0 overlaps" in res.output
    # a bench that contains one of the corpus' cases is caught
    from simkit.episodes.reader import iter_corpus
    from simkit.scenes.packing.layout import PackingCase

    first = next(iter_corpus(out))
    clash = from_packing_case(PackingCase.from_json(first["case"]), "clash")
    rep = overlap_with_corpus(out, bench + [clash])
    assert rep["overlaps"] == [{"episode": first["__key__"], "bench_case": "clash"}]
    # ... and so is the same case turned by 90 degrees (container L <-> W, every box's l <-> w)
    turned = _turned(clash)
    assert turned.container.size != clash.container.size  # a non-square container: the turn is real
    assert turned.content_digest() != clash.content_digest()
    rep = overlap_with_corpus(out, bench + [turned])
    assert rep["overlaps"] == [{"episode": first["__key__"], "bench_case": "clash-turned"}]


def _turned(case):
    """``case`` turned by 90 degrees about the vertical: container (W, L, H), every box (w, l, h)."""
    from simkit.scenes.packing.case import EvalCase, Item
    from simkit.scenes.packing.geometry import Box, Container

    L, W, H = case.container.size
    items = [
        Item.of(Box(it.id, (it.box.size[1], it.box.size[0], it.box.size[2]), it.box.mass))
        for it in case.items
    ]
    return EvalCase(
        case.name + "-turned",
        case.tier,
        Container((W, L, H), case.container.resolution),
        items,
        list(case.arrival),
        case.buffer_size,
    )


def test_overlap_digest_is_invariant_to_a_90_degree_turn_of_a_bench_case(bench):
    turned = [_turned(c) for c in bench]
    non_square = [k for k, c in enumerate(bench) if c.container.size[0] != c.container.size[1]]
    assert len(non_square) >= 40
    for k in non_square:  # the plain content digest sees a different case; the overlap digest does not
        assert turned[k].content_digest() != bench[k].content_digest()
    assert [t.overlap_digest() for t in turned] == [c.overlap_digest() for c in bench]
    assert len({c.overlap_digest() for c in bench}) == 60  # no bench case is a turned copy of another


def test_overlap_command_rejects_a_non_corpus(tmp_path):
    res = runner.invoke(app, ["eval", "packing-overlap", str(tmp_path)])
    assert res.exit_code == 2 and "error:" in res.output


@pytest.mark.slow
def test_eval_packing_command_prints_tiers_and_overall(tmp_path):
    out = tmp_path / "r.json"
    res = runner.invoke(
        app, ["eval", "packing", "--policy", "dblf", "--limit", "1", "--out", str(out), "--no-progress"]
    )
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    for tier in ("easy", "medium", "hard", "average"):
        assert any(l.startswith(tier) and "overall" in l for l in lines), res.output
    doc = json.loads(out.read_text())
    assert len(doc["cases"]) == 3 and doc["violations"] == 0
    assert doc["summary"]["average"]["overall"] == pytest.approx(
        np.mean([doc["summary"][t]["overall"] for t in ("easy", "medium", "hard")])
    )


def test_eval_packing_bad_input():
    res = runner.invoke(app, ["eval", "packing", "--policy", "nope"])
    assert res.exit_code == 2 and "unknown packing policy" in res.output
    res = runner.invoke(app, ["eval", "packing", "--cases", "weird"])
    assert res.exit_code == 2 and "unknown --cases" in res.output


def test_eval_out_that_cannot_be_written_fails_before_evaluating(tmp_path, monkeypatch):
    import simkit.eval.packing.evaluate as ev

    def never(*a, **k):
        raise AssertionError("evaluated although --out cannot be written")

    monkeypatch.setattr(ev, "evaluate", never)
    (tmp_path / "f").write_text("x")
    for out, words in (
        (tmp_path, f"--out {tmp_path}: is a folder; give the path of the file"),
        (tmp_path / "f" / "r.json", f"is under {tmp_path / 'f'}, which is a file"),
    ):
        res = runner.invoke(app, ["eval", "packing", "--policy", "dblf", "--limit", "1", "--out", str(out)])
        assert res.exit_code == 2 and res.output.startswith("error: ") and words in res.output, res.output
        assert "Traceback" not in res.output
