"""Evaluation cases: a container, the items to pack, their arrival order and the buffer size.

A case is the neutral input of the closed-loop runner (:mod:`simkit.sims.packing.episode`).
It comes from the layout compiler (:func:`from_packing_case`, PackLab-Bench cases), from
the OR-Library ``thpack`` files (:mod:`simkit.eval.packing.br`), from the shipped bench file
(:mod:`simkit.eval.packing.bench`) or is built by hand.

Orientations. PackLab allows the horizontal orientations 0 and 90 degrees (spec
``packing.md``). The Bischoff-Ratcliff instances also let some dimensions stand vertically.
An :class:`Item` therefore holds one or more *upright variants* (a :class:`Box` per allowed
vertical dimension, all with the item's id); its orientation index ``k`` enumerates
``(variant, yaw)`` pairs in order: variant 0 yaw 0, variant 0 yaw 1, variant 1 yaw 0, ...
For a PackLab item (one variant, yaws (0, 1)) ``k`` is exactly PackLab's ``o`` in {0, 1}.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from simkit.scenes.packing.geometry import Box, Container, Placement


@dataclass(frozen=True)
class Item:
    """An object to pack: an id and its upright variants (boxes of the same id, see the module docstring)."""

    id: int
    variants: tuple[Box, ...]

    def __post_init__(self) -> None:
        if not self.variants:
            raise ValueError(f"item {self.id}: no variants")
        if any(v.id != self.id for v in self.variants):
            raise ValueError(f"item {self.id}: every variant must carry the item's id")

    @classmethod
    def of(cls, box: Box) -> Item:
        """An item with the single upright variant ``box``."""
        return cls(box.id, (box,))

    @property
    def box(self) -> Box:
        """The nominal variant (variant 0)."""
        return self.variants[0]

    @property
    def volume(self) -> int:
        """Volume in cells^3 (the same for every variant)."""
        return self.variants[0].volume

    def orientations(self) -> list[tuple[Box, int]]:
        """``(variant, yaw)`` for each orientation index k = 0, 1, ... (module docstring)."""
        return [(v, yaw) for v in self.variants for yaw in v.rotations]

    def orientation(self, k: int) -> tuple[Box, int]:
        """``(variant, yaw)`` of orientation index ``k``; ``IndexError`` when out of range."""
        if k < 0:
            raise IndexError(k)
        return self.orientations()[k]

    def orientation_index(self, box_size: tuple[int, int, int] | None, yaw: int) -> int:
        """The index k of (the variant with ``box_size`` (None = variant 0), ``yaw``)."""
        for k, (v, y) in enumerate(self.orientations()):
            if y == yaw and (
                (box_size is None and v is self.variants[0]) or tuple(v.size) == tuple(box_size or ())
            ):
                return k
        raise ValueError(f"item {self.id}: no orientation with size {box_size} and yaw {yaw}")


@dataclass(frozen=True)
class Action:
    """One policy decision (PackLab's a_t = (b_t, o_t, x_t, y_t)).

    Attributes:
        slot: index into the current buffer (0-based, buffer order = arrival order).
        orientation: orientation index k of the chosen item (:meth:`Item.orientations`).
        x, y: footprint min corner, grid cells.
    """

    slot: int
    orientation: int
    x: int
    y: int


@dataclass
class EvalCase:
    """One evaluation case.

    Attributes:
        name: unique name (e.g. ``bench-hard-07``, ``br1-042``).
        tier: ``easy``/``medium``/``hard`` for PackLab cases, ``br1``..``br7`` for BR problems.
        container: the container (cells of ``container.resolution`` metres).
        items: the objects, any order.
        arrival: item ids in arrival order (every item exactly once).
        buffer_size: how many arrived items the policy sees and chooses from.
        expert: the expert trajectory (forward order, with z), or None when the case has none.
        info: free-form provenance (seed, source file, line), JSON-serialisable.
    """

    name: str
    tier: str
    container: Container
    items: list[Item]
    arrival: list[int]
    buffer_size: int
    expert: list[Placement] | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ids = [it.id for it in self.items]
        if len(set(ids)) != len(ids):
            raise ValueError(f"case {self.name}: duplicate item ids")
        if sorted(self.arrival) != sorted(ids):
            raise ValueError(f"case {self.name}: arrival must list every item id exactly once")
        if self.buffer_size < 1:
            raise ValueError(f"case {self.name}: buffer_size must be >= 1")

    @property
    def item_by_id(self) -> dict[int, Item]:
        return {it.id: it for it in self.items}

    @property
    def total_volume(self) -> int:
        """Total item volume, cells^3."""
        return sum(it.volume for it in self.items)

    def with_buffer(self, buffer_size: int) -> EvalCase:
        """A copy with another buffer size."""
        return EvalCase(
            self.name,
            self.tier,
            self.container,
            list(self.items),
            list(self.arrival),
            int(buffer_size),
            self.expert,
            dict(self.info),
        )

    # -- serialisation -----------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (inverse: :meth:`from_json`)."""

        def box_json(b: Box) -> dict:
            return {
                "id": b.id,
                "size": list(b.size),
                "mass": round(float(b.mass), 6),
                "colour": [round(float(c), 4) for c in b.colour],
                "rotations": list(b.rotations),
            }

        return {
            "name": self.name,
            "tier": self.tier,
            "container": {"size": list(self.container.size), "resolution": self.container.resolution},
            "items": [{"id": it.id, "variants": [box_json(v) for v in it.variants]} for it in self.items],
            "arrival": list(self.arrival),
            "buffer_size": self.buffer_size,
            "expert": None
            if self.expert is None
            else [[p.box_id, p.orientation, p.x, p.y, p.z] for p in self.expert],
            "info": self.info,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> EvalCase:
        """Inverse of :meth:`to_json`. Raises ``KeyError``/``ValueError``/``TypeError`` on a bad dict."""

        def box(b: dict) -> Box:
            sx, sy, sz = (int(s) for s in b["size"])
            cr, cg, cb = (float(c) for c in b.get("colour", (0.6, 0.6, 0.6)))
            return Box(
                int(b["id"]),
                (sx, sy, sz),
                float(b.get("mass", 1.0)),
                (cr, cg, cb),
                tuple(int(r) for r in b.get("rotations", (0, 1))),
            )

        items = [Item(int(it["id"]), tuple(box(v) for v in it["variants"])) for it in d["items"]]
        c = d["container"]
        cl, cw, ch = (int(s) for s in c["size"])
        expert = d.get("expert")
        return cls(
            name=str(d["name"]),
            tier=str(d["tier"]),
            container=Container((cl, cw, ch), float(c["resolution"])),
            items=items,
            arrival=[int(i) for i in d["arrival"]],
            buffer_size=int(d["buffer_size"]),
            expert=None if expert is None else [Placement(*(int(v) for v in e)) for e in expert],
            info=dict(d.get("info") or {}),
        )

    # -- identity (bench overlap check) -------------------------------------------------------
    def content_digest(self) -> str:
        """sha256 of the case content: container size and the multiset of item sizes.

        Footprints are order-free (l, w sorted) so that a rotated copy of a case has the same
        digest. Two cases with the same digest pose the same packing problem (up to arrival order).
        """
        return content_digest(self.container.size, [it.box.size for it in self.items])

    def overlap_digest(self) -> str:
        """:func:`overlap_digest` of this case (also invariant to a 90 degree turn of the container)."""
        return overlap_digest(self.container.size, [it.box.size for it in self.items])


def content_digest(container_size, box_sizes) -> str:
    """sha256 hex of (container size, sorted multiset of (sorted footprint, height)) (see :meth:`EvalCase.content_digest`)."""
    sizes = sorted((min(int(s[0]), int(s[1])), max(int(s[0]), int(s[1])), int(s[2])) for s in box_sizes)
    payload = json.dumps(
        {"container": [int(v) for v in container_size], "boxes": sizes}, separators=(",", ":")
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def overlap_digest(container_size, box_sizes) -> str:
    """The smaller of :func:`content_digest` of the container as given, (L, W, H), and turned by
    90 degrees about the vertical, (W, L, H); hex str.

    Two cases get the same overlap digest exactly when one is the other up to box order, a yaw
    of any box by 90 degrees (its l and w swapped) and a 90 degree turn of the whole case (the
    container's L and W swapped, with every box's l and w; since footprints are already sorted,
    only the container needs both forms). Mirroring does not change sizes, so mirrored cases
    match too. Arrival order, buffer size, masses and colours are ignored. Heights are not
    permuted (a box lying on its side is a different problem).
    """
    L, W, H = (int(v) for v in container_size)
    return min(content_digest((L, W, H), box_sizes), content_digest((W, L, H), box_sizes))


def from_packing_case(pc: Any, name: str = "case", info: dict[str, Any] | None = None) -> EvalCase:
    """An :class:`EvalCase` from a layout compiler ``PackingCase`` (duck-typed).

    Reads ``pc.tier``, ``pc.container``, ``pc.boxes`` (list of :class:`Box`), ``pc.arrival`` (box ids),
    ``pc.buffer_size`` and ``pc.expert`` (list of :class:`Placement`, forward order, with z).
    """
    expert = list(pc.expert) if getattr(pc, "expert", None) is not None else None
    return EvalCase(
        name=name,
        tier=str(pc.tier),
        container=pc.container,
        items=[Item.of(b) for b in pc.boxes],
        arrival=[int(i) for i in pc.arrival],
        buffer_size=int(pc.buffer_size),
        expert=expert,
        info=dict(info or {}),
    )
