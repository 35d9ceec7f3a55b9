"""Closed-loop packing evaluation: metrics, heightmaps from poses, checker, candidates, baselines, bench."""

import json
import math

import numpy as np
import pytest

from simkit.core.rotations import quaternion_to_matrix
from simkit.eval.packing.policies import POLICIES, make_policy
from simkit.scenes.packing.candidates import enumerate_candidates, support_maps, window_max
from simkit.scenes.packing.case import Action, EvalCase, Item
from simkit.scenes.packing.checker import _OBB, check_packing, penetration_depth, penetration_depths
from simkit.scenes.packing.geometry import Box, Container, Placement
from simkit.scenes.packing.metrics import (
    aggregate,
    case_metrics,
    centre_inside,
    heightmap_from_poses,
)
from simkit.sims.packing.episode import PackingEpisode, run_episode

RES = 0.025
Q0 = (1.0, 0.0, 0.0, 0.0)


def pose(box: Box, x, y, z, yaw=0):
    lx, ly = box.footprint(yaw)
    q = Q0 if yaw == 0 else (math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5))
    return ((x + lx / 2) * RES, (y + ly / 2) * RES, (z + box.height / 2) * RES), q


# -- metrics --------------------------------------------------------------------------------------
def test_metrics_hand_computed():
    c = Container((4, 4, 4), RES)
    a, b, big = Box(0, (2, 4, 2)), Box(1, (2, 2, 1)), Box(2, (4, 4, 4))
    posed = [(a, pose(a, 0, 0, 0)), (b, pose(b, 2, 0, 0))]
    hm = heightmap_from_poses(c, posed)
    expect = np.zeros((4, 4), int)
    expect[0:2, :] = 2
    expect[2:4, 0:2] = 1
    np.testing.assert_array_equal(hm, expect)
    m = case_metrics(c, a.volume + b.volume + big.volume, [a, b], hm, 3)
    # success = (16 + 4) / (16 + 4 + 64); compactness = 20 / (4*4 * 2); overall = product
    assert m.success_ratio == pytest.approx(20 / 84)
    assert m.compactness == pytest.approx(20 / 32)
    assert m.overall == pytest.approx(20 / 84 * 20 / 32)
    assert m.utilisation == pytest.approx(20 / 64)
    assert m.packed_volume_m3 == pytest.approx(20 * RES**3)
    assert m.max_height_m == pytest.approx(2 * RES)
    assert (m.n_items, m.n_packed) == (3, 2)


def test_empty_packing_scores_zero():
    c = Container((4, 4, 4), RES)
    m = case_metrics(c, 10, [], c.empty_heightmap(), 1)
    assert (m.success_ratio, m.compactness, m.overall) == (0.0, 0.0, 0.0)


def test_centre_inside_bounds():
    c = Container((4, 4, 4), RES)
    assert centre_inside(c, (0.05, 0.05, 0.05))
    assert not centre_inside(c, (0.101, 0.05, 0.05))
    assert not centre_inside(c, (0.05, 0.05, 0.11))


def test_heightmap_of_a_tilted_box():
    c = Container((8, 8, 8), RES)
    b = Box(0, (2, 2, 2))  # 5 cm cube
    t = math.radians(45)
    q = (math.cos(t / 2), 0.0, math.sin(t / 2), 0.0)  # 45 deg about y: an edge points up
    centre = (4 * RES, 4 * RES, 4 * RES)
    hm = heightmap_from_poses(c, [(b, (centre, q))])
    # along x the top is a ridge: height = z_c + (half diagonal - |dx|) for |dx| < half diagonal
    half_diag = RES * math.sqrt(2)
    for i in range(8):
        dx = abs((i + 0.5) * RES - centre[0])
        if dx < half_diag:
            top = centre[2] + half_diag - dx
            assert hm[i, 4] == math.ceil(top / RES - 1e-3 / RES)
        else:
            assert hm[i, 4] == 0
    assert hm[:, 2].max() == 0 and hm[:, 3].max() > 0  # y extent is the unrotated 2 cells (3, 4)


