"""``simkit merge``: join corpora produced as slices (``--shard K/N``) into one directory.

Every source is checked before anything is written: its corpus.json agrees with the others
(same generator, version, seed, n, episodes per shard and config), every rows file is well
formed and names only plain shard file names (``shard-000003.tar``; nothing a row says can
make merge read or write outside ``shards/``), and every shard holds exactly the members its
rows list, byte for byte. Files are copied under a temporary name and renamed, and nothing is
written outside ``--out``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from simkit.core.errors import SimkitError
from simkit.core.paths import out_fault
from simkit.episodes.corpus import (
    CorpusLayout,
    CorpusLock,
    episode_key,
    format_fault,
    identity_diff,
    inside_corpus_fault,
    load_rows,
    member_schema,
    safe_shard_name,
    sha256,
    write_json_atomic,
    write_manifest,
)
from simkit.episodes.reader import META_IDENTITY, index_shard, meta_fault
from simkit.episodes.storage import copy_file, corpus_path, is_remote, same_location
from simkit.episodes.tario import split_member


def _read_infos(sources: list[Path]) -> list[dict]:
    infos = []
    for s in sources:
        p = CorpusLayout(s).corpus_json
        try:
            info = json.loads(p.read_text())
        except (OSError, ValueError) as exc:
            raise SimkitError(f"{p}: not a readable simkit corpus ({exc})") from None
        if not isinstance(info, dict) or not isinstance(info.get("generator"), str):
            raise SimkitError(f"{p}: not a simkit corpus description (no generator)")
        fault = format_fault(info)
        if fault:
            raise SimkitError(f"{s}: {fault}")
        infos.append(info)
    for s, info in zip(sources, infos, strict=True):
        diff = identity_diff(infos[0], info)
        if diff:
            raise SimkitError(
                f"{s}: not a slice of the same corpus as {sources[0]} (differs: {'; '.join(diff)})"
            )
    return infos


def _check_out(dst: CorpusLayout, sources: list[Path], ref: dict) -> None:
    for p in [] if is_remote(dst.root) else [dst.root, *dst.root.parents]:
        if p.exists():
            if not p.is_dir():
                raise SimkitError(f"--out {dst.root}: {p} exists and is not a directory")
            break
    if not dst.corpus_json.exists() or any(same_location(s, dst.root) for s in sources):
        return
    try:
        existing = json.loads(dst.corpus_json.read_text())
        if not isinstance(existing, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        raise SimkitError(f"{dst.corpus_json}: unreadable ({exc}); merge into a new directory") from None
    diff = identity_diff(existing, ref)
    if diff:
        raise SimkitError(
            f"--out {dst.root} already holds a different corpus (these settings differ: "
            f"{'; '.join(diff)}); merge into a new directory"
        )


def _shard_rows(src: CorpusLayout, j: int, generator: str) -> list[dict]:
    """The rows of shard ``j`` of ``src``, checked for form, safe shard names and keys of ``generator`` (the
    corpus.json's). Raises SimkitError."""
    rows_file = src.rows_path(j)
    hint = f"run `simkit validate {src.root}`"
    try:
        rows = json.loads(rows_file.read_text())
        if not isinstance(rows, list):
            raise ValueError("not a list of rows")
        for r in rows:
            if not safe_shard_name(r["shard"]) or not r["shard"].startswith(rows_file.name[:12]):
                raise ValueError(f"row {r.get('key')!r} names shard {r['shard']!r}, not a file of this shard")
            if r["key"] != episode_key(generator, int(r["index"])):
                raise ValueError(
                    f"row {r['key']!r} is not episode {r['index']} of generator {generator!r} (corpus.json)"
                )
            for m in r["members"]:
                if split_member(m["name"])[0] != r["key"]:
                    raise ValueError(f"member {m['name']!r} does not belong to row {r['key']!r}")
                m["sha256"], m["bytes"] = str(m["sha256"]), int(m["bytes"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SimkitError(f"{rows_file}: unreadable rows file ({exc}); {hint}") from None
    return rows


def _check_shard_members(src: CorpusLayout, rows: list[dict], info: dict) -> None:
    """Raise SimkitError unless each shard file holds exactly the members its rows list, intact, and every
    episode's meta.json repeats ``info``'s generator, version and seed and its row's index and key."""
    want: dict[str, dict[str, tuple[str, int]]] = {}
    ident = tuple((k, info.get(k)) for k in META_IDENTITY)
    metas: dict[str, dict] = {}
    for r in rows:
        if r["status"] == "ok":
            for m in r["members"]:
                want.setdefault(r["shard"], {})[m["name"]] = (m["sha256"], m["bytes"])
            metas[f"{r['key']}.meta.json"] = r
    for name, members in want.items():
        path = src.shards / name
        idx = index_shard(path)
        if idx.problem is not None or idx.duplicates:
            why = idx.problem[1] if idx.problem else f"duplicate members {sorted(idx.duplicates)}"
            raise SimkitError(f"{path}: cannot be read ({why}); run `simkit validate {src.root}`")
        got = {}
        with path.open("rb") as fh:
            for n, (offset, size) in idx.members.items():
                fh.seek(offset)
                data = fh.read(size)
                got[n] = (sha256(data), size)
                if n in metas and got[n] == members.get(n):
                    _check_meta(path, n, data, ident, metas[n])
        if got != members:
            bad = sorted(set(got) ^ set(members)) or sorted(n for n in got if got[n] != members.get(n))
            raise SimkitError(
                f"{path}: members differ from its rows file (missing, extra or edited: {bad[0]!r}); "
                f"run `simkit validate {src.root}`"
            )


def _check_meta(path: Path, name: str, data: bytes, ident: tuple, row: dict) -> None:
    try:
        why = meta_fault(json.loads(data), ident, int(row["index"]), row["key"])
    except ValueError as exc:
        why = f"does not decode ({exc})"
    if why:
        raise SimkitError(f"{path}: member {name!r}: {why}; run `simkit validate {path.parent.parent}`")


def _same_file(a: Path, b: Path) -> bool:
    if a.stat().st_size != b.stat().st_size:
        return False
    with a.open("rb") as fa, b.open("rb") as fb:
        while True:
            x, y = fa.read(1 << 22), fb.read(1 << 22)
            if x != y:
                return False
            if not x:
                return True


def _copy_shards(sources: list[Path], dst: CorpusLayout, plan: dict[tuple[Path, int], list[dict]]) -> None:
    for (s, j), rows in sorted(plan.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        src = CorpusLayout(s)
        if same_location(src.root, dst.root):
            continue
        for name in sorted({r["shard"] for r in rows if r["status"] == "ok"}):
            a, b = src.shards / name, dst.shards / name
            if b.exists():
                if not _same_file(a, b):
                    raise SimkitError(f"{name} exists in several sources with different bytes")
                continue
            copy_file(a, b)
        if not dst.rows_path(j).exists():
            copy_file(src.rows_path(j), dst.rows_path(j))  # last: marks the shard complete


def merge_corpora(sources: list[str | Path], out: str | Path) -> dict[str, Any]:
    """Copy the complete shards of ``sources`` into ``out`` and rebuild manifest and corpus.json.

    All sources must be slices of the same corpus (same generator, version, seed, n, config,
    episodes per shard). A shard present in several sources must be byte-identical.
    Returns the merged corpus.json content.

    Raises:
        SimkitError: a source is not a corpus or is damaged, sources disagree (naming the settings),
            a duplicated shard differs, or ``out`` holds another corpus or is under a file.
    """
    if not sources:
        raise SimkitError("merge needs at least one source corpus")
    srcs = [corpus_path(s) for s in sources]
    dst = CorpusLayout(corpus_path(out))
    why = None if is_remote(dst.root) else out_fault(dst.root, folder=True) or inside_corpus_fault(dst.root)
    if why is not None:  # before any source is read
        raise SimkitError(f"--out {dst.root}: {why}")
    infos = _read_infos(srcs)
    _check_out(dst, srcs, infos[0])
    plan: dict[tuple[Path, int], list[dict]] = {}
    existing = (
        [dst.root] if dst.corpus_json.exists() and not any(same_location(s, dst.root) for s in srcs) else []
    )
    for s in (
        srcs + existing
    ):  # check every shard (sources and --out) against its rows before anything is copied
        src = CorpusLayout(s)
        for j in sorted(src.complete_shards()):
            plan[(s, j)] = _shard_rows(src, j, infos[0]["generator"])
            _check_shard_members(src, plan[(s, j)], infos[0])
    if not is_remote(dst.root):  # shards/ only: a merged corpus has no episodes waiting in .partial/
        dst.shards.mkdir(parents=True, exist_ok=True)
    _copy_shards(srcs, dst, plan)
    with CorpusLock(dst.root):
        rows = load_rows(dst)
        write_manifest(dst, rows)
    info = dict(infos[0])
    ok = sum(r["status"] == "ok" for r in rows)
    info["counts"] = {
        "planned": info.get("n"),
        "present": len(rows),
        "ok": ok,
        "failed": len(rows) - ok,
        "redraws": sum(int(r.get("redraws") or 0) for r in rows),
    }
    info["schema"] = member_schema(rows)
    write_json_atomic(dst.corpus_json, info)
    if not is_remote(dst.root) and dst.partial.is_dir() and not any(dst.partial.iterdir()):
        dst.partial.rmdir()  # left empty by an earlier merge
    return info
