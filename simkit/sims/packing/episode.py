"""Closed-loop packing episodes: heightmap state + buffer + arrival queue + physics at every step.

One episode (PackLab's closed loop, spec ``packing.md``):

1. The buffer holds the first ``buffer_size`` arrivals; the rest wait in the arrival queue.
2. The policy sees (heightmap, buffer) and returns an action (slot, orientation, x, y); z is the
   heightmap's drop height over the footprint (PackLab eq. 2).
3. The box is dropped in pybullet (:class:`~simkit.sims.packing.physics.PackingPhysics`) and
   stepped until at rest. When physics accepts the placement the heightmap is updated
   geometrically; when it does not (tipped, fell, knocked another box) the heightmap is rebuilt
   from the settled poses of all boxes, so the policy always sees the physical state.
4. The item leaves the buffer; the next arrival (if any) joins it.
5. Rule for an impossible step: when the policy returns ``None`` (no buffered item fits
   anywhere) or an action that cannot be executed (empty slot, footprint outside the container,
   top above the container), the oldest buffered item (or the chosen one, for a bad action) is
   discarded, unpacked. The episode ends when every item has been handled (placed or discarded).

At the end the metrics of :mod:`~simkit.scenes.packing.metrics` are computed from the settled poses
and the packing is verified by the geometric checker (:mod:`~simkit.scenes.packing.checker`).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simkit.scenes.packing.candidates import (
    COM,
    Candidates,
    SupportRule,
    enumerate_candidates,
    placement_supported,
    support_maps,
)
from simkit.scenes.packing.case import Action, EvalCase, Item
from simkit.scenes.packing.checker import Violation, check_packing
from simkit.scenes.packing.geometry import Box, Container, Placement, drop_z
from simkit.scenes.packing.metrics import CaseMetrics, case_metrics, centre_inside, heightmap_from_poses


@dataclass
class PackingState:
    """What a policy observes at step t.

    Attributes:
        container: the container.
        heightmap: (L, W) int32 heightmap in cells (PackLab H_t).
        buffer: the visible items, in arrival order (PackLab B_t).
        step: 0-based step index.
        queue_left: how many items have not arrived yet.
        support: the support rule candidates must meet.
    """

    container: Container
    heightmap: np.ndarray
    buffer: list[Item]
    step: int = 0
    queue_left: int = 0
    support: SupportRule = COM
    _cache: dict = field(default_factory=dict, repr=False)

    def candidates(self, item: Item, k: int) -> Candidates:
        """Feasible stable candidates of orientation ``k`` of ``item`` (cached per footprint and height)."""
        box, yaw = item.orientation(k)
        lx, ly = box.footprint(yaw)
        key = (lx, ly, box.height)
        c = self._cache.get(key)
        if c is None:
            maps = self._cache.get((lx, ly))
            if maps is None:
                maps = self._cache[(lx, ly)] = support_maps(self.heightmap, lx, ly, rule=self.support)
            c = enumerate_candidates(self.container, self.heightmap, box, yaw, maps=maps)
            self._cache[key] = c
        return c


class Policy(ABC):
    """Base class: ``reset(case, rng)`` at the start of an episode, ``act(state)`` every step."""

    name = "policy"

    def reset(self, case: EvalCase, rng: np.random.Generator) -> None:
        self.case = case
        self.rng = rng

    @abstractmethod
    def act(self, state: PackingState) -> Action | None:
        """The next action (buffer item, orientation, position), or ``None`` when nothing fits."""


@dataclass
class StepRecord:
    """One executed step: the action, the placement (with z), and the physics verdict (dict)."""

    action: Action | None
    item_id: int
    placement: Placement | None
    physics: dict[str, Any] | None
    discarded: bool = False


@dataclass
class EpisodeResult:
    """A finished episode: per-step records, metrics, checker violations, wall time (s)."""

    case: str
    tier: str
    policy: str
    steps: list[StepRecord]
    metrics: CaseMetrics
    violations: list[Violation]
    invalid_placements: int
    discarded: int
    seconds: float
    final_heightmap: np.ndarray | None = field(repr=False, default=None)

    def row(self) -> dict[str, Any]:
        """A flat JSON-ready summary row (metrics + counts)."""
        return {
            "case": self.case,
            "tier": self.tier,
            "policy": self.policy,
            **self.metrics.to_dict(),
            "steps": len(self.steps),
            "invalid_placements": self.invalid_placements,
            "discarded": self.discarded,
            "violations": [str(v) for v in self.violations],
            "seconds": round(self.seconds, 4),
        }


class PackingEpisode:
    """Step-wise closed-loop episode (used by :func:`run_episode` and the Gymnasium env).

    Args:
        case: the case; physics: a :class:`PackingPhysics` for ``case.container`` (reset here), or
            None to skip physics (geometric placement only; for tests and quick previews).
        support: the support rule (:class:`~simkit.scenes.packing.candidates.SupportRule`): policies
            see it in their state, an action whose footprint does not meet it cannot be executed,
            and the final packing is checked against it. ``None``: policies and the checker use
            ``com`` and any action is executed (physics decides; scripted tests of tipping boxes).
    """

    def __init__(self, case: EvalCase, physics=None, support: SupportRule | None = None) -> None:
        self.case = case
        self.physics = physics
        self.enforce = support is not None
        self.support = support if support is not None else COM
        if physics is not None:
            physics.reset(case.container)
        self.items = case.item_by_id
        self.heightmap = case.container.empty_heightmap()
        arrival = list(case.arrival)
        self.buffer: list[Item] = [self.items[i] for i in arrival[: case.buffer_size]]
        self.queue: list[int] = arrival[case.buffer_size :]
        self.placed: dict[int, tuple[Box, Placement]] = {}
        self.steps: list[StepRecord] = []
        self.invalid = 0
        self.discarded = 0

    @property
    def done(self) -> bool:
        return not self.buffer

    def state(self) -> PackingState:
        """The current observation (a fresh :class:`PackingState`; its candidate cache is per step)."""
        return PackingState(
            self.case.container,
            self.heightmap.copy(),
            list(self.buffer),
            len(self.steps),
            len(self.queue),
            self.support,
        )

    def _refill(self, slot: int) -> None:
        del self.buffer[slot]
        if self.queue:
            self.buffer.append(self.items[self.queue.pop(0)])

    def executable(self, action: Action) -> tuple[Box, int, int] | None:
        """(variant box, yaw, z) when ``action`` can be executed (inside the container, under its
        height, meeting the support rule), else None."""
        if not (0 <= action.slot < len(self.buffer)):
            return None
        item = self.buffer[action.slot]
        try:
            box, yaw = item.orientation(action.orientation)
        except IndexError:
            return None
        lx, ly = box.footprint(yaw)
        L, W, Hc = self.case.container.size
        if action.x < 0 or action.y < 0 or action.x + lx > L or action.y + ly > W:
            return None
        z = drop_z(self.heightmap, action.x, action.y, lx, ly)
        if z + box.height > Hc:
            return None
        if self.enforce and not placement_supported(self.heightmap, action.x, action.y, lx, ly, self.support):
            return None
        return box, yaw, z

    def step(self, action: Action | None) -> StepRecord:
        """Execute one action (``None`` = nothing fits: discard the oldest buffered item)."""
        if self.done:
            raise RuntimeError("episode is over")
        ex = None if action is None else self.executable(action)
        if action is None or ex is None:
            slot = 0 if action is None or not (0 <= action.slot < len(self.buffer)) else action.slot
            rec = StepRecord(action, self.buffer[slot].id, None, None, discarded=True)
            self.discarded += 1
            self._refill(slot)
            self.steps.append(rec)
            return rec
        box, yaw, z = ex
        pl = Placement(box.id, yaw, action.x, action.y, z)
        phys = None
        valid = True
        if self.physics is not None:
            r = self.physics.place(box, pl)
            phys = r.to_dict()
            valid = r.valid
        self.placed[box.id] = (box, pl)
        lx, ly = box.footprint(yaw)
        if valid:
            self.heightmap[action.x : action.x + lx, action.y : action.y + ly] = z + box.height
        else:
            self.invalid += 1
            self.heightmap = heightmap_from_poses(self.case.container, self._posed(self.physics.poses()))
        rec = StepRecord(action, box.id, pl, phys)
        self._refill(action.slot)
        self.steps.append(rec)
        return rec

    def _posed(self, poses) -> list[tuple[Box, Any]]:
        return [(self.placed[i][0], poses[i]) for i in poses]

    def final_poses(self) -> dict[int, tuple]:
        """Settled poses of the placed boxes (physics), or their geometric poses without physics."""
        if self.physics is not None:
            return self.physics.poses()
        res = self.case.container.resolution
        out = {}
        for bid, (box, pl) in self.placed.items():
            lx, ly = box.footprint(pl.orientation)
            c = ((pl.x + lx / 2) * res, (pl.y + ly / 2) * res, (pl.z + box.height / 2) * res)
            q = (1.0, 0.0, 0.0, 0.0) if pl.orientation == 0 else (np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5))
            out[bid] = (c, q)
        return out

    def finish(self, check: bool = True) -> tuple[CaseMetrics, list[Violation], np.ndarray]:
        """Metrics (eqs. 11-13), checker violations and the final heightmap of the packed boxes."""
        poses = self.final_poses()
        container = self.case.container
        packed = [(self.placed[i][0], poses[i]) for i in poses if centre_inside(container, poses[i][0])]
        final_h = heightmap_from_poses(container, packed)
        m = case_metrics(
            container, self.case.total_volume, [b for b, _ in packed], final_h, len(self.case.items)
        )
        viol = check_packing(container, packed, support=self.support) if check else []
        return m, viol, final_h


def run_episode(
    case: EvalCase,
    policy: Policy,
    physics=None,
    rng: np.random.Generator | None = None,
    check: bool = True,
    on_step: Callable[[PackingState, StepRecord], None] | None = None,
    support: SupportRule | None = None,
) -> EpisodeResult:
    """Run ``policy`` on ``case`` closed loop (module docstring) and score it.

    Args:
        case: the case; policy: a fresh or reused :class:`Policy` (reset here).
        physics: a :class:`PackingPhysics` for ``case.container`` or None (geometry only).
        rng: the policy's random generator (default: seeded from the case name, reproducible).
        check: run the geometric checker on the result.
        on_step: optional callback(state before the step, step record).
        support: the support rule (:class:`PackingEpisode`).
    Returns:
        :class:`EpisodeResult`.
    """
    t0 = time.perf_counter()
    if rng is None:
        from simkit.core.seeding import stable_hash

        rng = np.random.default_rng(stable_hash(case.name))
    ep = PackingEpisode(case, physics, support)
    policy.reset(case, rng)
    while not ep.done:
        st = ep.state()
        rec = ep.step(policy.act(st))
        if on_step is not None:
            on_step(st, rec)
    m, viol, final_h = ep.finish(check)
    return EpisodeResult(
        case.name,
        case.tier,
        policy.name,
        ep.steps,
        m,
        viol,
        ep.invalid,
        ep.discarded,
        time.perf_counter() - t0,
        final_h,
    )
