"""Compile every Hebero suite into a folder of descriptors, cached by content hash.

:func:`compile_suites` writes one descriptor per task, skipping tasks whose inputs are unchanged
(content hash of the BDDL file, the task table and the asset presence) and whose stored descriptor
still validates (:func:`~simkit.scenes.hebero.schema.load_descriptor`); :func:`suite_files` and
:func:`bddl_root` locate the BDDL files (a LIBERO root or simkit's bundled copy).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from simkit.core.errors import InputError
from simkit.scenes.hebero.compile import TASKS_JSON, compile_task, task_table
from simkit.scenes.hebero.schema import DESCRIPTOR_VERSION, SUITES, descriptor_digest, load_descriptor


def _cache_key(bddl: Path, presence: str) -> str:
    h = hashlib.sha256()
    h.update(f"v{DESCRIPTOR_VERSION}\n".encode())
    h.update(bddl.read_bytes())
    h.update(TASKS_JSON.read_bytes())
    h.update(presence.encode())
    return h.hexdigest()


def _asset_presence(libero_root: Path | None) -> str:
    """Which of the task table's asset files exist under ROOT (descriptors record it as ``present``)."""
    if libero_root is None:
        return ""
    assets = task_table()["assets"]
    return "".join(
        "1" if (libero_root / "assets" / rel).is_file() else "0" for _, rel in sorted(assets.items())
    )


@dataclass
class CompileReport:
    """What :func:`compile_suites` did.

    ``written``/``cached``: descriptor paths; ``errors``: one line per failed
    task (``FILE[:LINE:COL]: reason``); ``removed``: stale descriptors deleted
    because their task failed; ``warnings``; ``index``: task id -> path
    relative to OUT, as written to ``OUT/index.json``.
    """

    written: list[Path] = field(default_factory=list)
    cached: list[Path] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    index: dict[str, str] = field(default_factory=dict)


#: simkit's copy of the 40 Hebero BDDL files (``bddl_files/<libero_dir>/<task>.bddl``), read out of
#: LIBERO's PyPI source archive by ``tools/bundle_libero_bddl.py``; ``bddl_files/SOURCE.json`` records
#: the archive's and every file's sha256, ``bddl_files/LICENSE`` LIBERO's MIT license
BUNDLED_ROOT = TASKS_JSON.parent


def bddl_root(libero_root: str | Path | None) -> Path:
    """Folder holding ``bddl_files/``: ``libero_root`` when given, else simkit's bundled copy."""
    return BUNDLED_ROOT if libero_root is None else Path(libero_root)


def suite_files(libero_root: str | Path | None, suite: str) -> list[tuple[int, Path]]:
    """(index, BDDL path) of a Hebero suite's ten tasks under ``ROOT/bddl_files`` (ROOT None: the bundled
    copy); missing files raise InputError."""
    out = []
    for i, t, p in _suite_paths(bddl_root(libero_root), suite):
        if not p.is_file():
            raise InputError(p, f"BDDL file of task {suite}/{t} not found under --libero-root")
        out.append((i, p))
    return out


def _suite_paths(root: Path, suite: str) -> list[tuple[int, str, Path]]:
    table = task_table()["suites"][suite]
    d = root / "bddl_files" / table["libero_dir"]
    return [(i, t, d / f"{t}.bddl") for i, t in enumerate(table["tasks"])]


def compile_suites(
    libero_root: str | Path | None,
    out_dir: str | Path,
    suites: list[str] | tuple[str, ...] = SUITES,
    force: bool = False,
    assets_root: str | Path | None = None,
) -> CompileReport:
    """Compile the given suites to ``OUT/<suite>/<task>.json`` and rebuild ``OUT/index.json``.

    A descriptor is reused (a cache hit) only when it loads and passes
    :func:`validate_descriptor` (layout, version, content hash) and its
    ``cache_key`` (sha256 of the BDDL bytes, the task table, which table assets
    exist under ROOT and :data:`DESCRIPTOR_VERSION`) equals the current one;
    otherwise, or with ``force``, it is recompiled. Every task is tried: a
    missing, unreadable or malformed BDDL file adds one line to ``errors``
    and its stale descriptor, if any, is deleted (listed in ``removed``).

    ``index.json`` lists every valid descriptor under ``OUT/<suite>/`` for all
    suites, not only those compiled in this call (task id -> relative path);
    invalid descriptors found there are left out with a warning.

    ``libero_root`` None reads simkit's bundled BDDL files (:data:`BUNDLED_ROOT`) and checks asset
    presence under ``assets_root`` (a folder holding ``assets/``, e.g. the installed LIBERO asset
    tree); a given ``libero_root`` serves both.

    Raises:
        InputError: ROOT has no ``bddl_files`` folder.
    """
    root, out = bddl_root(libero_root), Path(out_dir)
    asset_root = Path(assets_root) if assets_root is not None else (None if libero_root is None else root)
    if not (root / "bddl_files").is_dir():
        raise InputError(
            root,
            "not a LIBERO root: no bddl_files/ folder (point --libero-root at the folder "
            "holding bddl_files/ and assets/)",
        )
    rep = CompileReport()
    presence = _asset_presence(asset_root)

    def fail(msg: str, dst: Path) -> None:
        if dst.is_file():
            dst.unlink()
            rep.removed.append(dst)
            msg += f" (stale descriptor {dst} removed)"
        rep.errors.append(msg)

    for suite in suites:
        for i, t, p in _suite_paths(root, suite):
            dst = out / suite / f"{t}.json"
            if not p.is_file():
                fail(str(InputError(p, f"BDDL file of task {suite}/{t} not found under --libero-root")), dst)
                continue
            try:
                key = _cache_key(p, presence)
            except OSError as exc:
                fail(str(InputError(p, f"cannot read file: {exc.strerror}")), dst)
                continue
            if not force and dst.is_file():
                try:
                    old = load_descriptor(dst)
                except InputError:
                    old = None
                if old is not None and old["cache_key"] == key and old["task_id"] == f"{suite}/{t}":
                    rep.cached.append(dst)
                    rep.warnings += old["warnings"]
                    continue
            try:
                desc = compile_task(p, suite, i, asset_root)
            except (InputError, ValueError) as exc:
                fail(str(exc), dst)
                continue
            desc["cache_key"] = key
            desc["content_sha256"] = descriptor_digest(desc)
            dst.parent.mkdir(parents=True, exist_ok=True)
            tmp = dst.with_suffix(".json.tmp")
            tmp.write_text(json.dumps(desc, indent=1))
            tmp.replace(dst)
            rep.written.append(dst)
            rep.warnings += desc["warnings"]

    for suite in SUITES:
        for f in sorted((out / suite).glob("*.json")):
            try:
                d = load_descriptor(f)
            except InputError as exc:
                rep.warnings.append(f"{exc}; not listed in index.json")
                continue
            if d["task_id"] != f"{suite}/{f.stem}":
                rep.warnings.append(
                    f"{f}: holds task {d['task_id']!r}, not {suite}/{f.stem}; not listed in index.json"
                )
                continue
            rep.index[d["task_id"]] = f"{suite}/{f.name}"
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "index.json.tmp"
    tmp.write_text(json.dumps(dict(sorted(rep.index.items())), indent=1))
    tmp.replace(out / "index.json")
    return rep
