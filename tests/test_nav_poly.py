"""The ``poly`` navigation backend against analytic geodesics on hand-built rooms.

Each room is a floor slab with solid boxes (2.5 m tall). The exact shortest path of a disc agent of
radius r is a chain of straight tangent segments and arcs of radius r round the convex corners it
passes (the corners of the obstacles, or the reflex corners of the floor's outline): ``wrapped_length``
computes it from the corners and the side the agent keeps them on. ``CASES`` is also read by
``tools/nav_geodesic_accuracy.py``, which measures the ``grid`` backend on the same rooms.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import trimesh

from simkit.sims.nav.base import Unreachable
from simkit.sims.nav.poly import N_GON, poly_backend_from_mesh

R = 0.18


def boxes_mesh(floors, solids):
    """Floor slabs ``(x0, y0, x1, y1)`` (top at z = 0) and solid boxes ``(x0, y0, x1, y1)`` 2.5 m tall."""
    parts = []
    for x0, y0, x1, y1 in floors:
        parts.append(trimesh.creation.box(extents=(x1 - x0, y1 - y0, 0.05)))
        parts[-1].apply_translation(((x0 + x1) / 2, (y0 + y1) / 2, -0.025))
    for bx0, by0, bx1, by1 in solids:
        m = trimesh.creation.box(extents=(bx1 - bx0, by1 - by0, 2.5))
        m.apply_translation(((bx0 + bx1) / 2, (by0 + by1) / 2, 1.25))
        parts.append(m)
    return trimesh.util.concatenate(parts)


def _rot(v, ang):
    c, s = math.cos(ang), math.sin(ang)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def wrapped_length(a, corners, b, r=R):
    """Length of the taut path from ``a`` to ``b`` round ``corners`` = [(centre (x, y), s)], s = +1 when
    the path turns counter-clockwise round the corner (corner on its left), -1 clockwise.

    A path point on the circle of corner c, travelling along unit u, is ``c - s r left(u)``; the
    tangent between two nodes (points have s = 0, centres D apart) travels along the u with
    ``cross(u, D) = r (s2 - s1)``; the arc at a corner is r times the turn from the arrival to the
    departure point in its sense.
    """
    nodes = [(np.asarray(a, float), 0)] + [(np.asarray(c, float), s) for c, s in corners]
    nodes.append((np.asarray(b, float), 0))
    total, touch = 0.0, []
    for (c1, s1), (c2, s2) in itertools.pairwise(nodes):
        d = c2 - c1
        u = _rot(d / np.linalg.norm(d), -math.asin(r * (s2 - s1) / np.linalg.norm(d)))
        left = np.array([-u[1], u[0]])
        t1, t2 = c1 - s1 * r * left, c2 - s2 * r * left
        total += float(np.dot(t2 - t1, u))
        touch.append((t1, t2))
    for k, (c, s) in enumerate(nodes[1:-1]):
        p_in, p_out = touch[k][1] - c, touch[k + 1][0] - c
        turn = s * (math.atan2(p_out[1], p_out[0]) - math.atan2(p_in[1], p_in[0]))
        total += r * (turn % (2 * math.pi))
    return total


# (name, floors, solids, [(a, b, corners)]): the wall at x = 3 has a 1 m gap y in [1.5, 2.5]; two
# 0.4 m pillars; a corridor 0.40 m wide (the agent is 0.36 m) through a 1 m thick wall; an L room
CASES = [
    (
        "wall with a 1 m gap",
        [(0, 0, 6, 4)],
        [(2.95, 0.0, 3.05, 1.5), (2.95, 2.5, 3.05, 4.0)],
        [
            ((1.0, 0.5), (5.0, 0.5), [((2.95, 1.5), -1), ((3.05, 1.5), -1)]),
            ((2.5, 3.6), (3.5, 0.4), [((2.95, 2.5), 1), ((3.05, 1.5), -1)]),
            ((2.0, 1.0), (4.5, 1.2), [((2.95, 1.5), -1), ((3.05, 1.5), -1)]),
            ((0.5, 3.5), (5.5, 3.5), [((2.95, 2.5), 1), ((3.05, 2.5), 1)]),
        ],
    ),
    (
        "pillars",
        [(0, 0, 6, 4)],
        [(1.8, 1.8, 2.2, 2.2), (3.8, 1.8, 4.2, 2.2)],
        [
            (
                (1.0, 2.0),
                (5.0, 2.0),
                [((1.8, 2.2), -1), ((2.2, 2.2), -1), ((3.8, 2.2), -1), ((4.2, 2.2), -1)],
            ),
            ((2.0, 1.0), (2.0, 3.0), [((2.2, 1.8), 1), ((2.2, 2.2), 1)]),
            ((1.2, 1.2), (4.8, 2.8), [((2.2, 1.8), 1), ((3.8, 2.2), -1)]),
        ],
    ),
    (
        "corridor one agent-width wide",
        [(0, 0, 6, 3)],
        [(2.5, 0.0, 3.5, 1.3), (2.5, 1.7, 3.5, 3.0)],
        [
            ((1.0, 1.5), (5.0, 1.5), []),
            ((1.0, 0.5), (5.0, 2.5), [((2.5, 1.3), -1), ((3.5, 1.7), 1)]),
            ((1.0, 2.7), (5.0, 2.7), [((2.5, 1.7), 1), ((3.5, 1.7), 1)]),
        ],
    ),
    (
        "L-shaped room",
        [(0, 0, 4, 1.2), (0, 0, 1.2, 4)],
        [],
        [
            ((3.5, 0.6), (0.6, 3.5), [((1.2, 1.2), -1)]),
            ((3.8, 0.3), (0.3, 3.8), [((1.2, 1.2), -1)]),
            ((3.5, 1.0), (1.0, 3.5), [((1.2, 1.2), -1)]),
        ],
    ),
]


@pytest.fixture(scope="module")
def rooms():
    return {name: poly_backend_from_mesh(boxes_mesh(f, s), agent_radius=R) for name, f, s, _ in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_geodesic_is_the_tangent_arc_path(rooms, case):
    name, _, _, queries = case
    be = rooms[name]
    for a, b, corners in queries:
        exact = wrapped_length(a, corners, b)
        geo = be.geodesic_distance(a, b)
        assert geo == pytest.approx(be.geodesic_distance(b, a), abs=1e-9)
        # the polygon circumscribing the disc makes the path at most r a (tan(pi/N)/(pi/N) - 1) longer
        # per arc of angle a (2.3e-4 m per quarter turn); never shorter than the exact path
        bound = len(corners) * R * math.pi * (math.tan(math.pi / N_GON) / (math.pi / N_GON) - 1) + 1e-9
        assert exact - 1e-9 <= geo <= exact + bound, (name, a, b, geo, exact)
        assert abs(geo - exact) <= 0.005 * exact
        path = be.shortest_path(a, b)
        assert np.linalg.norm(np.diff(path, axis=0), axis=1).sum() == pytest.approx(geo, abs=1e-9)
        assert all(be.line_of_sight(p, q) for p, q in itertools.pairwise(path))


def test_eroded_boundary_lies_at_the_agent_radius(rooms):
    """Every walkable boundary point is at least r from the free space's edge and at most
    r / cos(pi / N) (the circumscribing polygon's vertices); boundary edges along x or y (offsets of
    walls) are at r to 1e-6 m."""
    import shapely

    for name, be in rooms.items():
        edge = be.free.boundary
        straight = 0
        for poly in be.walk.geoms:
            for ring in [poly.exterior, *poly.interiors]:
                c = np.asarray(ring.coords)
                mids = 0.5 * (c[:-1] + c[1:])
                d_v = shapely.distance(edge, shapely.points(c))
                d_m = shapely.distance(edge, shapely.points(mids))
                assert d_v.min() >= R - 1e-6 and d_v.max() <= R / math.cos(math.pi / N_GON) + 1e-6, name
                assert d_m.min() >= R - 1e-6, name
                axis = np.isclose(c[:-1, 0], c[1:, 0]) | np.isclose(c[:-1, 1], c[1:, 1])
                axis &= np.linalg.norm(c[1:] - c[:-1], axis=1) > 0.05
                assert np.abs(d_m[axis] - R).max() <= 1e-6, name
                straight += int(axis.sum())
        assert straight >= 4, name


def test_corridor_width_decides_connectivity(rooms):
    be = rooms["corridor one agent-width wide"]
    assert be.is_navigable((3.0, 1.5)) and not be.is_navigable((3.0, 1.47))
    assert len(be.parts) == 1
    narrow = poly_backend_from_mesh(
        boxes_mesh([(0, 0, 6, 3)], [(2.5, 0.0, 3.5, 1.33), (2.5, 1.67, 3.5, 3.0)])
    )
    assert len(narrow.parts) == 2  # 0.34 m < 2 r: two islands
    with pytest.raises(Unreachable):
        narrow.geodesic_distance((1.0, 1.5), (5.0, 1.5))


def test_sliding_keeps_the_agent_on_the_walkable_area(rooms):
    be = rooms["wall with a 1 m gap"]
    end, collided = be.try_step((2.5, 0.8), (2.9, 1.0))  # into the wall's walkable edge x = 2.95 - r
    assert collided and be.is_navigable(end)
    assert end[0] == pytest.approx(2.95 - R, abs=1e-3) and end[1] > 0.95  # slid up along it
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = be.sample_navigable_point(rng)
        q = p + rng.uniform(-0.25, 0.25, size=2)
        assert be.is_navigable(be.try_step(p, q)[0])
    assert be.snap_point((2.9, 0.5)) == pytest.approx((2.95 - R, 0.5), abs=1e-9)


def test_a_plans_mesh_gives_the_plans_own_free_space_and_walkable_area():
    from simkit.scenes.nav.floorplan import compile_floorplan, plan_mesh
    from simkit.scenes.nav.walkable import erode, free_space_from_mesh, plan_free_space, plan_walkable

    for seed in range(5):
        plan = compile_floorplan(np.random.default_rng(seed))
        free, segments, floor_z = free_space_from_mesh(plan_mesh(plan))
        assert floor_z == pytest.approx(0.0, abs=1e-9)
        assert free.symmetric_difference(plan_free_space(plan)).area < 1e-9
        assert erode(free, R, segments).symmetric_difference(plan_walkable(plan, R)).area < 1e-9


def test_geodesics_equal_dijkstra_over_the_full_visibility_graph():
    """The reduced graph (bitangent edges only) and the entry rule lose no shortest path: every
    vertex pair and query point joined when they see each other, no tangent filter."""
    from scipy.sparse.csgraph import dijkstra

    from simkit.scenes.nav.floorplan import compile_floorplan, plan_mesh

    for seed in range(2):
        be = poly_backend_from_mesh(plan_mesh(compile_floorplan(np.random.default_rng(seed))))
        rng = np.random.default_rng(seed + 10)
        pts = np.array([be.sample_navigable_point(rng) for _ in range(8)])
        nodes = np.concatenate([be.X, pts])
        i, j = np.triu_indices(len(nodes), 1)
        vis = be._sees(nodes[i], nodes[j])
        w = np.zeros((len(nodes), len(nodes)))
        w[i[vis], j[vis]] = np.linalg.norm(nodes[j[vis]] - nodes[i[vis]], axis=1)
        full = dijkstra(w, directed=False, indices=np.arange(len(be.X), len(nodes)))[:, len(be.X) :]
        got = np.array([[be.geodesic_distance(p, q) for q in pts] for p in pts])
        np.testing.assert_allclose(got, full, atol=1e-9)
