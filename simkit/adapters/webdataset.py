"""Reading simkit corpora with ``webdataset`` (streaming, object stores) or Hugging Face ``datasets``.

simkit shards are plain WebDataset tars (``{key}.{field}.{ext}`` members), so both libraries
read them as they are. This module gives the decoder that turns their raw samples into the
same values :class:`~simkit.adapters.torch.CorpusDataset` hands out (PNG/EXR -> ndarray,
FLAC -> ``(float32 (T, C), sample_rate)``, MP4 -> uint8 ``(T, H, W, 3)``, NPY -> ndarray,
JSON -> dict/list)::

    import webdataset as wds
    from simkit.adapters.webdataset import decode_sample, shard_urls

    ds = wds.WebDataset(shard_urls("corpus"), shardshuffle=False, nodesplitter=wds.split_by_node)
    ds = ds.map(decode_sample)

Hugging Face ``datasets``' generic ``"webdataset"`` builder infers column types from the first
samples (an empty list there is typed ``null``) and decodes FLAC through ``torchcodec``; use
:func:`simkit.adapters.hf.load_hf_dataset`, typed from the declared field schema, instead.

These readers do not check members against the manifest (they never see it) and split work
by shard, not by episode; use ``CorpusDataset`` when reads must be verified or a corpus has
fewer shards than workers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simkit.core.errors import SimkitError, require
from simkit.episodes.codecs import decode
from simkit.episodes.reader import shard_paths

__all__ = ["decode_sample", "shard_urls", "webdataset_pipeline"]


def shard_urls(roots: str | Path | list[str | Path]) -> list[str]:
    """Paths of the shards the manifests of ``roots`` name, in order, as strings."""
    return [str(p) for p in shard_paths(roots)]


def decode_sample(sample: dict[str, Any]) -> dict[str, Any]:
    """A raw webdataset sample ``{"__key__", "__url__", "image.png": bytes, ...}`` -> ``{"__key__", "image": array, ...}``.

    Members are decoded by extension with :func:`simkit.episodes.codecs.decode`; keys starting
    with ``__`` other than ``__key__`` are dropped.

    Raises:
        SimkitError: a member does not decode (naming the sample key and member).
        ExtraMissing: decoding needs an optional package (``soundfile`` for FLAC, ``av`` for MP4).
    """
    out: dict[str, Any] = {"__key__": sample["__key__"]}
    for name, data in sample.items():
        if name.startswith("__"):
            continue
        field, _, ext = name.rpartition(".")
        if not field:
            field, ext = ext, ""
        if not isinstance(data, (bytes, bytearray)):
            out[field] = data  # already decoded by an earlier stage
            continue
        try:
            out[field] = decode(ext, bytes(data))
        except SimkitError:
            raise
        except Exception as exc:
            raise SimkitError(
                f"{sample['__key__']}: member {name!r} does not decode ({type(exc).__name__}: {exc})"
            ) from None
    return out


def webdataset_pipeline(roots: str | Path | list[str | Path], shuffle: int = 0) -> Any:
    """``webdataset.WebDataset`` over the shards of ``roots`` with :func:`decode_sample` applied.

    Args:
        shuffle: sample shuffle buffer size (0: file order). Shards are split across ranks by
            ``webdataset.split_by_node`` and across DataLoader workers by ``split_by_worker``.
    """
    wds = require("webdataset", "torch")
    ds = wds.WebDataset(
        shard_urls(roots),
        shardshuffle=False,
        nodesplitter=wds.split_by_node,
        workersplitter=wds.split_by_worker,
        empty_check=False,
    )
    if shuffle:
        ds = ds.shuffle(shuffle)
    return ds.map(decode_sample)
