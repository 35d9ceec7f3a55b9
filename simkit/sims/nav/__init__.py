"""Navigation backends: the built-in ``poly`` (default) and ``grid`` backends and ``habitat`` (habitat-sim)
behind one interface.

- :mod:`simkit.sims.nav.base`: :class:`NavBackend` (walkable-area queries), :class:`NavAgent`
  (continuous pose, Habitat's discrete actions, sliding), frame helpers.
- :mod:`simkit.sims.nav.poly`: the walkable area as polygons eroded by the agent radius, exact
  shortest paths over the reduced visibility graph, sliding (``poly``, the default; needs shapely).
- :mod:`simkit.sims.nav.grid`: occupancy grid from a mesh, Dijkstra geodesics on cells, string-pulled
  paths, sliding (``grid``; walkable edge and geodesics resolved to one cell, kept for comparison and
  for scenes whose polygons would be too large).
- :mod:`simkit.sims.nav.habitat`: habitat-sim's PathFinder (``habitat``; conda install).
- :mod:`simkit.sims.nav.episodes`: start/goal sampling, the shortest-path follower, waypoints.
- :mod:`simkit.sims.nav.vlnce`: VLN-CE (R2R/RxR) episode JSON import.

:func:`make_backend` picks one by name.
"""

from __future__ import annotations

BACKENDS = ("poly", "grid", "habitat")
#: the backends built from a scene mesh
MESH_BACKENDS = ("poly", "grid")


def make_backend(name: str, mesh=None, navmesh=None, agent_radius: float = 0.18, cell: float = 0.05, **kw):
    """A backend by name: ``poly`` or ``grid`` (from a z-up ``trimesh`` ``mesh``; ``cell`` is the grid's
    cell size, m) or ``habitat`` (from a ``navmesh`` file). ``kw``: floor_z, agent_height, max_climb.

    Raises:
        SimkitError: unknown name, a missing input, or habitat-sim / shapely not importable.
    """
    from simkit.core.errors import SimkitError

    if name in MESH_BACKENDS and mesh is None:
        raise SimkitError(f"the {name} backend needs a scene mesh")
    if name == "poly":
        from simkit.sims.nav.poly import poly_backend_from_mesh

        return poly_backend_from_mesh(mesh, agent_radius=agent_radius, **kw)
    if name == "grid":
        from simkit.sims.nav.grid import grid_backend_from_mesh

        return grid_backend_from_mesh(mesh, cell=cell, agent_radius=agent_radius, **kw)
    if name == "habitat":
        from simkit.sims.nav.habitat import open_habitat_backend

        if navmesh is None:
            raise SimkitError("the habitat backend needs a .navmesh file")
        return open_habitat_backend(navmesh, agent_radius=agent_radius)
    raise SimkitError(f"unknown navigation backend {name!r}; choose one of {', '.join(BACKENDS)}")