def test_quat_to_matrix_yaw():
    R = quaternion_to_matrix((math.sqrt(0.5), 0, 0, math.sqrt(0.5)))
    np.testing.assert_allclose(R @ [1, 0, 0], [0, 1, 0], atol=1e-12)


def test_aggregate_tier_means_and_average():
    rows = [
        {"tier": "easy", "success_ratio": 1.0, "compactness": 0.5, "overall": 0.5, "utilisation": 0.5},
        {"tier": "easy", "success_ratio": 0.5, "compactness": 0.5, "overall": 0.25, "utilisation": 0.25},
        {"tier": "hard", "success_ratio": 0.0, "compactness": 0.0, "overall": 0.0, "utilisation": 0.0},
    ]
    a = aggregate(rows)
    assert a["easy"]["overall"] == pytest.approx(0.375) and a["easy"]["cases"] == 2
    assert a["hard"]["overall"] == 0.0
    assert a["average"]["overall"] == pytest.approx(0.1875)  # mean of tier means, not of cases
    assert a["average"]["success_ratio"] == pytest.approx(0.375)


# -- geometric checker ----------------------------------------------------------------------------
def test_checker_passes_a_clean_stack_and_catches_overlap():
    c = Container((8, 8, 8), RES)
    a, b = Box(0, (4, 4, 2)), Box(1, (4, 4, 2))
    assert check_packing(c, [(a, pose(a, 0, 0, 0)), (b, pose(b, 0, 0, 2))]) == []
    assert check_packing(c, [(a, pose(a, 0, 0, 0)), (b, pose(b, 4, 0, 0))]) == []
    # push b 2 mm into a (beyond the 1 mm tolerance), then 0.5 mm (within it)
    (p, q) = pose(b, 4, 0, 0)
    v = check_packing(c, [(a, pose(a, 0, 0, 0)), (b, ((p[0] - 0.002, p[1], p[2]), q))])
    assert [x.kind for x in v] == ["overlap"] and v[0].amount_m == pytest.approx(0.002, abs=1e-6)
    assert check_packing(c, [(a, pose(a, 0, 0, 0)), (b, ((p[0] - 0.0005, p[1], p[2]), q))]) == []


def test_checker_catches_outside_and_unsupported():
    c = Container((8, 8, 8), RES)
    a, b = Box(0, (4, 4, 2)), Box(1, (8, 4, 2))
    p, q = pose(a, 0, 0, 0)
    v = check_packing(c, [(a, ((p[0] - 0.003, p[1], p[2]), q))])
    assert [x.kind for x in v] == ["outside"] and v[0].amount_m == pytest.approx(0.003, abs=1e-6)
    # floating box
    v = check_packing(c, [(a, pose(a, 0, 0, 3))])
    assert [x.kind for x in v] == ["unsupported"]
    # plank on a 2-cell support at one end: centre of mass outside the support
    s = Box(2, (2, 4, 2))
    v = check_packing(c, [(s, pose(s, 0, 0, 0)), (b, pose(b, 0, 0, 2))])
    assert [(x.kind, x.boxes) for x in v] == [("unsupported", (1,))]
    # the same plank on two end supports: centre inside the hull of the two contact patches
    s2 = Box(3, (2, 4, 2))
    assert check_packing(c, [(s, pose(s, 0, 0, 0)), (s2, pose(s2, 6, 0, 0)), (b, pose(b, 0, 0, 2))]) == []


def test_sat_penetration_of_rotated_boxes():
    h = np.array([0.05, 0.05, 0.05])
    a = _OBB(0, np.zeros(3), np.eye(3), h)
    R = quaternion_to_matrix((math.cos(math.pi / 8), 0, 0, math.sin(math.pi / 8)))  # 45 deg about z
    # corner of the rotated cube points along x: its extent along x is 0.05 * sqrt(2)
    b = _OBB(1, np.array([0.05 + 0.05 * math.sqrt(2) + 0.001, 0, 0]), R, h)
    assert penetration_depth(a, b) == pytest.approx(-0.001, abs=1e-9)
    b.c[0] -= 0.003
    assert penetration_depth(a, b) == pytest.approx(0.002, abs=1e-9)


