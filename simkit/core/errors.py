"""Exception types shared by the engine and the generators."""

from __future__ import annotations

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
    """A backend needs an optional dependency that is not installed."""

    def __init__(self, module: str, extra: str, cause: str = ""):
        super().__init__(
            f"this needs the Python module {module!r}, which cannot be imported"
            + (f" ({cause})" if cause else "")
            + f"; install it with: pip install 'simkit[{extra}]'"
        )


class TransientError(SimkitError):
    """A backend failure worth retrying with the same seed (a crashed renderer, a lost connection)."""


class SampleRejected(SimkitError):
    """A sample failed its generator's own checks; the engine redraws it from a derived seed."""


def require(module: str, extra: str):
    """Import ``module`` or raise :class:`ExtraMissing` naming the pip extra that provides it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ExtraMissing(module, extra, str(exc)) from exc
