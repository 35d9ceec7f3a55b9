"""Floor plans, the grid navigation backend and start/goal sampling, against analytic answers."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import trimesh

from simkit.core.errors import InputError, SampleRejected, SimkitError
from simkit.scenes.nav.floorplan import (
    compile_floorplan,
    glb_bytes,
    plan_from_json,
    plan_mesh,
    walls_between,
)
from simkit.scenes.nav.meshes import load_scene_mesh
from simkit.sims.nav.base import MOVE_FORWARD, STOP, NavAgent, Unreachable
from simkit.sims.nav.episodes import follow_path, sample_start_goal, waypoint_targets
from simkit.sims.nav.grid import GridNavBackend, grid_backend_from_mesh, occupancy_from_mesh


def _boxes_mesh(floor, solids):
    """A floor slab ``(x0, y0, x1, y1)`` (top at z = 0) and solid boxes ``(x0, y0, x1, y1, height)``."""
    parts = []
    x0, y0, x1, y1 = floor
    parts.append(trimesh.creation.box(extents=(x1 - x0, y1 - y0, 0.05)))
    parts[-1].apply_translation(((x0 + x1) / 2, (y0 + y1) / 2, -0.025))
    for bx0, by0, bx1, by1, h in solids:
        m = trimesh.creation.box(extents=(bx1 - bx0, by1 - by0, h))
        m.apply_translation(((bx0 + bx1) / 2, (by0 + by1) / 2, h / 2))
        parts.append(m)
    return trimesh.util.concatenate(parts)


def test_empty_room_geodesic_is_euclidean():
    be = grid_backend_from_mesh(_boxes_mesh((0, 0, 6, 4), []), agent_radius=0.2)
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = be.sample_navigable_point(rng), be.sample_navigable_point(rng)
        assert be.geodesic_distance(a, b) == pytest.approx(np.linalg.norm(a - b), abs=1e-9)
        path = be.shortest_path(a, b)
        assert path.shape == (2, 2)


def test_l_corridor_geodesic_matches_tangent_arc_tangent():
    """L corridor of width 1 m around a solid block [1, 4] x [1, 4]; the agent (radius r) rounds the
    block's corner C = (1, 1) on a circle of radius r: d = 2 sqrt(|AC|^2 - r^2) + r * arc."""
    r = 0.18
    be = grid_backend_from_mesh(_boxes_mesh((0, 0, 4, 4), [(1, 1, 4.5, 4.5, 2.5)]), cell=0.05, agent_radius=r)
    a, b, c = np.array([3.5, 0.5]), np.array([0.5, 3.5]), np.array([1.0, 1.0])
    dist = np.linalg.norm(a - c)
    ang_a, ang_b = math.atan2(*(a - c)[::-1]), math.atan2(*(b - c)[::-1])
    swept = 2 * math.pi - abs(ang_b - ang_a)  # around the side away from the block
    arc = swept - 2 * math.acos(r / dist)
    analytic = 2 * math.sqrt(dist**2 - r**2) + r * arc
    geo = be.geodesic_distance(a, b)
    assert geo == pytest.approx(analytic, abs=0.05), (geo, analytic)  # one cell
    assert geo > np.linalg.norm(a - b) + 0.5  # the corner is in the way
    path = be.shortest_path(a, b)
    length = np.linalg.norm(np.diff(path, axis=0), axis=1).sum()
    assert length == pytest.approx(analytic, abs=0.05)
    assert all(be.line_of_sight(p, q) for p, q in itertools.pairwise(path))


