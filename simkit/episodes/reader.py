"""Reading corpora: iterate decoded samples from one or several corpus directories."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from simkit.core.errors import SimkitError
from simkit.core.fields import FieldSpec, specs_from_json
from simkit.episodes.codecs import decode
from simkit.episodes.corpus import CorpusLayout, shard_sort_key
from simkit.episodes.tario import iter_tar, split_member


def corpus_info(root: str | Path) -> dict[str, Any]:
    """The parsed ``corpus.json`` of a corpus directory.

    Raises:
        SimkitError: the directory or its corpus.json is missing or unreadable.
    """
    layout = CorpusLayout(Path(root))
    if not layout.root.is_dir():
        raise SimkitError(f"{layout.root}: no such corpus directory")
    try:
        return json.loads(layout.corpus_json.read_text())
    except FileNotFoundError:
        raise SimkitError(f"{layout.root}: no corpus.json (not a simkit corpus)") from None
    except ValueError as exc:
        raise SimkitError(f"{layout.corpus_json}: malformed JSON ({exc})") from None


def shard_paths(roots: str | Path | list[str | Path]) -> list[Path]:
    """Complete shard tar files of one or several corpus directories, in a fixed order."""
    if isinstance(roots, (str, Path)):
        roots = [roots]
    out: list[Path] = []
    for root in roots:
        layout = CorpusLayout(Path(root))
        if not layout.shards.is_dir():
            raise SimkitError(f"{layout.root}: no shards/ directory (not a simkit corpus)")
        complete = {f"shard-{j:06d}" for j in layout.complete_shards()}
        out.extend(
            p
            for p in sorted(layout.shards.glob("shard-*.tar"), key=lambda q: shard_sort_key(q.name))
            if p.name[:12] in complete
        )
    return out


def iter_shard(path: str | Path, decode_fields: bool = True) -> Iterator[dict[str, Any]]:
    """Yield samples ``{"__key__": key, field: value, ...}`` of one shard (members grouped by key)."""
    current: dict[str, Any] | None = None
    for name, data in iter_tar(path):
        key, field, ext = split_member(name)
        if current is not None and current["__key__"] != key:
            yield current
            current = None
        if current is None:
            current = {"__key__": key}
        current[field] = decode(ext, data) if decode_fields else data
    if current is not None:
        yield current


def iter_corpus(roots: str | Path | list[str | Path], decode_fields: bool = True) -> Iterator[dict[str, Any]]:
    """Yield every stored sample of one or several corpora (see :func:`iter_shard`)."""
    for p in shard_paths(roots):
        yield from iter_shard(p, decode_fields)


def corpus_fields(root: str | Path) -> tuple[FieldSpec, ...]:
    """The episode field declaration stored in ``corpus.json`` (codec, dtype, shape, units, frame per field).

    Corpora written before declarations existed give ``()``.

    Raises:
        SimkitError: no readable corpus.json, or a malformed declaration in it.
    """
    return specs_from_json(corpus_info(root).get("field_schema"))
