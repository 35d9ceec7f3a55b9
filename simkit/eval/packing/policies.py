"""Packing policies: the online heuristics PackLab compares against, random, and the expert replay.

Every policy sees a :class:`~simkit.sims.packing.episode.PackingState` (heightmap + buffer, PackLab's S_t = (H_t, B_t)) and
returns an :class:`~simkit.scenes.packing.case.Action` (slot, orientation, x, y) or ``None`` when no
buffer item fits anywhere (the runner then discards the oldest buffered item, see
:mod:`simkit.sims.packing.episode`). The heuristics score every *feasible and stable* candidate
(:mod:`simkit.scenes.packing.candidates`) of every buffered item and orientation and pick the best;
ties are broken by the DBLF order (lower z, then smaller x, then smaller y), then by larger item
volume, then by buffer slot and orientation index, so every policy is deterministic.

Scores (all in grid cells; lower is better unless said):

- ``dblf`` deepest-bottom-left-fill (Karabulut & Inceoglu, ADVIS 2004): the lexicographic key
  (z, x, y): the lowest position, then the deepest (nearest the x = 0 back wall), then the leftmost;
  ties -> larger item first (DBLF packs big items first).
- ``mta`` maximise touching area: the box's contact area with the floor/tops below it (footprint cells
  at the drop height), the container walls and the neighbouring columns beside each side face
  (heightmap estimate: per adjacent cell, the overlap of [z, z+h] with [0, H_adj]), divided by the
  box's surface area (higher is better).
- ``hm`` heightmap minimisation (Wang & Hauser, "Stable bin packing of non-convex 3D objects with a
  robot manipulator", ICRA 2019): the increase of the heightmap's integral, sum over the footprint of
  (z + h - H); with a buffer the item's own volume is subtracted, so the score is the empty volume
  trapped under the item (otherwise the smallest item would always win); ties -> lower new top.
- ``sdf`` SDF-Pack (Pan et al., "SDF-Pack: towards compact bin packing with signed-distance-field
  minimization", IROS 2023): the Euclidean distance field of the remaining free space (voxels of
  the container above the heightmap; distance in cells to the nearest occupied voxel, floor or wall;
  the open top is not an obstacle, ``scipy.ndimage.distance_transform_edt``) is averaged over the
  surface voxels the item would occupy; the placement with the smallest mean wins, so items go
  where they touch the most nearby surfaces. Item choice (simkit's): the largest buffered item
  first (as DBLF's tie-break), which scored best among the variants compared in
  ``docs/benchmarks.md``.
- ``ffp`` first feasible position: buffer slots in order, orientations in order, positions in
  x-major raster order; the first feasible stable candidate.
- ``random``: a uniformly random feasible stable candidate (over all items and orientations).
- ``expert``: replays the case's stored expert placements (raises when the case has none).
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np

from simkit.core.errors import SimkitError
from simkit.scenes.packing.candidates import (
    Candidates,
    window_sum,
)
from simkit.scenes.packing.case import Action, EvalCase, Item
from simkit.sims.packing.episode import PackingState, Policy


class ScoredPolicy(Policy):
    """A heuristic that scores all candidates; subclasses implement :meth:`score` (lower is better)."""

    @abstractmethod
    def score(self, state: PackingState, item: Item, c: Candidates) -> np.ndarray | tuple[np.ndarray, ...]:
        """Cost of each candidate of ``item`` (lower is better; a tuple sorts lexicographically)."""

    def act(self, state: PackingState) -> Action | None:
        best_key: tuple | None = None
        best: Action | None = None
        for slot, item in enumerate(state.buffer):
            for k in range(len(item.orientations())):
                c = state.candidates(item, k)
                if c.x.size == 0:
                    continue
                s = self.score(state, item, c)
                s = s if isinstance(s, tuple) else (s,)
                # lexicographic minimum within this (item, orientation): filter by each score in turn
                idx = np.arange(c.x.size)
                prim = []
                for v in s:
                    v = np.broadcast_to(np.asarray(v, float), c.x.shape)[idx]
                    m = v.min()
                    prim.append(float(m))
                    idx = idx[v <= m + 1e-9 * max(1.0, abs(m))]
                L, W = state.heightmap.shape
                dblf = (c.z[idx] * L + c.x[idx]) * W + c.y[idx]
                j = int(idx[np.argmin(dblf)])
                key = (
                    *[round(v, 9) for v in prim],
                    int(c.z[j]),
                    int(c.x[j]),
                    int(c.y[j]),
                    -item.volume,
                    slot,
                    k,
                )
                if best_key is None or key < best_key:
                    best_key, best = key, Action(slot, k, int(c.x[j]), int(c.y[j]))
        return best


class DBLF(ScoredPolicy):
    """Deepest-bottom-left-fill (module docstring): key (z, x, y), larger items first on ties."""

    name = "dblf"

    def score(self, state, item, c):
        return c.z


class HM(ScoredPolicy):
    """Heightmap minimisation (module docstring): trapped volume under the item, then the new top."""

    name = "hm"

    def score(self, state, item, c):
        ws = window_sum(state.heightmap, c.lx, c.ly)[c.x, c.y]
        increase = c.lx * c.ly * (c.z + c.h) - ws
        return (increase - item.volume, c.z + c.h)


class MTA(ScoredPolicy):
    """Maximise touching area (module docstring): negative contact-area ratio."""

    name = "mta"

    def score(self, state, item, c):
        H = state.heightmap
        L, W = H.shape
        lx, ly, h = c.lx, c.ly, c.h
        n = c.x.size
        # bottom contact: footprint cells at the drop height
        idx_x = c.x[:, None, None] + np.arange(lx)[None, :, None]
        idx_y = c.y[:, None, None] + np.arange(ly)[None, None, :]
        patch = H[idx_x, idx_y]
        bottom = (patch == c.z[:, None, None]).sum(axis=(1, 2)).astype(float)
        side = np.zeros(n)
        z0, z1 = c.z[:, None], (c.z + h)[:, None]

        def strip(cells_h: np.ndarray) -> np.ndarray:  # overlap of [z, z+h] with [0, H_adj], per cell
            return np.clip(np.minimum(cells_h, z1) - z0, 0, None).sum(axis=1)

        ar_y = c.y[:, None] + np.arange(ly)[None, :]
        ar_x = c.x[:, None] + np.arange(lx)[None, :]
        for side_x, wall in ((c.x - 1, c.x == 0), (c.x + lx, c.x + lx == L)):
            hh = H[np.clip(side_x, 0, L - 1)[:, None], ar_y]
            side += np.where(wall, ly * h, strip(hh))
        for side_y, wall in ((c.y - 1, c.y == 0), (c.y + ly, c.y + ly == W)):
            hh = H[ar_x, np.clip(side_y, 0, W - 1)[:, None]]
            side += np.where(wall, lx * h, strip(hh))
        area = 2.0 * (lx * ly + lx * h + ly * h)
        return -(bottom + side) / area


class SDFPack(ScoredPolicy):
    """SDF-Pack (module docstring): largest item first, then the mean free-space distance over its surface voxels.

    Containers above :attr:`max_voxels` (the 1 cm Bischoff-Ratcliff containers hold ~30 M voxels) get
    their distance field on a grid coarsened by the smallest integer factor k with
    ``ceil(L/k) ceil(W/k) ceil(H/k) <= max_voxels``: a coarse voxel is free only when all of its
    k x k x k cells are (the coarse heightmap is the block maximum, rounded up to whole coarse cells),
    distances are scaled back by k, and a candidate is scored over the coarse voxels its box covers
    (outward rounding). Placement, feasibility and support stay on the exact grid; only the score is
    approximated.
    """

    name = "sdf"

    #: largest grid (voxels) the per-step 3-D distance field is computed on (~0.2 GB of float64)
    max_voxels = 4_000_000

    def coarsening(self, size: tuple[int, int, int]) -> int:
        """The grid factor k for a container of ``size`` cells (1 when it fits :attr:`max_voxels`)."""
        L, W, Hc = size
        k = 1
        while -(-L // k) * -(-W // k) * -(-Hc // k) > self.max_voxels:
            k += 1
        return k

    def _field(self, state: PackingState) -> tuple[np.ndarray, int]:
        f = state._cache.get("sdf")
        if f is None:
            from simkit.core.errors import require

            nd = require("scipy.ndimage", "packing")
            k = self.coarsening(state.container.size)
            L, W, Hc = (-(-s // k) for s in state.container.size)
            H = state.heightmap
            if (
                k > 1
            ):  # block maximum, in whole coarse cells (a coarse voxel is free only if all its cells are)
                pad = np.zeros((L * k, W * k), dtype=H.dtype)
                pad[: H.shape[0], : H.shape[1]] = H
                H = -(-pad.reshape(L, k, W, k).max(axis=(1, 3)) // k)
            free = np.zeros((L + 2, W + 2, Hc + 1), dtype=bool)  # walls at the rim, floor at k=0
            zz = np.arange(Hc)[None, None, :]
            free[1:-1, 1:-1, 1:] = zz >= H[:, :, None]
            dist = nd.distance_transform_edt(free)[1:-1, 1:-1, 1:] * k
            # 3-D summed-volume table for O(1) box sums
            s = np.zeros((L + 1, W + 1, Hc + 1))
            s[1:, 1:, 1:] = dist.cumsum(0).cumsum(1).cumsum(2)
            f = (s, k)
            state._cache["sdf"] = f
        return f

    def score(self, state, item, c):
        s, k = self._field(state)

        def box_sum(x0, y0, z0, x1, y1, z1):
            return (
                s[x1, y1, z1]
                - s[x0, y1, z1]
                - s[x1, y0, z1]
                - s[x1, y1, z0]
                + s[x0, y0, z1]
                + s[x0, y1, z0]
                + s[x1, y0, z0]
                - s[x0, y0, z0]
            )

        # the candidate's box in (coarse) voxels, rounded outwards
        x0, y0, z0 = c.x // k, c.y // k, c.z // k
        x1, y1, z1 = -(-(c.x + c.lx) // k), -(-(c.y + c.ly) // k), -(-(c.z + c.h) // k)
        z1 = np.minimum(z1, s.shape[2] - 1)
        full = box_sum(x0, y0, z0, x1, y1, z1)
        # the item's surface voxels = its voxels minus the interior shrunk by one voxel per side
        ix0, iy0, iz0 = np.minimum(x0 + 1, x1), np.minimum(y0 + 1, y1), np.minimum(z0 + 1, z1)
        ix1, iy1, iz1 = np.maximum(x1 - 1, ix0), np.maximum(y1 - 1, iy0), np.maximum(z1 - 1, iz0)
        inner = box_sum(ix0, iy0, iz0, ix1, iy1, iz1)
        n_full = (x1 - x0) * (y1 - y0) * (z1 - z0)
        n_surface = np.maximum(n_full - (ix1 - ix0) * (iy1 - iy0) * (iz1 - iz0), 1)
        return (-item.volume, (full - inner) / n_surface)


class FFP(Policy):
    """First feasible position (module docstring)."""

    name = "ffp"

    def act(self, state: PackingState) -> Action | None:
        for slot, item in enumerate(state.buffer):
            for k in range(len(item.orientations())):
                c = state.candidates(item, k)
                if c.x.size:
                    return Action(slot, k, int(c.x[0]), int(c.y[0]))
        return None


class RandomPolicy(Policy):
    """Uniformly random feasible stable candidate (module docstring); uses only the episode rng."""

    name = "random"

    def act(self, state: PackingState) -> Action | None:
        opts = []
        for slot, item in enumerate(state.buffer):
            for k in range(len(item.orientations())):
                c = state.candidates(item, k)
                if c.x.size:
                    opts.append((slot, k, c))
        total = sum(o[2].x.size for o in opts)
        if total == 0:
            return None
        r = int(self.rng.integers(total))
        for slot, k, c in opts:
            if r < c.x.size:
                return Action(slot, k, int(c.x[r]), int(c.y[r]))
            r -= c.x.size
        raise AssertionError("unreachable")  # pragma: no cover


class Expert(Policy):
    """Replays ``case.expert`` in order (the layout-first trajectory A*)."""

    name = "expert"

    def reset(self, case: EvalCase, rng: np.random.Generator) -> None:
        super().reset(case, rng)
        if case.expert is None:
            raise SimkitError(f"case {case.name} has no expert trajectory (policy 'expert' needs one)")
        self._next = 0

    def act(self, state: PackingState) -> Action | None:
        expert = self.case.expert or []  # reset() refused a case without one
        if self._next >= len(expert):
            return None
        p = expert[self._next]
        self._next += 1
        slots = [i for i, it in enumerate(state.buffer) if it.id == p.box_id]
        if not slots:
            raise SimkitError(
                f"case {self.case.name}: expert box {p.box_id} is not in the buffer at step "
                f"{state.step} (arrival queue inconsistent with the expert order)"
            )
        item = state.buffer[slots[0]]
        k = item.orientation_index(None, p.orientation)
        return Action(slots[0], k, p.x, p.y)


POLICIES: dict[str, type[Policy]] = {
    "dblf": DBLF,
    "mta": MTA,
    "hm": HM,
    "sdf": SDFPack,
    "ffp": FFP,
    "random": RandomPolicy,
    "expert": Expert,
}
#: accepted aliases
ALIASES = {"sdf-pack": "sdf", "sdfpack": "sdf"}


def make_policy(name: str) -> Policy:
    """A fresh policy by name (``dblf``, ``mta``, ``hm``, ``sdf`` (``sdf-pack``), ``ffp``, ``random``, ``expert``).

    Raises:
        SimkitError: unknown name (the message lists the known ones).
    """
    key = ALIASES.get(name.lower(), name.lower())
    if key not in POLICIES:
        raise SimkitError(f"unknown packing policy {name!r}; known: {', '.join(POLICIES)}")
    return POLICIES[key]()
