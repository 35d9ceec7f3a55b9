"""The walkable area of a scene as polygons: free space from a mesh or a floor plan, eroded by the agent.

The geometry behind the ``poly`` navigation backend (:mod:`simkit.sims.nav.poly`, whose docstring
states the rules and the error bound) and the plan checks (:func:`plan_walkable`): the plane (x, y),
metres, world frame, z up; polygons are ``shapely`` geometries (the ``[nav]`` extra).

- :func:`free_space_from_mesh`: floor minus obstacles in the agent's body band, from a z-up mesh;
- :func:`plan_free_space`: the same from a :class:`~simkit.scenes.nav.floorplan.FloorPlan`'s boxes;
- :func:`erode`: free space minus the Minkowski sum of its boundary with the ``N_GON``-gon that
  circumscribes the agent's disc (Habitat's navmesh erosion by the agent radius);
- :func:`plan_walkable`: a plan's boxes inflated by that polygon in one step (each box plus the
  polygon is one convex polygon), identical to ``erode(plan_free_space(plan))``.
"""

from __future__ import annotations

import numpy as np

from simkit.core.errors import InputError

#: sides of the polygon that replaces the agent's disc (multiple of 4: flats face +-x and +-y)
N_GON = 64


def import_shapely():
    """``shapely`` (imported lazily; a ModuleNotFoundError names it, and the CLI maps it to the ``[nav]``
    extra, :func:`simkit.core.extras.as_extra_missing`)."""
    import shapely

    return shapely


def disc_polygon(radius: float, n: int = N_GON) -> np.ndarray:
    """Vertices (n, 2) float64 of the regular n-gon with apothem ``radius`` (it circumscribes the disc),
    flat sides facing the directions ``2 pi k / n`` (so +-x and +-y when n is a multiple of 4)."""
    a = (np.arange(n) + 0.5) * 2 * np.pi / n
    return (radius / np.cos(np.pi / n)) * np.stack([np.cos(a), np.sin(a)], axis=1)


