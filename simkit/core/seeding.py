"""Deterministic seeding.

Episode ``i`` of generator ``name`` under master seed ``seed`` is drawn from
``numpy.random.SeedSequence([seed, stable_hash(name), i])`` (README.md,
"Scale-out and determinism"). Nothing else enters the stream, so any worker count, shard split
or resume gives the same episode. A sample rejected by its generator's checks
is redrawn from ``SeedSequence([seed, stable_hash(name), i, redraw])`` with
``redraw`` = 1, 2, ...; the redraw number is recorded in the episode metadata.
"""

from __future__ import annotations

import hashlib

import numpy as np


def stable_hash(text: str) -> int:
    """A 32-bit hash of ``text`` that is the same on every machine and Python run.

    (Python's built-in ``hash`` of a str is salted per process, so it cannot be used.)
    """
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "little")


def episode_seed_sequence(seed: int, name: str, index: int, redraw: int = 0) -> np.random.SeedSequence:
    """The SeedSequence of episode ``index`` (``redraw`` > 0 for the redraws of a rejected sample)."""
    if seed < 0 or index < 0 or redraw < 0:
        raise ValueError("seed, index and redraw must be non-negative integers")
    entropy = [int(seed), stable_hash(name), int(index)]
    if redraw:
        entropy.append(int(redraw))
    return np.random.SeedSequence(entropy)


def episode_rng(seed: int, name: str, index: int, redraw: int = 0) -> np.random.Generator:
    """A PCG64 ``numpy.random.Generator`` for episode ``index`` (see :func:`episode_seed_sequence`)."""
    return np.random.Generator(np.random.PCG64(episode_seed_sequence(seed, name, index, redraw)))
