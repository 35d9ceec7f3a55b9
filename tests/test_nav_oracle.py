"""The shortest-path follower: it stops exactly under the success test, reaches radii below the step
size, never reverses a turn in place and does not zig-zag at wall ends."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import trimesh

from simkit.scenes.nav.floorplan import compile_floorplan, plan_mesh
from simkit.sims.nav import make_backend
from simkit.sims.nav.base import MOVE_FORWARD, STOP, TURN_LEFT, TURN_RIGHT, NavAgent
from simkit.sims.nav.episodes import oracle_action, sample_start_goal
from simkit.sims.nav.grid import grid_backend_from_mesh


def _boxes_mesh(floor, solids):
    """A floor slab ``(x0, y0, x1, y1)`` (top at z = 0) and solid boxes ``(x0, y0, x1, y1, height)``."""
    x0, y0, x1, y1 = floor
    parts = [trimesh.creation.box(extents=(x1 - x0, y1 - y0, 0.05))]
    parts[-1].apply_translation(((x0 + x1) / 2, (y0 + y1) / 2, -0.025))
    for bx0, by0, bx1, by1, h in solids:
        m = trimesh.creation.box(extents=(bx1 - bx0, by1 - by0, h))
        m.apply_translation(((bx0 + bx1) / 2, (by0 + by1) / 2, h / 2))
        parts.append(m)
    return trimesh.util.concatenate(parts)


def _run(be, start, yaw, goal, radius, max_steps=500):
    agent = NavAgent(be, start, yaw)
    actions, dists = [], [be.geodesic_distance(start, goal)]
    for _ in range(max_steps):
        a = oracle_action(be, agent, goal, radius)
        actions.append(a)
        if a == STOP:
            break
        agent.step(a)
        dists.append(be.geodesic_distance(agent.position, goal))
    return actions, np.array(dists)


def _reversals(actions):
    """(turn reversals with no step between, turn reversals in all)."""
    turns = [(k, a) for k, a in enumerate(actions) if a in (TURN_LEFT, TURN_RIGHT)]
    pairs = [(k0, k1) for (k0, a0), (k1, a1) in itertools.pairwise(turns) if a0 != a1]
    return sum(k1 == k0 + 1 for k0, k1 in pairs), len(pairs)


def test_stop_is_the_success_test():
    be = grid_backend_from_mesh(_boxes_mesh((0, 0, 6, 4), []))
    agent = NavAgent(be, (3.0, 2.0), 0.0)
    goal = np.array([3.15, 2.0])
    assert oracle_action(be, agent, goal, 0.2) == STOP
    assert oracle_action(be, agent, goal, 0.1) != STOP


@pytest.mark.parametrize("radius", [0.1, 0.25])
def test_oracle_arrives_in_procedural_plans_without_reversing_in_place(radius):
    worst = 0.0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        be = make_backend("poly", mesh=plan_mesh(compile_floorplan(rng)))  # the default backend
        for _ in range(4):
            sg = sample_start_goal(be, rng, min_ratio=1.1)
            actions, dists = _run(be, sg.start, sg.start_yaw, sg.goal, radius)
            assert actions[-1] == STOP and STOP not in actions[:-1], (seed, sg)
            assert dists[-1] <= radius and dists[:-1].min() > radius  # stops at the first chance
            in_place, _ = _reversals(actions)
            assert in_place == 0
            length = 0.25 * actions.count(MOVE_FORWARD)  # an upper bound (slides are shorter)
            worst = max(worst, length / sg.geodesic_m)
    assert worst < 1.25


def test_no_zig_zag_round_a_wall_end():
    # a 6 x 4 m room split by a wall at x = 3 from y = 0 to y = 3: the way round is its end at y = 3
    be = grid_backend_from_mesh(_boxes_mesh((0, 0, 6, 4), [(2.95, 0.0, 3.05, 3.0, 2.5)]))
    goal = np.array([4.5, 1.0])
    for yaw in np.radians(np.arange(0, 360, 30)):
        for start in ((1.5, 1.0), (2.6, 2.8), (1.0, 3.5)):
            actions, dists = _run(be, np.array(start), yaw, goal, 0.1)
            assert actions[-1] == STOP and dists[-1] <= 0.1
            in_place, total = _reversals(actions)
            assert in_place == 0 and total <= 4, (start, yaw, total)
