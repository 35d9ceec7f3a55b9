"""Layout-first compiler of packing cases (PackLab-Suite paper, "Layout-first data generation").

Instead of searching forward over (object, placement) combinations, a case is
built backwards from a packed terminal layout:

1. **Scene sampling**: the tier fixes the ranges of the container footprint,
   the number of layers and the number of objects (:data:`TIERS`).
2. **Layout partition**: the container height is split into stacked layers;
   each layer's L x W rectangle is split by recursive guillotine cuts on the
   grid into exactly as many non-overlapping rectangles as the layer has
   objects. The rectangles tile the layer, so the layout fills the container
   (volume of the boxes = L x W x H) and every box above the floor rests on
   the full top face of the layer below.
3. **Objects**: each region becomes one box whose height is the layer height;
   its own (l, w) is the region's footprint, or the footprint rotated by 90
   degrees (then the expert places it with orientation 1). Mass = volume x a
   sampled density, colour random.
4. **Reverse removal**: repeatedly remove, uniformly at random, a box that is
   geometrically accessible (no remaining box rests on it); the reversed
   removal order is the expert's forward order. Each box is therefore placed
   after all boxes under it and before all boxes over it, so the expert's
   drop height from the heightmap equals the box's z in the layout (asserted).
5. **Arrival queue**: the visible buffer is the first ``buffer_size``
   not-yet-placed boxes in arrival order. The queue is drawn slot by slot:
   each new arrival is a uniformly random remaining box, except that the
   expert's next box is forced into the last free slot when it has not
   arrived yet; so the expert's next box is always in the buffer.

Units: grid cells of ``resolution`` metres (container min corner at the origin,
x along L, y along W, z up; see :mod:`simkit.scenes.packing.geometry`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from simkit.scenes.packing.geometry import DEFAULT_RESOLUTION, Box, Container, Placement, place

Int3 = tuple[int, int, int]
Float3 = tuple[float, float, float]


@dataclass(frozen=True)
class TierSpec:
    """Ranges of one difficulty tier (inclusive integer ranges).

    Attributes:
        buffer_size: number of visible candidate objects (PackLab-Bench: easy 3, medium 5, hard 10).
        layers: (min, max) number of stacked layers (PackLab: 1-2 / 2-3 / 3-4).
        objects: (min, max) number of objects (PackLab: 4-8 / 9-18 / 19-32).
        length: (min, max) container inner length L, in cells of the 2.5 cm reference grid.
        width: (min, max) container inner width W, reference cells.
        layer_height: (min, max) height of one layer, reference cells.
        min_side: smallest box side in the horizontal plane, reference cells.

    The buffer sizes, layer and object counts are the PackLab paper's ("Tiers").
    The paper gives no container or box dimensions; the footprint and layer-height
    ranges here are simkit's choice (tabletop boxes of 5-15 cm height in 20-60 cm
    containers) and are scaled when a finer grid is asked for (see :func:`compile_case`).
    """

    buffer_size: int
    layers: tuple[int, int]
    objects: tuple[int, int]
    length: tuple[int, int]
    width: tuple[int, int]
    layer_height: tuple[int, int] = (2, 6)
    min_side: int = 2


#: the three PackLab tiers (PackLab paper: buffer size / layers / objects easy 3/1-2/4-8,
#: medium 5/2-3/9-18, hard 10/3-4/19-32); container ranges are simkit's (reference 2.5 cm cells)
TIERS: dict[str, TierSpec] = {
    "easy": TierSpec(buffer_size=3, layers=(1, 2), objects=(4, 8), length=(8, 14), width=(8, 14)),
    "medium": TierSpec(buffer_size=5, layers=(2, 3), objects=(9, 18), length=(12, 20), width=(10, 18)),
    "hard": TierSpec(buffer_size=10, layers=(3, 4), objects=(19, 32), length=(16, 24), width=(14, 22)),
}

#: densities of packed goods, kg/m^3 (cardboard boxes with contents: light to dense; simkit's choice)
DENSITY_RANGE = (100.0, 600.0)


@dataclass(frozen=True)
class Region:
    """An axis-aligned rectangle of one layer: min corner (x, y), size (lx, ly), in cells."""

    x: int
    y: int
    lx: int
    ly: int

    @property
    def area(self) -> int:
        return self.lx * self.ly


@dataclass
class PackingCase:
    """One compiled packing case: container, objects, arrival queue and the expert trajectory.

    Attributes:
        tier: "easy" | "medium" | "hard" (or a loader's own label).
        container: inner size in cells and the grid resolution in metres.
        boxes: the objects; ``boxes[i].id == i``.
        arrival: box ids in arrival order (a permutation of all ids).
        buffer_size: how many not-yet-placed arrivals the policy sees.
        expert: the expert trajectory in forward order, one :class:`Placement` per box,
            with z (cells) filled in from the heightmap.
        layer_heights: height of each layer in cells, bottom first (empty for cases not
            made by the layout compiler).
    """

    tier: str
    container: Container
    boxes: list[Box]
    arrival: list[int]
    buffer_size: int
    expert: list[Placement]
    layer_heights: list[int] = field(default_factory=list)

    # -- queries ------------------------------------------------------------------------
    def box(self, box_id: int) -> Box:
        """The box with id ``box_id``."""
        return self.boxes[box_id]

    def buffer_at(self, placed: set[int] | list[int]) -> list[int]:
        """The visible buffer: the first ``buffer_size`` arrivals not in ``placed`` (box ids, arrival order)."""
        placed = set(placed)
        out = []
        for i in self.arrival:
            if i not in placed:
                out.append(i)
                if len(out) == self.buffer_size:
                    break
        return out

    def expert_heightmaps(self) -> np.ndarray:
        """Heightmaps before each expert step and after the last: int32 (T+1, L, W), cells."""
        h = self.container.empty_heightmap()
        out = [h]
        for p in self.expert:
            h, _ = place(h, self.box(p.box_id), p.orientation, p.x, p.y)
            out.append(h)
        return np.stack(out)

    @property
    def total_volume(self) -> int:
        """Sum of the box volumes, cells^3."""
        return sum(b.volume for b in self.boxes)

    # -- (de)serialisation --------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable dict (sizes in cells, masses in kg, colours RGB in [0, 1])."""
        return {
            "tier": self.tier,
            "container": {"size": list(self.container.size), "resolution": self.container.resolution},
            "boxes": [
                {
                    "id": b.id,
                    "size": list(b.size),
                    "mass": b.mass,
                    "colour": list(b.colour),
                    "rotations": list(b.rotations),
                }
                for b in self.boxes
            ],
            "arrival": list(self.arrival),
            "buffer_size": self.buffer_size,
            "expert": [
                {"box_id": p.box_id, "orientation": p.orientation, "x": p.x, "y": p.y, "z": p.z}
                for p in self.expert
            ],
            "layer_heights": list(self.layer_heights),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PackingCase:
        """Inverse of :meth:`to_json`.

        Raises:
            ValueError: a missing key or an invalid value (box sizes, container size).
        """
        try:
            c = d["container"]
            container = Container(
                cast(Int3, tuple(int(s) for s in c["size"])), float(c.get("resolution", DEFAULT_RESOLUTION))
            )
            boxes = [
                Box(
                    int(b["id"]),
                    cast(Int3, tuple(int(s) for s in b["size"])),
                    float(b.get("mass", 1.0)),
                    cast(Float3, tuple(float(v) for v in b.get("colour", (0.6, 0.6, 0.6)))),
                    tuple(int(r) for r in b.get("rotations", (0, 1))),
                )
                for b in d["boxes"]
            ]
            expert = [
                Placement(
                    int(p["box_id"]), int(p["orientation"]), int(p["x"]), int(p["y"]), int(p.get("z", 0))
                )
                for p in d.get("expert", [])
            ]
            return cls(
                tier=str(d["tier"]),
                container=container,
                boxes=boxes,
                arrival=[int(i) for i in d["arrival"]],
                buffer_size=int(d["buffer_size"]),
                expert=expert,
                layer_heights=[int(h) for h in d.get("layer_heights", [])],
            )
        except KeyError as exc:
            raise ValueError(f"packing case: missing key {exc.args[0]!r}") from None


class LayoutError(RuntimeError):
    """The compiler could not build a layout within its attempt budget (should not happen for :data:`TIERS`)."""


# -- step 2: layout partition -------------------------------------------------------------------
def _scaled(r: tuple[int, int], scale: float) -> tuple[int, int]:
    return max(1, int(round(r[0] * scale))), max(1, int(round(r[1] * scale)))


def split_layer(
    L: int, W: int, k: int, min_side: int, rng: np.random.Generator, attempts: int = 50
) -> list[Region]:
    """Tile the L x W rectangle with exactly ``k`` grid rectangles by recursive guillotine cuts.

    Each cut splits one region, drawn with probability proportional to its area among the
    regions that can be split, along an axis drawn with probability proportional to the
    side length, at a uniform grid position leaving both parts at least ``min_side`` cells.

    Returns:
        ``k`` regions that are pairwise disjoint and cover the rectangle exactly.
    Raises:
        LayoutError: no tiling found in ``attempts`` tries (``k`` too large for the rectangle).
    """
    if k < 1:
        raise ValueError("k must be at least 1")
    for _ in range(attempts):
        regions = [Region(0, 0, L, W)]
        while len(regions) < k:
            splittable = [i for i, r in enumerate(regions) if max(r.lx, r.ly) >= 2 * min_side]
            if not splittable:
                break
            areas = np.array([regions[i].area for i in splittable], float)
            i = splittable[int(rng.choice(len(splittable), p=areas / areas.sum()))]
            r = regions[i]
            axes = [a for a, s in ((0, r.lx), (1, r.ly)) if s >= 2 * min_side]
            sides = np.array([r.lx if a == 0 else r.ly for a in axes], float)
            axis = axes[int(rng.choice(len(axes), p=sides / sides.sum()))]
            side = r.lx if axis == 0 else r.ly
            cut = int(rng.integers(min_side, side - min_side + 1))
            if axis == 0:
                parts = [Region(r.x, r.y, cut, r.ly), Region(r.x + cut, r.y, r.lx - cut, r.ly)]
            else:
                parts = [Region(r.x, r.y, r.lx, cut), Region(r.x, r.y + cut, r.lx, r.ly - cut)]
            regions[i : i + 1] = parts
        if len(regions) == k:
            return regions
    raise LayoutError(f"cannot tile a {L}x{W} layer with {k} regions of side >= {min_side}")


def _composition(n: int, parts: int, caps: list[int], rng: np.random.Generator) -> list[int]:
    """Random split of ``n`` objects over ``parts`` layers: one each, the rest multinomial (uniform), each <= cap."""
    for _ in range(200):
        counts = (1 + rng.multinomial(n - parts, [1.0 / parts] * parts)).tolist()
        if all(c <= cap for c, cap in zip(counts, caps)):
            return [int(c) for c in counts]
    raise LayoutError(f"cannot split {n} objects over {parts} layers with caps {caps}")


# -- which grid resolutions always compile --------------------------------------------------------
#: bounds of the grid cell size accepted by the ``packing`` generator, metres (simkit's: 1 cm keeps a hard
#: container under ~60 x 55 x 60 cells; at 5 cm the smallest box side is one cell)
MIN_RESOLUTION = 0.01
MAX_RESOLUTION = 0.05


def resolution_problems(resolution: float) -> list[str]:
    """Why :func:`compile_case` can fail at ``resolution`` (metres), as text; empty = every draw compiles.

    The compiler splits a tier's object count over its layers with at most
    ``cap = (L // min_side) * (W // min_side) // 2`` objects per layer (all in cells after scaling
    the tier ranges by ``0.025 / resolution`` and rounding). The worst draw is the smallest
    container with the fewest layers and the most objects; when ``objects_max > layers_min * cap``
    for it, that draw raises :class:`LayoutError`. Because of the rounding this happens not only
    for coarse grids (0.1: a 2 x 2 easy container for 8 objects) but also at some fine ones
    (0.03: min side 2 cells, smallest easy container 7 x 7 -> cap 4).
    """
    if not (resolution > 0 and np.isfinite(resolution)):
        return [f"resolution must be a positive finite number of metres, got {resolution}"]
    scale = DEFAULT_RESOLUTION / resolution
    out = []
    for name, spec in TIERS.items():
        min_side = max(1, int(round(spec.min_side * scale)))
        lo_l, _ = _scaled(spec.length, scale)
        lo_w, _ = _scaled(spec.width, scale)
        cap = (lo_l // min_side) * (lo_w // min_side) // 2 or 1
        if spec.objects[1] > spec.layers[0] * cap:
            out.append(
                f"tier {name}: up to {spec.objects[1]} objects in {spec.layers[0]} layer(s) of a "
                f"{lo_l}x{lo_w}-cell container with boxes >= {min_side} cells wide (at most "
                f"{cap} per layer)"
            )
    return out


def accepted_resolutions(
    lo: float = MIN_RESOLUTION, hi: float = MAX_RESOLUTION, step: float = 1e-5
) -> list[tuple[float, float]]:
    """Intervals [a, b] of ``lo..hi`` (metres, scanned every ``step``) where :func:`resolution_problems` is empty."""
    out: list[tuple[float, float]] = []
    start: float | None = None
    prev = float(lo)
    for r in np.round(np.arange(lo, hi + step / 2, step), 8):
        ok = not resolution_problems(float(r))
        if ok and start is None:
            start = float(r)
        if not ok and start is not None:
            out.append((start, prev))
            start = None
        prev = float(r)
    if start is not None:
        out.append((start, prev))
    return out


# -- step 4: reverse removal --------------------------------------------------------------------
def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    ax, ay, alx, aly = a
    bx, by, blx, bly = b
    return ax < bx + blx and bx < ax + alx and ay < by + bly and by < ay + aly


def support_graph(footprints: list[tuple[int, int, int, int]], z: list[int], h: list[int]) -> list[set[int]]:
    """``on[i]`` = indices of the boxes resting directly on box i (bottom = i's top, footprints overlap)."""
    n = len(footprints)
    on: list[set[int]] = [set() for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j and z[j] == z[i] + h[i] and _overlap(footprints[i], footprints[j]):
                on[i].add(j)
    return on


def reverse_removal_order(on: list[set[int]], rng: np.random.Generator) -> list[int]:
    """Forward packing order from random removals of accessible boxes (nothing remaining rests on them).

    Returns the reversed removal order: every box comes after all boxes it rests on.
    """
    remaining = set(range(len(on)))
    removed: list[int] = []
    while remaining:
        accessible = sorted(i for i in remaining if not (on[i] & remaining))
        i = accessible[int(rng.integers(len(accessible)))]
        removed.append(i)
        remaining.discard(i)
    return removed[::-1]


# -- step 5: arrival queue ----------------------------------------------------------------------
def arrival_queue(order: list[int], buffer_size: int, rng: np.random.Generator) -> list[int]:
    """An arrival order in which ``order[t]`` is among the first ``buffer_size`` unplaced arrivals at step t.

    The buffer is refilled to ``buffer_size`` before each step; each new arrival is a uniformly
    random not-yet-arrived box, except that the expert's next box is forced into the last free slot.
    """
    if buffer_size < 1:
        raise ValueError("buffer_size must be at least 1")
    pool = list(order)
    arrived: list[int] = []
    buffer: list[int] = []
    for nxt in order:
        while len(buffer) < buffer_size and pool:
            if nxt not in buffer and len(buffer) == buffer_size - 1 and nxt in pool:
                pick = nxt
            else:
                pick = pool[int(rng.integers(len(pool)))]
            pool.remove(pick)
            arrived.append(pick)
            buffer.append(pick)
        if nxt not in buffer:  # pragma: no cover - guarded by construction
            raise AssertionError("arrival queue construction lost the expert's next box")
        buffer.remove(nxt)
    return arrived


# -- the compiler -------------------------------------------------------------------------------
def sample_boxes(
    footprints: list[tuple[int, int, int, int]],
    heights: list[int],
    resolution: float,
    rng: np.random.Generator,
) -> tuple[list[Box], np.ndarray, np.ndarray, np.ndarray]:
    """The boxes filling the layout regions (step 3 of :func:`compile_case`).

    Draws, in this order: a permutation region -> box id, an expert orientation (0 or 1) per region,
    a density per region uniform in :data:`DENSITY_RANGE` (kg/m^3) and a colour. A box's size is its
    region's (lx, ly, h) in cells, turned by 90 degrees when the expert orientation is 1; its mass (kg)
    is volume x density, rounded to 0.1 g, at least 1 g.

    Args:
        footprints: per region (x, y, lx, ly) in cells.
        heights: per region height in cells.
        resolution: cell size in metres.

    Returns:
        (boxes ordered by id, perm (n,) region -> box id, orient (n,) per region, density (n,) per region).
    """
    n = len(footprints)
    hs = heights
    perm = rng.permutation(n)  # region index -> box id
    region_of = np.argsort(perm)  # box id -> region index
    orient = rng.integers(0, 2, size=n)  # per region: expert orientation
    density = rng.uniform(*DENSITY_RANGE, size=n)
    colours = rng.uniform(0.15, 0.95, size=(n, 3))
    cell_m3 = resolution**3
    boxes: list[Box] = []
    for box_id in range(n):
        ri = int(region_of[box_id])
        _, _, lx, ly = footprints[ri]
        size = (lx, ly, hs[ri]) if orient[ri] == 0 else (ly, lx, hs[ri])
        mass = float(round(lx * ly * hs[ri] * cell_m3 * density[ri], 4))
        rgb = cast(Float3, tuple(round(float(c), 3) for c in colours[ri]))
        boxes.append(Box(box_id, size, max(mass, 1e-3), rgb))
    return boxes, perm, orient, density


def compile_case(tier: str, rng: np.random.Generator, resolution: float = DEFAULT_RESOLUTION) -> PackingCase:
    """Compile one layout-first packing case of ``tier`` using only ``rng``.

    Args:
        tier: a key of :data:`TIERS`.
        rng: the numpy Generator (the only source of randomness).
        resolution: grid cell size in metres (PackLab: 0.025). The tier ranges are in
            2.5 cm reference cells and are scaled by ``0.025 / resolution`` so a finer grid
            describes containers of the same physical size.
    Returns:
        A :class:`PackingCase` whose expert trajectory fills the container exactly
        (box volumes sum to L x W x H) with every z equal to the drop height.
    Raises:
        ValueError: unknown tier or non-positive resolution.
        LayoutError: no layout found (not expected for the built-in tiers).
    """
    if tier not in TIERS:
        raise ValueError(f"unknown packing tier {tier!r}; choose one of {', '.join(TIERS)}")
    if resolution <= 0:
        raise ValueError(f"resolution must be positive, got {resolution}")
    spec = TIERS[tier]
    scale = DEFAULT_RESOLUTION / resolution
    min_side = max(1, int(round(spec.min_side * scale)))
    lo_l, hi_l = _scaled(spec.length, scale)
    lo_w, hi_w = _scaled(spec.width, scale)
    lo_h, hi_h = _scaled(spec.layer_height, scale)

    # 1. scene sampling
    L = int(rng.integers(lo_l, hi_l + 1))
    W = int(rng.integers(lo_w, hi_w + 1))
    n_layers = int(rng.integers(spec.layers[0], spec.layers[1] + 1))
    n_objects = int(rng.integers(spec.objects[0], spec.objects[1] + 1))
    n_objects = max(n_objects, n_layers)
    heights = [int(rng.integers(lo_h, hi_h + 1)) for _ in range(n_layers)]
    H = sum(heights)
    container = Container((L, W, H), resolution)

    # 2. layout partition: guillotine tiling of each layer
    cap = (L // min_side) * (W // min_side) // 2 or 1
    counts = _composition(n_objects, n_layers, [cap] * n_layers, rng)
    footprints: list[tuple[int, int, int, int]] = []
    zs: list[int] = []
    hs: list[int] = []
    z0 = 0
    for k, h in zip(counts, heights):
        for r in split_layer(L, W, k, min_side, rng):
            footprints.append((r.x, r.y, r.lx, r.ly))
            zs.append(z0)
            hs.append(h)
        z0 += h

    # 3. objects: shuffled ids, orientation 0/90, mass from volume x density, colour
    boxes, perm, orient, _ = sample_boxes(footprints, hs, resolution, rng)

    # 4. reverse removal -> forward expert order (region indices), z from the heightmap
    on = support_graph(footprints, zs, hs)
    order = reverse_removal_order(on, rng)
    hm = container.empty_heightmap()
    expert: list[Placement] = []
    for ri in order:
        x, y, lx, ly = footprints[ri]
        box = boxes[int(perm[ri])]
        hm, p = place(hm, box, int(orient[ri]), x, y)
        if p.z != zs[ri]:
            raise AssertionError(f"expert drop height {p.z} != layout z {zs[ri]} for region {ri}")
        expert.append(p)
    if int(hm.min()) != H or int(hm.max()) != H:
        raise AssertionError("the terminal layout does not fill the container")

    # 5. arrival queue with the buffer invariant
    expert_ids = [p.box_id for p in expert]
    arrival = arrival_queue(expert_ids, spec.buffer_size, rng)
    return PackingCase(
        tier=tier,
        container=container,
        boxes=boxes,
        arrival=arrival,
        buffer_size=spec.buffer_size,
        expert=expert,
        layer_heights=heights,
    )


def check_case(case: PackingCase) -> list[str]:
    """Independent checks of a case's expert trajectory; returns the problems found (empty = good).

    Checks: every box placed exactly once; each placement inside the container with z equal
    to its drop height and z + h <= H; the expert's box is in the visible buffer at every
    step; no two placed boxes overlap in 3-D; the placed volume equals the box volume sum.
    """
    problems: list[str] = []
    L, W, H = case.container.size
    ids = [p.box_id for p in case.expert]
    if sorted(ids) != list(range(len(case.boxes))):
        problems.append("expert does not place every box exactly once")
    if sorted(case.arrival) != list(range(len(case.boxes))):
        problems.append("arrival is not a permutation of the box ids")
    hm = case.container.empty_heightmap()
    occ = np.zeros((L, W, H), bool)
    placed: list[int] = []
    for t, p in enumerate(case.expert):
        if p.box_id not in case.buffer_at(placed):
            problems.append(f"step {t}: expert box {p.box_id} not in the visible buffer")
        box = case.box(p.box_id)
        lx, ly = box.footprint(p.orientation)
        if p.x < 0 or p.y < 0 or p.x + lx > L or p.y + ly > W:
            problems.append(f"step {t}: box {p.box_id} leaves the container footprint")
            continue
        z = int(hm[p.x : p.x + lx, p.y : p.y + ly].max())
        if z != p.z:
            problems.append(f"step {t}: stored z {p.z} != drop height {z}")
        if z + box.height > H:
            problems.append(f"step {t}: box {p.box_id} sticks out of the container top")
            continue
        block = occ[p.x : p.x + lx, p.y : p.y + ly, z : z + box.height]
        if block.any():
            problems.append(f"step {t}: box {p.box_id} overlaps an earlier box")
        block[...] = True
        hm, _ = place(hm, box, p.orientation, p.x, p.y)
        placed.append(p.box_id)
    if int(occ.sum()) != case.total_volume and not problems:
        problems.append(f"occupied volume {int(occ.sum())} != box volume sum {case.total_volume}")
    return problems
