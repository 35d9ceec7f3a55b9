"""Grid geometry of box packing: boxes, container, heightmap, drop height.

Everything is measured in integer grid cells of ``resolution`` metres
(the PackLab paper discretises positions on a 2.5 cm grid; the
Bischoff-Ratcliff instances use 1 cm). Frames: container min corner at the
origin, x along the container length L, y along its width W, z up.

The heightmap ``H`` is an int array of shape (L, W): ``H[i, j]`` is the top
of the highest occupied voxel column over cell (i, j), in cells. A box whose
footprint min corner is (x, y) with footprint (lx, ly) lands at
``z = max(H[x:x+lx, y:y+ly])`` (PackLab eq. 2: the lowest reachable support
under gravity when dropped vertically).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: PackLab's placement grid (PackLab paper: "Positions are discretised on a 2.5 cm grid")
DEFAULT_RESOLUTION = 0.025


@dataclass(frozen=True)
class Box:
    """An axis-aligned box object.

    Attributes:
        id: identifier unique within an episode.
        size: (l, w, h) in grid cells, l along x and w along y at orientation 0.
        mass: kilograms.
        colour: RGB in [0, 1].
        rotations: the orientations allowed: 0 = (l, w) footprint, 1 = rotated 90 deg about z = (w, l).
    """

    id: int
    size: tuple[int, int, int]
    mass: float = 1.0
    colour: tuple[float, float, float] = (0.6, 0.6, 0.6)
    rotations: tuple[int, ...] = (0, 1)

    def __post_init__(self) -> None:
        if len(self.size) != 3 or any(int(s) != s or s <= 0 for s in self.size):
            raise ValueError(f"box {self.id}: size must be three positive integers (cells), got {self.size}")
        if self.mass <= 0:
            raise ValueError(f"box {self.id}: mass must be positive, got {self.mass}")

    def footprint(self, orientation: int) -> tuple[int, int]:
        """(lx, ly) of the footprint at ``orientation`` (0 or 1)."""
        l, w, _ = self.size
        if orientation == 0:
            return l, w
        if orientation == 1:
            return w, l
        raise ValueError(f"orientation must be 0 or 1, got {orientation}")

    @property
    def height(self) -> int:
        return self.size[2]

    @property
    def volume(self) -> int:
        """Volume in cells^3."""
        return self.size[0] * self.size[1] * self.size[2]


@dataclass(frozen=True)
class Container:
    """A rectangular open-top container, inner size (L, W, H) in cells of ``resolution`` metres."""

    size: tuple[int, int, int]
    resolution: float = DEFAULT_RESOLUTION

    def __post_init__(self) -> None:
        if len(self.size) != 3 or any(int(s) != s or s <= 0 for s in self.size):
            raise ValueError(f"container size must be three positive integers (cells), got {self.size}")
        if self.resolution <= 0:
            raise ValueError("container resolution must be positive")

    @property
    def size_m(self) -> tuple[float, float, float]:
        """Inner size in metres."""
        return tuple(s * self.resolution for s in self.size)  # type: ignore[return-value]

    def empty_heightmap(self) -> np.ndarray:
        """All-zero int32 heightmap of shape (L, W)."""
        return np.zeros(self.size[:2], dtype=np.int32)


@dataclass(frozen=True)
class Placement:
    """Where a box goes: footprint min corner (x, y) and bottom z, in cells; orientation 0 or 1."""

    box_id: int
    orientation: int
    x: int
    y: int
    z: int = field(default=0)


def drop_z(heightmap: np.ndarray, x: int, y: int, lx: int, ly: int) -> int:
    """Bottom height (cells) of a footprint [x, x+lx) x [y, y+ly) dropped onto ``heightmap``.

    Raises:
        ValueError: the footprint leaves the heightmap.
    """
    L, W = heightmap.shape
    if x < 0 or y < 0 or x + lx > L or y + ly > W:
        raise ValueError(f"footprint ({x},{y})+({lx},{ly}) outside the {L}x{W} heightmap")
    return int(heightmap[x : x + lx, y : y + ly].max())


def fits(container: Container, heightmap: np.ndarray, box: Box, orientation: int, x: int, y: int) -> bool:
    """True when the box at (orientation, x, y) stays inside the container's footprint and height."""
    lx, ly = box.footprint(orientation)
    L, W, Hc = container.size
    if x < 0 or y < 0 or x + lx > L or y + ly > W:
        return False
    return drop_z(heightmap, x, y, lx, ly) + box.height <= Hc


def place(heightmap: np.ndarray, box: Box, orientation: int, x: int, y: int) -> tuple[np.ndarray, Placement]:
    """Drop ``box`` at (orientation, x, y); returns (new heightmap, placement with its z).

    The input heightmap is not modified.
    """
    lx, ly = box.footprint(orientation)
    z = drop_z(heightmap, x, y, lx, ly)
    out = heightmap.copy()
    out[x : x + lx, y : y + ly] = z + box.height
    return out, Placement(box.id, orientation, x, y, z)
