"""Layout-first compiler: tiling, reverse removal, arrival queue, tier ranges, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.scenes.packing.geometry import Box, Container, Placement, drop_z
from simkit.scenes.packing.layout import (
    DENSITY_RANGE,
    TIERS,
    LayoutError,
    PackingCase,
    arrival_queue,
    check_case,
    compile_case,
    reverse_removal_order,
    sample_boxes,
    split_layer,
    support_graph,
)

SEEDS = range(40)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, 1234])


@pytest.mark.parametrize("L,W,k", [(8, 8, 1), (8, 8, 8), (14, 9, 5), (24, 22, 16), (5, 3, 2)])
def test_split_layer_tiles_rectangle_exactly(L, W, k):
    for seed in range(20):
        regions = split_layer(L, W, k, 2, _rng(seed))
        assert len(regions) == k
        cover = np.zeros((L, W), int)
        for r in regions:
            assert r.lx >= 2 or r.lx == L
            assert r.ly >= 2 or r.ly == W
            cover[r.x : r.x + r.lx, r.y : r.y + r.ly] += 1
        # every cell covered exactly once: no overlap, no gap
        assert (cover == 1).all()
        assert sum(r.area for r in regions) == L * W


def test_split_layer_impossible_request_raises():
    with pytest.raises(LayoutError, match="cannot tile a 3x3 layer with 4 regions"):
        split_layer(3, 3, 4, 2, _rng(0))


@pytest.mark.parametrize("tier", list(TIERS))
def test_each_layer_is_tiled_and_volumes_add_up(tier):
    for seed in SEEDS:
        case = compile_case(tier, _rng(seed))
        L, W, H = case.container.size
        assert sum(case.layer_heights) == H
        assert case.total_volume == L * W * H
        # every layer: the boxes whose bottom is the layer's floor cover the layer exactly once
        z0 = 0
        covered = 0
        for h in case.layer_heights:
            cover = np.zeros((L, W), int)
            for p in case.expert:
                if p.z == z0:
                    box = case.box(p.box_id)
                    assert box.height == h
                    lx, ly = box.footprint(p.orientation)
                    cover[p.x : p.x + lx, p.y : p.y + ly] += 1
                    covered += 1
            assert (cover == 1).all(), f"{tier} seed {seed}: layer at z={z0} not tiled exactly"
            z0 += h
        assert covered == len(case.boxes)
        assert check_case(case) == []


@pytest.mark.parametrize("tier", list(TIERS))
def test_tier_ranges(tier):
    spec = TIERS[tier]
    seen_layers, seen_objects = set(), set()
    for seed in range(120):
        case = compile_case(tier, _rng(seed))
        L, W, H = case.container.size
        assert case.buffer_size == spec.buffer_size
        assert spec.layers[0] <= len(case.layer_heights) <= spec.layers[1]
        assert spec.objects[0] <= len(case.boxes) <= spec.objects[1]
        assert spec.length[0] <= L <= spec.length[1] and spec.width[0] <= W <= spec.width[1]
        assert all(spec.layer_height[0] <= h <= spec.layer_height[1] for h in case.layer_heights)
        assert all(min(b.size[:2]) >= spec.min_side for b in case.boxes)
        seen_layers.add(len(case.layer_heights))
        seen_objects.add(len(case.boxes))
    # both ends of the layer range are reached, and the object counts spread over the range
    assert seen_layers == set(range(spec.layers[0], spec.layers[1] + 1))
    assert min(seen_objects) <= spec.objects[0] + 1 and max(seen_objects) >= spec.objects[1] - 1


def test_paper_tier_table():
    # spec packing.md, "Tiers": buffer / layers / objects
    assert {t: (s.buffer_size, s.layers, s.objects) for t, s in TIERS.items()} == {
        "easy": (3, (1, 2), (4, 8)),
        "medium": (5, (2, 3), (9, 18)),
        "hard": (10, (3, 4), (19, 32)),
    }


@pytest.mark.parametrize("tier", list(TIERS))
def test_buffer_invariant_and_support_order(tier):
    for seed in SEEDS:
        case = compile_case(tier, _rng(seed))
        hm = case.container.empty_heightmap()
        placed: list[int] = []
        for p in case.expert:
            # visible buffer recomputed by hand: first buffer_size arrivals not yet placed
            visible = [i for i in case.arrival if i not in placed][: case.buffer_size]
            assert p.box_id in visible
            box = case.box(p.box_id)
            lx, ly = box.footprint(p.orientation)
            z = drop_z(hm, p.x, p.y, lx, ly)
            assert z == p.z
            # full support: every cell under the footprint is at the drop height
            assert (hm[p.x : p.x + lx, p.y : p.y + ly] == z).all()
            hm[p.x : p.x + lx, p.y : p.y + ly] = z + box.height
            placed.append(p.box_id)
        assert (hm == case.container.size[2]).all()


def test_both_orientations_are_used_by_the_expert():
    orients = set()
    for seed in range(20):
        case = compile_case("medium", _rng(seed))
        for p in case.expert:
            orients.add(p.orientation)
    assert orients == {0, 1}


def test_mass_is_volume_times_density():
    # three regions of known size; the densities are the ones drawn for them
    footprints = [(0, 0, 4, 2), (4, 0, 2, 3), (0, 2, 1, 1)]
    heights = [3, 5, 1]
    res = 0.025
    boxes, perm, orient, density = sample_boxes(footprints, heights, res, _rng(3))
    assert sorted(perm.tolist()) == [0, 1, 2] and [b.id for b in boxes] == [0, 1, 2]
    assert np.all((density >= DENSITY_RANGE[0]) & (density < DENSITY_RANGE[1]))
    for ri, ((_, _, lx, ly), h) in enumerate(zip(footprints, heights)):
        box = boxes[int(perm[ri])]
        assert box.volume == lx * ly * h
        assert box.mass == pytest.approx(lx * ly * h * res**3 * density[ri], abs=0.5e-4)  # rounded to 0.1 g
        assert box.size == ((lx, ly, h) if orient[ri] == 0 else (ly, lx, h))


def test_determinism_by_seed_and_round_trip():
    a = compile_case("hard", _rng(7)).to_json()
    b = compile_case("hard", _rng(7)).to_json()
    c = compile_case("hard", _rng(8)).to_json()
    assert a == b
    assert a != c
    case = PackingCase.from_json(a)
    assert case.to_json() == a
    assert case.boxes[5].id == 5


def test_reverse_removal_puts_supports_first():
    # a 2-layer stack: boxes 0, 1 on the floor; box 2 rests on both; box 3 rests on 1
    fp = [(0, 0, 2, 4), (2, 0, 2, 4), (0, 0, 3, 4), (3, 0, 1, 4)]
    z = [0, 0, 2, 2]
    h = [2, 2, 1, 1]
    on = support_graph(fp, z, h)
    assert on == [{2}, {2, 3}, set(), set()]
    for seed in range(30):
        order = reverse_removal_order(on, _rng(seed))
        assert order.index(2) > max(order.index(0), order.index(1))
        assert order.index(3) > order.index(1)


def test_arrival_queue_buffer_one_is_expert_order():
    order = [4, 2, 0, 1, 3]
    assert arrival_queue(order, 1, _rng(0)) == order


def test_arrival_queue_interleaves_when_buffer_larger():
    order = list(range(12))
    queues = {tuple(arrival_queue(order, 4, _rng(s))) for s in range(20)}
    assert len(queues) > 1  # random interleaving, not a fixed queue
    for q in queues:
        case_like = list(q)
        placed: list[int] = []
        for nxt in order:
            assert nxt in [i for i in case_like if i not in placed][:4]
            placed.append(nxt)


def test_finer_resolution_keeps_physical_size():
    a = compile_case("easy", _rng(1), resolution=0.0125)
    assert a.container.resolution == 0.0125
    L, W, _ = a.container.size
    assert 16 <= L <= 28 and 16 <= W <= 28  # 8-14 reference cells of 2.5 cm = 16-28 cells of 1.25 cm
    assert check_case(a) == []


def test_bad_tier_and_resolution():
    with pytest.raises(ValueError, match="unknown packing tier 'extreme'"):
        compile_case("extreme", _rng(0))
    with pytest.raises(ValueError, match="resolution must be positive"):
        compile_case("easy", _rng(0), resolution=0.0)


def test_check_case_finds_broken_cases():
    case = compile_case("easy", _rng(2))
    d = case.to_json()
    # move the first expert box off its drop height
    d["expert"][0]["z"] = 1
    assert any("drop height" in p for p in check_case(PackingCase.from_json(d)))
    # push the expert's next box out of the buffer: put it at the end of the arrival queue
    d = case.to_json()
    first = d["expert"][0]["box_id"]
    d["arrival"] = [i for i in d["arrival"] if i != first] + [first]
    assert (
        len(d["arrival"]) > d["buffer_size"]
    )  # easy: 4-8 objects, buffer 3, so the moved box leaves the buffer
    assert any("not in the visible buffer" in p for p in check_case(PackingCase.from_json(d)))
    # overlapping placement
    c2 = PackingCase(
        "easy",
        Container((4, 4, 2)),
        [Box(0, (2, 2, 1)), Box(1, (2, 2, 1))],
        [0, 1],
        2,
        [Placement(0, 0, 0, 0, 0), Placement(1, 0, 1, 1, 0)],
    )
    probs = check_case(c2)
    assert probs == ["step 1: stored z 0 != drop height 1"]
