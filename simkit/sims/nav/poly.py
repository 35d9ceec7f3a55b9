"""The ``poly`` navigation backend (the default): the walkable area as polygons, exact geodesics.

**Free space** (:func:`free_space_from_mesh`): the scene mesh cut at the agent's body band, in the
plane (x, y), metres, world frame (z up), as ``shapely`` polygons, by the rules of the ``grid``
backend's rasterisation (:mod:`simkit.sims.nav.grid`) without the grid: the *floor* is the union of
the upward-facing triangles (normal z > 0.9) within ``[floor - 5 cm, floor + max_climb]``; the
*obstacles* are the parts of the other non-vertical triangles whose height lies in the body band
``(floor + max_climb, floor + agent_height]`` (each triangle clipped to the band, then projected),
the faces enclosed by the footprints of vertical triangles crossing the band that are smaller than
``enclosed_m2`` (the inside of a solid taller than the agent, e.g. a wall box), and those footprint
segments themselves (a lone vertical panel is a wall of zero thickness). ``free = floor - obstacles``.

**Walkable area at the agent radius r** (Habitat's navmesh rule: the free space eroded by the
agent's radius; Savva et al., "Habitat", ICCV 2019, sec. 3): the free space minus the Minkowski sum
of its boundary (and of the vertical segments) with the regular ``N_GON``-gon *circumscribing* the
disc of radius r (apothem r, flat sides facing +-x and +-y), i.e. the erosion of the free space by
that polygon. Straight walls of any direction are offset by between r and ``r / cos(pi / N_GON)``
(exactly r for walls along x or y, the walls of the procedural plans); at a convex wall corner
the exact erosion's circular arc of radius r is replaced by the polygon's edges, which are tangent
to it: the walkable area is a subset of the exact one, and every walkable point is at least r from
every wall. Error bound (N = ``N_GON`` = 64): the boundary is at most
``r (sec(pi/N) - 1) = 2.2e-4 m`` (r = 0.18 m) farther from the wall than the exact one, and a
shortest path wrapping an arc of angle a is longer than the exact tangent-arc-tangent path by at
most ``r a (tan(pi/N) / (pi/N) - 1) <= 2.3e-4 m`` per quarter turn (a = pi/2).

**Geodesics** (:meth:`PolyNavBackend.geodesic_distance`, :meth:`PolyNavBackend.shortest_path`):
exact shortest paths in the polygonal walkable area. Shortest paths among polygons are polylines
whose inner vertices are reflex vertices of the domain (Lozano-Perez and Wesley, CACM 1979), and
only *bitangent* edges (the line through the edge leaves both ends' neighbours on one side) can
lie on one (the reduced visibility graph; de Berg et al., "Computational Geometry", 3rd ed.,
ch. 15). The graph over the reflex vertices is built once per scene (vectorised tangent test,
then ``shapely.covers`` of each candidate segment); for a goal, one Dijkstra run
(``scipy.sparse.csgraph.dijkstra``) from the goal (cached, 8 goals) gives every vertex's distance
to it, and the distance of a query point q is ``|q - g|`` when q sees the goal g, else the least
``|q - v| + d(v)`` over the vertices v tangent from q and visible from q (candidates are tested in
increasing order of that sum, so the first visible one is the answer).

**Sliding** (:meth:`PolyNavBackend.try_step`): sub-steps of :data:`SUBSTEP_M`; at a blocked sub-step
the agent advances to the boundary (bisection), then moves the rest of the sub-step projected onto
the direction of the boundary edge it stands on (the nearest of the 4 nearest edges that lets it go
forward), and goes on with that projection; it stops where the projection is blocked too (a
corner). A move is never longer than asked. Habitat's ``try_step`` slides along the navmesh
boundary the same way.

**Rounding**: the navigability and visibility tests use the walkable area grown by :data:`EPS_M`
(mitred), so points on its edge (path vertices, slid positions) count as inside; the tangent test
treats a point within :data:`TANGENT_TOL_M` of an edge line as on it, and a query that finds no
visible tangent vertex falls back to every visible vertex (the full visibility graph's rule).
"""

from __future__ import annotations

import numpy as np

from simkit.core.errors import SimkitError
from simkit.scenes.nav.walkable import (
    N_GON,
    boundary_segments,
    erode,
    free_space_from_mesh,
    import_shapely,
)
from simkit.sims.nav.base import NavBackend, Unreachable

__all__ = ["N_GON", "PolyNavBackend", "erode", "free_space_from_mesh", "poly_backend_from_mesh"]

#: sliding sub-step, metres
SUBSTEP_M = 0.025
#: slack of the visibility and navigability tests, metres (the walkable area grown by this much)
EPS_M = 1e-7


