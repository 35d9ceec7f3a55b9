"""Floor plans from the geometry alone: no wall enters a doorway, one walkable island, over many seeds."""

from __future__ import annotations

import dataclasses

import numpy as np

from simkit.scenes.nav.floorplan import (
    Box,
    compile_floorplan,
    door_cuts,
    plan_islands,
    plan_problems,
)


def test_no_wall_enters_a_doorway_in_5000_plans():
    cuts = [(s, c) for s in range(5000) for c in door_cuts(compile_floorplan(np.random.default_rng(s)))]
    assert cuts == []


def test_plans_are_one_island_at_the_agent_radius_in_2000_plans():
    # the exact walkable polygons (plan_walkable), about 2 ms of CPU a plan
    counts = [plan_islands(compile_floorplan(np.random.default_rng(s))) for s in range(2000)]
    assert set(counts) == {1}


def test_splits_avoid_the_doorways_of_the_walls_they_meet():
    # every interior wall end lies on an earlier wall at least one thickness outside its doorway
    for s in range(300):
        plan = compile_floorplan(np.random.default_rng(s))
        for n, d in enumerate(plan.doors):
            for e in plan.doors[n + 1 :]:
                if e["axis"] != d["axis"] and d["lo"] - 0.1 < e["at"] < d["hi"] + 0.1:
                    lo, hi = _span_of_wall(plan, e)
                    assert not (lo - 1e-6 <= d["at"] <= hi + 1e-6), (s, d, e)


def _span_of_wall(plan, door):
    """Extent along the wall of the wall boxes on the line of ``door`` (its wall's two ends)."""
    k, j = (0, 1) if door["axis"] == "x" else (1, 0)
    boxes = [b for b in plan.boxes if b.kind == "wall" and abs((b.lo[k] + b.hi[k]) / 2 - door["at"]) < 1e-3]
    return min(b.lo[j] for b in boxes), max(b.hi[j] for b in boxes)


def test_the_checks_catch_a_wall_across_a_doorway():
    plan = compile_floorplan(np.random.default_rng(7))
    d = plan.doors[0]
    mid = (d["lo"] + d["hi"]) / 2
    if d["axis"] == "x":  # a wall lying across the doorway's middle, from wall to wall of both rooms
        blocker = Box("wall", (d["at"] - 0.05, mid - 0.05, 0.0), (d["at"] + 0.05, d["hi"] + 1.0, 2.5))
        full = Box("wall", (d["at"] - 0.05, d["lo"] - 0.01, 0.0), (d["at"] + 0.05, d["hi"] + 0.01, 2.5))
    else:
        blocker = Box("wall", (mid - 0.05, d["at"] - 0.05, 0.0), (d["hi"] + 1.0, d["at"] + 0.05, 2.5))
        full = Box("wall", (d["lo"] - 0.01, d["at"] - 0.05, 0.0), (d["hi"] + 0.01, d["at"] + 0.05, 2.5))
    cut = dataclasses.replace(plan, boxes=plan.boxes + (blocker,))
    assert len(door_cuts(cut)) == 1 and "doorway 0" in door_cuts(cut)[0]
    closed = dataclasses.replace(plan, boxes=plan.boxes + (full,))
    assert plan_islands(closed) == 2
    assert len(plan_problems(closed)) == 2 and plan_problems(plan) == []
