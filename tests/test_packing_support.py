"""The selectable support rule (com, area:F, full) of the packing eval, env and checker; SDF-Pack on BR-sized grids."""

import subprocess
import sys

import numpy as np
import pytest
from conftest import fixture_path

from simkit.core.errors import SimkitError
from simkit.eval.packing.policies import SDFPack
from simkit.scenes.packing.candidates import (
    COM,
    SupportRule,
    parse_support,
    placement_supported,
    support_maps,
    supported_fraction,
)
from simkit.scenes.packing.case import Action, EvalCase, Item
from simkit.scenes.packing.checker import check_packing
from simkit.scenes.packing.geometry import Box, Container
from simkit.sims.packing.episode import PackingEpisode, run_episode

RES = 0.025


def test_parse_support_accepts_the_three_forms_and_names_bad_values():
    assert parse_support("com") == COM and str(parse_support("com")) == "com"
    assert parse_support("full") == SupportRule("full", 1.0) and str(parse_support("FULL")) == "full"
    assert (
        parse_support("area:0.75") == SupportRule("area", 0.75)
        and str(parse_support("area:0.75")) == "area:0.75"
    )
    for bad in ("area", "area:0", "area:1.5", "area:x", "half", ""):
        with pytest.raises(SimkitError, match="use 'com', 'full' or 'area:F'") as exc:
            parse_support(bad)
        assert "\n" not in str(exc.value)


def test_a_box_on_a_step_meets_com_but_not_area_085():
    """A 10 x 10 footprint over a step: 8 of its 10 rows stand at height 2 (80 % supported, reaching past the
    centre of mass by more than the 10 % margin); with 5 rows up (50 %) the support ends under the centre of
    mass and com refuses it too."""
    H = np.zeros((10, 10), np.int32)
    H[:8, :] = 2
    assert supported_fraction(H, 10, 10)[0, 0] == pytest.approx(0.8)
    assert placement_supported(H, 0, 0, 10, 10, COM)
    assert placement_supported(H, 0, 0, 10, 10, parse_support("area:0.75"))
    assert not placement_supported(H, 0, 0, 10, 10, parse_support("area:0.85"))
    assert not placement_supported(H, 0, 0, 10, 10, parse_support("full"))
    H[5:, :] = 0
    assert supported_fraction(H, 10, 10)[0, 0] == pytest.approx(0.5)
    assert not placement_supported(H, 0, 0, 10, 10, COM)
    assert placement_supported(np.zeros((10, 10), np.int32), 0, 0, 10, 10, parse_support("full"))  # the floor


def test_supported_fraction_matches_brute_force_on_random_heightmaps():
    rng = np.random.default_rng(3)
    for _ in range(5):
        H = rng.integers(0, 4, size=(9, 7)).astype(np.int32)
        lx, ly = int(rng.integers(1, 6)), int(rng.integers(1, 5))
        got = supported_fraction(H, lx, ly)
        for i in range(H.shape[0] - lx + 1):
            for j in range(H.shape[1] - ly + 1):
                w = H[i : i + lx, j : j + ly]
                assert got[i, j] == pytest.approx(np.mean(w == w.max()))
        _, st_com = support_maps(H, lx, ly)
        _, st_area = support_maps(H, lx, ly, rule=parse_support("area:0.75"))
        assert np.all(st_area <= st_com)  # area:F is com plus the area requirement
        assert np.array_equal(st_area, st_com & (got >= 0.75 - 1e-9))


def _step_case() -> EvalCase:
    base, top = Box(0, (8, 4, 2)), Box(1, (10, 4, 1))
    return EvalCase("step", "easy", Container((10, 4, 6), RES), [Item.of(base), Item.of(top)], [0, 1], 2)


def test_runner_and_checker_enforce_the_rule():
    """The 10 x 4 box over an 8 x 4 block (80 % of its base supported): executed under com and area:0.75,
    refused (discarded) under full; the checker reports the base coverage of a com packing under full."""
    actions = [Action(0, 0, 0, 0), Action(0, 0, 0, 0)]
    for rule, placed in ((COM, 2), (parse_support("area:0.75"), 2), (parse_support("full"), 1)):
        ep = PackingEpisode(_step_case(), None, rule)
        for a in actions:
            ep.step(a)
        assert len(ep.placed) == placed, rule
        assert ep.finish()[1] == []  # what was executed meets the rule
    ep = PackingEpisode(_step_case(), None, COM)
    for a in actions:
        ep.step(a)
    poses = ep.final_poses()
    packed = [(ep.placed[i][0], poses[i]) for i in poses]
    viol = check_packing(ep.case.container, packed, support=parse_support("full"))
    assert [(v.kind, v.boxes) for v in viol] == [("undersupported", (1,))]
    assert viol[0].amount_m == pytest.approx(0.8, abs=0.03) and "% of the base supported" in str(viol[0])
    assert check_packing(ep.case.container, packed, support=parse_support("area:0.7")) == []


