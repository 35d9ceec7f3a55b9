"""Navigation backends: the built-in ``grid`` backend and ``habitat`` (habitat-sim) behind one interface.

- :mod:`simkit.sims.nav.base`: :class:`NavBackend` (walkable-area queries), :class:`NavAgent`
  (continuous pose, Habitat's discrete actions, sliding), frame helpers.
- :mod:`simkit.sims.nav.grid`: occupancy from a mesh, Dijkstra geodesics, sliding (``grid``).
- :mod:`simkit.sims.nav.habitat`: habitat-sim's PathFinder (``habitat``; conda install).
- :mod:`simkit.sims.nav.episodes`: start/goal sampling, the shortest-path follower, waypoints.
- :mod:`simkit.sims.nav.vlnce`: VLN-CE (R2R/RxR) episode JSON import.

:func:`make_backend` picks one by name.
"""

from __future__ import annotations

BACKENDS = ("grid", "habitat")


def make_backend(name: str, mesh=None, navmesh=None, agent_radius: float = 0.18, cell: float = 0.05, **kw):
    """A backend by name: ``grid`` (from a z-up ``trimesh`` ``mesh``) or ``habitat`` (from a ``navmesh`` file).

    Raises:
        SimkitError: unknown name, a missing input, or habitat-sim not importable.
    """
    from simkit.core.errors import SimkitError

    if name == "grid":
        if mesh is None:
            raise SimkitError("the grid backend needs a scene mesh")
        from simkit.sims.nav.grid import grid_backend_from_mesh

        return grid_backend_from_mesh(mesh, cell=cell, agent_radius=agent_radius, **kw)
    if name == "habitat":
        from simkit.sims.nav.habitat import open_habitat_backend

        if navmesh is None:
            raise SimkitError("the habitat backend needs a .navmesh file")
        return open_habitat_backend(navmesh, agent_radius=agent_radius)
    raise SimkitError(f"unknown navigation backend {name!r}; choose one of {', '.join(BACKENDS)}")
