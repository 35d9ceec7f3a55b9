"""``simkit inspect``: summary statistics and pictures of a corpus."""

from __future__ import annotations

import contextlib
import itertools
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import SimkitError
from simkit.core.extras import needs_extra
from simkit.core.images import default_contact_sheet, save_png, tile
from simkit.core.paths import out_fault
from simkit.episodes.corpus import CorpusLayout, inside_corpus_fault, read_manifest
from simkit.episodes.reader import (
    CorpusWarning,
    OnError,
    corpus_episodes,
    corpus_info,
    iter_corpus,
    iter_episodes,
)
from simkit.episodes.storage import corpus_path, is_url

__all__ = ["corpus_stats", "default_contact_sheet", "inspect_corpus", "save_png", "tile"]


def corpus_stats(root: str | Path) -> dict[str, Any]:
    """Counts, timing and structural-parameter distributions from corpus.json and the manifest."""
    layout = CorpusLayout(corpus_path(root))
    info = corpus_info(root)
    try:
        rows = read_manifest(layout.manifest)
    except FileNotFoundError:
        raise SimkitError(f"{layout.manifest}: missing; run `simkit validate` to diagnose") from None
    except Exception as exc:
        raise SimkitError(
            f"{layout.manifest}: unreadable ({type(exc).__name__}); run `simkit validate` to diagnose"
        ) from None
    durations = np.array([r["duration_s"] or 0.0 for r in rows if r["status"] == "ok"], float)
    size = sum(p.stat().st_size for p in layout.shards.glob("*.tar"))
    return {
        "generator": info.get("generator"),
        "version": info.get("version"),
        "seed": info.get("seed"),
        "planned": info.get("n"),
        "present": len(rows),
        "ok": int(sum(r["status"] == "ok" for r in rows)),
        "failed": int(sum(r["status"] != "ok" for r in rows)),
        "redraws": int(sum(r["redraws"] or 0 for r in rows)),
        "shards": len(list(layout.shards.glob("*.tar"))),
        "bytes": size,
        "mean_episode_s": float(durations.mean()) if durations.size else None,
        "fields": info.get("schema", {}),
    }


def param_histogram(samples: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Counts of each scalar structural parameter value over ``samples`` (read from their meta)."""
    hist: dict[str, Counter] = {}
    for s in samples:
        params = (s.get("meta") or {}).get("params", {}).get("structural", {})
        for k, v in params.items():
            if isinstance(v, (str, int, bool)):
                hist.setdefault(k, Counter())[str(v)] += 1
    return {k: dict(sorted(c.items())) for k, c in hist.items()}


def all_metas(root: str | Path, on_error: OnError = "raise") -> list[dict[str, Any]]:
    """The verified, decoded ``meta.json`` of every stored episode (other members are neither read nor decoded).

    Raises:
        CorpusDamaged: a shard or meta member does not match the manifest (``on_error="skip"``: skipped).
    """
    return [
        s["meta"] for s in iter_episodes(corpus_episodes(root), {"meta"}, on_error=on_error) if "meta" in s
    ]


def inspect_corpus(
    root: str | Path,
    out_dir: str | Path | None = None,
    n_samples: int = 16,
    progress: Callable[[int, int, str], None] | None = None,
) -> tuple[dict, list[Path]]:
    """Stats of the whole corpus + pictures of its first ``n_samples`` episodes.

    Damaged episodes (members that do not match the manifest) are skipped and listed in
    ``stats["damaged"]`` (one line per damaged shard). Pictures go to ``out_dir`` (default
    ``ROOT/inspect``); returns (stats, paths). ``progress(done, total, what)`` is called after each
    episode read (every episode's meta.json, then the pictured episodes) and once the pictures are drawn.

    Raises:
        SimkitError: not a corpus, unreadable manifest, unknown generator, or ``out_dir`` cannot be written.
        ExtraMissing: decoding a member or drawing a picture needs a module that is not installed (naming
            the extra of the corpus's generator when that extra installs it).
    """
    import warnings

    from simkit.core.registry import load

    _check_pictures_dir(root, out_dir)  # before the corpus is read
    stats = corpus_stats(root)
    gen_cls = load(stats["generator"])
    total = stats["ok"] + min(n_samples, stats["ok"]) + 1
    step = _Steps(progress, total)
    with needs_extra(gen_cls.extra or None):  # a module missing to decode or draw names the corpus's extra
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CorpusWarning)
            metas = [step(m, "reading metadata") for m in all_metas(root, "skip")]
            stats["structural_params"] = param_histogram([{"meta": m} for m in metas])
            reader = (step(s, "reading episodes to draw") for s in iter_corpus(root, on_error="skip"))
            samples = list(itertools.islice(reader, n_samples))
        stats["damaged"] = sorted({str(w.message) for w in caught if issubclass(w.category, CorpusWarning)})
        stats["pictured_episodes"] = len(samples)
        out = _pictures_dir(root, out_dir)
        gen = gen_cls()
        with contextlib.suppress(Exception):
            gen.config = gen_cls.Config.model_validate(corpus_info(root).get("config") or {})
        if progress is not None:
            progress(step.done, total, "drawing pictures")
        paths = gen.inspect(samples, out) if samples else []
        step(None, "pictures drawn")
    return stats, paths


class _Steps:
    """Counts the steps of :func:`inspect_corpus` for its ``progress`` callback; ``step(x, what)`` returns
    ``x`` (so it wraps the items of a comprehension)."""

    def __init__(self, progress: Callable[[int, int, str], None] | None, total: int):
        self.progress, self.total, self.done = progress, total, 0

    def __call__(self, item: Any, what: str) -> Any:
        self.done += 1
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total, what)
        return item


def _check_pictures_dir(root: str | Path, out_dir: str | Path | None) -> None:
    """Refuse a pictures folder that can never be written or lies in the corpus's own files, before any work.

    Raises:
        SimkitError: ``root`` is a URL and no ``out_dir`` is given; ``out_dir`` is under a file, is a file,
            cannot be written (:func:`simkit.core.paths.out_fault`), or is or lies under the corpus's
            ``shards/``, ``.partial/``, ``corpus.json``, ... (:func:`~simkit.episodes.corpus.inside_corpus_fault`).
    """
    if not out_dir:
        if is_url(root):
            raise SimkitError(f"{root}: a corpus URL needs --out, a local folder for the pictures")
        return
    why = out_fault(Path(out_dir), folder=True)
    if why is not None:
        raise SimkitError(f"--out {out_dir}: {why}")
    inside = inside_corpus_fault(out_dir, (root,))
    if inside is not None:
        raise SimkitError(f"--out {out_dir}: {inside}")


def _pictures_dir(root: str | Path, out_dir: str | Path | None) -> Path:
    """The folder the pictures go to (``out_dir``, default ``ROOT/inspect``), created.

    Raises:
        SimkitError: ``root`` is a URL and no ``out_dir`` is given, or the folder cannot be created.
    """
    if not out_dir and is_url(root):
        raise SimkitError(f"{root}: a corpus URL needs --out, a local folder for the pictures")
    out = Path(out_dir) if out_dir else Path(root) / "inspect"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimkitError(f"--out {out}: cannot create the folder ({exc.strerror or exc})") from None
    return out