def _sat_one_pair(a: _OBB, b: _OBB) -> float:
    """The separating-axis overlap of one pair, axis by axis (the reference for the batched version)."""
    axes = [a.R[:, i] for i in range(3)] + [b.R[:, i] for i in range(3)]
    for i in range(3):
        for j in range(3):
            n = np.cross(a.R[:, i], b.R[:, j])
            if np.linalg.norm(n) > 1e-6:
                axes.append(n / np.linalg.norm(n))
    d = b.c - a.c
    return min(
        float(np.sum(a.h * np.abs(a.R.T @ n)) + np.sum(b.h * np.abs(b.R.T @ n)) - abs(d @ n)) for n in axes
    )


def test_batched_sat_matches_pair_by_pair():
    """penetration_depths over many random pairs (tilted, yawed, parallel, overlapping and apart) equals the
    axis-by-axis computation, and a separated pair along a face normal gives minus its gap."""
    rng = np.random.default_rng(3)
    pairs = []
    for k in range(200):
        qa, qb = rng.normal(size=4), rng.normal(size=4)
        if k % 4 == 0:  # parallel edges: degenerate cross products must be skipped
            qa, qb = np.array([1.0, 0, 0, 0]), np.array([math.cos(0.3), 0, 0, math.sin(0.3)])
        a = _OBB(
            0,
            rng.uniform(-0.1, 0.1, 3),
            quaternion_to_matrix(qa / np.linalg.norm(qa)),
            rng.uniform(0.01, 0.1, 3),
        )
        b = _OBB(
            1,
            rng.uniform(-0.1, 0.1, 3),
            quaternion_to_matrix(qb / np.linalg.norm(qb)),
            rng.uniform(0.01, 0.1, 3),
        )
        pairs.append((a, b))
    got = penetration_depths(
        *(np.array([getattr(x, f) for x, _ in pairs]) for f in ("c", "R", "h")),
        *(np.array([getattr(y, f) for _, y in pairs]) for f in ("c", "R", "h")),
    )
    want = np.array([_sat_one_pair(a, b) for a, b in pairs])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert (want > 0).any() and (want < 0).any()
    h = np.array([0.02, 0.03, 0.04])
    far = _OBB(1, np.array([0.0, 0.0, 0.08 + 0.005]), np.eye(3), h)
    assert penetration_depth(_OBB(0, np.zeros(3), np.eye(3), h), far) == pytest.approx(-0.005, abs=1e-12)


# -- candidates -----------------------------------------------------------------------------------
def test_window_max_and_four_quadrant_support():
    rng = np.random.default_rng(0)
    H = rng.integers(0, 5, (9, 7))
    wm = window_max(H, 3, 2)
    ref = np.array([[H[i : i + 3, j : j + 2].max() for j in range(6)] for i in range(7)])
    np.testing.assert_array_equal(wm, ref)
    # a 4x4 footprint over a heightmap whose top is only in the left half: centre unsupported
    H = np.zeros((4, 4), int)
    H[:2, :] = 1
    z, st = support_maps(H, 4, 4)
    assert z[0, 0] == 1 and not st[0, 0]
    H[3, 3] = 1  # the rule is conservative: support in one far quadrant only is not enough
    assert not support_maps(H, 4, 4)[1][0, 0]
    H[3, 0] = 1  # supporting cells reach into all four quadrants (beyond the 1-cell margin)
    z, st = support_maps(H, 4, 4)
    assert st[0, 0]
    c = enumerate_candidates(Container((4, 4, 3), RES), H, Box(0, (4, 4, 2)), 0)
    assert (c.x.tolist(), c.y.tolist(), c.z.tolist()) == ([0], [0], [1])
    c = enumerate_candidates(Container((4, 4, 2), RES), H, Box(0, (4, 4, 2)), 0)
    assert c.x.size == 0  # top would be 3 > 2


# -- baselines on a known small case ---------------------------------------------------------------
def small_case(expert=None):
    """Container 2 x 1 x 2 cells; arrivals: a 1x1x1 cube, a 2x1x1 bar, a 1x1x1 cube; buffer 2.

    Packing the bar first fills the container exactly; a policy that starts with a cube at x=0 can
    only stack the second cube on it (the bar cannot stand on one cube: its centre would be over
    the edge) and must discard the bar.
    """
    boxes = [Box(0, (1, 1, 1)), Box(1, (2, 1, 1)), Box(2, (1, 1, 1))]
    return EvalCase(
        "small", "easy", Container((2, 1, 2), RES), [Item.of(b) for b in boxes], [0, 1, 2], 2, expert=expert
    )