def test_islands_unreachable_and_snap():
    # two rooms split by a full wall: no door
    be = grid_backend_from_mesh(_boxes_mesh((0, 0, 6, 3), [(2.95, -0.1, 3.05, 3.1, 2.5)]), agent_radius=0.18)
    a, b = np.array([1.0, 1.5]), np.array([5.0, 1.5])
    assert be.island(a) != be.island(b) and be.island(a) > 0
    with pytest.raises(Unreachable):
        be.geodesic_distance(a, b)
    rng = np.random.default_rng(1)
    for _ in range(10):
        sg = sample_start_goal(be, rng, geodesic_m=(0.5, 10.0))
        assert be.island(sg.start) == be.island(sg.goal)
    # a point 4 cm inside the wall's clearance margin snaps back onto the walkable area
    p = np.array([2.95 - 0.18 + 0.04, 1.5])
    assert not be.is_navigable(p)
    q = be.snap_point(p, max_dist_m=0.1)
    assert be.is_navigable(q) and np.linalg.norm(q - p) < 0.1
    with pytest.raises(SimkitError, match="from the walkable area"):
        be.snap_point(np.array([3.0, 1.5]), max_dist_m=0.1)
    with pytest.raises(SampleRejected):
        sample_start_goal(be, rng, geodesic_m=(40.0, 50.0), tries=20)


def test_sliding_along_a_wall():
    """Walking at 45 deg into the wall x = 3 ends sliding along it: x stops at the clearance limit,
    y keeps the motion's wall-parallel part."""
    r = 0.2
    be = grid_backend_from_mesh(_boxes_mesh((0, 0, 3, 6), []), agent_radius=r)
    agent = NavAgent(be, np.array([2.5, 1.0]), math.radians(45))
    for _ in range(8):
        agent.step(MOVE_FORWARD)
    assert agent.position[0] == pytest.approx(3.0 - r, abs=0.06)
    assert agent.position[1] > 1.0 + 8 * 0.25 * math.sin(math.radians(45)) - 0.05  # never loses y
    assert agent.step(MOVE_FORWARD) is True  # still pressing into the wall: collided
    assert be.is_navigable(agent.position)


def test_occupancy_from_mesh_agrees_with_the_plan_boxes():
    plan = compile_floorplan(np.random.default_rng(3))
    occ = occupancy_from_mesh(plan_mesh(plan), cell=0.05)
    ii, jj = np.meshgrid(np.arange(occ.free.shape[0]), np.arange(occ.free.shape[1]), indexing="ij")
    x = occ.origin[0] + (ii + 0.5) * occ.cell
    y = occ.origin[1] + (jj + 0.5) * occ.cell
    inside_box = np.zeros_like(occ.free)
    edge = np.zeros_like(occ.free)
    for b in plan.boxes:
        inside_box |= (x > b.lo[0]) & (x < b.hi[0]) & (y > b.lo[1]) & (y < b.hi[1])
        for k, v in ((0, x), (1, y)):
            edge |= (np.abs(v - b.lo[k]) < 0.03) | (np.abs(v - b.hi[k]) < 0.03)
    on_floor = (x > 0.0) & (x < plan.size[0]) & (y > 0.0) & (y < plan.size[1])
    want_free = on_floor & ~inside_box
    assert np.array_equal(occ.free[~edge], want_free[~edge])


def test_plans_are_connected_deterministic_and_round_trip_through_glb(tmp_path):
    for seed in range(8):
        plan = compile_floorplan(np.random.default_rng(seed))
        assert len(plan.doors) == len(plan.rooms) - 1
        be = grid_backend_from_mesh(plan_mesh(plan))
        centres = [be.snap_point(((x0 + x1) / 2, (y0 + y1) / 2), 2.0) for x0, y0, x1, y1 in plan.rooms]
        # every room reaches every other through the doorways (furniture never disconnects)
        islands = {be.island(c) for c in centres}
        assert len(islands) == 1, seed
        assert plan_from_json(plan.to_json()) == plan
    plan = compile_floorplan(np.random.default_rng(5))
    data = glb_bytes(plan)
    assert data == glb_bytes(compile_floorplan(np.random.default_rng(5)))
    (tmp_path / "s.glb").write_bytes(data)
    mesh = load_scene_mesh(tmp_path / "s.glb")
    assert np.allclose(mesh.bounds[:, 2], [-0.05, plan.wall_height], atol=1e-6)  # y-up undone
    a = occupancy_from_mesh(mesh)
    b = occupancy_from_mesh(plan_mesh(plan))
    assert a.free.shape == b.free.shape and (a.free != b.free).sum() <= 0.001 * a.free.size
    with pytest.raises(InputError, match="not found"):
        load_scene_mesh(tmp_path / "missing.glb")
    (tmp_path / "bad.glb").write_bytes(b"not a mesh")
    with pytest.raises(InputError, match=r"bad\.glb"):
        load_scene_mesh(tmp_path / "bad.glb")


