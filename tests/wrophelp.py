"""The wrop tasks CI renders: a fixed, spread sample of each family (the full sweeps are in tools/).

Every task of the 150 is rendered by ``python tools/wrop_sweep.py --generator all --seeds 1 --frames 24``
(and through the engine by ``simkit generate wrop --generator all --n 300`` + ``simkit validate``);
a new or changed task is checked there before it is merged.
"""

from __future__ import annotations

from simkit.generators.wrop.base import FAMILIES, catalogue


def wrop_sample(per_family: int, phase: float = 0.0) -> list[str]:
    """``per_family`` task ids of each family (catalogue order), evenly spaced through the family and
    shifted by ``phase`` (0 <= phase < 1) of one spacing, so samples of different phases differ."""
    out = []
    for fam in FAMILIES:
        ids = [gid for gid, c in catalogue().items() if c.family == fam]
        step = len(ids) / per_family
        out += [ids[int((k + phase) * step)] for k in range(per_family)]
    return out
