"""Reading corpora: verified, episode-addressed iteration over one or several corpus directories.

Every episode handed out has been checked against the manifest: each member's size and
sha256 match the manifest row, the episode has exactly its recorded members (none missing,
duplicated or extra), and its shard exists, is a well-formed tar archive and carries nothing
after its end-of-archive marker. A shard is indexed once (tar headers only, no member data)
and episodes are then read by seeking to their members, so any subset of episodes, in any
order, costs only the bytes of those episodes. This is what lets readers split a corpus by
episode (not by shard) across DataLoader workers and distributed ranks.

Faults raise :class:`CorpusDamaged` naming the corpus, the shard and the member;
``on_error="skip"`` skips the damaged episode instead and warns once per shard
(:class:`CorpusWarning`).
"""

from __future__ import annotations

import json
import os
import tarfile
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from simkit.core.errors import SimkitError
from simkit.core.fields import FieldSpec, specs_from_json
from simkit.episodes.codecs import decode
from simkit.episodes.corpus import (
    CorpusLayout,
    config_fault,
    echoed_config,
    episode_key,
    format_fault,
    params_digest,
    planned_shards,
    read_manifest,
    read_rows_file,
    safe_shard_name,
    sha256,
    shard_sort_key,
)
from simkit.episodes.storage import corpus_path, fork_safe, is_remote
from simkit.episodes.tario import safe_member_name, split_member

OnError = Literal["raise", "skip"]


class CorpusDamaged(SimkitError):
    """A corpus does not match its manifest (edited, truncated, missing or extra data).

    Attributes: ``root`` (corpus directory), ``shard`` (shard file name or ``None``),
    ``member`` (member name or ``None``), ``reason``. Built from a message alone (as DataLoader
    workers and pickling re-create exceptions), only the message is kept.
    """

    def __init__(
        self, root: Path | str, shard: str | None = None, member: str | None = None, reason: str | None = None
    ):
        if reason is None:
            super().__init__(str(root))
            self.root, self.shard, self.member, self.reason = None, shard, member, str(root)
            return
        self.root, self.shard, self.member, self.reason = corpus_path(root), shard, member, reason
        where = str(self.root) + (f": {shard}" if shard else "") + (f": member {member!r}" if member else "")
        super().__init__(f"{where}: {reason} (run `simkit validate {self.root}` for a full report)")


#: corpus.json keys every episode's meta.json repeats (with ``index`` and ``key``)
META_IDENTITY = ("generator", "version", "seed")


def meta_fault(meta: Any, corpus: tuple[tuple[str, Any], ...], index: int, key: str) -> str | None:
    """Why an episode's decoded ``meta.json`` disagrees with corpus.json and its manifest row, or ``None``."""
    if not isinstance(meta, dict):
        return "meta.json is not a JSON object"
    want = dict(corpus, index=index, key=key)
    diff = sorted(k for k, v in want.items() if meta.get(k) != v)
    if diff:
        got = ", ".join(f"{k} {meta.get(k)!r} (corpus.json/manifest: {want[k]!r})" for k in diff)
        return f"meta.json disagrees with corpus.json or the manifest: {got}"
    return None


class CorpusWarning(UserWarning):
    """Episodes of a damaged shard were skipped (``on_error="skip"``)."""


@dataclass(frozen=True)
class EpisodeEntry:
    """One ok episode as the manifest records it: members are ``(name, sha256 hex, size in bytes)``."""

    root: Path
    shard: str
    key: str
    index: int
    members: tuple[tuple[str, str, int], ...]
    #: keys of every episode the manifest places in this shard (a stored key outside it is an extra member)
    shard_keys: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    #: what every episode's ``meta.json`` must say (generator, version, seed from corpus.json)
    corpus: tuple[tuple[str, Any], ...] = field(default=(), compare=False, repr=False)
    #: the manifest row's digest of the episode's params (``None``: not checked)
    params_digest: str | None = field(default=None, compare=False, repr=False)
    #: corpus.json's config, which the params recorded in meta.json must agree with (``None``: not checked)
    config: Any = field(default=None, compare=False, repr=False)