@pytest.mark.slow
def test_a_br_problem_scored_under_two_support_rules():
    """BR1 problem 1 (geometry only, dblf): under com several boxes stand on less than 75 % of their base;
    under area:0.75 none does, and the utilisation is lower (the price of the stricter rule)."""
    from simkit.eval.packing.evaluate import load_cases
    from simkit.eval.packing.policies import make_policy

    (case,), kind = load_cases(f"br:{fixture_path('packing', 'br', 'thpack1.txt')}", 1)
    assert kind == "br"
    util, under = {}, {}
    for rule in ("com", "area:0.75"):
        ep = PackingEpisode(case, None, parse_support(rule))
        pol = make_policy("dblf")
        pol.reset(case, np.random.default_rng(0))
        while not ep.done:
            ep.step(pol.act(ep.state()))
        metrics, violations, _ = ep.finish()
        assert violations == [], (rule, violations[:3])
        util[rule] = metrics.utilisation
        poses = ep.final_poses()
        packed = [(ep.placed[i][0], poses[i]) for i in poses]
        under[rule] = len(check_packing(case.container, packed, support=parse_support("area:0.75")))
    assert under["com"] >= 3 and under["area:0.75"] == 0, under
    assert 0.5 < util["area:0.75"] < util["com"] < 0.95, util


def test_sdf_pack_coarsens_its_grid_to_the_voxel_budget():
    pol = SDFPack()
    assert pol.coarsening((587, 233, 220)) == 2  # 30.1 M voxels -> 294 x 117 x 110 = 3.78 M
    assert pol.coarsening((40, 40, 40)) == 1
    # a coarsened field still packs a small case completely and validly
    boxes = [Box(i, (4, 4, 2)) for i in range(8)]
    case = EvalCase(
        "cubes", "easy", Container((8, 8, 4), RES), [Item.of(b) for b in boxes], list(range(8)), 3
    )
    coarse = SDFPack()
    coarse.max_voxels = 40  # forces k = 2 (4 x 4 x 2 = 32 voxels)
    assert coarse.coarsening(case.container.size) == 2
    r = run_episode(case, coarse, None)
    assert r.metrics.success_ratio == pytest.approx(1.0) and r.violations == []


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "simkit", "eval", "packing", *args, "--no-progress"],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_cli_support_rule_is_printed_with_every_result():
    r = _cli("--policy", "dblf", "--support", "area:0.75", "--limit", "3")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith(("easy", "medium", "hard", "average"))]
    assert len(lines) == 4 and all("support area:0.75)" in ln for ln in lines), r.stdout
    assert "support area:0.75" in r.stdout.splitlines()[0]
    bad = _cli("--support", "area:2", "--limit", "1")
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "area:F" in bad.stderr


def test_env_support_option_refuses_an_undersupported_placement():
    pytest.importorskip("gymnasium")
    from simkit.envs.packing.env import PackingEnv

    case = _step_case()
    env = PackingEnv(tier="easy", cases=[case], physics=False, support="full")
    env.reset(seed=0)
    _, _, _, _, info = env.step(np.array([0, 0, 0, 0]))
    assert not info["invalid_action"]
    _, reward, done, _, info = env.step(np.array([0, 0, 0, 0]))  # 80 % supported: refused under full
    assert info["invalid_action"] and reward == 0.0 and done
    env = PackingEnv(tier="easy", cases=[case], physics=False, support="area:0.75")
    env.reset(seed=0)
    env.step(np.array([0, 0, 0, 0]))
    _, reward, _, _, info = env.step(np.array([0, 0, 0, 0]))
    assert not info["invalid_action"] and reward > 0
    with pytest.raises(SimkitError):
        PackingEnv(tier="easy", support="most")
