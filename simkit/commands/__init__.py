"""CLI subcommands contributed per generator family (light imports only; see simkit.cli)."""

import contextlib
from collections.abc import Callable, Iterator

import typer


def fail(msg: str, code: int = 2) -> None:
    """Print ``error: msg`` to stderr and exit with ``code`` (2: bad input), the CLI's one error path."""
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(code)


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``"1 shard"``, ``"0 shards"``, ``"2 shards"`` (``nouns``: an irregular plural; default ``noun + "s"``)."""
    return f"{n} {noun if n == 1 else (nouns or noun + 's')}"


@contextlib.contextmanager
def progress_bar(label: str, total: int, enabled: bool = True) -> Iterator[Callable[..., None]]:
    """A transient rich progress bar on stderr while the block runs; yields ``advance(*_)`` (one step per
    call, arguments ignored, so it can be passed as a per-item callback). Off a terminal or with
    ``enabled=False`` nothing is drawn and ``advance`` does nothing."""
    import sys

    if not (enabled and sys.stderr.isatty()):
        yield lambda *_: None
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda *_: bar.advance(task)


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
    out, folder: bool = False, flag: str = "--out", inputs: tuple = (), overwrite: bool | None = None
) -> None:
    """Exit 2 with one line when ``out`` (a ``Path`` or ``None``) must not or can never be written, before any
    work: a parent is a file, it is a folder where a file is wanted (``folder=False``) or a file where a folder
    is wanted, nobody can write there (:func:`simkit.core.paths.out_fault`), it is one of ``inputs`` (the
    command would overwrite what it reads), or, with ``overwrite=False``, a file already there (the rule of
    ``config --yaml`` and ``convert``: an existing file is replaced only with ``--overwrite``)."""
    from simkit.core.paths import out_fault, same_file

    if out is None:
        return
    why = out_fault(out, folder)
    if why is not None:
        fail(f"{flag} {out}: {why}")
    for src in inputs:
        if src is not None and same_file(src, out):
            fail(f"{flag} {out}: is the input {src}; writing it would destroy it, give another path")
    if overwrite is False and out.exists() and not folder:
        fail(f"{flag} {out}: already exists; choose a new file name, or --overwrite to replace it")
