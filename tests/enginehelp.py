"""Helpers for the engine tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from simkit.episodes.corpus import read_manifest
from simkit.episodes.tario import iter_tar


def tar_members(root: Path) -> dict[str, bytes]:
    """All members of all shards of a corpus: name -> bytes."""
    out = {}
    for p in sorted((Path(root) / "shards").glob("*.tar")):
        for name, data in iter_tar(p):
            assert name not in out, f"duplicate member {name}"
            out[name] = data
    return out


def shard_bytes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((Path(root) / "shards").glob("*.tar"))}


def manifest_rows(root: Path) -> list[dict]:
    """Manifest rows without the timing column."""
    rows = read_manifest(Path(root) / "manifest.parquet")
    for r in rows:
        r.pop("duration_s")
    return rows


def simkit_cli(*args: str, timeout: float = 300, check: bool = False) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "simkit", *args], capture_output=True, text=True, timeout=timeout
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"simkit {' '.join(args)} -> {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def corpus_json(root: Path) -> dict:
    return json.loads((Path(root) / "corpus.json").read_text())
