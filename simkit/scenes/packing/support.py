"""Support rules of box packing: when a box may stand on what is below it.

``com``: the centre of mass of the (uniform) box over its support (static equilibrium of a rigid box on
rigid supports); ``area:F``: ``com`` and at least the fraction F of the base supported; ``full``: the
whole base supported (F = 1). Container-loading papers commonly require full or >= 75 % base support
(Bortfeldt and Waescher, "Constraints in container loading - A state-of-the-art review", EJOR 229(1),
2013, sec. 4.2). The heightmap test lives in :mod:`simkit.scenes.packing.candidates`, the test on posed
boxes in :mod:`simkit.scenes.packing.checker`.
"""

from __future__ import annotations

from dataclasses import dataclass

from simkit.core.errors import SimkitError


@dataclass(frozen=True)
class SupportRule:
    """When a box may stand on the heightmap (module docstring).

    Attributes:
        kind: ``"com"`` (centre of mass over the support, the four-quadrant rule), ``"area"``
            (com and at least ``fraction`` of the base supported) or ``"full"`` (the whole base).
        fraction: least supported share of the footprint's cells (``area``: in (0, 1]; ``full``: 1).
    """

    kind: str = "com"
    fraction: float = 0.0

    def __str__(self) -> str:
        return {"com": "com", "full": "full"}.get(self.kind, f"area:{self.fraction:g}")


#: the rule used unless another is asked for
COM = SupportRule()


def parse_support(text: str | SupportRule) -> SupportRule:
    """``"com"``, ``"area:F"`` (0 < F <= 1, e.g. ``area:0.75``) or ``"full"`` -> :class:`SupportRule`.

    Raises:
        SimkitError: any other value (one line naming it and the accepted forms).
    """
    if isinstance(text, SupportRule):
        return text
    t = str(text).strip().lower()
    if t == "com":
        return COM
    if t == "full":
        return SupportRule("full", 1.0)
    if t.startswith("area:"):
        try:
            f = float(t[5:])
        except ValueError:
            f = float("nan")
        if 0.0 < f <= 1.0:
            return SupportRule("area", f)
    raise SimkitError(f"--support {text!r}: use 'com', 'full' or 'area:F' with 0 < F <= 1 (e.g. area:0.75)")
