"""How much the command line says: the level of the ``simkit.*`` loggers and whether progress is drawn.

``simkit -q CMD`` (quiet) shows warnings and errors only: no progress bars, no progress log lines, no
``wrote ...`` or summary lines; ``simkit -v CMD`` (verbose) adds the ``simkit.*`` debug messages;
``--log-level debug|info|warning|error`` picks the level directly. Errors (``error: ...`` lines, failed
checks) are always shown. The level travels to worker processes through the environment variable
:data:`ENV` (read by :func:`apply_env`), so a spawned pool logs as its parent does.

Library code never calls :func:`set_level`; it asks :func:`quiet` / :func:`show_progress`, and logs through
``logging.getLogger("simkit.<part>")`` as before (with no CLI, Python's own defaults apply).
"""

from __future__ import annotations

import logging
import os
import sys

#: the names ``--log-level`` takes, and the logging levels they mean
LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
#: the environment variable that carries the level to worker processes
ENV = "SIMKIT_LOG_LEVEL"
_HANDLER_NAME = "simkit-cli"
_level = logging.INFO


def set_level(name: str) -> None:
    """Set the level of the ``simkit`` logger tree to ``name`` (a key of :data:`LEVELS`), with one handler
    writing ``LEVEL simkit.part: message`` to the current stderr (repeated calls replace it), and export
    the level in :data:`ENV`.

    Raises:
        ValueError: ``name`` is not a key of :data:`LEVELS`.
    """
    global _level
    if name not in LEVELS:
        raise ValueError(f"log level {name!r}: expected one of {', '.join(LEVELS)}")
    _level = LEVELS[name]
    os.environ[ENV] = name
    log = logging.getLogger("simkit")
    log.setLevel(_level)
    for h in [h for h in log.handlers if h.get_name() == _HANDLER_NAME]:
        log.removeHandler(h)
    handler = _StderrHandler()
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    log.addHandler(handler)  # records still propagate: handlers on the root logger (pytest's caplog) see them


class _StderrHandler(logging.StreamHandler):
    """A stream handler that writes to whatever ``sys.stderr`` is when a record comes (a test runner or
    ``typer.testing.CliRunner`` may swap it), never to a stream that has since been closed."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


def apply_env() -> None:
    """In a worker process: take the level a parent CLI exported in :data:`ENV` (nothing when unset or
    not a level name)."""
    name = os.environ.get(ENV, "")
    if name in LEVELS:
        set_level(name)


def quiet() -> bool:
    """True under ``-q`` (or ``--log-level warning|error``): info lines and progress are not shown."""
    return _level > logging.INFO


def show_progress(enabled: bool = True) -> bool:
    """Whether to draw a progress bar: ``enabled``, not :func:`quiet`, and stderr is a terminal."""
    return enabled and not quiet() and sys.stderr.isatty()
