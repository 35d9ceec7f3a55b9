"""The built-in ``grid`` navigation backend: occupancy from a mesh, geodesics with scipy's Dijkstra.

**Walkable area** (:func:`occupancy_from_mesh`, a height-field rasterisation in the spirit of
Recast's voxelisation): on a grid of ``cell`` metres, a cell is *floor* when an upward-facing
triangle (normal z > 0.9) within ``[floor - 5 cm, floor + max_climb]`` covers its centre, and
*blocked* when geometry lies in the agent's body band ``(floor + max_climb, floor + agent_height]``
over it (non-vertical triangles: by their height at the cell centre; vertical triangles: their
footprint segment; regions under 1.5 m^2 enclosed by vertical faces: the inside of a solid taller
than the agent). ``free = floor & ~blocked``; the agent's centre may stand on a free cell whose
clearance, ``(EDT - 0.5) * cell`` (Euclidean distance transform to the nearest non-free cell
centre, minus half a cell to reach its edge), is at least the agent radius. Islands are the
8-connected components of the navigable cells.

**Shortest paths and geodesic distance**: Dijkstra (``scipy.sparse.csgraph.dijkstra``, one run per
goal, cached) over the navigable cells with a 32-neighbourhood (moves (1,0), (1,1), (2,1), (3,1),
(3,2) and their symmetric ones, each allowed only when every cell its segment crosses is
navigable; the grid metric over-estimates a straight free-space distance by at most 1.3 %, at
9.2 deg off a move direction, ``cos t + (sqrt 10 - 3) sin t``, against 8.2 % for 8-neighbour
grids). The predecessor chain from the start cell to the goal cell, with the exact start and goal
as end points, is string-pulled (each vertex joined to the last later vertex it sees), which
removes the grid metric's zig-zag; the **geodesic distance is the length of that polyline**, and
two points that see each other get their exact Euclidean distance. Accuracy: the walkable area's
edge is resolved to one cell, so a path that hugs a corner is within about one cell of the
continuous answer (tested on an L-shaped corridor against the tangent-arc-tangent value).

**Sliding** (:meth:`GridNavBackend.try_step`): the move is cut into sub-steps of half a cell; a
sub-step that would leave the navigable area is projected onto the wall (its component along the
inward wall normal, from the clearance gradient, removed) and taken when that stays navigable,
otherwise the agent stops there. Habitat's ``try_step`` on a navmesh does the same (the agent
slides along the boundary, and ``collided`` is set when the end differs from the target; Savva
et al., "Habitat", ICCV 2019, and habitat-sim ``PathFinder.try_step``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.core.errors import InputError, SimkitError
from simkit.sims.nav.base import NavBackend, Unreachable

#: the 16 move directions of the half 32-neighbourhood (the other 16 are their negatives)
MOVES = (
    (1, 0), (0, 1), (1, 1), (1, -1), (2, 1), (1, 2), (2, -1), (1, -2),
    (3, 1), (1, 3), (3, -1), (1, -3), (3, 2), (2, 3), (3, -2), (2, -3),
)  # fmt: skip


@dataclass
class Occupancy:
    """A walkable-area grid.

    Attributes:
        free: bool (NX, NY), cell (i, j) covers x in ``origin[0] + [i, i+1] * cell`` (j likewise for y).
        origin: world (x, y) of the grid's corner, metres.
        cell: cell size, metres.
        floor_z: floor height, metres.
    """

    free: np.ndarray
    origin: tuple[float, float]
    cell: float
    floor_z: float = 0.0


def _fill_triangles(mask, tris, origin, cell, zband=None):
    """Mark cells whose centre lies inside a triangle's xy projection (and, with ``zband``, whose
    triangle height at the centre lies in (lo, hi])."""
    nx, ny = mask.shape
    for t in tris:
        lo = np.floor((t[:, :2].min(0) - origin) / cell - 0.5).astype(int)
        hi = np.ceil((t[:, :2].max(0) - origin) / cell - 0.5).astype(int)
        lo, hi = np.maximum(lo, 0), np.minimum(hi, [nx - 1, ny - 1])
        if np.any(hi < lo):
            continue
        ii, jj = np.meshgrid(np.arange(lo[0], hi[0] + 1), np.arange(lo[1], hi[1] + 1), indexing="ij")
        px, py = origin[0] + (ii + 0.5) * cell, origin[1] + (jj + 0.5) * cell
        (x0, y0, z0), (x1, y1, z1), (x2, y2, z2) = t
        det = (y1 - y2) * (x0 - x2) + (x2 - x1) * (y0 - y2)
        if abs(det) < 1e-12:
            continue
        a = ((y1 - y2) * (px - x2) + (x2 - x1) * (py - y2)) / det
        b = ((y2 - y0) * (px - x2) + (x0 - x2) * (py - y2)) / det
        c = 1 - a - b
        inside = (a >= -1e-9) & (b >= -1e-9) & (c >= -1e-9)
        if zband is not None:
            z = a * z0 + b * z1 + c * z2
            inside &= (z > zband[0]) & (z <= zband[1])
        mask[ii[inside], jj[inside]] = True


def _mark_segments(mask, tris, origin, cell):
    """Mark the cells under the xy footprint (a segment) of vertical triangles."""
    nx, ny = mask.shape
    for t in tris:
        xy = t[:, :2]
        d = xy[:, None, :] - xy[None, :, :]
        i, j = np.unravel_index(np.argmax((d**2).sum(-1)), (3, 3))
        a, b = xy[i], xy[j]
        n = max(2, int(np.ceil(np.linalg.norm(b - a) / (cell / 4))) + 1)
        pts = a + np.linspace(0, 1, n)[:, None] * (b - a)
        ij = np.floor((pts - origin) / cell).astype(int)
        ok = (ij[:, 0] >= 0) & (ij[:, 0] < nx) & (ij[:, 1] >= 0) & (ij[:, 1] < ny)
        mask[ij[ok, 0], ij[ok, 1]] = True


def _enclosed(walls: np.ndarray, max_cells: float) -> np.ndarray:
    """Regions fully enclosed by vertical faces and smaller than ``max_cells``: the insides of solids
    taller than the agent (whose tops are above the body band), e.g. a wall box between its faces."""
    from scipy import ndimage

    lab, n = ndimage.label(~walls)
    if n == 0:
        return np.zeros_like(walls)
    sizes = np.bincount(lab.ravel())
    border = np.unique(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]))
    small = sizes < max_cells
    small[0] = False
    small[border] = False
    return small[lab]


def occupancy_from_mesh(
    mesh,
    cell: float = 0.05,
    floor_z: float | None = None,
    agent_height: float = 1.5,
    max_climb: float = 0.2,
    enclosed_m2: float = 1.5,
) -> Occupancy:
    """Rasterise a z-up scene mesh into an :class:`Occupancy` (module docstring for the rules).

    Args:
        mesh: ``trimesh.Trimesh`` in metres, z up.
        cell: grid cell size (m).
        floor_z: floor height (m); None: :func:`simkit.scenes.nav.meshes.floor_height`-style estimate
            (the height with the most upward-facing area).
        agent_height, max_climb: the agent's body band above the floor (m).
        enclosed_m2: regions enclosed by vertical faces and smaller than this (m^2) are blocked (the
            inside of a tall solid, whose top lies above the band, is not rasterised otherwise).

    Raises:
        InputError: no floor found at ``floor_z``.
    """
    tri = np.asarray(mesh.triangles, dtype=np.float64)
    nz = np.asarray(mesh.face_normals)[:, 2]
    if floor_z is None:
        up = nz > 0.9
        if not np.any(up):
            raise InputError(None, "the scene mesh has no upward-facing surface to walk on")
        zc = tri[up, :, 2].mean(1)
        bins = np.floor(zc / 0.05).astype(np.int64)
        uniq, inv = np.unique(bins, return_inverse=True)
        best = np.argmax(np.bincount(inv, weights=np.asarray(mesh.area_faces)[up]))
        floor_z = float(np.median(zc[inv == best]))
    lo = tri[:, :, :2].reshape(-1, 2).min(0) - cell
    hi = tri[:, :, :2].reshape(-1, 2).max(0) + cell
    origin = (float(lo[0]), float(lo[1]))
    shape = tuple(int(v) for v in np.ceil((hi - lo) / cell))
    floor = np.zeros(shape, bool)
    blocked = np.zeros(shape, bool)
    zmin, zmax = tri[:, :, 2].min(1), tri[:, :, 2].max(1)
    is_floor = (nz > 0.9) & (zmin >= floor_z - 0.05) & (zmax <= floor_z + max_climb)
    _fill_triangles(floor, tri[is_floor], np.asarray(origin), cell)
    band = (floor_z + max_climb, floor_z + agent_height)
    overlaps = (zmax > band[0]) & (zmin <= band[1])
    vertical = np.abs(nz) <= 0.05
    _fill_triangles(blocked, tri[overlaps & ~vertical], np.asarray(origin), cell, zband=band)
    walls = np.zeros(shape, bool)
    _mark_segments(walls, tri[overlaps & vertical], np.asarray(origin), cell)
    blocked |= walls | _enclosed(walls, enclosed_m2 / cell**2)
    if not floor.any():
        raise InputError(None, f"no floor found at height {floor_z:.2f} m in the scene mesh")
    return Occupancy(floor & ~blocked, origin, float(cell), float(floor_z))


def _move_offsets(di: int, dj: int) -> np.ndarray:
    """Cells crossed by the segment from cell (0, 0) to (di, dj) (dense sampling), (M, 2) int."""
    n = 8 * max(abs(di), abs(dj)) + 1
    t = np.linspace(0.0, 1.0, n)[:, None]
    pts = 0.5 + t * np.array([di, dj], float)
    return np.unique(np.floor(pts + np.array([[1e-9, 1e-9]])).astype(int), axis=0)


class GridNavBackend(NavBackend):
    """The ``grid`` backend over an :class:`Occupancy` (module docstring for the algorithms).

    Args:
        occ: the walkable-area grid.
        agent_radius: metres (the agent is a cylinder of this radius).

    Raises:
        SimkitError: nothing is navigable at this radius.
    """

    name = "grid"

    def __init__(self, occ: Occupancy, agent_radius: float = 0.18):
        from scipy import ndimage

        self.occ = occ
        self.cell = occ.cell
        self.origin = np.asarray(occ.origin, dtype=np.float64)
        self.agent_radius = float(agent_radius)
        edt = ndimage.distance_transform_edt(occ.free)
        self.clearance = (edt - 0.5) * self.cell - self.agent_radius  # metres beyond the radius
        self.nav = occ.free & (self.clearance >= 0.0)
        if not self.nav.any():
            raise SimkitError(f"no navigable area for an agent of radius {agent_radius} m")
        self.islands, self.n_islands = ndimage.label(self.nav, structure=np.ones((3, 3)))
        self.island_sizes = np.bincount(self.islands.ravel())
        self._grad = np.gradient(self.clearance)
        _, self._nearest = ndimage.distance_transform_edt(~self.nav, return_indices=True)
        self._graph = self._build_graph()
        self._fields: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    # -- grid helpers ----------------------------------------------------------------------
    def cell_of(self, p) -> tuple[int, int]:
        """(i, j) cell index of world point ``p`` (may lie outside the grid)."""
        q = np.floor((np.asarray(p, dtype=np.float64)[:2] - self.origin) / self.cell).astype(int)
        return int(q[0]), int(q[1])

    def cell_centre(self, ij) -> np.ndarray:
        """World (x, y) of cell centres, float64 (..., 2)."""
        return self.origin + (np.asarray(ij, dtype=np.float64) + 0.5) * self.cell

    def _nav_at(self, pts: np.ndarray, grid: np.ndarray | None = None) -> np.ndarray:
        grid = self.nav if grid is None else grid
        ij = np.floor((pts - self.origin) / self.cell).astype(int)
        nx, ny = grid.shape
        ok = (ij[..., 0] >= 0) & (ij[..., 0] < nx) & (ij[..., 1] >= 0) & (ij[..., 1] < ny)
        out = np.zeros(ok.shape, bool)
        out[ok] = grid[ij[ok][:, 0], ij[ok][:, 1]]
        return out

    def line_of_sight(self, a, b, body: bool = True) -> bool:
        """True when every point of segment a-b (sampled every cell/4) is navigable (``body=False``:
        only free of obstacles, i.e. the segment a point would see, ignoring the agent's radius)."""
        a, b = np.asarray(a, float)[:2], np.asarray(b, float)[:2]
        n = max(2, int(np.ceil(np.linalg.norm(b - a) / (self.cell / 4))) + 1)
        grid = self.nav if body else self.occ.free
        return bool(self._nav_at(a + np.linspace(0, 1, n)[:, None] * (b - a), grid).all())

    def _build_graph(self):
        from scipy.sparse import coo_matrix

        nx, ny = self.nav.shape
        idx = np.arange(nx * ny).reshape(nx, ny)
        rows, cols, w = [], [], []
        for di, dj in MOVES:
            ok = self.nav.copy()
            for oi, oj in _move_offsets(di, dj):  # every crossed cell navigable (shifted masks)
                sh = np.zeros_like(ok)
                i0, i1 = max(0, -oi), min(nx, nx - oi)
                j0, j1 = max(0, -oj), min(ny, ny - oj)
                sh[i0:i1, j0:j1] = self.nav[i0 + oi : i1 + oi, j0 + oj : j1 + oj]
                ok &= sh
            src = idx[ok]
            ii, jj = np.nonzero(ok)
            rows.append(src)
            cols.append(idx[ii + di, jj + dj])
            w.append(np.full(src.size, self.cell * np.hypot(di, dj)))
        r, c, ww = np.concatenate(rows), np.concatenate(cols), np.concatenate(w)
        return coo_matrix((ww, (r, c)), shape=(nx * ny, nx * ny)).tocsr()

    def _field(self, ij: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """(distance (NX*NY,) m, predecessors) of Dijkstra from cell ``ij`` (cached, 8 goals)."""
        if ij not in self._fields:
            from scipy.sparse.csgraph import dijkstra

            src = ij[0] * self.nav.shape[1] + ij[1]
            d, pred = dijkstra(self._graph, directed=False, indices=src, return_predecessors=True)
            if len(self._fields) >= 8:
                self._fields.pop(next(iter(self._fields)))
            self._fields[ij] = (d, pred)
        return self._fields[ij]

    # -- NavBackend ------------------------------------------------------------------------
    def is_navigable(self, p) -> bool:
        return bool(self._nav_at(np.asarray(p, float)[None, :2])[0])

    def snap_point(self, p, max_dist_m: float = 0.5) -> np.ndarray:
        p = np.asarray(p, dtype=np.float64)[:2]
        if self.is_navigable(p):
            return p.copy()
        i, j = np.clip(self.cell_of(p), 0, np.array(self.nav.shape) - 1)
        q = self.cell_centre((self._nearest[0][i, j], self._nearest[1][i, j]))
        if np.linalg.norm(q - p) > max_dist_m:
            raise SimkitError(
                f"point ({p[0]:.2f}, {p[1]:.2f}) m is {np.linalg.norm(q - p):.2f} m from the walkable area "
                f"(more than {max_dist_m} m)"
            )
        return q

    def island(self, p) -> int:
        if not self.is_navigable(p):
            return -1
        i, j = self.cell_of(p)
        return int(self.islands[i, j])

    def _check_reachable(self, a, b) -> None:
        ia, ib = self.island(a), self.island(b)
        if ia < 0 or ib < 0 or ia != ib:
            raise Unreachable(
                f"no walkable path from ({a[0]:.2f}, {a[1]:.2f}) to ({b[0]:.2f}, {b[1]:.2f}) m "
                f"(islands {ia} and {ib}; -1 = not navigable)"
            )

    def geodesic_distance(self, a, b) -> float:
        """Length of :meth:`shortest_path` (the string-pulled Dijkstra path; exact Euclidean distance
        when ``a`` sees ``b``)."""
        path = self.shortest_path(a, b)
        return float(np.linalg.norm(np.diff(path, axis=0), axis=1).sum())

    def field_distance(self, a, b) -> float:
        """Fast approximate geodesic distance: the Dijkstra distance of ``a``'s cell from ``b``'s cell
        (32-neighbour grid metric, <= 1.3 % over the straight distance in free space); inf off the
        walkable area or across islands."""
        d, _ = self._field(self.cell_of(b))
        i, j = self.cell_of(a)
        if not (0 <= i < self.nav.shape[0] and 0 <= j < self.nav.shape[1]):
            return float("inf")
        return float(d[i * self.nav.shape[1] + j])

    def shortest_path(self, a, b) -> np.ndarray:
        a, b = np.asarray(a, float)[:2], np.asarray(b, float)[:2]
        self._check_reachable(a, b)
        if self.line_of_sight(a, b):
            return np.stack([a, b])
        _, pred = self._field(self.cell_of(b))
        ny = self.nav.shape[1]
        node = self.cell_of(a)[0] * ny + self.cell_of(a)[1]
        chain = [node]
        while pred[node] >= 0:
            node = pred[node]
            chain.append(node)
        pts = np.concatenate(
            [a[None], self.cell_centre(np.stack([np.array(chain) // ny, np.array(chain) % ny], -1)), b[None]]
        )
        return self._string_pull(pts)

    def _string_pull(self, pts: np.ndarray, first_only: bool = False) -> np.ndarray:
        """Taut polyline: from each kept vertex jump to the last later vertex it sees (galloping then
        bisection over the chain, so O(log K) sight tests per kept vertex)."""
        out, k = [pts[0]], 0
        last = len(pts) - 1
        while k < last:
            good, step = k + 1, 1
            while good + step <= last and self.line_of_sight(pts[k], pts[good + step]):
                good += step
                step *= 2
            bad = min(good + step, last + 1)
            while bad - good > 1:
                mid = (good + bad) // 2
                if self.line_of_sight(pts[k], pts[mid]):
                    good = mid
                else:
                    bad = mid
            out.append(pts[good])
            k = good
            if first_only:
                break
        return np.asarray(out)

    def sample_navigable_point(self, rng: np.random.Generator, island: int | None = None) -> np.ndarray:
        mask = self.nav if island is None else self.islands == island
        cells = np.flatnonzero(mask)
        if cells.size == 0:
            raise SimkitError(f"island {island} has no navigable cell")
        c = cells[int(rng.integers(cells.size))]
        ij = np.array([c // self.nav.shape[1], c % self.nav.shape[1]], float)
        return self.origin + (ij + rng.uniform(0.05, 0.95, size=2)) * self.cell

    def try_step(self, a, b) -> tuple[np.ndarray, bool]:
        cur = np.asarray(a, dtype=np.float64)[:2].copy()
        b = np.asarray(b, dtype=np.float64)[:2]
        total = b - cur
        n = max(1, int(np.ceil(np.linalg.norm(total) / (self.cell / 2))))
        step, collided = total / n, False
        for _ in range(n):
            if self.is_navigable(cur + step):
                cur = cur + step
                continue
            collided = True
            slide = self._slide(cur, step)
            if slide is None:
                break
            cur, step = cur + slide, slide
        return cur, collided or bool(np.linalg.norm(cur - b) > 1e-6)

    def _slide(self, cur: np.ndarray, step: np.ndarray) -> np.ndarray | None:
        """The blocked sub-step ``step`` projected onto the wall: first along the clearance gradient's
        tangent, then onto the x or y axis, then turned by up to +-75 deg (staircase corners of the grid),
        keeping its component along ``step``; None when nothing is free."""
        i, j = np.clip(self.cell_of(cur), 0, np.array(self.nav.shape) - 1)
        g = np.array([self._grad[0][i, j], self._grad[1][i, j]])
        cands = []
        if np.linalg.norm(g) > 1e-12:
            nrm = g / np.linalg.norm(g)  # points away from the wall
            cands.append(step - min(0.0, float(step @ nrm)) * nrm)
        cands += [np.array([step[0], 0.0]), np.array([0.0, step[1]])]
        for deg in (15, -15, 30, -30, 45, -45, 60, -60, 75, -75):  # staircase corners of the grid
            c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
            cands.append(
                np.cos(np.radians(deg)) * np.array([c * step[0] - s * step[1], s * step[0] + c * step[1]])
            )
        for c in cands:
            if float(c @ step) > 1e-12 and self.is_navigable(cur + c):
                return c
        return None


def grid_backend_from_mesh(mesh, cell: float = 0.05, agent_radius: float = 0.18, **kw) -> GridNavBackend:
    """:func:`occupancy_from_mesh` + :class:`GridNavBackend` in one call (``kw``: floor_z, agent_height, max_climb)."""
    return GridNavBackend(occupancy_from_mesh(mesh, cell=cell, **kw), agent_radius=agent_radius)
