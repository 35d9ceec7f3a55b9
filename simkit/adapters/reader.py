"""A plain Python reader of simkit corpora (no torch needed): verified, split by episode, seeded shuffling.

::

    from simkit.adapters.reader import CorpusReader

    reader = CorpusReader(["corpus_a", "corpus_b"], shuffle=True, seed=0)
    for epoch in range(3):
        reader.set_epoch(epoch)
        for sample in reader:          # {"__key__": str, field: decoded value, ...}
            ...

Every episode is checked against the manifest before it is handed out (see
:mod:`simkit.episodes.reader`): by default a damaged one raises
:class:`~simkit.episodes.reader.CorpusDamaged` naming corpus, shard and member;
``on_error="skip"`` skips it with one warning per shard.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import SimkitError
from simkit.episodes.reader import EpisodeEntry, OnError, corpus_episodes, corpus_info, iter_episodes
from simkit.episodes.storage import corpus_path


def split_for(items: list, rank: int, world_size: int, worker: int, num_workers: int) -> list:
    """The items this (rank, worker) reads: every ``world_size``-th from ``rank``, then every ``num_workers``-th.

    Every item goes to exactly one (rank, worker) pair, and shares differ by at most one item, so a
    one-shard corpus still feeds every worker.
    """
    return items[rank::world_size][worker::num_workers]


def _env_int(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise SimkitError(f"environment variable {name}={value!r} is not an integer") from None


def distributed_rank(rank: int | None = None, world_size: int | None = None) -> tuple[int, int]:
    """The (rank, world size) a reader built in this process reads as.

    In order: the explicit arguments (both or neither); ``torch.distributed``'s rank and world size
    when it is imported and its default process group is initialised; the ``RANK`` and ``WORLD_SIZE``
    environment variables (as ``torchrun`` sets them; ``LOCAL_RANK`` is the rank within one host and
    does not split data); else ``(0, 1)``. torch is never imported here.

    Raises:
        SimkitError: only one of ``rank``/``world_size`` given, only one of ``RANK``/``WORLD_SIZE``
            set, a value is not an integer, or not ``0 <= rank < world_size``.
    """
    if (rank is None) != (world_size is None):
        raise SimkitError(
            f"give both rank and world_size or neither, got rank={rank}, world_size={world_size}"
        )
    source = "arguments"
    if rank is None:
        dist = getattr(sys.modules.get("torch"), "distributed", None)
        if dist is not None and dist.is_available() and dist.is_initialized():
            rank, world_size, source = dist.get_rank(), dist.get_world_size(), "torch.distributed"
        else:
            rank, world_size, source = _env_int("RANK"), _env_int("WORLD_SIZE"), "RANK/WORLD_SIZE"
            if (rank is None) != (world_size is None):
                raise SimkitError(
                    f"RANK and WORLD_SIZE must be set together, got RANK={rank}, WORLD_SIZE={world_size}"
                )
    rank, world_size = (0, 1) if rank is None or world_size is None else (int(rank), int(world_size))
    if not 0 <= rank < world_size:
        raise SimkitError(f"need 0 <= rank < world_size, got rank {rank} of {world_size} (from {source})")
    return rank, world_size


def epoch_order(n: int, shuffle: bool, seed: int, epoch: int) -> list[int]:
    """Episode order of one epoch: ``range(n)``, or its permutation by ``numpy.random.default_rng([seed, epoch])``.

    The same (seed, epoch) gives the same order on every rank, as ``torch.utils.data.DistributedSampler``
    requires (it reseeds with ``seed + epoch`` in ``set_epoch`` for the same reason).
    """
    if not shuffle:
        return list(range(n))
    return [int(i) for i in np.random.default_rng([int(seed), int(epoch)]).permutation(n)]


def check_fields(roots: list[Path], fields: set[str]) -> None:
    """Raise SimkitError unless every corpus of ``roots`` has every field of ``fields`` (corpus.json schema)."""
    for root in roots:
        schema = corpus_info(root).get("schema") or {}
        unknown = sorted(fields - set(schema))
        if unknown:
            raise SimkitError(
                f"{root}: no field(s) {', '.join(unknown)}; the corpus has: {', '.join(sorted(schema))}"
            )


class CorpusReader:
    """Iterate verified, decoded samples of one or several corpora.

    Args:
        roots: one corpus directory or a list of them.
        fields: read only these fields (plus ``__key__``); ``None`` reads all.
        transform: applied to each sample dict before it is yielded.
        shuffle: permute the episodes each epoch with ``default_rng([seed, epoch])``.
        seed, epoch: shuffling seed and the current epoch (see :meth:`set_epoch`).
        rank, world_size: which distributed share to read; both ``None`` (default): taken once, when
            the reader is built, from :func:`distributed_rank` (``torch.distributed`` if initialised,
            else ``RANK``/``WORLD_SIZE``, else the whole corpus). They are plain attributes, so a
            reader pickled into a worker process keeps them.
        worker, num_workers: which share of this rank's episodes to read (default: all).
        drop_last: make every (rank, worker) share the same length by dropping the remainder (the
            episodes of a distributed epoch then end on every rank at the same step).
        on_error: ``"raise"`` (default) or ``"skip"`` damaged episodes.
        verify: check members against the manifest (default; turn off only for benchmarks).

    Raises:
        SimkitError: a root is not a corpus, its manifest is unreadable, or ``fields`` names a field
            a corpus does not have; the rank or world size is inconsistent (see :func:`distributed_rank`).
    """

    def __init__(
        self,
        roots: str | Path | list[str | Path],
        fields: list[str] | None = None,
        transform: Callable[[dict[str, Any]], Any] | None = None,
        shuffle: bool = False,
        seed: int = 0,
        rank: int | None = None,
        world_size: int | None = None,
        worker: int = 0,
        num_workers: int = 1,
        drop_last: bool = False,
        on_error: OnError = "raise",
        verify: bool = True,
    ):
        if on_error not in ("raise", "skip"):
            raise SimkitError(f"on_error must be 'raise' or 'skip', got {on_error!r}")
        rank, world_size = distributed_rank(rank, world_size)
        if not 0 <= worker < num_workers:
            raise SimkitError(
                f"need 0 <= rank < world_size and 0 <= worker < num_workers, got "
                f"rank {rank}/{world_size}, worker {worker}/{num_workers}"
            )
        self.roots = (
            [corpus_path(roots)] if isinstance(roots, (str, Path)) else [corpus_path(r) for r in roots]
        )
        self.episodes: list[EpisodeEntry] = corpus_episodes(self.roots)
        self.fields = None if fields is None else set(fields)
        if self.fields is not None:
            check_fields(self.roots, self.fields)
        self.transform = transform
        self.shuffle, self.seed, self.epoch = shuffle, seed, 0
        self.rank, self.world_size, self.worker, self.num_workers = rank, world_size, worker, num_workers
        self.drop_last, self.on_error, self.verify = drop_last, on_error, verify

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch that reseeds the shuffle (call before each epoch, on every rank)."""
        self.epoch = int(epoch)

    def share(self, rank: int, world_size: int, worker: int, num_workers: int) -> list[EpisodeEntry]:
        """The episodes (rank, worker) reads this epoch, in reading order."""
        order = epoch_order(len(self.episodes), self.shuffle, self.seed, self.epoch)
        if self.drop_last:
            parts = world_size * num_workers
            order = order[: len(order) // parts * parts]
        return [self.episodes[i] for i in split_for(order, rank, world_size, worker, num_workers)]

    def iter_share(self, entries: list[EpisodeEntry]) -> Iterator[Any]:
        for sample in iter_episodes(entries, self.fields, on_error=self.on_error, verify=self.verify):
            yield self.transform(sample) if self.transform else sample

    def __len__(self) -> int:
        return len(self.share(self.rank, self.world_size, self.worker, self.num_workers))

    def __iter__(self) -> Iterator[Any]:
        yield from self.iter_share(self.share(self.rank, self.world_size, self.worker, self.num_workers))
