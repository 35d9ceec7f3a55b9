"""Rank processes of the torch.distributed adapter test (importable by spawned processes)."""

from __future__ import annotations

import json
from pathlib import Path


def _read(ds, context) -> list[list]:
    import torch

    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2, multiprocessing_context=context)
    return [[key, worker] for key, worker in loader]


def _tag(sample):
    import torch

    return sample["__key__"], torch.utils.data.get_worker_info().id


def rank_main(rank: int, world_size: int, corpus: str, out: str) -> None:
    """One gloo rank: read the corpus through 2-worker DataLoaders (spawn, forkserver); write what it read.

    The spawn run's dataset is built after ``init_process_group``, as the DDP tutorial does; the
    forkserver run's before it (its rank is taken when the DataLoader pickles it into the workers),
    one epoch later. The forkserver preloads torch and simkit so its workers start fast.
    """
    import multiprocessing

    import torch.distributed as dist

    from simkit.adapters.torch import CorpusDataset

    forkserver = multiprocessing.get_context("forkserver")
    forkserver.set_forkserver_preload(["torch", "simkit.adapters.torch", "disthelp"])
    early = CorpusDataset(corpus, fields=["info"], transform=_tag, shuffle=True, seed=5)
    early.set_epoch(1)
    dist.init_process_group("gloo", init_method=f"file://{out}/store", rank=rank, world_size=world_size)
    late = CorpusDataset(corpus, fields=["info"], transform=_tag, shuffle=True, seed=5)
    got = {"spawn": _read(late, "spawn"), "forkserver": _read(early, forkserver)}
    dist.barrier()
    dist.destroy_process_group()
    Path(out, f"rank{rank}.json").write_text(json.dumps(got))
