"""Exception types shared by the engine and the generators."""

from __future__ import annotations

from pathlib import Path


class SimkitError(Exception):
    """Base class of every error simkit raises on purpose.

    The CLI prints these as one clear message (no traceback) and exits non-zero. Instances pickle with
    their type, message and attributes whatever their constructor takes, so an error raised in a worker
    process (a DataLoader worker, the generate pool, Ray) arrives as itself.
    """

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
