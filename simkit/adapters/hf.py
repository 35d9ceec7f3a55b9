"""Hugging Face ``datasets`` from simkit corpora, with Features derived from the declared field schema.

::

    from simkit.adapters.hf import load_hf_dataset

    ds = load_hf_dataset("runs/foa", cache_dir="hf-cache").with_format("numpy")
    ds[0]["foa"]           # float32 (S, 4) FOA samples (AmbiX), ds[0]["foa_sampling_rate"] in Hz
    json.loads(ds[0]["qa"])

Why not ``load_dataset("webdataset", ...)`` on the shards: that builder infers each column's type from
the first samples, so a list that is empty in the first episode is typed ``null`` and a later non-empty
one fails to cast; it decodes FLAC through ``torchcodec``; and it never checks members against the
manifest. Here the episodes come from simkit's own verified reader
(:func:`simkit.episodes.reader.iter_episodes`) through ``datasets.Dataset.from_generator``, and every
column's type comes from ``corpus.json["field_schema"]`` (:func:`to_hf_features`), so nothing is inferred.

Column types, by field codec (one row per ok episode, in index order):

- ``npy``: the declared dtype and rank. Rank 0: ``Value``; rank 1: ``List(Value)``; rank 2-5 whose dims
  after the first are all fixed numbers: ``Array2D`` ... ``Array5D`` (first dim free); other ranks:
  nested ``List``. A field without a declared dtype or shape: its ``.npy`` bytes (``Value("binary")``).
- ``json``: the JSON text (``Value("string")``; ``json.loads`` it), so empty lists and absent keys cannot
  mistype a column; the same for ``meta`` (the episode's metadata).
- ``txt``: ``Value("string")``. ``png``: ``datasets.Image()`` (the stored PNG bytes, decoded by PIL on access).
- ``flac``: ``audio="array"`` (default): the samples decoded with soundfile, float32 ``(T, C)`` (``Array2D``),
  plus ``{field}_sampling_rate`` (int32, Hz); ``audio="bytes"``: the FLAC file (``Value("binary")``).
- ``exr``, ``mp4``, ``blob``: the stored file (``Value("binary")``); :func:`simkit.episodes.codecs.decode`
  with the codec name decodes it (no ``torchcodec`` needed).
- ``key``: the episode key. Optional fields (``required=False``) are ``None`` where absent.

Needs the ``hf`` extra (``pip install 'simkit[hf]'``: ``datasets``, ``soundfile``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from simkit.core.errors import SimkitError, require
from simkit.core.fields import FieldSpec
from simkit.episodes.corpus import CorpusLayout
from simkit.episodes.reader import OnError, corpus_episodes, corpus_fields, iter_episodes
from simkit.episodes.storage import corpus_path

__all__ = ["corpus_fingerprint", "hf_rows", "load_hf_dataset", "to_hf_features"]

AudioAs = Literal["array", "bytes"]
_ARRAYS = {2: "Array2D", 3: "Array3D", 4: "Array4D", 5: "Array5D"}
_BYTES_CODECS = ("exr", "mp4", "blob")


def _datasets() -> Any:
    return require("datasets", "hf")


def _declared(root: str | Path) -> tuple[FieldSpec, ...]:
    """The corpus's field declaration; raises SimkitError when it has none (a corpus from before them)."""
    specs = corpus_fields(root)
    if not specs:
        raise SimkitError(f"{root}: corpus.json declares no field_schema; regenerate it with this simkit")
    return specs


def _npy_feature(ds: Any, spec: FieldSpec) -> Any:
    """The column type of an ``npy`` field (see the module docstring)."""
    if spec.dtype is None or spec.shape is None:
        return ds.Value("binary")
    dims = spec.shape
    if len(dims) == 0:
        return ds.Value(spec.dtype)
    if len(dims) in _ARRAYS and all(isinstance(d, int) for d in dims[1:]):
        first = dims[0] if isinstance(dims[0], int) else None
        return getattr(ds, _ARRAYS[len(dims)])(shape=(first, *dims[1:]), dtype=spec.dtype)
    feature = ds.Value(spec.dtype)
    for d in reversed(dims):
        feature = ds.List(feature, length=d if isinstance(d, int) else -1)
    return feature


def _field_features(ds: Any, spec: FieldSpec, audio: AudioAs) -> dict[str, Any]:
    """The column(s) one declared field becomes."""
    if spec.codec == "npy":
        return {spec.name: _npy_feature(ds, spec)}
    if spec.codec in ("json", "txt"):
        return {spec.name: ds.Value("string")}
    if spec.codec == "png":
        return {spec.name: ds.Image()}
    if spec.codec == "flac" and audio == "array":
        channels = spec.shape[1] if spec.shape and isinstance(spec.shape[-1], int) else None
        if channels is None:
            return {
                spec.name: ds.List(ds.List(ds.Value("float32"))),
                f"{spec.name}_sampling_rate": ds.Value("int32"),
            }
        return {
            spec.name: ds.Array2D(shape=(None, channels), dtype="float32"),
            f"{spec.name}_sampling_rate": ds.Value("int32"),
        }
    return {spec.name: ds.Value("binary")}  # flac as bytes, exr, mp4, blob


