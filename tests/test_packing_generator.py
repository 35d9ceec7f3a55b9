"""The ``packing`` generator: physics replay of layout-first cases, episode fields, corpus, validate, inspect."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from simkit.core.config import build_config
from simkit.core.errors import InputError, SampleRejected
from simkit.episodes.reader import iter_corpus
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus
from simkit.generators.packing.generator import PackingConfig, PackingGenerator, episode_metrics
from simkit.scenes.packing.checker import check_packing
from simkit.scenes.packing.layout import TIERS, compile_case
from simkit.sims.packing.physics import PackingPhysics


def _gen(**cfg) -> PackingGenerator:
    g = PackingGenerator()
    g.setup(PackingConfig(**cfg))
    return g


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("packing") / "corpus"
    summary = generate_corpus("packing", 6, out, seed=11, episodes_per_shard=4)
    assert summary.failed == 0 and summary.produced == 6
    return out


@pytest.mark.parametrize("tier", list(TIERS))
def test_every_compiled_trajectory_replays_to_success_one(tier):
    physics = PackingConfig().physics.model_dump()
    for seed in range(8):
        case = compile_case(tier, np.random.default_rng([seed, 5]))
        with PackingPhysics(case.container, **physics) as world:
            for p in case.expert:
                res = world.place(case.box(p.box_id), p)
                assert res.valid, f"{tier} seed {seed}: box {p.box_id} {res.reason}"
            poses = world.poses()
        posed = [(case.box(i), pose) for i, pose in poses.items()]
        assert check_packing(case.container, posed) == []
        m = episode_metrics(case, posed)
        # the layout fills the container, so every box counts and the envelope is the container
        assert m["success_ratio"] == 1.0
        assert m["compactness"] == 1.0
        assert m["overall"] == 1.0
        assert m["n_packed"] == len(case.boxes)


@pytest.mark.slow
def test_many_generated_episodes_replay_to_success_one():
    # 45 episodes through the generator itself (compile + physics + geometric check): none rejected,
    # every one scores 1.0, and its own check passes on the encoded/decoded fields
    from simkit.episodes.codecs import decode, encode

    g = _gen()
    tiers = {}
    for i in range(45):
        ep = g.generate(i, np.random.default_rng([i, 2024]))
        tiers[ep.meta["tier"]] = tiers.get(ep.meta["tier"], 0) + 1
        assert ep.fields["metrics"]["success_ratio"] == 1.0 and ep.fields["metrics"]["overall"] == 1.0
        sample = {k: decode(*encode(v)) for k, v in ep.fields.items()}
        assert g.check(sample) == []
    assert sum(g.rejections_by_tier.values()) == 0
    assert set(tiers) == set(TIERS)
    g.teardown()


def test_episode_fields_shapes_and_params():
    g = _gen(tier_mix={"easy": 0, "medium": 1, "hard": 0}, heightmap_px_per_cell=4, strip_columns=5)
    ep = g.generate(3, np.random.default_rng(3))
    f = ep.fields
    case = f["case"]
    L, W, H = case["container"]["size"]
    T = N = len(case["boxes"])
    assert case["tier"] == "medium" and ep.meta["tier"] == "medium"
    assert f["heightmaps"].shape == (T + 1, L, W) and f["heightmaps"].dtype == np.int16
    assert (f["heightmaps"][0] == 0).all() and (f["heightmaps"][-1] == H).all()
    assert f["actions"].shape == (T, 5) and f["actions"].dtype == np.int32
    assert f["poses"].shape == (T, N, 7) and f["poses"].dtype == np.float32
    # poses: after step t exactly t+1 boxes exist; quaternions are unit length
    for t in range(T):
        assert int((~np.isnan(f["poses"][t, :, 0])).sum()) == t + 1
    q = f["poses"][-1, :, 3:]
    np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-5)
    # strip: T+1 frames of (L*4) x (W*4) pixels, 5 per row, 3 px padding
    rows = (T + 1 + 4) // 5
    assert f["heightmap_strip"].array.shape == (rows * (L * 4 + 3) + 3, 5 * (W * 4 + 3) + 3, 3)
    assert len(f["steps"]) == T
    for t, st in enumerate(f["steps"]):
        assert len(st["buffer"]) <= 5 and st["buffer"][st["action"]["slot"]] == st["action"]["box_id"]
        assert st["physics"]["valid"] and st["physics"]["steps"] >= 1
        assert list(f["actions"][t]) == [st["action"][k] for k in ("slot", "orientation", "x", "y", "z")]
    s = ep.params["structural"]
    assert (s["container_l"], s["container_w"], s["container_h"]) == (L, W, H)
    assert s["n_objects"] == N and s["buffer_size"] == 5 and sum(s["layer_heights"]) == H
    assert f["metrics"]["overall"] == 1.0


def test_generation_is_independent_of_worker_history():
    a = _gen()
    for i in range(4):
        last = a.generate(i, np.random.default_rng([i, 7]))
    b = _gen()
    alone = b.generate(3, np.random.default_rng([3, 7]))
    assert last.fields["case"] == alone.fields["case"]
    np.testing.assert_array_equal(last.fields["poses"], alone.fields["poses"])
    assert last.fields["steps"] == alone.fields["steps"]
    a.teardown()
    b.teardown()


def test_invalid_placements_are_rejected_and_counted_per_tier():
    g = _gen(tier_mix={"easy": 0, "medium": 0, "hard": 1})
    # the smallest legal budget (= settle_window, 6 steps = 25 ms): the 2 mm drop alone takes ~20 ms, so the
    # box is still falling or bouncing inside the window -> not settled
    g.config.physics.max_settle_steps = g.config.physics.settle_window
    with pytest.raises(
        SampleRejected, match=r"^tier=hard: step 0 box \d+ invalid in physics \(not_settled\)"
    ):
        g.generate(0, np.random.default_rng(0))
    assert g.rejections_by_tier == {"easy": 0, "medium": 0, "hard": 1}
    g.config.physics.max_settle_steps = 240
    # the redraw of the same index succeeds and records its own rejections in the episode meta
    g.teardown()  # drop the worlds built with the 6-step budget
    ep = g.generate(0, np.random.default_rng(1))
    assert ep.meta["rejections_by_tier"] == {"hard": 1}
    ep2 = g.generate(1, np.random.default_rng(2))
    assert ep2.meta["rejections_by_tier"] == {}


def test_tier_mix_selects_tiers():
    g = _gen(tier_mix={"easy": 1, "medium": 0, "hard": 0})
    assert {g.generate(i, np.random.default_rng(i)).meta["tier"] for i in range(5)} == {"easy"}
    with pytest.raises(ValueError, match="at least one tier weight must be positive"):
        PackingConfig(tier_mix={"easy": 0, "medium": 0, "hard": 0})


def test_corpus_validates_and_check_catches_tampering(corpus):
    rep = validate_corpus(corpus)
    assert rep.passed, rep.problems
    assert rep.episodes == 6 and rep.ok == 6
    g = _gen()
    sample = next(iter_corpus(corpus))
    assert g.check(sample) == []

    bad = copy.deepcopy(sample)
    bad["heightmaps"] = sample["heightmaps"].copy()
    bad["heightmaps"][1, 0, 0] += 1
    assert "heightmaps differ from the expert actions replayed on the grid" in g.check(bad)

    bad = copy.deepcopy(sample)
    bad["actions"] = sample["actions"].copy()
    bad["actions"][0, 2] += 1
    assert any(p.startswith("step 0: action") for p in g.check(bad))

    bad = copy.deepcopy(sample)
    bad["steps"][1]["buffer"] = list(reversed(bad["steps"][1]["buffer"])) + [999]
    assert any(p.startswith("step 1: stored buffer") for p in g.check(bad))

    bad = copy.deepcopy(sample)
    bad["metrics"]["overall"] = 0.5
    assert "metric overall: stored 0.5 != recomputed 1.0" in g.check(bad)

    bad = copy.deepcopy(sample)
    bad["poses"] = sample["poses"].copy()
    bad["poses"][-1, :, 0] += 5.0  # every box 5 m away: outside the container
    probs = g.check(bad)
    assert any(p.startswith("metric success_ratio") for p in probs)
    assert any(p.startswith("geometric check: outside") for p in probs)

    bad = copy.deepcopy(sample)
    first = bad["case"]["expert"][0]["box_id"]
    bad["case"]["arrival"] = [i for i in bad["case"]["arrival"] if i != first] + [first]
    assert len(bad["case"]["arrival"]) > bad["case"]["buffer_size"]  # so the moved box leaves the buffer
    assert any("not in the visible buffer" in p for p in g.check(bad))


def test_episode_meta_records_tier_and_params(corpus):
    tiers = set()
    for s in iter_corpus(corpus):
        meta = s["meta"]
        tiers.add(meta["tier"])
        st = meta["params"]["structural"]
        assert st["tier"] == meta["tier"] == s["case"]["tier"]
        assert st["buffer_size"] == TIERS[st["tier"]].buffer_size
        assert meta["versions"]["pybullet"]
        assert isinstance(meta["rejections_by_tier"], dict)
    assert len(tiers) >= 2  # the default mix draws several tiers


def test_cli_generate_validate_inspect(tmp_path):
    from simkit.cli import app

    out = tmp_path / "runs" / "packing"
    runner = CliRunner()
    r = runner.invoke(
        app,
        ["generate", "packing", "--n", "3", "--out", str(out), "--no-progress", "--set", "tier_mix.hard=0"],
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["validate", str(out)])
    assert r.exit_code == 0 and r.output.startswith("PASS"), r.output
    r = runner.invoke(app, ["inspect", str(out)])
    assert r.exit_code == 0, r.output
    sheet = out / "inspect" / "contact_sheet.png"
    assert sheet.exists() and f"wrote {sheet}" in r.output
    from PIL import Image

    with Image.open(sheet) as im:
        assert im.size[0] > 100 and im.size[1] > 50
    assert len(list((out / "inspect").glob("strip_*.png"))) == 3
    stats = json.loads((out / "inspect" / "packing_sample_stats.json").read_text())
    assert stats["scope"] == "sample" and stats["sample_episodes"] == 3
    tiers = stats["per_tier_in_sample"]
    assert sum(r["episodes"] for r in tiers.values()) == 3 and "hard" not in tiers
    assert all(r["overall_mean"] == 1.0 and r["rejections"] == 0 for r in tiers.values())
    assert not (out / "inspect" / "packing_stats.json").exists()
    # the statistics cover the inspected sample only, and say so
    r = runner.invoke(app, ["inspect", str(out), "--samples", "2", "--out", str(tmp_path / "two")])
    assert r.exit_code == 0, r.output
    stats = json.loads((tmp_path / "two" / "packing_sample_stats.json").read_text())
    assert stats["sample_episodes"] == 2 == sum(r["episodes"] for r in stats["per_tier_in_sample"].values())


def test_yaml_negative_count_is_one_clear_error(tmp_path):
    cfg = tmp_path / "packing.yaml"
    cfg.write_text("tier_mix:\n  hard: 2\nphysics:\n  max_settle_steps: -5\n")
    with pytest.raises(InputError) as exc:
        build_config(PackingConfig, cfg)
    msg = str(exc.value)
    assert msg.startswith(
        f"{cfg}: invalid config: physics.max_settle_steps: Input should be greater than or equal to 1"
    )
    assert "\n" not in msg

    from simkit.cli import app

    r = CliRunner().invoke(
        app, ["generate", "packing", "--n", "2", "--out", str(tmp_path / "o"), "--config", str(cfg)]
    )
    assert r.exit_code == 2
    assert "error:" in r.output and "max_settle_steps" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "o").exists()


def test_config_schema_round_trips_through_json():
    cfg = PackingConfig(tier_mix={"easy": 2, "medium": 1, "hard": 0})
    again = PackingConfig.model_validate(json.loads(json.dumps(cfg.model_dump(mode="json"))))
    assert again == cfg


def test_same_seed_same_bytes(corpus, tmp_path):
    again = tmp_path / "again"
    generate_corpus("packing", 6, again, seed=11, episodes_per_shard=4)
    a = sorted((corpus / "shards").glob("*.tar"))
    b = sorted((again / "shards").glob("*.tar"))
    assert [p.name for p in a] == [p.name for p in b] and len(a) == 2
    for pa, pb in zip(a, b):
        assert pa.read_bytes() == pb.read_bytes()


@pytest.mark.parametrize(
    "sets, words",
    [
        (["resolution=0.1"], "less than or equal to 0.05"),
        (["resolution=0.08"], "less than or equal to 0.05"),
        (
            ["resolution=0.03"],
            "resolution 0.03 m cannot compile every case (tier easy: up to 8 objects in 1 layer(s) "
            "of a 7x7-cell container",
        ),
        (["tier_mix.easy=inf"], "tier_mix.easy: Input should be a finite number"),
        (["tier_mix.easy=nan"], "tier_mix.easy: Input should be a finite number"),
        (["tier_mix.easy=1e308", "tier_mix.hard=1e308"], "the tier weights sum to inf"),
        (
            ["physics.settle_window=20", "physics.max_settle_steps=10"],
            "settle_window (20) must be <= max_settle_steps (10)",
        ),
        (
            ["physics.footprint_shrink=1"],
            "physics.footprint_shrink: Input should be less than or equal to 0.0003",
        ),
        (["physics.drop_gap=inf"], "physics.drop_gap: Input should be a finite number"),
    ],
)
def test_configs_that_can_never_work_are_one_clear_error(tmp_path, sets, words):
    from simkit.cli import app

    args = ["generate", "packing", "--n", "2", "--out", str(tmp_path / "o")]
    for s in sets:
        args += ["--set", s]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 2, r.output
    assert r.output.startswith("error: invalid config") and words in r.output and "Traceback" not in r.output
    assert not (tmp_path / "o").exists()


def test_refused_resolutions_really_fail_and_accepted_ones_always_compile():
    from simkit.scenes.packing.layout import LayoutError, accepted_resolutions, resolution_problems

    # the refused values do fail the compiler on real draws (the 0.1; 0.03 by rounding)
    for res, seeds in ((0.1, (2, 3, 8)), (0.03, (34, 126))):
        assert resolution_problems(res)
        for i in seeds:
            with pytest.raises(LayoutError, match=r"cannot split \d+ objects over 1 layers"):
                compile_case("easy", np.random.default_rng(i), res)
    ranges = accepted_resolutions()
    assert ranges[0][0] == 0.01 and ranges[-1] == (0.03334, 0.05)
    assert all(not resolution_problems(r) for r in (0.01, 0.0125, 0.015, 0.02, 0.025, 0.04, 0.05))
    # the worst case of every interval end compiles for every tier and seed tried
    for a, b in ranges:
        for res in (a, b):
            PackingConfig(resolution=res)
            for tier in TIERS:
                for i in range(15):
                    case = compile_case(tier, np.random.default_rng(i), res)
                    assert case.total_volume == int(np.prod(case.container.size))


def test_packing_run_prints_no_pybullet_banner(tmp_path):
    """pybullet's C module prints "pybullet build time: ..." on import; a packing run shows none of it."""
    from enginehelp import simkit_cli

    proc = simkit_cli(
        "generate", "packing", "--n", "1", "--out", str(tmp_path / "c"), "--no-progress", check=True
    )
    assert "pybullet build time" not in proc.stdout + proc.stderr
    assert "produced" in proc.stdout  # the summary table still prints
