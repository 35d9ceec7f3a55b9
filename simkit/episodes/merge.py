"""``simkit merge``: join corpora produced as slices (``--shard K/N``) into one directory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from simkit.core.errors import SimkitError
from simkit.episodes.corpus import (
    CorpusLayout,
    CorpusLock,
    load_rows,
    sha256,
    write_json_atomic,
    write_manifest,
)
from simkit.executors.run import IDENTITY_KEYS


def merge_corpora(sources: list[str | Path], out: str | Path) -> dict:
    """Copy the complete shards of ``sources`` into ``out`` and rebuild manifest and corpus.json.

    All sources must be slices of the same corpus (same generator, version, seed, n, config,
    episodes per shard). A shard present in several sources must be byte-identical.
    Returns the merged corpus.json content.

    Raises:
        SimkitError: a source is not a corpus, sources disagree, or a duplicated shard differs.
    """
    if not sources:
        raise SimkitError("merge needs at least one source corpus")
    infos = []
    for s in sources:
        p = CorpusLayout(Path(s)).corpus_json
        try:
            infos.append(json.loads(p.read_text()))
        except (OSError, ValueError) as exc:
            raise SimkitError(f"{p}: not a readable simkit corpus ({exc})") from None
    ref = {k: infos[0].get(k) for k in IDENTITY_KEYS}
    for s, info in zip(sources, infos, strict=True):
        diff = [k for k in IDENTITY_KEYS if info.get(k) != ref[k]]
        if diff:
            raise SimkitError(
                f"{s}: not a slice of the same corpus as {sources[0]} ({', '.join(diff)} differ)"
            )
    dst = CorpusLayout(Path(out))
    if dst.corpus_json.exists() and all(Path(s).resolve() != dst.root.resolve() for s in sources):
        try:
            existing = json.loads(dst.corpus_json.read_text())
        except (OSError, ValueError) as exc:
            raise SimkitError(f"{dst.corpus_json}: unreadable ({exc}); merge into a new directory") from None
        diff = [k for k in IDENTITY_KEYS if existing.get(k) != ref[k]]
        if diff:
            raise SimkitError(
                f"--out {dst.root} already holds a different corpus (these settings differ: "
                f"{', '.join(diff)}); merge into a new directory"
            )
    elif dst.root.exists() and not dst.root.is_dir():
        raise SimkitError(f"--out {dst.root}: exists and is not a directory")
    # check every source shard against its rows before anything is copied
    for s in sources:
        src = CorpusLayout(Path(s))
        for j in sorted(src.complete_shards()):
            _check_shard_rows(src, j)
    dst.ensure()
    for s in sources:
        src = CorpusLayout(Path(s))
        if src.root.resolve() == dst.root.resolve():
            continue
        for j in sorted(src.complete_shards()):
            rows_file = src.rows_path(j)
            rows = json.loads(rows_file.read_text())
            for name in sorted({r["shard"] for r in rows if r["status"] == "ok"}):
                a = src.shards / name
                b = dst.shards / name
                if b.exists():
                    if b.read_bytes() != a.read_bytes():
                        raise SimkitError(f"{name} exists in several sources with different bytes")
                    continue
                shutil.copyfile(a, b.with_name(b.name + ".tmp"))
                (b.with_name(b.name + ".tmp")).replace(b)
            if not dst.rows_path(j).exists():
                shutil.copyfile(rows_file, dst.rows_path(j))
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
    schema = {}
    for i in infos:
        schema.update(i.get("schema") or {})
    info["schema"] = dict(sorted(schema.items()))
    write_json_atomic(dst.corpus_json, info)
    return info


def _check_shard_rows(src: CorpusLayout, j: int) -> None:
    """Raise SimkitError unless every member the rows file of shard ``j`` lists is present and intact."""
    from simkit.episodes.tario import iter_tar

    rows_file = src.rows_path(j)
    try:
        rows = json.loads(rows_file.read_text())
        want: dict[str, dict[str, tuple[str, int]]] = {}
        for r in rows:
            if r["status"] == "ok":
                for m in r["members"]:
                    want.setdefault(r["shard"], {})[m["name"]] = (m["sha256"], m["bytes"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SimkitError(
            f"{rows_file}: unreadable rows file ({exc}); run `simkit validate {src.root}`"
        ) from None
    for name, members in want.items():
        path = src.shards / name
        try:
            got = {n: (sha256(d), len(d)) for n, d in iter_tar(path)}
        except Exception as exc:
            raise SimkitError(
                f"{path}: cannot be read ({type(exc).__name__}: {exc}); run `simkit validate {src.root}`"
            ) from None
        if got != members:
            raise SimkitError(
                f"{path}: members differ from {rows_file.name} (missing, extra or edited); "
                f"run `simkit validate {src.root}`"
            )