def to_hf_features(corpus: str | Path, audio: AudioAs = "array", fields: list[str] | None = None) -> Any:
    """``datasets.Features`` of the corpus at ``corpus``, from its declared field schema (corpus.json).

    Args:
        audio: ``"array"`` (FLAC decoded to float32 ``(T, C)`` + ``{field}_sampling_rate``) or ``"bytes"``.
        fields: keep only these declared fields (plus ``key`` and ``meta``); ``None``: all.

    Raises:
        SimkitError: not a corpus, no field declaration, an unknown name in ``fields``, a bad ``audio``.
        ExtraMissing: ``datasets`` is not installed (the ``hf`` extra).
    """
    ds = _datasets()
    if audio not in ("array", "bytes"):
        raise SimkitError(f"audio must be 'array' or 'bytes', got {audio!r}")
    specs = _selected(corpus, fields)
    out: dict[str, Any] = {"key": ds.Value("string"), "meta": ds.Value("string")}
    for spec in specs:
        out.update(_field_features(ds, spec, audio))
    return ds.Features(out)


def _selected(corpus: str | Path, fields: list[str] | None) -> tuple[FieldSpec, ...]:
    specs = _declared(corpus)
    if fields is None:
        return specs
    unknown = sorted(set(fields) - {s.name for s in specs})
    if unknown:
        raise SimkitError(
            f"{corpus}: no field {', '.join(map(repr, unknown))} (declared: {[s.name for s in specs]})"
        )
    return tuple(s for s in specs if s.name in fields)


def _cell(spec: FieldSpec, data: bytes, audio: AudioAs) -> dict[str, Any]:
    """The column value(s) of one stored member (``data``: its verified bytes)."""
    from simkit.episodes.codecs import decode

    if spec.codec == "npy" and spec.dtype is not None and spec.shape is not None:
        return {spec.name: decode("npy", data)}
    if spec.codec in ("json", "txt"):
        return {spec.name: data.decode("utf-8")}
    if spec.codec == "png":
        return {spec.name: {"bytes": data, "path": None}}
    if spec.codec == "flac" and audio == "array":
        samples, rate = decode("flac", data)
        return {spec.name: samples, f"{spec.name}_sampling_rate": int(rate)}
    return {spec.name: data}


def hf_rows(
    corpus: str,
    audio: AudioAs = "array",
    fields: list[str] | None = None,
    on_error: OnError = "raise",
    **_: Any,
) -> Iterator[dict[str, Any]]:
    """The rows :func:`load_hf_dataset` stores: one dict per ok episode (index order), columns as
    :func:`to_hf_features` declares them, read and verified by simkit's reader (``datasets`` not needed).

    Raises:
        CorpusDamaged: a member does not match the manifest (``on_error="skip"``: skipped, with a warning).
    """
    specs = _selected(corpus, fields)
    keep = {s.name for s in specs} | {"meta"}
    blank = {"meta": None, **{k: None for s in specs for k in _field_features(_datasets(), s, audio)}}
    for sample in iter_episodes(corpus_episodes(corpus), keep, decode_fields=False, on_error=on_error):
        row = {**blank, "key": sample["__key__"], "meta": sample["meta"].decode("utf-8")}
        for spec in specs:
            if spec.name in sample:
                row.update(_cell(spec, sample[spec.name], audio))
        yield row


def corpus_fingerprint(corpus: str | Path) -> str:
    """sha256 of the corpus's manifest and corpus.json bytes: a grown or regenerated corpus at the same path
    gets a new ``datasets`` cache entry."""
    layout = CorpusLayout(corpus_path(corpus))
    h = hashlib.sha256()
    for p in (layout.root / "corpus.json", layout.manifest):
        h.update(p.read_bytes() if p.exists() else b"")
    return h.hexdigest()


def load_hf_dataset(
    corpus: str | Path,
    audio: AudioAs = "array",
    fields: list[str] | None = None,
    cache_dir: str | Path | None = None,
    on_error: OnError = "raise",
) -> Any:
    """A ``datasets.Dataset`` (Arrow, memory-mapped) of every ok episode of ``corpus``, typed by
    :func:`to_hf_features`. ``cache_dir``: where ``datasets`` writes the Arrow files (its default cache
    otherwise); a changed corpus gets a new entry (:func:`corpus_fingerprint`).

    Raises:
        SimkitError: as :func:`to_hf_features`. CorpusDamaged: as :func:`hf_rows`.
        ExtraMissing: ``datasets`` (or ``soundfile`` for FLAC arrays) is not installed (the ``hf`` extra).
    """
    features = to_hf_features(corpus, audio, fields)
    ds = _datasets()
    kwargs = {
        "corpus": str(corpus_path(corpus)),
        "audio": audio,
        "fields": fields,
        "on_error": on_error,
        "fingerprint": corpus_fingerprint(corpus),
    }
    return ds.Dataset.from_generator(
        hf_rows, features=features, gen_kwargs=kwargs, cache_dir=None if cache_dir is None else str(cache_dir)
    )