def _clip_band(tri: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """The part of triangle ``tri`` (3, 3) with lo < z <= hi (Sutherland-Hodgman on two planes),
    projected to (x, y): (K, 2), K = 0 when empty."""
    poly = list(tri)
    for level, keep_above in ((lo, True), (hi, False)):
        out = []
        for k in range(len(poly)):
            p, q = poly[k], poly[(k + 1) % len(poly)]
            ip = (p[2] >= level) if keep_above else (p[2] <= level)
            iq = (q[2] >= level) if keep_above else (q[2] <= level)
            if ip:
                out.append(p)
            if ip != iq:
                t = (level - p[2]) / (q[2] - p[2])
                out.append(p + t * (q - p))
        poly = out
        if not poly:
            return np.zeros((0, 2))
    return np.asarray(poly)[:, :2]


def _floor_z(tri: np.ndarray, nz: np.ndarray, area: np.ndarray) -> float:
    """The height (m) with the most upward-facing area (5 cm bins), as :mod:`simkit.sims.nav.grid` does."""
    up = nz > 0.9
    if not np.any(up):
        raise InputError(None, "the scene mesh has no upward-facing surface to walk on")
    zc = tri[up, :, 2].mean(1)
    _, inv = np.unique(np.floor(zc / 0.05).astype(np.int64), return_inverse=True)
    best = np.argmax(np.bincount(inv, weights=area[up]))
    return float(np.median(zc[inv == best]))


def free_space_from_mesh(
    mesh,
    floor_z: float | None = None,
    agent_height: float = 1.5,
    max_climb: float = 0.2,
    enclosed_m2: float = 1.5,
):
    """The free space of a z-up scene mesh (the rules: :mod:`simkit.sims.nav.poly`'s docstring).

    Args:
        mesh: ``trimesh.Trimesh`` in metres, z up.
        floor_z: floor height (m); None: the height with the most upward-facing area.
        agent_height, max_climb: the agent's body band above the floor (m).
        enclosed_m2: faces enclosed by vertical triangles and smaller than this (m^2) are solid.

    Returns:
        ``(free, segments, floor_z)``: a shapely (Multi)Polygon, the (S, 2, 2) float64 footprints of
        the vertical triangles crossing the band, and the floor height.

    Raises:
        InputError: no floor found.
    """
    shp = import_shapely()
    tri = np.asarray(mesh.triangles, dtype=np.float64)
    nz = np.asarray(mesh.face_normals)[:, 2]
    if floor_z is None:
        floor_z = _floor_z(tri, nz, np.asarray(mesh.area_faces))
    zmin, zmax = tri[:, :, 2].min(1), tri[:, :, 2].max(1)
    is_floor = (nz > 0.9) & (zmin >= floor_z - 0.05) & (zmax <= floor_z + max_climb)
    floor = shp.union_all(shp.polygons(tri[is_floor][:, :, :2])).buffer(0)
    if floor.is_empty:
        raise InputError(None, f"no floor found at height {floor_z:.2f} m in the scene mesh")
    lo, hi = floor_z + max_climb, floor_z + agent_height
    band = (zmax > lo) & (zmin <= hi)
    vertical = np.abs(nz) <= 0.05
    pieces = [_clip_band(t, lo, hi) for t in tri[band & ~vertical]]
    solid = [shp.Polygon(p) for p in pieces if len(p) >= 3]
    segs = np.zeros((0, 2, 2))
    if np.any(band & vertical):
        xy = tri[band & vertical][:, :, :2]
        d = ((xy[:, :, None, :] - xy[:, None, :, :]) ** 2).sum(-1).reshape(len(xy), 9)
        i, j = np.unravel_index(np.argmax(d, axis=1), (3, 3))
        segs = np.stack([xy[np.arange(len(xy)), i], xy[np.arange(len(xy)), j]], axis=1)
        segs = segs[np.linalg.norm(segs[:, 1] - segs[:, 0], axis=1) > 1e-9]
        faces = shp.get_parts(shp.polygonize(shp.get_parts(shp.union_all(shp.linestrings(segs)))))
        solid += [f for f in faces if f.area < enclosed_m2]
    free = floor.difference(shp.union_all(solid)) if solid else floor
    return free, segs, float(floor_z)


def boundary_segments(geom) -> np.ndarray:
    """Every edge of every ring of a (Multi)Polygon, (E, 2, 2) float64."""
    shp = import_shapely()
    out = []
    for poly in shp.get_parts(geom):
        for ring in [poly.exterior, *poly.interiors]:
            c = np.asarray(ring.coords)
            out.append(np.stack([c[:-1], c[1:]], axis=1))
    return np.concatenate(out) if out else np.zeros((0, 2, 2))


def _segment_sums(edges: np.ndarray, disc: np.ndarray) -> np.ndarray:
    """Vertices (E, n + 2, 2) of the Minkowski sums of segments ``edges`` (E, 2, 2) with the convex,
    centrally symmetric polygon ``disc`` (n, 2), counter-clockwise: the back half of ``disc`` (from its
    vertex farthest to the left of the segment's direction d, on round to the farthest right) placed
    at the segment's start, the front half at its end."""
    n = len(disc)
    a, b = edges[:, 0], edges[:, 1]
    d = b - a
    left = np.stack([-d[:, 1], d[:, 0]], axis=1)
    kmax = np.argmax(left @ disc.T, axis=1)
    half = np.arange(n // 2 + 1)
    back = disc[(kmax[:, None] + half) % n] + a[:, None]
    front = disc[(kmax[:, None] + n // 2 + half) % n] + b[:, None]
    return np.concatenate([back, front], axis=1)


def erode(free, radius: float, segments: np.ndarray | None = None, n: int = N_GON):
    """``free`` (shapely (Multi)Polygon) eroded by the n-gon circumscribing the disc of ``radius`` (m),
    also kept clear of ``segments`` (S, 2, 2) by that polygon; a MultiPolygon whose
    rings run with the area on their left (exterior counter-clockwise), parts under 1e-9 m^2 dropped."""
    shp = import_shapely()
    edges = boundary_segments(free)
    if segments is not None and len(segments):
        # only the panels reaching into the free space (a solid's faces lie on its boundary already)
        probe = np.concatenate([segments, segments.mean(1, keepdims=True)], axis=1)  # (S, 3, 2)
        inside = shp.contains_xy(free, probe[..., 0], probe[..., 1]).any(1)
        edges = np.concatenate([edges, segments[inside]])
    edges = edges[np.linalg.norm(edges[:, 1] - edges[:, 0], axis=1) > 1e-12]
    sums = shp.polygons(_segment_sums(edges, disc_polygon(radius, n)))
    walk = free.difference(shp.union_all(sums))
    parts = [p for p in shp.get_parts(walk) if p.geom_type == "Polygon" and p.area > 1e-9]
    return shp.orient_polygons(shp.MultiPolygon(parts), exterior_cw=False)


def plan_free_space(plan, climb: float = 0.2):
    """The free space of a floor plan: the floor slab ``[-0.05, W + 0.05] x [-0.05, D + 0.05]`` (as
    :func:`simkit.scenes.nav.floorplan.plan_mesh` builds it) minus every box taller than ``climb`` (m)."""
    shp = import_shapely()
    W, D = plan.size
    boxes = [shp.box(b.lo[0], b.lo[1], b.hi[0], b.hi[1]) for b in plan.boxes if b.hi[2] - b.lo[2] > climb]
    floor = shp.box(-0.05, -0.05, W + 0.05, D + 0.05)
    return floor.difference(shp.union_all(boxes)) if boxes else floor


def plan_walkable(plan, agent_radius: float = 0.18, climb: float = 0.2, n: int = N_GON):
    """:func:`erode` of :func:`plan_free_space`, computed from the boxes: the slab shrunk by r, minus
    every box taller than ``climb`` plus the n-gon (vertices of the polygon in the quadrant of a box
    corner placed at that corner). A MultiPolygon (parts under 1e-9 m^2 dropped)."""
    shp = import_shapely()
    W, D = plan.size
    r = float(agent_radius)
    b = np.array([[x.lo[0], x.lo[1], x.hi[0], x.hi[1]] for x in plan.boxes if x.hi[2] - x.lo[2] > climb])
    inner = shp.box(-0.05 + r, -0.05 + r, W + 0.05 - r, D + 0.05 - r)
    if len(b):
        disc = disc_polygon(r, n)
        quad = (np.arctan2(disc[:, 1], disc[:, 0]) % (2 * np.pi)) // (np.pi / 2)
        xs = np.where((quad == 0) | (quad == 3), 2, 0)
        ys = np.where(quad <= 1, 3, 1)
        inner = inner.difference(shp.union_all(shp.polygons(np.stack([b[:, xs], b[:, ys]], -1) + disc)))
    parts = [p for p in shp.get_parts(inner) if p.geom_type == "Polygon" and p.area > 1e-9]
    return shp.MultiPolygon(parts)
