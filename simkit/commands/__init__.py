"""CLI subcommands contributed per generator family (light imports only; see simkit.cli)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import typer


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


@contextlib.contextmanager
def progress_bar(label: str, total: int, enabled: bool = True) -> Iterator[Callable[..., None]]:
    """A transient rich progress bar on stderr while the block runs; yields ``advance(*_)`` (one step per
    call, arguments ignored, so it can be passed as a per-item callback). Off a terminal, under
    ``simkit -q`` or with ``enabled=False`` nothing is drawn and ``advance`` does nothing."""
    from simkit.core.verbosity import show_progress

    if not show_progress(enabled):
        yield lambda *_: None
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda *_: bar.advance(task)


class LateProgress:
    """A progress reporter ``report(done, total, what)`` for library calls that take one (``validate``,
    ``inspect``): a transient rich bar on stderr (count, percent, elapsed, ETA) that appears once the work
    has run ``after_s`` seconds (from a timer, so a long step without reports still shows the last state),
    so a quick command draws nothing. Draws nothing off a terminal or under ``simkit -q``. Use as a context
    manager (the bar is removed on exit)."""

    def __init__(self, after_s: float = 2.0, enabled: bool = True):
        import threading

        from simkit.core.verbosity import show_progress

        self.on = show_progress(enabled)
        self.state: tuple[int, int, str] | None = None
        self.bar: Any = None
        self.task: Any = None
        self.due = False  # after_s has passed: the next report shows the bar
        self.lock = threading.RLock()
        self.timer = threading.Timer(after_s, self._show)
        self.timer.daemon = True

    def _show(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with self.lock:
            self.due = True
            if self.state is None or self.bar is not None or not self.on:
                return
            done, total, what = self.state
            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TaskProgressColumn(),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(what, total=total, completed=done)

    def __call__(self, done: int, total: int, what: str) -> None:
        if not self.on:
            return
        with self.lock:
            self.state = (done, total, what)
            if self.bar is not None:
                self.bar.update(self.task, completed=done, total=total, description=what)
            elif self.due:
                self._show()

    def __enter__(self) -> LateProgress:
        if self.on:
            self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()
        with self.lock:
            if self.bar is not None:
                self.bar.stop()
            self.on = False


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
