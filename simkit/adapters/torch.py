"""PyTorch adapter: an IterableDataset over one or several simkit corpora.

Shards are split across distributed ranks first (``torch.distributed`` rank /
world size, when initialised) and then across DataLoader workers, so each
shard is read by exactly one worker of one rank per epoch. Members are decoded
by extension with :func:`simkit.episodes.codecs.decode` (npy/png/exr -> ndarray,
json -> dict, flac -> (samples, sample_rate), mp4 -> uint8 frames).

The shards are plain WebDataset tars, so ``webdataset.WebDataset(paths)`` reads
them too; :func:`shard_urls` gives the paths in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from simkit.core.errors import require
from simkit.episodes.reader import iter_shard, shard_paths

torch = require("torch", "torch")


def shard_urls(roots: str | Path | list[str | Path]) -> list[str]:
    """Paths of the complete shards of ``roots`` as strings (for ``webdataset.WebDataset``)."""
    return [str(p) for p in shard_paths(roots)]


def split_for(items: list, rank: int, world_size: int, worker: int, num_workers: int) -> list:
    """The items this (rank, worker) reads: every ``world_size``-th from ``rank``, then every ``num_workers``-th."""
    return items[rank::world_size][worker::num_workers]


class CorpusDataset(torch.utils.data.IterableDataset):
    """Samples of simkit corpora as dicts ``{"__key__": str, field: decoded value, "meta": dict}``.

    Args:
        roots: one corpus directory or a list of them.
        fields: keep only these fields (plus ``__key__``); ``None`` keeps all.
        transform: applied to each sample dict before it is yielded.
        shuffle_shards: shuffle the shard order each epoch with ``seed + epoch`` (call ``set_epoch``).
        rank, world_size: override the distributed split (default: from ``torch.distributed``).

    Raises:
        SimkitError: a root is not a simkit corpus, or ``fields`` names a field a corpus does not have.
    """

    def __init__(
        self,
        roots: str | Path | list[str | Path],
        fields: list[str] | None = None,
        transform: Callable[[dict[str, Any]], Any] | None = None,
        shuffle_shards: bool = False,
        seed: int = 0,
        rank: int | None = None,
        world_size: int | None = None,
    ):
        super().__init__()
        self.shards = shard_paths(roots)
        self.fields = None if fields is None else set(fields)
        if self.fields is not None:
            from simkit.core.errors import SimkitError
            from simkit.episodes.reader import corpus_info

            for root in [roots] if isinstance(roots, (str, Path)) else roots:
                schema = corpus_info(root).get("schema") or {}
                unknown = sorted(self.fields - set(schema))
                if unknown:
                    raise SimkitError(
                        f"{root}: no field(s) {', '.join(unknown)}; "
                        f"the corpus has: {', '.join(sorted(schema))}"
                    )
        self.transform = transform
        self.shuffle_shards = shuffle_shards
        self.seed = seed
        self.epoch = 0
        self._rank, self._world = rank, world_size

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch used to shuffle shards (call before each epoch when ``shuffle_shards``)."""
        self.epoch = epoch

    def _dist(self) -> tuple[int, int]:
        if self._rank is not None and self._world is not None:
            return self._rank, self._world
        dist = torch.distributed
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
        return 0, 1

    def my_shards(self) -> list[Path]:
        """The shards this process/worker reads this epoch."""
        shards = list(self.shards)
        if self.shuffle_shards:
            import numpy as np

            order = np.random.default_rng([self.seed, self.epoch]).permutation(len(shards))
            shards = [shards[i] for i in order]
        rank, world = self._dist()
        info = torch.utils.data.get_worker_info()
        wid, nw = (info.id, info.num_workers) if info is not None else (0, 1)
        return split_for(shards, rank, world, wid, nw)

    def __iter__(self) -> Iterator[Any]:
        for path in self.my_shards():
            for sample in iter_shard(path):
                if self.fields is not None:
                    sample = {k: v for k, v in sample.items() if k == "__key__" or k in self.fields}
                yield self.transform(sample) if self.transform else sample
