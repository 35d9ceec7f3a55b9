"""The one progress display of simkit: a rich bar on stderr with count, percent, rate, elapsed time and ETA.

Every long step uses :class:`Progress` (``generate``'s episodes, ``validate``, ``inspect``, the exports,
``eval``, the construction of many-task environments), so they all look alike and all obey the command
line (:mod:`simkit.core.verbosity`): nothing is drawn under ``simkit -q``, with ``enabled=False``, or for
a zero total. On a terminal the bar is live; off a terminal (a log file, CI) nothing is drawn unless
``log_every`` is given, then one line ``[label] done/total unit, rate unit/s, ETA`` (``[toy] 3/10
episodes, 1.50 episodes/s, ETA 5 s``) every ``log_every`` seconds and at the end. ``after_s`` delays the
bar (a timer, so a long step without updates still shows the last state): a command that ends quickly
draws nothing.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from simkit.core.verbosity import quiet


class Progress:
    """A progress display for ``total`` steps of ``label`` (module docstring).

    Use as a context manager (the bar is removed, or, with ``transient=False``, left as its last state,
    on exit) or call :meth:`close`. Report with :meth:`advance` (``n`` more steps done) or call the object
    as ``progress(done, total, what)`` (the absolute form library calls take, e.g. ``validate``'s
    ``progress=``). Thread-safe.

    Args:
        label: the bar's description (replaced by ``what`` of a later call).
        total: number of steps (``0``: unknown until a call gives it; nothing is drawn before).
        unit: the steps' name, plural (``"episodes"``, ``"tasks"``, ``"demos"``): the count reads
            ``3/10 episodes`` off a terminal and the rate ``1.50 episodes/s``; ``""``: no unit, no rate column.
        enabled: ``False`` draws nothing (a ``--no-progress`` flag).
        after_s: seconds before the bar appears (0: at once).
        log_every: off a terminal, write a line this often (seconds); ``None``: nothing off a terminal.
        transient: remove the bar when done (``False``: leave the finished bar, as ``generate`` does).
    """

    def __init__(
        self,
        label: str,
        total: int = 0,
        *,
        unit: str = "",
        enabled: bool = True,
        after_s: float = 0.0,
        log_every: float | None = None,
        transient: bool = True,
    ):
        from simkit.core import verbosity

        self.label, self.total, self.unit, self.done = label, int(total), unit, 0
        self.tty = verbosity.show_progress(enabled)  # a live bar: enabled, not quiet, on a terminal
        self.on = self.tty or (enabled and not quiet() and log_every is not None)
        self.log_every, self.transient = log_every, transient
        self.t0 = self.last = time.perf_counter()
        self.bar: Any = None
        self.task: Any = None
        self.due = after_s <= 0
        self.lock = threading.RLock()
        self.timer: threading.Timer | None = None
        if self.on and self.tty and not self.due:
            self.timer = threading.Timer(after_s, self._due)
            self.timer.daemon = True
            self.timer.start()
        elif self.on and self.tty and self.total > 0:
            self._start()

    def _due(self) -> None:
        with self.lock:
            self.due = True
            if self.on and self.bar is None and self.total > 0:
                self._start()

    def _start(self) -> None:
        from rich import progress as rp

        columns: list[Any] = [
            rp.TextColumn("[bold]{task.description}"),
            rp.BarColumn(),
            rp.MofNCompleteColumn(),
            rp.TaskProgressColumn(),
        ]
        if self.unit:
            unit = self.unit

            class Rate(rp.ProgressColumn):
                def render(self, task: Any) -> Any:
                    from rich.text import Text

                    speed = task.finished_speed or task.speed
                    return Text(f"{speed:.2f} {unit}/s" if speed else f"-- {unit}/s")

            columns.append(Rate())
        columns += [rp.TimeElapsedColumn(), rp.TextColumn("ETA"), rp.TimeRemainingColumn()]
        self.bar = rp.Progress(*columns, transient=self.transient)
        self.bar.start()
        self.task = self.bar.add_task(self.label, total=self.total, completed=self.done)

    def __call__(self, done: int, total: int | None = None, what: str | None = None) -> None:
        """Report ``done`` of ``total`` steps so far (absolute), optionally renaming the bar ``what``."""
        with self.lock:
            self.advance(done - self.done, total=total, what=what)

    def advance(self, n: int = 1, total: int | None = None, what: str | None = None) -> None:
        """``n`` more steps done (``total``/``what``: a new total or description)."""
        if not self.on:
            return
        with self.lock:
            self.done += n
            self.total = self.total if total is None else int(total)
            self.label = self.label if what is None else what
            if not self.tty:
                self._log()
            elif self.bar is not None:
                self.bar.update(self.task, completed=self.done, total=self.total, description=self.label)
            elif self.due and self.total > 0:
                self._start()

    def _log(self) -> None:
        now = time.perf_counter()
        assert self.log_every is not None
        if now - self.last >= self.log_every or self.done == self.total:
            self.last = now
            rate = self.done / max(now - self.t0, 1e-9)
            eta = (self.total - self.done) / rate if rate > 0 else float("inf")
            unit = f" {self.unit}" if self.unit else ""
            print(
                f"[{self.label}] {self.done}/{self.total}{unit}, {rate:.2f}{unit}/s, ETA {eta:.0f} s",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        """Stop the timer and the bar (removed when ``transient``); later reports draw nothing."""
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
            if self.bar is not None:
                self.bar.stop()
            self.on = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def progress_bar(label: str, total: int, enabled: bool = True, **kw: Any) -> Iterator[Callable[..., None]]:
    """A :class:`Progress` for the block; yields ``advance(*_)`` (one step per call, arguments ignored,
    so it can be passed as a per-item callback). ``kw``: :class:`Progress`'s keyword arguments."""
    with Progress(label, total, enabled=enabled, **kw) as bar:
        yield lambda *_: bar.advance()


def track(items: Any, label: str, total: int | None = None, **kw: Any) -> Iterator[Any]:
    """Yield the items of ``items`` under a :class:`Progress` of ``total`` steps (default ``len(items)``
    when the iterable has one; an iterator without a total draws nothing). ``kw``: :class:`Progress`'s."""
    if total is None:
        total = len(items) if hasattr(items, "__len__") else 0
    with Progress(label, total, **kw) as bar:
        for x in items:
            yield x
            bar.advance()
