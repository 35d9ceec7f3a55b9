"""Parameter spaces of the task language: uniform ranges, integer ranges and choices.

A task declares two ordered dicts of these (structural and surface); sampling
walks a dict in declaration order, one draw per entry, so the values depend
only on the generator passed in (see ``simkit.generators.wrop.base``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Uniform:
    """A float drawn uniformly from [lo, hi], rounded to ``digits`` decimals (JSON-stable)."""

    lo: float
    hi: float
    digits: int = 4

    def sample(self, rng: np.random.Generator) -> float:
        return round(float(rng.uniform(self.lo, self.hi)), self.digits)

    def describe(self) -> str:
        return f"uniform [{self.lo}, {self.hi}]"


@dataclass(frozen=True)
class IntRange:
    """An integer drawn uniformly from lo..hi inclusive."""

    lo: int
    hi: int

    def sample(self, rng: np.random.Generator) -> int:
        return int(rng.integers(self.lo, self.hi + 1))

    def describe(self) -> str:
        return f"integer {self.lo}..{self.hi}"


@dataclass(frozen=True)
class Choice:
    """One of ``values`` (uniform)."""

    values: Sequence[Any]

    def sample(self, rng: np.random.Generator) -> Any:
        v = self.values[int(rng.integers(0, len(self.values)))]
        return v.item() if isinstance(v, np.generic) else v

    def describe(self) -> str:
        return "one of " + ", ".join(map(str, self.values))


def sample_space(space: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Draw every entry of ``space`` in declaration order."""
    return {k: v.sample(rng) for k, v in space.items()}
