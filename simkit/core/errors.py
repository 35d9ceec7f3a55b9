"""Exception types shared by the engine and the generators."""

from __future__ import annotations

import sys
from pathlib import Path

#: most characters of a user's value an error message shows (:func:`short_repr`)
VALUE_CHARS = 200
#: most characters of one error message (:meth:`SimkitError.__str__`)
MESSAGE_CHARS = 2000


def short_repr(value: object, limit: int = VALUE_CHARS) -> str:
    """``repr(value)`` cut to about ``limit`` characters, saying how long the value is when it was cut.

    A long string shows its first ``limit`` characters and ``... (N characters)``; a container is
    written with :mod:`reprlib` (a few items per level, never the whole value, so a huge or
    self-referencing value costs no memory) and ends with ``(N items)`` when items were left out.
    """
    import reprlib

    if isinstance(value, (str, bytes)):
        if len(value) <= limit:
            return repr(value)
        unit = "characters" if isinstance(value, str) else "bytes"
        return f"{value[:limit]!r}... ({len(value)} {unit})"
    r = reprlib.Repr()
    r.maxlevel, r.maxstring, r.maxother = 3, limit // 2, limit
    r.maxlist = r.maxtuple = r.maxdict = r.maxset = r.maxfrozenset = 8
    try:
        text = r.repr(value)
    except Exception:  # a value whose __repr__ fails
        text = f"<{type(value).__name__}>"
    if len(text) > limit:
        text = text[:limit] + "..."
    try:
        n = len(value)  # type: ignore[arg-type]
    except Exception:
        return text
    return text + (f" ({n} items)" if "..." in text and isinstance(value, (list, tuple, dict, set)) else "")


def short_text(text: str, limit: int = VALUE_CHARS) -> str:
    """``text`` itself, or its first ``limit`` characters and ``... (N characters)``."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def bound_message(msg: str, limit: int = MESSAGE_CHARS) -> str:
    """``msg`` itself, or its first and last characters with the length between when it is longer than
    ``limit`` (every error line stays readable whatever value it names)."""
    if len(msg) <= limit:
        return msg
    half = limit // 2
    return f"{msg[:half]} ... [{len(msg) - 2 * half} of {len(msg)} characters left out] ... {msg[-half:]}"


class SimkitError(Exception):
    """Base class of every error simkit raises on purpose.

    The CLI prints these as one clear message (no traceback) and exits non-zero. Instances pickle with
    their type, message and attributes whatever their constructor takes, so an error raised in a worker
    process (a DataLoader worker, the generate pool, Ray) arrives as itself.
    """

    def __str__(self) -> str:
        return bound_message(super().__str__())

    def __reduce__(self):
        return _rebuild_error, (type(self), self.args, dict(self.__dict__))


def _rebuild_error(cls: type[SimkitError], args: tuple, state: dict) -> SimkitError:
    """Unpickle a :class:`SimkitError` without calling its constructor (see ``SimkitError.__reduce__``)."""
    err = cls.__new__(cls)
    err.args = args
    err.__dict__.update(state)
    return err


class InputError(SimkitError):
    """Bad user input: a malformed file, an invalid value.

    Args:
        path: the offending file (or ``None`` when the input is not a file).
        reason: one sentence saying what is wrong.
        line: optional 1-based line number; column: optional 1-based column.
    """

    def __init__(
        self, path: str | Path | None, reason: str, line: int | None = None, column: int | None = None
    ):
        self.path = None if path is None else str(path)
        self.reason = reason
        self.line = line
        self.column = column
        where = ""
        if self.path is not None:
            where = self.path
            if line is not None:
                where += f":{line}"
                if column is not None:
                    where += f":{column}"
            where += ": "
        super().__init__(f"{where}{reason}")


class ExtraMissing(SimkitError):
    """A backend needs an optional dependency that is not installed.

    Args:
        module: the (dotted) module that cannot be imported, e.g. ``"mujoco"``.
        extra: the pip extra that installs it (``pip install 'simkit[extra]'``; see
            :mod:`simkit.core.extras`).
        cause: why the import failed (the ``ImportError``'s message); only its first line is kept, so the
            message stays one line.
    """

    def __init__(self, module: str, extra: str, cause: str = ""):
        self.module = module
        self.extra = extra
        self.cause = cause.strip().splitlines()[0] if cause.strip() else ""
        if module.partition(".")[0] == "bpy" and sys.version_info[:2] == (3, 12):
            # bpy 5.0 is built for Python 3.11 only, bpy 5.1+ for 3.13 only (pyproject.toml, [blender])
            super().__init__(
                "this needs Blender as a Python module ('bpy'), which has no build for Python 3.12: "
                "use Python 3.11 or 3.13 with pip install 'simkit[blender]'"
            )
            return
        super().__init__(
            f"this needs the Python module {module!r}, which cannot be imported"
            + (f" ({self.cause})" if self.cause else "")
            + f"; install it with: pip install 'simkit[{extra}]'"
        )


class TransientError(SimkitError):
    """A backend failure worth retrying with the same seed (a crashed renderer, a lost connection)."""


class SampleRejected(SimkitError):
    """A sample failed its generator's own checks; the engine redraws it from a derived seed."""


def require(module: str, extra: str | None = None):
    """Import and return ``module``, or raise :class:`ExtraMissing` naming the pip extra that provides it.

    Args:
        module: dotted module name, e.g. ``"scipy.ndimage"``.
        extra: the extra to name, unless the running command's or generator's extra installs the module
            (:func:`simkit.core.extras.needs_extra`); ``None``: the one
            :func:`simkit.core.extras.extra_for` gives (``"all"`` for a module no extra lists).

    Raises:
        ExtraMissing: the import fails (not installed, or a broken install: the cause is in the message).
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ExtraMissing(module, _extra_to_name(module, extra), str(exc)) from exc


def require_installed(module: str, extra: str | None = None) -> None:
    """Raise :class:`ExtraMissing` (as :func:`require` names it) when ``module`` is not installed, without
    importing it: the code that uses it imports it (some backends change the process when imported, e.g.
    ``bpy`` puts Blender's script folders on ``sys.path``); a broken install is reported by that import.

    Raises:
        ExtraMissing: no module ``module`` can be found.
    """
    import importlib.util

    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package is missing, or a module without a spec
        found = False
    if not found:
        raise ExtraMissing(module, _extra_to_name(module, extra), f"No module named {module!r}")


def _extra_to_name(module: str, extra: str | None) -> str:
    """The running command's or generator's extra when it installs ``module``, else ``extra``, else the
    first extra that lists ``module`` (``"all"`` when none does)."""
    from simkit.core.extras import extra_for, preferred_extra, provides

    if provides(preferred_extra(), module):
        return preferred_extra() or ""
    return extra or extra_for(module) or "all"
