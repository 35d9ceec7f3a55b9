"""The ``habitat`` navigation backend: :class:`~simkit.sims.nav.base.NavBackend` over habitat-sim.

habitat-sim is installed with conda (``conda install habitat-sim -c conda-forge -c aihabitat``);
it has no wheel on PyPI for the Python simkit runs on, so simkit's default backend is ``grid``.
When ``habitat_sim`` cannot be imported, :func:`open_habitat_backend` raises one clear
:class:`~simkit.core.errors.SimkitError`.

Frames: Habitat's world is y up (glTF); simkit's (x, y) on the floor maps to Habitat's
``(x, floor, -y)`` and back (the same rotation as :data:`simkit.scenes.nav.floorplan.Z_UP_TO_Y_UP`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simkit.core.errors import InputError, SimkitError
from simkit.sims.nav.base import NavBackend, Unreachable

INSTALL_HINT = (
    "the habitat backend needs habitat-sim, which cannot be imported (it has no PyPI wheel for this "
    "Python; install it with: conda install habitat-sim -c conda-forge -c aihabitat), or use the grid backend"
)


def habitat_available() -> bool:
    """True when ``habitat_sim`` imports."""
    try:
        import habitat_sim  # noqa: F401
    except ImportError:
        return False
    return True


class HabitatNavBackend(NavBackend):
    """habitat-sim's ``PathFinder`` behind the :class:`NavBackend` interface.

    Args:
        pathfinder: a loaded ``habitat_sim.nav.PathFinder``.
        floor_y: the floor height in Habitat's frame (m).
    """

    name = "habitat"

    def __init__(self, pathfinder, floor_y: float, agent_radius: float):
        self.pf = pathfinder
        self.floor_y = float(floor_y)
        self.agent_radius = float(agent_radius)

    def _h(self, p) -> np.ndarray:
        return np.array([p[0], self.floor_y, -p[1]], dtype=np.float32)

    @staticmethod
    def _s(q) -> np.ndarray:
        return np.array([q[0], -q[2]], dtype=np.float64)

    def is_navigable(self, p) -> bool:
        return bool(self.pf.is_navigable(self._h(p)))

    def snap_point(self, p, max_dist_m: float = 0.5) -> np.ndarray:
        q = self._s(self.pf.snap_point(self._h(p)))
        if not np.all(np.isfinite(q)) or np.linalg.norm(q - np.asarray(p)[:2]) > max_dist_m:
            raise SimkitError(f"point ({p[0]:.2f}, {p[1]:.2f}) m is not within {max_dist_m} m of the navmesh")
        return q

    def island(self, p) -> int:
        return int(self.pf.get_island(self._h(p))) if self.is_navigable(p) else -1

    def shortest_path(self, a, b) -> np.ndarray:
        import habitat_sim

        sp = habitat_sim.ShortestPath()
        sp.requested_start, sp.requested_end = self._h(a), self._h(b)
        if not self.pf.find_path(sp) or not np.isfinite(sp.geodesic_distance):
            raise Unreachable(f"no navmesh path from {tuple(a)} to {tuple(b)}")
        return np.asarray([self._s(q) for q in sp.points])

    def geodesic_distance(self, a, b) -> float:
        path = self.shortest_path(a, b)
        return float(np.linalg.norm(np.diff(path, axis=0), axis=1).sum())

    def sample_navigable_point(self, rng: np.random.Generator, island: int | None = None) -> np.ndarray:
        self.pf.seed(int(rng.integers(2**31 - 1)))
        q = self.pf.get_random_navigable_point(island_index=-1 if island is None else island)
        return self._s(q)

    def try_step(self, a, b) -> tuple[np.ndarray, bool]:
        end = self._s(self.pf.try_step(self._h(a), self._h(b)))
        return end, bool(np.linalg.norm(end - np.asarray(b)[:2]) > 1e-5)


def open_habitat_backend(
    navmesh: str | Path, floor_y: float = 0.0, agent_radius: float = 0.18
) -> HabitatNavBackend:
    """Load a Habitat ``.navmesh`` file.

    Raises:
        SimkitError: habitat-sim is not importable (:data:`INSTALL_HINT`).
        InputError: the navmesh file is missing or does not load.
    """
    try:
        import habitat_sim
    except ImportError:
        raise SimkitError(INSTALL_HINT) from None
    path = Path(navmesh)
    if not path.is_file():
        raise InputError(path, "navmesh file not found")
    pf = habitat_sim.nav.PathFinder()
    if not pf.load_nav_mesh(str(path)):
        raise InputError(path, "habitat-sim could not load this navmesh")
    return HabitatNavBackend(pf, floor_y, agent_radius)