KNOWN = {
    # policy: (placements as (box, orientation, x, y, z), overall)
    "dblf": ([(1, 0, 0, 0, 0), (0, 0, 0, 0, 1), (2, 0, 1, 0, 1)], 1.0),
    "hm": ([(1, 0, 0, 0, 0), (0, 0, 0, 0, 1), (2, 0, 1, 0, 1)], 1.0),
    "mta": ([(1, 0, 0, 0, 0), (0, 0, 0, 0, 1), (2, 0, 1, 0, 1)], 1.0),
    "sdf": ([(1, 0, 0, 0, 0), (0, 0, 0, 0, 1), (2, 0, 1, 0, 1)], 1.0),
    # FFP: slot 0 (cube 0) at the first position (0, 0); then the bar has no stable spot, cube 2
    # goes on cube 0, and the bar is discarded: success 2/4, compactness 2/(2*2)
    "ffp": ([(0, 0, 0, 0, 0), (2, 0, 0, 0, 1)], 0.25),
}


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_baseline_packs_the_small_case_to_its_known_result(name):
    placements, overall = KNOWN[name]
    r = run_episode(small_case(), make_policy(name), None)
    got = [
        (s.placement.box_id, s.placement.orientation, s.placement.x, s.placement.y, s.placement.z)
        for s in r.steps
        if s.placement is not None
    ]
    assert got == placements
    assert r.metrics.overall == pytest.approx(overall)
    assert r.violations == []
    assert r.discarded == 3 - len(placements)


def test_baselines_with_physics_match_geometry_on_the_small_case():
    from simkit.sims.packing.physics import PackingPhysics

    ph = PackingPhysics(small_case().container)
    try:
        for name in ("dblf", "ffp"):
            r = run_episode(small_case(), make_policy(name), ph)
            assert r.invalid_placements == 0
            assert r.metrics.overall == pytest.approx(KNOWN[name][1])
            assert all(s.physics["valid"] for s in r.steps if s.physics)
    finally:
        ph.close()


def test_random_policy_only_picks_feasible_stable_candidates():
    # after the bar is placed, the feasible cube spots are exactly (0,0,1) and (1,0,1)
    seen = set()
    for seed in range(30):
        case = small_case()
        ep = PackingEpisode(case)
        ep.step(Action(1, 0, 0, 0))  # the bar first (buffer slot 1)
        pol = make_policy("random")
        pol.reset(case, np.random.default_rng(seed))
        a = pol.act(ep.state())
        item = ep.buffer[a.slot]
        box, yaw = item.orientation(a.orientation)
        seen.add((a.x, a.y, tuple(box.footprint(yaw))))
    assert {(x, y) for x, y, _ in seen} == {(0, 0), (1, 0)}


def test_expert_policy_replays_and_requires_an_expert():
    expert = [Placement(1, 0, 0, 0, 0), Placement(0, 0, 0, 0, 1), Placement(2, 0, 1, 0, 1)]
    r = run_episode(small_case(expert), make_policy("expert"), None)
    assert r.metrics.overall == 1.0
    from simkit.core.errors import SimkitError

    with pytest.raises(SimkitError, match="no expert"):
        run_episode(small_case(), make_policy("expert"), None)


def test_unknown_policy_names_the_known_ones():
    from simkit.core.errors import SimkitError

    with pytest.raises(SimkitError, match="dblf"):
        make_policy("bogus")
    assert make_policy("SDF-Pack").name == "sdf"
    assert set(POLICIES) == {"dblf", "mta", "hm", "sdf", "ffp", "random", "expert"}