def _reflex_vertices(walk) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, prev, next), each (V, 2): the reflex vertices of the walkable area (interior angle > 180
    deg: a right turn along rings oriented with the area on their left) and their ring neighbours."""
    xs, ps, ns = [], [], []
    for poly in walk.geoms:
        for ring in [poly.exterior, *poly.interiors]:
            c = np.asarray(ring.coords)[:-1]
            prv, nxt = np.roll(c, 1, axis=0), np.roll(c, -1, axis=0)
            a, b = c - prv, nxt - c
            cross = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
            keep = cross < -1e-12 * np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
            xs.append(c[keep])
            ps.append(prv[keep])
            ns.append(nxt[keep])
    if not xs:
        return np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 2))
    return np.concatenate(xs), np.concatenate(ps), np.concatenate(ns)


def _edge_lines(x: np.ndarray, prv: np.ndarray, nxt: np.ndarray) -> tuple[np.ndarray, ...]:
    """The lines of each vertex's two ring edges as ``(normal (V, 2), offset (V,))`` pairs, unit normals:
    the signed distance of a point w from the line of vertex u's edge to ``prv`` is ``w @ n_u - c_u``."""
    out = []
    for e in (prv - x, nxt - x):
        nrm = np.stack([e[:, 1], -e[:, 0]], axis=1) / np.maximum(np.linalg.norm(e, axis=1), 1e-300)[:, None]
        out += [nrm, (nrm * x).sum(1)]
    return tuple(out)


#: slack of the tangent test, metres: a point this close to one of a vertex's edge lines counts as on
#: it (10x EPS_M: points up to EPS_M outside the walkable area are navigable)
TANGENT_TOL_M = 1e-6