def corpus_info(root: str | Path) -> dict[str, Any]:
    """The parsed ``corpus.json`` of a corpus directory.

    Raises:
        SimkitError: the directory or its corpus.json is missing, unreadable or not a JSON object.
    """
    layout = CorpusLayout(corpus_path(root))
    if not layout.root.is_dir():
        what = "not a directory" if layout.root.exists() else "no such corpus directory"
        raise SimkitError(f"{layout.root}: {what}")
    try:
        info = json.loads(layout.corpus_json.read_text())
    except FileNotFoundError:
        raise SimkitError(f"{layout.root}: no corpus.json (not a simkit corpus)") from None
    except (ValueError, OSError) as exc:
        raise SimkitError(f"{layout.corpus_json}: malformed JSON ({exc})") from None
    if not isinstance(info, dict):
        raise SimkitError(f"{layout.corpus_json}: not a simkit corpus description (not a JSON object)")
    fault = format_fault(info)
    if fault:
        raise SimkitError(f"{layout.root}: {fault}")
    return info


def _as_roots(roots: str | Path | Iterable[str | Path]) -> list[Path]:
    if isinstance(roots, (str, Path)):
        return [corpus_path(roots)]
    return [corpus_path(r) for r in roots]


def _entry(root: Path, row: Any) -> EpisodeEntry:
    """One manifest row as an :class:`EpisodeEntry`; raises CorpusDamaged for a malformed or unsafe row."""
    try:
        shard, key, index = row["shard"], str(row["key"]), int(row["index"])
        members = tuple((str(m["name"]), str(m["sha256"]), int(m["bytes"])) for m in row["members"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CorpusDamaged(root, None, None, f"manifest.parquet: malformed row ({exc!r})") from None
    if not safe_shard_name(shard):
        raise CorpusDamaged(root, None, None, f"manifest row {key}: shard {shard!r} is not a shard file name")
    for name, _, _ in members:
        if not safe_member_name(name) or split_member(name)[0] != key:
            raise CorpusDamaged(root, shard, name, f"manifest row {key}: member name does not belong to it")
    digest = row.get("params_digest") if isinstance(row, dict) else None
    return EpisodeEntry(
        root, shard, key, index, members, params_digest=digest if isinstance(digest, str) else None
    )


def _manifest_rows(root: Path) -> list[dict]:
    try:
        rows = read_manifest(CorpusLayout(root).manifest)
    except FileNotFoundError:
        raise CorpusDamaged(root, None, None, "manifest.parquet is missing") from None
    except Exception as exc:
        raise CorpusDamaged(
            root, None, None, f"manifest.parquet is unreadable ({type(exc).__name__})"
        ) from None
    if not all(isinstance(r, dict) and "status" in r for r in rows):
        raise CorpusDamaged(root, None, None, "manifest.parquet: rows without a status")
    return rows


def _recorded(root: Path, layout: CorpusLayout) -> dict[str, tuple]:
    """key -> (shard, members) of every ok row of every rows file (complete shards)."""
    recorded: dict[str, tuple] = {}
    for j in layout.complete_shards():
        try:
            rows = read_rows_file(layout.rows_path(j))
        except (OSError, ValueError) as exc:
            raise CorpusDamaged(
                root, layout.rows_path(j).name, None, f"unreadable rows file ({exc})"
            ) from None
        for r in rows:
            if r["status"] == "ok":
                members = tuple((m["name"], m["sha256"], m["bytes"]) for m in r["members"])
                recorded[str(r["key"])] = (r["shard"], members)
    return recorded


def _agreement(root: Path, info: dict, entries: list[EpisodeEntry], n_rows: int) -> None:
    """The manifest must agree with the rows files, corpus.json and the shard files on disk.

    Every manifest row must equal its rows-file row, and a shard the manifest lists must be listed
    whole. Complete shards the manifest does not list yet are allowed (a run still in progress
    rebuilds the manifest when it ends): readers read what the manifest lists.
    """
    layout = CorpusLayout(root)
    recorded = _recorded(root, layout)
    listed = {e.key: (e.shard, e.members) for e in entries}
    by_id: dict[int, set[str]] = {}
    for key, (shard, _) in recorded.items():
        by_id.setdefault(shard_sort_key(shard)[0], set()).add(key)
    listed_ids = {shard_sort_key(e.shard)[0] for e in entries}
    expected = {k for j in listed_ids for k in by_id.get(j, set())}
    bad = sorted(k for k in set(listed) | expected if listed.get(k) != recorded.get(k))
    if bad:
        raise CorpusDamaged(
            root, None, None, f"manifest.parquet and the rows files disagree on episode {bad[0]}"
        )
    gen = info.get("generator")
    for e in entries:
        if not isinstance(gen, str) or e.key != episode_key(gen, e.index):
            raise CorpusDamaged(
                root,
                e.shard,
                None,
                f"episode {e.key} is not episode {e.index} of generator {gen!r} (corpus.json)",
            )
    counts: dict = info["counts"] if isinstance(info.get("counts"), dict) else {}
    if counts.get("ok") != len(entries) or counts.get("present") != n_rows:
        raise CorpusDamaged(root, None, None, "corpus.json counts disagree with manifest.parquet")
    fields = {split_member(name)[1] for e in entries for name, _, _ in e.members}
    if entries and set(info.get("schema") or {}) != fields:
        raise CorpusDamaged(root, None, None, "corpus.json schema disagrees with the manifest's members")
    complete, planned = layout.complete_shards(), planned_shards(info)
    named = {shard for shard, _ in recorded.values()}
    for p in layout.shards.glob("*.tar") if layout.shards.is_dir() else []:
        if p.name in named or not safe_shard_name(p.name):
            continue
        j = shard_sort_key(p.name)[0]
        if j in complete or (planned is not None and j >= planned):
            raise CorpusDamaged(root, p.name, None, "extra shard file that no rows file names")


def corpus_episodes(roots: str | Path | Iterable[str | Path]) -> list[EpisodeEntry]:
    """The ok episodes of one or several corpora as the manifests list them, corpus by corpus, in index order.

    Also checks, per corpus, that manifest.parquet, the rows files and corpus.json agree and that
    ``shards/`` holds no complete shard the manifest does not name (all cheap: no member data is read).

    Raises:
        SimkitError: a root is not a simkit corpus.
        CorpusDamaged: a manifest is missing, unreadable or disagrees with the rows files or
            corpus.json, or a row is malformed or names a path outside ``shards/``.
    """
    out: list[EpisodeEntry] = []
    for root in _as_roots(roots):
        info = corpus_info(root)
        rows = _manifest_rows(root)
        entries = [_entry(root, r) for r in rows if r.get("status") == "ok"]
        _agreement(root, info, entries, len(rows))
        keys: dict[str, set[str]] = {}
        for e in entries:
            keys.setdefault(e.shard, set()).add(e.key)
        frozen = {shard: frozenset(k) for shard, k in keys.items()}
        ident = tuple((k, info.get(k)) for k in META_IDENTITY)
        config = echoed_config(info)
        entries = [
            EpisodeEntry(
                e.root, e.shard, e.key, e.index, e.members, frozen[e.shard], ident, e.params_digest, config
            )
            for e in sorted(entries, key=lambda e: e.index)
        ]
        out.extend(entries)
    return out


@dataclass
class ShardIndex:
    """Member offsets of one shard, read from its tar headers.

    ``members``: name -> (offset of the data in bytes, size in bytes); ``duplicates``: names stored
    more than once; ``by_key``: episode key -> its member names; ``problem``: a fault of the whole shard (missing, unreadable, unsafe or
    non-regular member, bytes after the end-of-archive marker), else ``None``.
    """

    path: Path
    members: dict[str, tuple[int, int]] = field(default_factory=dict)
    by_key: dict[str, set[str]] = field(default_factory=dict)
    duplicates: set[str] = field(default_factory=set)
    unknown_keys: list[str] | None = None  # stored keys the manifest does not place here (set by the reader)
    problem: tuple[str | None, str] | None = None  # (member or None, reason)
    handle: Any = field(default=None, repr=False)  # the open shard, with index_shard(keep_open=True)


def _zero_tail(fh: Any, start: int) -> bool:
    fh.seek(start)
    while chunk := fh.read(1 << 20):
        if chunk.count(0) != len(chunk):
            return False
    return True


def _tail_fault(fh: Any, end: int) -> str:
    """Why the tar reader stopped at byte ``end`` before a non-zero tail: a damaged member header there (its
    512-byte block is not zero: a bad checksum or unreadable fields), or bytes after the end-of-archive
    marker (the block there is zero: trailing garbage)."""
    fh.seek(end)
    block = fh.read(tarfile.BLOCKSIZE)
    if block.count(0) == len(block):
        return "bytes after the end-of-archive marker (trailing garbage)"
    try:
        tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
    except tarfile.HeaderError as exc:
        return f"damaged member header at byte {end} ({exc}); the members after it cannot be read"
    return f"unreadable member header at byte {end}; the members after it cannot be read"


def index_shard(path: str | Path, keep_open: bool = False) -> ShardIndex:
    """Index a shard's members from its tar headers and check its structure (never raises on bad data).

    The writer ends every shard with the two zero blocks of the end-of-archive marker padded with
    zeros to a whole tar record (POSIX.1-2001 ustar/pax, 512-byte blocks, 10240-byte records); a
    file with fewer bytes is truncated, one with non-zero bytes there has trailing garbage.
    ``keep_open``: leave the file open in ``handle`` for reading members (a readable shard only;
    on an object store this saves a request and a fetch per shard).
    """
    idx = ShardIndex(fork_safe(corpus_path(path)))
    remote = is_remote(idx.path)
    if not remote and not idx.path.is_file():
        idx.problem = (None, "shard file is missing")
        return idx
    try:
        fh: Any = idx.path.open("rb")
    except FileNotFoundError:
        idx.problem = (None, "shard file is missing")
        return idx
    except OSError as exc:
        idx.problem = (None, f"cannot be read as a tar archive ({type(exc).__name__}: {exc})")
        return idx
    try:
        size = fh.size if remote else os.fstat(fh.fileno()).st_size
        _scan_tar(idx, fh, size)
    finally:
        if keep_open and idx.problem is None:
            idx.handle = fh
        else:
            fh.close()
    return idx


def _scan_tar(idx: ShardIndex, fh: Any, size: int) -> None:
    """Fill ``idx`` from the tar headers of the open shard ``fh`` of ``size`` bytes (sets ``idx.problem``)."""
    try:
        with tarfile.open(fileobj=fh, mode="r:") as tf:
            for info in tf:
                if not safe_member_name(info.name):
                    idx.problem = (info.name, "unsafe member name (absolute or '..')")
                    return
                if not info.isreg():
                    idx.problem = (info.name, "member is not a regular file")
                    return
                if info.name in idx.members:
                    idx.duplicates.add(info.name)
                idx.members[info.name] = (info.offset_data, info.size)
                idx.by_key.setdefault(split_member(info.name)[0], set()).add(info.name)
            end = tf.offset
            if size < end + 2 * tarfile.BLOCKSIZE:
                idx.problem = (None, "truncated (no end-of-archive marker)")
            elif not _zero_tail(fh, end):
                idx.problem = (None, _tail_fault(fh, end))
    except (tarfile.TarError, EOFError, OSError, UnicodeError) as exc:
        idx.problem = (None, f"cannot be read as a tar archive ({type(exc).__name__}: {exc})")


def _check_members(
    e: EpisodeEntry, idx: ShardIndex, wanted: set[str] | None
) -> tuple[str | None, str] | None:
    """The first fault of episode ``e`` in its shard index (member, reason), or ``None``."""
    recorded = {name for name, _, _ in e.members}
    stored = idx.by_key.get(e.key, set())
    for name in sorted(recorded - stored):
        return name, "member listed in the manifest is missing from the shard"
    for name in sorted(stored - recorded):
        return name, "member is not in the manifest (extra)"
    for name in sorted(recorded & idx.duplicates):
        return name, "member is stored more than once (duplicate)"
    for name, _, size in e.members:
        if (wanted is None or split_member(name)[1] in wanted) and idx.members[name][1] != size:
            return name, f"size {idx.members[name][1]} differs from the manifest's {size} bytes"
    return None


class ShardCache:
    """Shard indexes (each shard indexed once, however its episodes are ordered) and one open shard file."""

    def __init__(self) -> None:
        self.indexes: dict[Path, ShardIndex] = {}
        self.path: Path | None = None
        self.fh: Any = None

    def get(self, path: Path) -> tuple[ShardIndex, Any]:
        index = self.indexes.get(path)
        fresh = None
        if index is None:
            index = self.indexes[path] = index_shard(path, keep_open=True)
            fresh, index.handle = index.handle, None
        if path != self.path:
            self._close_file()
            self.path = path
            if fresh is None and index.problem is None:
                fresh = index.path.open("rb")
            self.fh = fresh  # closed by close()
        return index, self.fh

    def _close_file(self) -> None:
        if self.fh is not None:
            self.fh.close()
        self.path, self.fh = None, None

    def close(self) -> None:
        self._close_file()
        self.indexes.clear()


def read_episode(
    e: EpisodeEntry,
    cache: ShardCache,
    fields: set[str] | None = None,
    decode_fields: bool = True,
    verify: bool = True,
) -> dict[str, Any]:
    """Read (and by default verify and decode) one episode: ``{"__key__": key, field: value, ...}``.

    Args:
        fields: read only these fields (``None``: all); only the members read are hashed.
        verify: check sizes, sha256 and the exact member set against the manifest (on by default).
    Raises:
        CorpusDamaged: the shard or one of the episode's members does not match the manifest.
        ExtraMissing: a member needs an optional package to decode (an environment problem).
    """
    path = e.root / "shards" / e.shard
    idx, fh = cache.get(path)
    if idx.problem is not None:
        raise CorpusDamaged(e.root, e.shard, idx.problem[0], idx.problem[1])
    fault = _check_members(e, idx, fields) if verify else None
    if verify and fault is None and e.shard_keys:
        if idx.unknown_keys is None:  # once per shard: every entry of a shard shares its key set
            idx.unknown_keys = sorted(set(idx.by_key) - e.shard_keys)
        unknown = idx.unknown_keys
        if unknown:
            fault = (
                sorted(idx.by_key[unknown[0]])[0],
                "member of an episode the manifest does not list (extra)",
            )
    if fault is not None:
        raise CorpusDamaged(e.root, e.shard, fault[0], fault[1])
    sample: dict[str, Any] = {"__key__": e.key}
    for name, digest, size in e.members:
        _, fname, ext = split_member(name)
        if fields is not None and fname not in fields:
            continue
        offset, _ = idx.members[name]
        fh.seek(offset)
        data = fh.read(size)
        if verify and (len(data) != size or sha256(data) != digest):
            raise CorpusDamaged(e.root, e.shard, name, "sha256 differs from the manifest (edited or corrupt)")
        sample[fname] = _decode(e, name, ext, data) if decode_fields else data
        if verify and decode_fields and fname == "meta" and e.corpus:
            why = _meta_disagreement(e, sample[fname])
            if why:
                raise CorpusDamaged(e.root, e.shard, name, why)
    return sample


def _meta_disagreement(e: EpisodeEntry, meta: Any) -> str | None:
    """Why an episode's decoded meta.json disagrees with corpus.json (identity, config) or its manifest row
    (index, key, params digest), or ``None``."""
    why = meta_fault(meta, e.corpus, e.index, e.key)
    if why is None and e.params_digest is not None and params_digest(meta.get("params")) != e.params_digest:
        why = "its params do not match the manifest row's params_digest (another episode's meta.json?)"
    return why or config_fault(meta, e.config)


def _decode(e: EpisodeEntry, name: str, ext: str, data: bytes) -> Any:
    try:
        return decode(ext, data)
    except SimkitError:
        raise
    except Exception as exc:
        raise CorpusDamaged(e.root, e.shard, name, f"does not decode ({type(exc).__name__}: {exc})") from None


def iter_episodes(
    entries: Iterable[EpisodeEntry],
    fields: set[str] | None = None,
    decode_fields: bool = True,
    on_error: OnError = "raise",
    verify: bool = True,
) -> Iterator[dict[str, Any]]:
    """Read ``entries`` in the given order (see :func:`read_episode`).

    ``on_error="skip"``: a damaged episode is skipped and a :class:`CorpusWarning` is issued once
    per shard (naming it and the first fault); ``"raise"`` (default) raises :class:`CorpusDamaged`.
    """
    if on_error not in ("raise", "skip"):
        raise SimkitError(f"on_error must be 'raise' or 'skip', got {on_error!r}")
    cache = ShardCache()
    warned: set[tuple[Path, str]] = set()
    try:
        for e in entries:
            try:
                sample = read_episode(e, cache, fields, decode_fields, verify)
            except CorpusDamaged as exc:
                if on_error == "raise":
                    raise
                if (e.root, e.shard) not in warned:
                    warned.add((e.root, e.shard))
                    warnings.warn(f"skipping damaged episodes of {exc}", CorpusWarning, stacklevel=2)
                continue
            yield sample
    finally:
        cache.close()


def shard_paths(roots: str | Path | list[str | Path]) -> list[Path]:
    """Shard tar files the manifests of one or several corpora name, in a fixed order (for webdataset).

    Raises:
        SimkitError / CorpusDamaged: as :func:`corpus_episodes`.
    """
    out: list[Path] = []
    for root in _as_roots(roots):
        names = {e.shard for e in corpus_episodes(root)}
        out.extend(root / "shards" / n for n in sorted(names, key=shard_sort_key))
    return out


def iter_corpus(
    roots: str | Path | list[str | Path], decode_fields: bool = True, on_error: OnError = "raise"
) -> Iterator[dict[str, Any]]:
    """Yield every ok episode of one or several corpora, verified against the manifest (index order).

    Raises:
        CorpusDamaged: a shard or member does not match the manifest (unless ``on_error="skip"``).
    """
    yield from iter_episodes(corpus_episodes(roots), decode_fields=decode_fields, on_error=on_error)


def iter_shard(path: str | Path, decode_fields: bool = True) -> Iterator[dict[str, Any]]:
    """Yield the verified episodes of one shard file of a corpus (``CORPUS/shards/NAME.tar``)."""
    path = corpus_path(path)
    root = path.parent.parent
    entries = [e for e in corpus_episodes(root) if e.shard == path.name]
    yield from iter_episodes(entries, decode_fields=decode_fields)


def corpus_fields(root: str | Path) -> tuple[FieldSpec, ...]:
    """The episode field declaration stored in ``corpus.json`` (codec, dtype, shape, units, frame per field).

    Corpora written before declarations existed give ``()``.

    Raises:
        SimkitError: no readable corpus.json, or a malformed declaration in it.
    """
    return specs_from_json(corpus_info(root).get("field_schema"))