def test_invalid_action_discards_the_chosen_item():
    case = small_case()
    ep = PackingEpisode(case)
    rec = ep.step(Action(0, 0, 5, 0))  # footprint outside the container
    assert rec.discarded and rec.item_id == 0
    assert [it.id for it in ep.buffer] == [1, 2]
    rec = ep.step(Action(7, 0, 0, 0))  # empty slot: the oldest item goes
    assert rec.discarded and rec.item_id == 1


def test_case_json_round_trip_and_content_digest():
    case = small_case([Placement(1, 0, 0, 0, 0), Placement(0, 0, 0, 0, 1), Placement(2, 0, 1, 0, 1)])
    back = EvalCase.from_json(json.loads(json.dumps(case.to_json())))
    assert back.to_json() == case.to_json()
    rotated = EvalCase(
        "r",
        "easy",
        case.container,
        [
            Item.of(Box(i, (b.size[1], b.size[0], b.size[2])))
            for i, b in enumerate(it.box for it in case.items)
        ],
        [0, 1, 2],
        2,
    )
    assert rotated.content_digest() == case.content_digest()
    other = EvalCase("o", "easy", Container((2, 1, 3), RES), case.items, [0, 1, 2], 2)
    assert other.content_digest() != case.content_digest()


class Scripted:
    """A policy that plays fixed actions (for runner tests)."""

    name = "scripted"

    def __init__(self, actions):
        self.actions = list(actions)

    def reset(self, case, rng):
        self.i = 0

    def act(self, state):
        a = self.actions[self.i]
        self.i += 1
        return a


def test_physics_invalid_placement_rebuilds_the_heightmap_from_real_poses():
    from simkit.sims.packing.physics import PackingPhysics

    # a 2-cell column, then an 8-cell plank resting on it only at one end: the plank tips into the void
    col, plank = Box(0, (2, 4, 4)), Box(1, (8, 4, 1))
    case = EvalCase("tip", "easy", Container((10, 4, 6), RES), [Item.of(col), Item.of(plank)], [0, 1], 2)
    ph = PackingPhysics(case.container)
    seen = []
    try:
        r = run_episode(
            case,
            Scripted([Action(0, 0, 0, 0), Action(0, 0, 0, 0)]),
            ph,
            on_step=lambda st, rec: seen.append(rec),
        )
        ep_h = r.final_heightmap
    finally:
        ph.close()
    assert r.invalid_placements == 1 and seen[1].physics["reason"] in ("tipped", "off_target")
    # the geometric update would have put the plank flat at height 5 over the whole floor; the rebuilt
    # heightmap shows it leaning: the far end lies on the floor, well below 5 cells
    assert ep_h[:2].max() >= 4 and ep_h[7].max() <= 2
    # both objects' centres stay in the container: success counts them, compactness uses the real top
    assert r.metrics.success_ratio == pytest.approx(1.0)
    assert r.metrics.compactness == pytest.approx((32 + 32) / (10 * 4 * ep_h.max()))
    assert r.violations == []  # a leaning plank touching its support is a plausible physical state


def test_checker_counts_the_ridge_of_a_tilted_box_as_support():
    c = Container((20, 8, 10), RES)
    th = math.asin(4 / 3 / math.sqrt(2)) - math.pi / 4  # a 3-cell cube tilted so its ridge is 4 cells high
    tilted = Box(0, (3, 3, 3))
    t_pose = (
        (0.1, 0.075, 0.075 / 2 * (math.cos(th) + math.sin(th))),
        (math.cos(th / 2), 0.0, math.sin(th / 2), 0.0),
    )
    col, plank = Box(1, (2, 8, 4)), Box(2, (12, 4, 1))
    ridge_x = 0.1 + 0.0375 * (math.sin(th) - math.cos(th))
    p_pose = ((0.08 + 0.15, 0.05, 0.1 + 0.0125), Q0)  # plank x from 0.08 (left of the ridge) to 0.38
    assert 0.08 < ridge_x < 0.23 < 0.35
    both = [(tilted, t_pose), (col, pose(col, 14, 0, 0)), (plank, p_pose)]
    assert check_packing(c, both) == []
    # without the tilted box the plank's centre (x = 0.23 m) is far outside the column's patch (x >= 0.35 m)
    assert [(v.kind, v.boxes) for v in check_packing(c, both[1:])] == [("unsupported", (2,))]