class PolyNavBackend(NavBackend):
    """The ``poly`` backend over a walkable area (module docstring for the algorithms).

    Args:
        free: the free space, a shapely (Multi)Polygon (x, y metres, world frame).
        agent_radius: metres. segments: (S, 2, 2) zero-thickness walls (vertical panels).
        floor_z: the floor height (m), for reference.

    Raises:
        SimkitError: nothing is walkable at this radius.
    """

    name = "poly"

    def __init__(
        self, free, agent_radius: float = 0.18, segments: np.ndarray | None = None, floor_z: float = 0.0
    ):
        shp = import_shapely()
        self.agent_radius = float(agent_radius)
        self.floor_z = float(floor_z)
        self.free = free
        self.walk = erode(free, self.agent_radius, segments)
        if self.walk.is_empty:
            raise SimkitError(f"no navigable area for an agent of radius {agent_radius} m")
        self.parts = list(self.walk.geoms)
        # the tests' slack: grown by EPS_M with mitred joins (no new vertices)
        self._tol = self.walk.buffer(EPS_M, join_style="mitre")
        self._parts_tol = [p.buffer(EPS_M, join_style="mitre") for p in self.parts]
        self._free_tol = free.buffer(EPS_M, join_style="mitre")
        for g in (self._tol, self._free_tol, *self._parts_tol):
            shp.prepare(g)
        self._edges = boundary_segments(self.walk)
        self.X, self._prev, self._next = _reflex_vertices(self.walk)
        self._lines = _edge_lines(self.X, self._prev, self._next)
        self._graph = self._build_graph()
        self._fields: dict[tuple[float, float], tuple[np.ndarray, np.ndarray]] = {}

    # -- visibility ---------------------------------------------------------------------------
    def _sees(self, a: np.ndarray, b: np.ndarray, geom=None) -> np.ndarray:
        """Whether each segment a-b ((..., 2) arrays) lies in the walkable area (with slack)."""
        shp = import_shapely()
        a, b = np.asarray(a, float), np.asarray(b, float)
        coords = np.empty((*np.broadcast_shapes(a.shape, b.shape)[:-1], 2, 2))
        coords[..., 0, :], coords[..., 1, :] = a, b
        lines = shp.linestrings(coords)
        return np.asarray(shp.covers(self._tol if geom is None else geom, lines), dtype=bool)

    def line_of_sight(self, a, b, body: bool = True) -> bool:
        """True when the segment a-b lies in the walkable area (``body=False``: in the free space, the
        segment a point would see, ignoring the agent's radius)."""
        a, b = np.asarray(a, float)[:2], np.asarray(b, float)[:2]
        return bool(self._sees(a, b, None if body else self._free_tol))

    def _tangent_from(self, q: np.ndarray) -> np.ndarray:
        """(Q, V) bool for points q (Q, 2): the line from q through vertex v leaves both ring neighbours
        of v on one side (q lies on one side of both edge lines of v, or on one), so a shortest path may
        pass v coming from q (or going to it)."""
        n1, c1, n2, c2 = self._lines
        d1, d2 = q @ n1.T - c1, q @ n2.T - c2
        return (d1 * d2 >= 0.0) | (np.abs(d1) <= TANGENT_TOL_M) | (np.abs(d2) <= TANGENT_TOL_M)

    def _build_graph(self):
        """The reduced visibility graph: CSR (V, V) of edge lengths between bitangent vertex pairs that
        see each other."""
        from scipy.sparse import coo_matrix

        X, V = self.X, len(self.X)
        tan = self._tangent_from(X)  # [w, u]: tangent at u towards w
        i, j = np.nonzero(np.triu(tan & tan.T, k=1))
        vis = self._sees(X[i], X[j])
        i, j = i[vis], j[vis]
        w = np.linalg.norm(X[j] - X[i], axis=1)
        return coo_matrix((w, (i, j)), shape=(V, V)).tocsr()

    def _entry(self, q: np.ndarray, dist: np.ndarray) -> tuple[float, int]:
        """(least ``|q - v| + dist[v]`` over the vertices v tangent from and visible from q, that v);
        (inf, -1) when none."""
        X = self.X
        if len(X) == 0:
            return float("inf"), -1
        tot = np.linalg.norm(X - q, axis=1) + dist
        finite = np.isfinite(tot)
        tangent = finite & self._tangent_from(q[None])[0]
        # the tangent vertices first; then, against rounding, every vertex (the full visibility graph's
        # rule, never shorter than the true distance)
        for cand in (np.flatnonzero(tangent), np.flatnonzero(finite & ~tangent)):
            order = cand[np.argsort(tot[cand], kind="stable")]
            for start in range(0, len(order), 8):
                chunk = order[start : start + 8]
                vis = self._sees(q[None], X[chunk])
                if vis.any():
                    k = int(chunk[int(np.argmax(vis))])
                    return float(tot[k]), k
        return float("inf"), -1

    def _field(self, goal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(distance (V,) m to ``goal``, next vertex (V,) towards it: V = the goal itself) over the
        graph, one Dijkstra run (cached, 8 goals)."""
        key = (float(goal[0]), float(goal[1]))
        if key not in self._fields:
            from scipy.sparse import coo_matrix, hstack, vstack
            from scipy.sparse.csgraph import dijkstra

            V = len(self.X)
            ok = np.flatnonzero(self._tangent_from(goal[None])[0])
            ok = ok[self._sees(goal[None], self.X[ok])] if ok.size else ok
            w = np.linalg.norm(self.X[ok] - goal, axis=1)
            row = coo_matrix((w, (np.zeros(ok.size, int), ok)), shape=(1, V))
            g = vstack([hstack([self._graph, coo_matrix((V, 1))]), hstack([row, coo_matrix((1, 1))])]).tocsr()
            dist, pred = dijkstra(g, directed=False, indices=V, return_predecessors=True)
            pred = pred[:V]
            if len(self._fields) >= 8:
                self._fields.pop(next(iter(self._fields)))
            self._fields[key] = (dist[:V], pred)
        return self._fields[key]

    # -- NavBackend ---------------------------------------------------------------------------
    def is_navigable(self, p) -> bool:
        p = np.asarray(p, float)
        return bool(import_shapely().intersects_xy(self._tol, p[0], p[1]))

    def snap_point(self, p, max_dist_m: float = 0.5) -> np.ndarray:
        shp = import_shapely()
        p = np.asarray(p, dtype=np.float64)[:2]
        if self.is_navigable(p):
            return p.copy()
        q = np.asarray(shp.shortest_line(self.walk, shp.Point(p)).coords[0])
        if np.linalg.norm(q - p) > max_dist_m:
            raise SimkitError(
                f"point ({p[0]:.2f}, {p[1]:.2f}) m is {np.linalg.norm(q - p):.2f} m from the walkable area "
                f"(more than {max_dist_m} m)"
            )
        return q

    def island(self, p) -> int:
        shp = import_shapely()
        p = np.asarray(p, float)
        for k, part in enumerate(self._parts_tol):
            if shp.intersects_xy(part, p[0], p[1]):
                return k
        return -1

    def _check_reachable(self, a, b) -> None:
        ia, ib = self.island(a), self.island(b)
        if ia < 0 or ib < 0 or ia != ib:
            raise Unreachable(
                f"no walkable path from ({a[0]:.2f}, {a[1]:.2f}) to ({b[0]:.2f}, {b[1]:.2f}) m "
                f"(islands {ia} and {ib}; -1 = not navigable)"
            )

    def _route(self, a: np.ndarray, b: np.ndarray) -> tuple[float, list[int]]:
        """(geodesic distance, vertex indices of the path's inner vertices) from ``a`` to ``b``."""
        if self._sees(a, b):
            return float(np.linalg.norm(b - a)), []
        dist, pred = self._field(b)
        total, k = self._entry(a, dist)
        if k < 0:
            self._check_reachable(a, b)
            raise Unreachable(f"no walkable path from ({a[0]:.2f}, {a[1]:.2f}) to ({b[0]:.2f}, {b[1]:.2f}) m")
        chain, V = [k], len(self.X)
        while pred[chain[-1]] != V:
            chain.append(int(pred[chain[-1]]))
        return total, chain

    def geodesic_distance(self, a, b) -> float:
        """Exact shortest walkable distance (m) in the polygonal walkable area (module docstring)."""
        a, b = np.asarray(a, float)[:2], np.asarray(b, float)[:2]
        return self._route(a, b)[0]

    def shortest_path(self, a, b) -> np.ndarray:
        a, b = np.asarray(a, float)[:2], np.asarray(b, float)[:2]
        self._check_reachable(a, b)
        _, chain = self._route(a, b)
        return np.concatenate([a[None], self.X[chain].reshape(-1, 2), b[None]])

    def sample_navigable_point(self, rng: np.random.Generator, island: int | None = None) -> np.ndarray:
        """Uniform over the walkable area (rejection sampling in its bounding box, batches of 64)."""
        shp = import_shapely()
        if island is not None and not 0 <= island < len(self.parts):
            raise SimkitError(f"island {island} does not exist (the walkable area has {len(self.parts)})")
        geom = self.walk if island is None else self.parts[island]
        x0, y0, x1, y1 = geom.bounds
        target = self._tol if island is None else self._parts_tol[island]
        for _ in range(1000):
            pts = rng.uniform((x0, y0), (x1, y1), size=(64, 2))
            inside = shp.contains_xy(target, pts[:, 0], pts[:, 1])
            if inside.any():
                return pts[int(np.argmax(inside))]
        raise SimkitError(f"no navigable point found on island {island}")

    def try_step(self, a, b) -> tuple[np.ndarray, bool]:
        cur = np.asarray(a, dtype=np.float64)[:2].copy()
        b = np.asarray(b, dtype=np.float64)[:2]
        total = b - cur
        n = max(1, int(np.ceil(np.linalg.norm(total) / SUBSTEP_M)))
        step, collided = total / n, False
        pts = cur + np.arange(1, n + 1)[:, None] * step
        free = import_shapely().intersects_xy(self._tol, pts[:, 0], pts[:, 1])
        if free.all():  # the usual case: no wall on the way (one vectorised test)
            return pts[-1], bool(np.linalg.norm(pts[-1] - b) > 1e-6)
        k = int(np.argmin(free))  # the first blocked sub-step; the ones before it are free
        cur = pts[k - 1] if k else cur
        for _ in range(n - k):
            if self.is_navigable(cur + step):
                cur = cur + step
                continue
            collided = True
            cur, frac = self._advance(cur, step)
            slide = self._slide(cur, step)
            if slide is None:
                break
            cur, step = cur + (1.0 - frac) * slide, slide  # this sub-step's rest, then whole ones
        return cur, collided or bool(np.linalg.norm(cur - b) > 1e-6)

    def _slide(self, cur: np.ndarray, step: np.ndarray) -> np.ndarray | None:
        """``step`` projected onto the direction of one of the 4 boundary edges nearest ``cur`` (the
        agent stands on the boundary), nearest first: the first projection that goes forward and
        stays navigable; None when none does (a corner)."""
        a, b = self._edges[:, 0], self._edges[:, 1]
        ab = b - a
        t = np.clip(((cur - a) * ab).sum(1) / np.maximum((ab * ab).sum(1), 1e-18), 0.0, 1.0)
        near = np.argsort(np.linalg.norm(a + t[:, None] * ab - cur, axis=1))[:4]
        for k in near:
            u = ab[k] / max(float(np.linalg.norm(ab[k])), 1e-18)
            s = float(step @ u) * u
            if float(s @ step) > 1e-12 and self.is_navigable(cur + s):
                return s
        return None

    def _advance(self, cur: np.ndarray, step: np.ndarray) -> tuple[np.ndarray, float]:
        """(``cur`` moved along ``step`` as far as stays navigable, the fraction of ``step`` taken);
        bisection, 12 halvings."""
        lo, hi = 0.0, 1.0
        for _ in range(12):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if self.is_navigable(cur + mid * step) else (lo, mid)
        return cur + lo * step, lo


def poly_backend_from_mesh(mesh, agent_radius: float = 0.18, **kw) -> PolyNavBackend:
    """:func:`free_space_from_mesh` + :class:`PolyNavBackend` in one call (``kw``: floor_z,
    agent_height, max_climb, enclosed_m2)."""
    free, segs, floor_z = free_space_from_mesh(mesh, **kw)
    return PolyNavBackend(free, agent_radius=agent_radius, segments=segs, floor_z=floor_z)
