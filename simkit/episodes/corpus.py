"""On-disk corpus layout, shard assembly and the manifest.

::

    OUT/
      corpus.json                   generator, version, seed, config, schema, counts, versions
      manifest.parquet              one row per episode of every complete shard
      shards/shard-000003.tar       WebDataset shard: {key}.{field}.{ext} members, index order
      shards/shard-000003.rows.json manifest rows of that shard; written last = the completion marker
      .partial/shard-000003/000000301.tar   one finished episode waiting for its shard

Shard ``j`` holds episodes ``[j * S, (j + 1) * S)`` (``S`` = episodes per
shard), so the shard split does not depend on the worker count. A shard whose
members exceed ``max_shard_bytes`` is split into parts ``shard-000003-01.tar``
... at episode boundaries (deterministic, since the bytes are). Finished
episodes are kept in ``.partial/`` (atomic rename) until their shard is
assembled, so a killed run loses at most the episodes in flight.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simkit.core.errors import short_repr
from simkit.episodes.codecs import dumps_json
from simkit.episodes.storage import (
    corpus_path,
    download_file,
    is_remote,
    is_url,
    put_bytes,
    remove_tree,
    upload_file,
)
from simkit.episodes.tario import split_member, write_tar

ROW_MEMBER = "__row__.json"

#: manifest columns (parquet schema) in order
MANIFEST_COLUMNS = (
    "key",
    "index",
    "shard",
    "status",
    "redraws",
    "attempts",
    "params_digest",
    "members",
    "error",
    "duration_s",
)


#: corpus.json keys that make two directories the same corpus (``n`` may grow: see ``generate``)
IDENTITY_KEYS = ("generator", "version", "seed", "n", "episodes_per_shard", "config")

#: corpus.json ``format`` values this version of simkit reads and writes
FORMATS = ("simkit-corpus/1",)
#: the format new corpora are written in
FORMAT = FORMATS[-1]

#: highest episode count: keys carry the index in 8 digits (``episode_key``), which keeps them in index order
MAX_EPISODES = 10**8


def identity_diff(
    old: dict[str, Any], new: dict[str, Any], keys: tuple[str, ...] = IDENTITY_KEYS
) -> list[str]:
    """The identity settings that differ between two corpus descriptions, named down to the config key.

    ``["seed (1 -> 2)", "config.size (16 -> 32)"]``: config differences name each dotted key that
    differs (added, removed or changed), so a refused run says exactly what to change. A corpus of
    another generator differs in its generator only: its version and config are not comparable.
    """
    if "generator" in keys and old.get("generator") != new.get("generator"):
        return [f"generator ({old.get('generator')!r} -> {new.get('generator')!r})"]
    out: list[str] = []
    for k in keys:
        a, b = old.get(k), new.get(k)
        if a == b:
            continue
        if k == "config" and isinstance(a, dict) and isinstance(b, dict):
            out.extend(_dict_diff(a, b, "config"))
        else:
            out.append(f"{k} ({a!r} -> {b!r})")
    return out


def _dict_diff(a: dict, b: dict, prefix: str) -> list[str]:
    out: list[str] = []
    for k in sorted(set(a) | set(b), key=str):
        x, y = a.get(k, "<unset>"), b.get(k, "<unset>")
        if isinstance(x, dict) and isinstance(y, dict):
            out.extend(_dict_diff(x, y, f"{prefix}.{k}"))
        elif x != y:
            out.append(f"{prefix}.{k} ({x!r} -> {y!r})")
    return out


def format_fault(info: dict[str, Any]) -> str | None:
    """Why corpus.json's ``format`` is not one this simkit reads (missing, or an unknown version, named), or
    ``None``."""
    fmt = info.get("format")
    if fmt in FORMATS:
        return None
    if fmt is None:
        return f"corpus.json: no format version (this simkit reads {', '.join(FORMATS)})"
    return f"corpus.json: unknown format {short_repr(fmt)} (this simkit reads {', '.join(FORMATS)})"


#: what a corpus directory holds that simkit wrote and reads back: no other command may write here
CORPUS_PARTS = ("shards", ".partial", "corpus.json", "manifest.parquet", "manifest.jsonl", ".lock")


def corpus_part(out: str | Path, corpus: str | Path) -> str | None:
    """Which part of the local corpus ``corpus`` the output path ``out`` is or lies under, or ``None``.

    A command that reads a corpus and writes elsewhere (pictures, an export, a report) must not write into
    the corpus's own files (:data:`CORPUS_PARTS`): a picture in ``shards/`` is an extra file ``validate``
    rightly fails, a report over ``corpus.json`` destroys it. Other files beside them (``CORPUS/inspect``,
    the default of ``inspect``) are the user's and stay allowed. Paths are compared resolved (``..`` and
    links followed); a URL or a missing corpus has no parts here.

    Args:
        out: the output path (a file or a folder, existing or not).
        corpus: the corpus directory the command reads.
    Returns:
        the part's relative name (``"shards"``, ``"corpus.json"``, ...), or ``None``.
    """
    if any(is_url(p) if isinstance(p, str) else is_remote(p) for p in (corpus, out)):
        return None
    root = Path(corpus)
    if not root.is_dir():
        return None
    try:
        target, root = Path(out).resolve(), root.resolve()
    except (OSError, RuntimeError):
        return None
    for name in CORPUS_PARTS:
        part = root / name
        if target == part or part in target.parents:
            return name
    return None


def inside_corpus_fault(out: str | Path, corpora: tuple = ()) -> str | None:
    """Why output path ``out`` must not be written because it is or lies in a corpus's own files, as the end
    of an error line, or ``None``.

    The corpora checked: those named in ``corpora`` (the ones the command reads; ``None`` entries skipped)
    and every folder above ``out`` that holds a ``corpus.json`` (any corpus, read or not: a corpus written
    into another's ``shards/`` makes that one fail ``validate``). See :func:`corpus_part`.

    Returns:
        ``"is inside the corpus's own shards (of ROOT), which simkit validates; give a path outside it"``
        (naming the part), or ``None``.
    """
    if isinstance(out, str) and is_url(out):
        return None
    try:
        here = Path(out).resolve()
    except (OSError, RuntimeError):
        return None
    enclosing = [p for p in here.parents if (p / "corpus.json").is_file()]
    for root in [*(c for c in corpora if c is not None), *enclosing]:
        part = corpus_part(out, root)
        if part is not None:
            return f"is inside the corpus's own {part} (of {root}), which simkit validates; give a path outside it"
    return None


def planned_shards(info: dict[str, Any]) -> int | None:
    """How many shard ids a finished corpus of ``info`` has (``ceil(n / episodes_per_shard)``), or ``None``
    when corpus.json does not say."""
    n, eps = info.get("n"), info.get("episodes_per_shard")
    if type(n) is not int or type(eps) is not int or n < 0 or eps < 1:
        return None
    return -(-n // eps)


def echoed_config(info: dict[str, Any]) -> dict[str, Any]:
    """The config values corpus.json says every episode records verbatim among its parameters.

    A generator names them in ``config_params`` (packing: ``resolution``, ``heightmap_px_per_cell``),
    written into corpus.json. Other parameters may share a config key's name without being its value
    (a task's object ``height`` beside the image ``height``, a level drawn from a ``lufs`` range), so
    only the named ones are compared. A corpus.json without the list compares none.
    """
    config, keys = info.get("config"), info.get("config_params")
    if not isinstance(config, dict) or not isinstance(keys, list):
        return {}
    return {k: config[k] for k in keys if isinstance(k, str) and k in config}


def config_fault(meta: dict[str, Any], config: Any) -> str | None:
    """Why an episode's recorded parameters disagree with the config values it must echo, or ``None``.

    ``config`` is :func:`echoed_config` of corpus.json: a structural or surface parameter of that name is
    the config value the episode was made with, so it must equal corpus.json's.
    """
    params = meta.get("params")
    if not isinstance(config, dict) or not isinstance(params, dict):
        return None
    diff = []
    for group in ("structural", "surface"):
        rec = params.get(group)
        for k, v in rec.items() if isinstance(rec, dict) else ():
            if k in config and config[k] != v:
                diff.append(f"{k} {short_repr(v)} (corpus.json config: {short_repr(config[k])})")
    if diff:
        return "the episode was made with another config than corpus.json records: " + ", ".join(sorted(diff))
    return None


#: shard file names the writer produces: ``shard-000003.tar`` and parts ``shard-000003-01.tar``
SHARD_NAME = re.compile(r"shard-\d{6}(-\d{2})?\.tar")

#: manifest row fields that must agree between manifest.parquet and the rows files (timing excluded)
ROW_KEYS = frozenset(
    {"key", "index", "shard", "status", "redraws", "attempts", "params_digest", "members", "error"}
)


def safe_shard_name(name: object) -> bool:
    """True when a manifest/rows ``shard`` value is a plain shard file name (no directory, no ``..``)."""
    return isinstance(name, str) and SHARD_NAME.fullmatch(name) is not None


def row_fault(r: Any) -> str | None:
    """Why ``r`` is not a well-formed manifest row (fields, types, a safe shard name, member names
    that start with its key), or ``None``."""
    if not isinstance(r, dict) or not set(r) >= ROW_KEYS:
        return "not a manifest row"
    if type(r["index"]) is not int or not isinstance(r["key"], str) or r["status"] not in ("ok", "failed"):
        return "malformed key, index or status"
    if not safe_shard_name(r["shard"]):
        return f"shard {r['shard']!r} is not a shard file name (a path outside shards/?)"
    if not isinstance(r["members"], list) or not all(
        isinstance(m, dict)
        and isinstance(m.get("name"), str)
        and type(m.get("bytes")) is int
        and isinstance(m.get("sha256"), str)
        for m in r["members"]
    ):
        return "malformed members list"
    if any(m["name"].split(".", 1)[0] != r["key"] for m in r["members"]):
        return "a member name does not start with the row's key"
    return None


def member_schema(rows: list[dict]) -> dict[str, str]:
    """``corpus.json["schema"]`` of ``rows``: field -> codec extension of its first member, by field name."""
    schema: dict[str, str] = {}
    for r in rows:
        for m in r["members"]:
            _, fname, ext = split_member(m["name"])
            schema.setdefault(fname, ext)
    return dict(sorted(schema.items()))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def params_digest(params: dict) -> str:
    """The manifest's ``params_digest`` of an episode's parameters: the first 16 hex digits of the sha256 of
    their canonical JSON (:func:`~simkit.episodes.codecs.dumps_json`)."""
    return sha256(dumps_json(params))[:16]


def shard_name(shard_id: int, part: int | None = None) -> str:
    return f"shard-{shard_id:06d}" + ("" if not part else f"-{part:02d}")


def shard_sort_key(name: str) -> tuple[int, int]:
    """(shard id, part) of a shard file name, for ordering parts after their first part."""
    stem = name.rsplit("/", 1)[-1].split(".", 1)[0]  # shard-000003 or shard-000003-01
    parts = stem.split("-")
    return int(parts[1]), int(parts[2]) if len(parts) > 2 else 0


def episode_key(generator: str, index: int) -> str:
    """Episode key: ``{generator with '-' -> '_'}_{index:08d}`` (no dots, as WebDataset requires)."""
    return f"{generator.replace('-', '_')}_{index:08d}"


@dataclass
class CorpusLayout:
    """Paths of a corpus directory, or of a corpus under an object-store URL (see :mod:`.storage`)."""

    root: Path

    def __post_init__(self) -> None:
        self.root = corpus_path(self.root)

    @property
    def shards(self) -> Path:
        return self.root / "shards"

    @property
    def partial(self) -> Path:
        return self.root / ".partial"

    @property
    def corpus_json(self) -> Path:
        return self.root / "corpus.json"

    @property
    def manifest(self) -> Path:
        return self.root / "manifest.parquet"

    def rows_path(self, shard_id: int) -> Path:
        return self.shards / f"{shard_name(shard_id)}.rows.json"

    def partial_dir(self, shard_id: int) -> Path:
        return self.partial / shard_name(shard_id)

    def partial_path(self, shard_id: int, index: int) -> Path:
        return self.partial_dir(shard_id) / f"{index:09d}.tar"

    def ensure(self) -> None:
        if is_remote(self.root):  # an object store has no directories: objects are written under prefixes
            return
        self.shards.mkdir(parents=True, exist_ok=True)
        self.partial.mkdir(parents=True, exist_ok=True)

    # -- state ----------------------------------------------------------------------------------
    def complete_shards(self) -> set[int]:
        """Ids of shards whose rows file (the completion marker) exists."""
        out = set()
        if self.shards.is_dir():
            for p in self.shards.glob("shard-*.rows.json"):
                try:
                    out.add(int(p.name[6:12]))
                except ValueError:
                    continue
        return out

    def finished_partials(self, shard_id: int) -> set[int]:
        d = self.partial_dir(shard_id)
        if not d.is_dir():
            return set()
        return {int(p.stem) for p in d.glob("*.tar") if p.stem.isdigit()}

    def clean_temporaries(self) -> int:
        """Remove ``*.tmp`` files left by a killed run; returns how many were removed."""
        n = 0
        if is_remote(self.root):  # nothing is ever written under a temporary name on an object store
            return 0
        for base in (self.root, self.shards, self.partial):
            if base.is_dir():
                for p in base.rglob("*.tmp"):
                    p.unlink(missing_ok=True)
                    n += 1
        return n


def write_partial(
    layout: CorpusLayout, shard_id: int, index: int, members: list[tuple[str, bytes]], row: dict[str, Any]
) -> None:
    """Store one finished episode atomically in ``.partial/``: a tar of its manifest row, then its members."""
    d = layout.partial_dir(shard_id)
    d.mkdir(parents=True, exist_ok=True)
    # no fsync: the rename is atomic against a killed process; shards (the durable output) are fsynced
    write_tar(layout.partial_path(shard_id, index), [(ROW_MEMBER, dumps_json(row)), *members], fsync=False)


def _partial_span(path: Path) -> tuple[dict, int, int]:
    """(row, start, end): the manifest row of a partial file and the byte span of its member blocks."""
    import tarfile

    with tarfile.open(path, mode="r:") as tf:
        infos = tf.getmembers()
        if not infos or infos[0].name != ROW_MEMBER:
            raise ValueError(f"{path}: not a simkit partial episode (no leading {ROW_MEMBER})")
        fh = tf.extractfile(infos[0])
        if fh is None:
            raise ValueError(f"{path}: {ROW_MEMBER} is not a regular file")
        row = json.loads(fh.read())
    if len(infos) == 1:
        return row, 0, 0
    last = infos[-1]
    end = last.offset_data + ((last.size + tarfile.BLOCKSIZE - 1) // tarfile.BLOCKSIZE) * tarfile.BLOCKSIZE
    return row, infos[1].offset, end


def verify_partial(path: Path) -> bool:
    """True when a partial episode file is readable and every member matches its row's size and sha256."""
    from simkit.episodes.tario import iter_tar

    try:
        items = list(iter_tar(path))
        if not items or items[0][0] != ROW_MEMBER:
            return False
        row = json.loads(items[0][1])
        want = [(m["name"], m["sha256"], m["bytes"]) for m in row["members"]]
        got = [(name, sha256(data), len(data)) for name, data in items[1:]]
        return want == got and row.get("index") == int(path.stem)
    except Exception:
        return False


def assemble_shard(
    layout: CorpusLayout, shard_id: int, indices: list[int], max_shard_bytes: int | None
) -> list[dict]:
    """Join the finished episodes of one shard into its tar file(s) and write its rows file.

    The member blocks of each partial file are copied byte for byte (no re-encoding), then the
    end-of-archive marker and record padding are appended, so a shard is the plain tar archive a
    tar writer would produce. Every index in ``indices`` must have a partial file. Returns the
    shard's manifest rows. The rows file is written last: it marks the shard complete.
    """
    import tarfile

    spans = []
    for index in sorted(indices):
        path = layout.partial_path(shard_id, index)
        row, start, end = _partial_span(path)
        spans.append((path, row, start, end))
    parts: list[list[tuple[Path, int, int]]] = [[]]
    part_bytes = 0
    rows = []
    for path, row, start, end in spans:
        size = end - start
        if max_shard_bytes and parts[-1] and part_bytes + size > max_shard_bytes:
            parts.append([])
            part_bytes = 0
        if size:
            parts[-1].append((path, start, end))
        part_bytes += size
        row = dict(row)
        row["shard"] = shard_name(shard_id, len(parts) - 1) + ".tar"
        rows.append(row)
    for part, pieces in enumerate(parts):
        dst = layout.shards / (shard_name(shard_id, part) + ".tar")
        tmp = dst.with_name(dst.name + ".tmp")
        with open(tmp, "wb") as out:
            for path, start, end in pieces:
                with open(path, "rb") as src:
                    src.seek(start)
                    remaining = end - start
                    while remaining:
                        chunk = src.read(min(remaining, 1 << 22))
                        if not chunk:
                            raise ValueError(f"{path}: truncated partial episode")
                        out.write(chunk)
                        remaining -= len(chunk)
            body = out.tell() + 2 * tarfile.BLOCKSIZE
            out.write(b"\0" * (2 * tarfile.BLOCKSIZE + (-body) % tarfile.RECORDSIZE))
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, dst)
    tmp = layout.rows_path(shard_id).with_suffix(".json.tmp")
    tmp.write_bytes(dumps_json(rows))
    os.replace(tmp, layout.rows_path(shard_id))
    shutil.rmtree(layout.partial_dir(shard_id), ignore_errors=True)
    return rows


def reopen_shard(layout: CorpusLayout, shard_id: int) -> int:
    """Turn a complete shard back into finished episodes in ``.partial/`` (a corpus that grows).

    A corpus grown from ``n`` to more episodes refills its last shard; its episodes are stored
    again as partial files (members copied byte for byte from the shard), then the shard's tar
    files and rows file are removed, in that order, so a kill at any point leaves either the
    complete shard or every one of its episodes in ``.partial/``. Returns the episodes reopened.

    Raises:
        SimkitError: the shard is damaged (a member is missing or differs from its row).
    """
    from simkit.core.errors import SimkitError
    from simkit.episodes.tario import iter_tar

    rows_file = layout.rows_path(shard_id)
    rows = json.loads(rows_file.read_text())
    stored: dict[str, bytes] = {}
    for shard in sorted({r["shard"] for r in rows if r["members"]}):
        if "/" in shard or "\\" in shard or not shard.startswith(shard_name(shard_id)):
            raise SimkitError(f"{rows_file}: row names shard {shard!r} outside this shard")
        stored.update(iter_tar(layout.shards / shard))
    for r in rows:
        path = layout.partial_path(shard_id, r["index"])
        if path.exists() and verify_partial(path):
            continue
        members = []
        for m in r["members"]:
            data = stored.get(m["name"])
            if data is None or sha256(data) != m["sha256"]:
                raise SimkitError(
                    f"{layout.shards / r['shard']}: member {m['name']!r} is missing or damaged; "
                    f"run `simkit validate {layout.root}`"
                )
            members.append((m["name"], data))
        write_partial(layout, shard_id, r["index"], members, {k: v for k, v in r.items() if k != "shard"})
    for p in layout.shards.glob(f"{shard_name(shard_id)}*.tar"):
        p.unlink()
    rows_file.unlink()
    return len(rows)


#: names of what a run writes in ``shards/`` (shards, their parts, rows files, their temporaries)
WRITTEN_IN_SHARDS = re.compile(r"shard-\d{6}(-\d{2})?\.tar(\.tmp)?|shard-\d{6}\.rows\.json(\.tmp)?")
#: names of what a run writes in ``.partial/``: one folder per shard of finished episodes (and temporaries)
WRITTEN_IN_PARTIAL = (re.compile(r"shard-\d{6}"), re.compile(r"\d{9}\.tar(\.tmp)?"))


def _remove_written(folder: Path, pattern: re.Pattern) -> None:
    """Remove the files of ``folder`` whose names match ``pattern``, then the folder if nothing else is left."""
    if not folder.is_dir():
        return
    for p in folder.iterdir():
        if p.is_file() and not p.is_symlink() and pattern.fullmatch(p.name):
            p.unlink()
    if not any(folder.iterdir()):
        folder.rmdir()


def remove_corpus(layout: CorpusLayout) -> None:
    """Remove what a run wrote into ``layout.root`` (corpus.json, manifest, shards/, .partial/, .lock).

    Only files named as a run names them are removed (:data:`WRITTEN_IN_SHARDS`, :data:`WRITTEN_IN_PARTIAL`,
    corpus.json, manifest.parquet, .lock and their ``.tmp``); a user's file anywhere in the directory, in
    ``shards/`` or in ``.partial/`` included, stays, and so does a folder that still holds one.
    On an object store: the objects under ``shards/`` and ``.partial/``, the manifest and corpus.json.
    """
    if is_remote(layout.root):
        for d in (layout.shards, layout.partial):
            remove_tree(d)
    else:
        _remove_written(layout.shards, WRITTEN_IN_SHARDS)
        if layout.partial.is_dir():
            for d in layout.partial.iterdir():
                if d.is_dir() and not d.is_symlink() and WRITTEN_IN_PARTIAL[0].fullmatch(d.name):
                    _remove_written(d, WRITTEN_IN_PARTIAL[1])
            if not any(layout.partial.iterdir()):
                layout.partial.rmdir()
    for p in (layout.manifest, layout.corpus_json, layout.root / ".lock"):
        for q in (p, p.with_name(p.name + ".tmp")):
            if q.exists() and not q.is_dir():
                q.unlink()


def read_rows_file(path: Path) -> list[dict]:
    """The rows of one rows file, each well formed (:func:`row_fault`).

    Raises:
        OSError: the file cannot be read.
        ValueError: it is not JSON, not a list, or holds a malformed row.
    """
    data = json.loads(path.read_text())
    if not isinstance(data, list):
        raise ValueError("not a list of manifest rows")
    for r in data:
        fault = row_fault(r)
        if fault:
            raise ValueError(f"row {r.get('key') if isinstance(r, dict) else r!r}: {fault}")
    return data


def load_rows(layout: CorpusLayout) -> list[dict]:
    """Manifest rows of every complete shard, sorted by episode index.

    Raises:
        SimkitError: a rows file is unreadable or holds a malformed row (see :func:`row_fault`).
    """
    from simkit.core.errors import SimkitError

    rows: list[dict] = []
    for shard_id in sorted(layout.complete_shards()):
        path = layout.rows_path(shard_id)
        try:
            rows.extend(read_rows_file(path))
        except (OSError, ValueError) as exc:
            raise SimkitError(
                f"{path}: unreadable rows file ({exc}); run `simkit validate {layout.root}`"
            ) from None
    rows.sort(key=lambda r: r["index"])
    return rows


def write_manifest(layout: CorpusLayout, rows: list[dict]) -> None:
    """Write ``manifest.parquet`` (atomic) from manifest rows.

    Raises:
        SimkitError: a row does not fit the manifest schema (a damaged rows file).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    member_t = pa.struct([("name", pa.string()), ("sha256", pa.string()), ("bytes", pa.int64())])
    schema = pa.schema(
        [
            ("key", pa.string()),
            ("index", pa.int64()),
            ("shard", pa.string()),
            ("status", pa.string()),
            ("redraws", pa.int32()),
            ("attempts", pa.int32()),
            ("params_digest", pa.string()),
            ("members", pa.list_(member_t)),
            ("error", pa.string()),
            ("duration_s", pa.float64()),
        ]
    )
    cols = {c: [r.get(c) for r in rows] for c in MANIFEST_COLUMNS}
    try:
        table = pa.Table.from_pydict(cols, schema=schema)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        from simkit.core.errors import SimkitError

        raise SimkitError(
            f"{layout.root}: a rows file holds malformed rows ({type(exc).__name__}: {exc}); "
            f"run `simkit validate {layout.root}`"
        ) from None
    if is_remote(layout.root):
        import io

        buf = io.BytesIO()
        pq.write_table(table, buf)
        put_bytes(layout.manifest, buf.getvalue())
        return
    tmp = layout.manifest.with_suffix(".parquet.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, layout.manifest)


def read_manifest(path: str | Path) -> list[dict]:
    """Rows of a ``manifest.parquet`` (a local path or an object-store path/URL) as dicts.

    Raises:
        FileNotFoundError: no such file or object.
    """
    import pyarrow.parquet as pq

    path = corpus_path(path)
    if is_remote(path):
        with path.open("rb") as fh:
            return pq.read_table(fh).to_pylist()
    return pq.read_table(path).to_pylist()


class CorpusLock:
    """An exclusive advisory lock on ``OUT/.lock`` (``fcntl.flock``) around manifest rebuilds, so runs of
    several ``--shard K/N`` slices writing into one directory never publish a manifest that misses a
    shard another slice completed. A no-op where ``fcntl`` is unavailable and on object stores (which
    have no locks: there, run the command once more without ``--shard`` when all slices are done)."""

    def __init__(self, root: Path):
        self.path: Path | None = None if is_remote(root) else Path(root) / ".lock"
        self.fh: Any = None

    def __enter__(self) -> CorpusLock:
        if self.path is None:
            return self
        try:
            import fcntl
        except ImportError:  # pragma: no cover - non-POSIX
            return self
        self.fh = open(self.path, "a+")
        fcntl.flock(self.fh.fileno(), fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fh is not None:
            import fcntl

            fcntl.flock(self.fh.fileno(), fcntl.LOCK_UN)
            self.fh.close()
            self.fh = None


def write_json_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as indented, key-sorted JSON to ``path`` atomically (rename, or one object-store PUT)."""
    if is_remote(path):
        put_bytes(path, (json.dumps(data, indent=2, sort_keys=True, default=str) + "\n").encode())
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")
    os.replace(tmp, path)


def shard_files(layout: CorpusLayout, shard_id: int) -> list[Path]:
    """The tar file(s) of shard ``shard_id`` present under ``layout`` (the shard and its parts), in part order."""
    return sorted(layout.shards.glob(f"{shard_name(shard_id)}*.tar"), key=lambda p: shard_sort_key(p.name))


def publish_shard(work: CorpusLayout, dest: CorpusLayout, shard_id: int) -> None:
    """Move an assembled shard from the local ``work`` layout to the object store ``dest``.

    Each tar part is uploaded first (one PUT each: visible only when complete), then the rows file:
    the rows object is the completion marker, so readers, ``validate`` and resume see the shard
    only once all its parts are there. The local copies are removed afterwards.
    """
    for part in shard_files(work, shard_id):
        upload_file(part, dest.shards / part.name)
    upload_file(work.rows_path(shard_id), dest.rows_path(shard_id))
    for part in shard_files(work, shard_id):
        part.unlink()
    work.rows_path(shard_id).unlink()


def fetch_shard(src: CorpusLayout, work: CorpusLayout, shard_id: int) -> None:
    """Copy a complete shard (its tar parts, then its rows file) from the object store ``src`` into the local
    ``work`` layout, e.g. to reopen it when the corpus grows."""
    work.shards.mkdir(parents=True, exist_ok=True)
    for part in shard_files(src, shard_id):
        download_file(part, work.shards / part.name)
    download_file(src.rows_path(shard_id), work.rows_path(shard_id))
