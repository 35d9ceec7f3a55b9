"""PyTorch adapter: IterableDatasets over one or several simkit corpora, and a collate for ragged arrays.

``CorpusDataset`` splits the corpus by episode, not by shard: the episodes are ordered
(shuffled with ``default_rng([seed, epoch])`` when ``shuffle``), dealt to distributed ranks
and then to DataLoader workers, so every episode is read by exactly one worker of one rank per
epoch, and every worker gets its share even from a one-shard corpus. The rank is taken in the
main process -- from ``torch.distributed`` when initialised, else ``RANK``/``WORLD_SIZE`` as
``torchrun`` sets them, else explicit arguments -- when the dataset is built and again when the
DataLoader pickles it into its workers, so spawn and forkserver workers (where
``torch.distributed`` is not initialised) read their rank's share, not the whole corpus. Every member is verified against the manifest before
it is handed out (see :mod:`simkit.episodes.reader`); decoded arrays are writable.

``StepDataset`` yields one item per step of sequential corpora (one packing placement, one
navigation step), so ``DataLoader(StepDataset(...), batch_size=32)`` batches steps: with the
default collate when its step arrays have one shape across episodes (packing ``actions``), and
with ``collate_fn=collate_ragged`` when they do not (packing ``heightmaps``: the container size
differs per episode). :func:`collate_ragged` also batches whole episodes whose arrays differ in length.

The shards are plain WebDataset tars, so ``webdataset.WebDataset(paths)`` reads them too;
:func:`shard_urls` gives the paths in order (see :mod:`simkit.adapters.webdataset`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simkit.adapters.reader import CorpusReader, distributed_rank, split_for
from simkit.core.errors import SimkitError, require
from simkit.episodes.reader import OnError, corpus_fields, shard_paths

torch = require("torch", "torch")
_IterableDataset: Any = torch.utils.data.IterableDataset

__all__ = ["CorpusDataset", "StepDataset", "collate_ragged", "shard_urls", "split_for"]


def shard_urls(roots: str | Path | list[str | Path]) -> list[str]:
    """Paths of the shards the manifests of ``roots`` name, as strings (for ``webdataset.WebDataset``)."""
    return [str(p) for p in shard_paths(roots)]


class CorpusDataset(_IterableDataset):
    """Verified samples of simkit corpora as dicts ``{"__key__": str, field: decoded value, "meta": dict}``.

    Args:
        roots: one corpus directory or a list of them.
        fields: keep only these fields (plus ``__key__``); ``None`` keeps all.
        transform: applied to each sample dict before it is yielded.
        shuffle: shuffle the episode order each epoch with ``default_rng([seed, epoch])`` (call
            :meth:`set_epoch` before each epoch, as with ``DistributedSampler``). ``shuffle_shards``
            is the former name of this argument and does the same.
        rank, world_size: the distributed split, both or neither. Neither (default): taken in the main
            process from ``torch.distributed`` if initialised, else the ``RANK``/``WORLD_SIZE``
            environment variables, else the whole corpus (rank 0 of 1); taken again when a
            DataLoader pickles the dataset into spawn/forkserver workers, so a dataset built before
            ``init_process_group`` splits too.
        drop_last: give every (rank, worker) the same number of episodes (drops at most
            ``world_size * num_workers - 1``), so distributed epochs end together.
        on_error: ``"raise"`` (default): a member that does not match the manifest raises
            :class:`~simkit.episodes.reader.CorpusDamaged` naming corpus, shard and member;
            ``"skip"``: the episode is skipped with one warning per shard.
        verify: check sizes, sha256 and member sets against the manifest (default True).

    Raises:
        SimkitError: a root is not a simkit corpus, ``fields`` names a field a corpus does not have,
            or the rank / world size is inconsistent (see :func:`simkit.adapters.reader.distributed_rank`).
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
        drop_last: bool = False,
        on_error: OnError = "raise",
        verify: bool = True,
        shuffle_shards: bool = False,
    ):
        super().__init__()
        self.reader = CorpusReader(
            roots,
            fields=fields,
            transform=transform,
            shuffle=shuffle or shuffle_shards,
            seed=seed,
            rank=rank,
            world_size=world_size,
            drop_last=drop_last,
            on_error=on_error,
            verify=verify,
        )
        self._explicit = rank is not None

    @property
    def episodes(self) -> int:
        """Number of ok episodes in all the corpora."""
        return len(self.reader.episodes)

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch that reseeds the shuffle (call before each epoch, with the same value on every rank)."""
        self.reader.set_epoch(epoch)

    def _rank_world(self) -> tuple[int, int]:
        """Explicit arguments; else torch.distributed (initialised here, or inherited by a fork worker);
        else, in the main process, RANK/WORLD_SIZE now; else (a worker) what the main process carried."""
        dist = torch.distributed
        if not self._explicit and dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
        if not self._explicit and torch.utils.data.get_worker_info() is None:
            return distributed_rank()
        return self.reader.rank, self.reader.world_size

    def __getstate__(self) -> dict[str, Any]:
        # pickled into a DataLoader worker: carry the main process's rank along
        state = dict(self.__dict__)
        reader = copy.copy(self.reader)
        reader.rank, reader.world_size = self._rank_world()
        state["reader"] = reader
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def _split(self) -> tuple[int, int, int, int]:
        rank, world = self._rank_world()
        info = torch.utils.data.get_worker_info()
        wid, nw = (info.id, info.num_workers) if info is not None else (0, 1)
        return rank, world, wid, nw

    def my_episodes(self) -> list[str]:
        """Keys of the episodes this process/worker reads this epoch, in order."""
        return [e.key for e in self.reader.share(*self._split())]

    def __iter__(self) -> Iterator[Any]:
        yield from self.reader.iter_share(self.reader.share(*self._split()))


class StepDataset(_IterableDataset):
    """One item per step of a sequential corpus: ``{"__key__", "__step__", field: value[t] ..., context...}``.

    Args:
        dataset: the episodes (a :class:`CorpusDataset`; its split, shuffle and verification apply).
        step_fields: fields indexed by step (arrays or JSON lists whose first axis is time). The episode
            has ``T = len(value of step_fields[0])`` steps; every other step field must have at least
            ``T`` entries (packing's ``heightmaps`` has T+1: the state before each step, then the end).
            ``None``: the fields whose declared shape (``corpus.json`` ``field_schema``) starts with
            ``step_dim`` or ``step_dim+k`` (packing: ``actions``, ``poses``, ``heightmaps``).
        context_fields: per-episode fields copied into every step item (e.g. ``["case"]``).
        step_dim: the symbolic dim that counts steps in the declarations.

    Raises:
        SimkitError: no step field given or declared; while iterating, a step field is missing or
            shorter than ``T``.
    """

    def __init__(
        self,
        dataset: CorpusDataset,
        step_fields: Sequence[str] | None = None,
        context_fields: Sequence[str] = (),
        step_dim: str = "T",
    ):
        super().__init__()
        if step_fields is None:
            step_fields = declared_step_fields(dataset.reader.roots, step_dim, dataset.reader.fields)
        if not step_fields:
            raise SimkitError(
                f"StepDataset: no step fields given, and {', '.join(map(str, dataset.reader.roots))} declare no "
                f"field whose shape starts with {step_dim!r} (a corpus written before field declarations, or "
                "not sequential): pass step_fields=[...]"
            )
        self.dataset, self.step_fields, self.context_fields = dataset, list(step_fields), list(context_fields)

    def set_epoch(self, epoch: int) -> None:
        self.dataset.set_epoch(epoch)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for sample in self.dataset:
            missing = [f for f in self.step_fields + self.context_fields if f not in sample]
            if missing:
                raise SimkitError(f"{sample['__key__']}: no field(s) {', '.join(missing)}")
            n = len(sample[self.step_fields[0]])
            short = [f for f in self.step_fields if len(sample[f]) < n]
            if short:
                raise SimkitError(
                    f"{sample['__key__']}: step field(s) {', '.join(short)} have fewer than "
                    f"{n} steps ({self.step_fields[0]} has {n})"
                )
            for t in range(n):
                item = {"__key__": sample["__key__"], "__step__": t}
                item.update({f: sample[f][t] for f in self.step_fields})
                item.update({f: sample[f] for f in self.context_fields})
                yield item


def declared_step_fields(roots: list[Path], step_dim: str = "T", keep: set[str] | None = None) -> list[str]:
    """Fields whose declared first dim is ``step_dim`` (first) or ``step_dim+k`` in every corpus of ``roots``.

    Raises:
        SimkitError: the corpora declare different step fields, or a declaration is malformed.
    """
    found: list[list[str]] = []
    for root in roots:
        exact, offset = [], []
        for spec in corpus_fields(root):
            first = spec.shape[0] if spec.shape else None
            if keep is not None and spec.name not in keep:
                continue
            if first == step_dim:
                exact.append(spec.name)
            elif isinstance(first, str) and first.replace(" ", "").startswith(step_dim + "+"):
                offset.append(spec.name)
        found.append(exact + offset)
    if any(f != found[0] for f in found):
        raise SimkitError(f"the corpora declare different step fields: {found}")
    return found[0] if found else []


def _pad_stack(arrays: list[np.ndarray], pad_value: float) -> Any:
    shape = tuple(max(a.shape[d] for a in arrays) for d in range(arrays[0].ndim))
    out = np.full((len(arrays), *shape), pad_value, dtype=arrays[0].dtype)
    for i, a in enumerate(arrays):
        out[(i, *(slice(0, s) for s in a.shape))] = a
    return torch.from_numpy(out)


def collate_ragged(batch: list[dict[str, Any]], pad_value: float = 0) -> dict[str, Any]:
    """Batch sample dicts whose arrays differ in length (``DataLoader(..., collate_fn=collate_ragged)``).

    Array fields of one dtype and rank are padded with ``pad_value`` at the end of every axis to the
    batch's largest shape and stacked into a tensor ``(B, *max_shape)``; their original first-axis
    lengths go into ``batch["__lengths__"][field]`` (int64 tensor ``(B,)``), so masks are
    ``arange(L)[None] < lengths[:, None]``, and their full shapes into ``batch["__shapes__"][field]``
    (int64 ``(B, ndim)``: e.g. packing heightmaps whose container L x W differs per episode). Numbers become tensors; everything else (dicts, strings,
    ``(samples, sample_rate)`` audio tuples, arrays of mixed dtype/rank) stays a list of length B.

    Raises:
        SimkitError: the samples do not all have the same fields.
    """
    if not batch:
        return {}
    names = list(batch[0])
    if any(list(s) != names for s in batch[1:]):
        raise SimkitError("collate_ragged: the samples of a batch have different fields")
    out: dict[str, Any] = {"__lengths__": {}, "__shapes__": {}}
    for name in names:
        values = [s[name] for s in batch]
        first = values[0]
        if (
            isinstance(first, np.ndarray)
            and first.ndim > 0
            and first.dtype.kind in "biuf"
            and all(
                isinstance(v, np.ndarray) and v.dtype == first.dtype and v.ndim == first.ndim for v in values
            )
        ):
            out[name] = _pad_stack(values, pad_value)
            out["__lengths__"][name] = torch.tensor([len(v) for v in values], dtype=torch.int64)
            out["__shapes__"][name] = torch.tensor([v.shape for v in values], dtype=torch.int64)
        elif all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in values):
            out[name] = torch.as_tensor(np.asarray(values))
        else:
            out[name] = values
    return out
