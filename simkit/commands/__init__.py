"""CLI subcommands contributed per generator family (light imports only; see simkit.cli)."""

from __future__ import annotations

import typer

from simkit.core.progress import Progress, progress_bar  # noqa: F401 (the commands' progress, re-exported)


def fail(msg: str, code: int = 2) -> None:
    """Print ``error: msg`` to stderr and exit with ``code`` (2: bad input), the CLI's one error path."""
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(code)


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``"1 shard"``, ``"0 shards"``, ``"2 shards"`` (``nouns``: an irregular plural; default ``noun + "s"``)."""
    return f"{n} {noun if n == 1 else (nouns or noun + 's')}"


def say(msg: str) -> None:
    """An informational line on stdout (``wrote FILE``), not shown under ``simkit -q``."""
    from simkit.core.verbosity import quiet

    if not quiet():
        typer.echo(msg)


def info(msg: str) -> None:
    """An informational line on stderr (``wrote ...``, summaries), not shown under ``simkit -q``."""
    from simkit.core.verbosity import quiet

    if not quiet():
        typer.echo(msg, err=True)


class LateProgress(Progress):
    """The ``progress(done, total, what)`` reporter of ``validate`` and ``inspect``: a
    :class:`~simkit.core.progress.Progress` (count, percent, elapsed, ETA) that appears once the work has
    run ``after_s`` seconds, so a quick command draws nothing."""

    def __init__(self, after_s: float = 2.0, enabled: bool = True):
        super().__init__("", 0, after_s=after_s, enabled=enabled)


def strict_json(obj):
    """``obj`` with every non-finite float (NaN, +-inf) replaced by ``None``, recursively through dicts,
    lists and tuples, so ``json.dumps(..., allow_nan=False)`` writes strict JSON (RFC 8259 has no NaN)."""
    import math

    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: strict_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict_json(v) for v in obj]
    return obj


def check_out(
    out,
    folder: bool = False,
    flag: str = "--out",
    inputs: tuple = (),
    overwrite: bool | None = None,
    corpora: tuple = (),
) -> None:
    """Exit 2 with one line when ``out`` (a ``Path`` or ``None``) must not or can never be written, before any
    work: a parent is a file, it is a folder where a file is wanted (``folder=False``) or a file where a folder
    is wanted, nobody can write there (:func:`simkit.core.paths.out_fault`), it is one of ``inputs`` (the
    command would overwrite what it reads), it is or lies under a part of one of the corpora the command reads
    (``corpora``) or of any corpus above it (``shards/``, ``corpus.json``, ...: see
    :func:`simkit.episodes.corpus.inside_corpus_fault`), or, with
    ``overwrite=False``, a file already there (the rule of ``config --yaml`` and ``convert``: an existing file
    is replaced only with ``--overwrite``)."""
    from simkit.core.paths import out_fault, same_file
    from simkit.episodes.corpus import inside_corpus_fault

    if out is None:
        return
    why = out_fault(out, folder)
    if why is not None:
        fail(f"{flag} {out}: {why}")
    for src in inputs:
        if src is not None and same_file(src, out):
            fail(f"{flag} {out}: is the input {src}; writing it would destroy it, give another path")
    inside = inside_corpus_fault(out, corpora)
    if inside is not None:
        fail(f"{flag} {out}: {inside}")
    if overwrite is False and out.exists() and not folder:
        fail(f"{flag} {out}: already exists; choose a new file name, or --overwrite to replace it")