def test_walls_between_counts_crossed_walls():
    plan = compile_floorplan(np.random.default_rng(2))
    x0, y0, x1, y1 = plan.rooms[0]
    mid = ((x0 + x1) / 2, (y0 + y1) / 2)
    assert walls_between(plan, mid, (mid[0] + 0.1, mid[1])) == 0
    assert walls_between(plan, mid, (-1.0, mid[1])) >= 1  # leaves the building through x = 0


def test_follower_reaches_goals_with_near_geodesic_length():
    for seed in range(4):
        rng = np.random.default_rng(seed)
        be = grid_backend_from_mesh(plan_mesh(compile_floorplan(rng)))
        sg = sample_start_goal(be, rng, min_ratio=1.1)
        assert sg.geodesic_m >= 1.1 * sg.euclidean_m
        poses, actions = follow_path(be, sg.start, sg.start_yaw, sg.goal)
        assert actions[-1] == STOP and (actions[:-1] != STOP).all()
        assert np.linalg.norm(poses[-1, :2] - sg.goal) <= 0.2
        length = np.linalg.norm(np.diff(poses[:, :2], axis=0), axis=1).sum()
        assert sg.geodesic_m - 0.25 <= length <= 1.15 * sg.geodesic_m


def test_waypoints_are_egocentric():
    # agent at (1, 2) facing +y walks straight: its waypoints lie straight ahead (x_fwd > 0, y_left = 0)
    poses = np.array([[1.0, 2.0 + 0.25 * k, math.pi / 2] for k in range(5)])
    wp, stop = waypoint_targets(poses, k=8)
    assert wp.shape == (5, 8, 3) and wp.dtype == np.float32
    np.testing.assert_allclose(wp[0, :4, 0], [0.25, 0.5, 0.75, 1.0], atol=1e-6)
    np.testing.assert_allclose(wp[0, :, 1:], 0.0, atol=1e-6)
    assert stop[0].tolist() == [False] * 4 + [True] * 4 and stop[-1].all()
    np.testing.assert_allclose(wp[0, 4:, 0], 1.0, atol=1e-6)  # past the end: the final pose (stay)
    # a turn of +90 deg with a step to the left afterwards
    turn = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, math.pi / 2], [0.0, 0.25, math.pi / 2]])
    wp, _ = waypoint_targets(turn, k=2)
    np.testing.assert_allclose(wp[0], [[0, 0, math.pi / 2], [0, 0.25, math.pi / 2]], atol=1e-6)


def test_grid_backend_refuses_an_unwalkable_scene():
    with pytest.raises(SimkitError, match="no navigable area"):
        GridNavBackend(occupancy_from_mesh(_boxes_mesh((0, 0, 0.3, 0.3), [])), agent_radius=0.2)


def test_habitat_backend_without_habitat_sim_says_how_to_install():
    from simkit.sims.nav import make_backend
    from simkit.sims.nav.habitat import habitat_available

    if habitat_available():  # pragma: no cover - only where habitat-sim is installed (conda)
        pytest.skip("habitat-sim is importable here; this test checks the message when it is not")
    with pytest.raises(SimkitError, match="conda install habitat-sim"):
        make_backend("habitat", navmesh="scene.navmesh")
    with pytest.raises(SimkitError, match="unknown navigation backend"):
        make_backend("bogus")
