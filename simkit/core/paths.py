"""Output paths checked before any work: a file in the way, a folder nobody can write, output == input.

Every command that writes a file or a folder asks :func:`out_fault` first, so a path that can never be
written is one error line at once, not a traceback after minutes of work.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _nearest_existing(path: Path) -> Path | None:
    for p in [path, *path.parents]:
        if p.exists():
            return p
    return None


def _cannot_write(folder: Path) -> str | None:
    """Why no file can be created in the existing ``folder`` (read-only, no permission, a special file
    system such as /proc), or ``None``. Tries for real: an empty temporary folder is made and removed, as the
    command would make its output there next (``os.access`` alone says yes to root everywhere)."""
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write in {folder} (permission denied)"
    try:
        probe = tempfile.mkdtemp(prefix=".simkit-write-test-", dir=folder)
    except OSError as exc:
        return f"cannot write in {folder} ({exc.strerror or type(exc).__name__})"
    os.rmdir(probe)
    return None


def out_fault(out: Path, folder: bool = False) -> str | None:
    """Why ``out`` can never be written, as the end of an error line, or ``None``.

    Args:
        out: the output path (a file, or a folder when ``folder``); it and its parents may not exist yet.
        folder: ``out`` is a folder (made if missing) rather than a file.
    Returns:
        ``"is under F, which is a file"``, ``"exists and is not a folder"``, ``"is a folder; give the path of
        the file to write"``, ``"cannot write in D (reason)"``, or ``None`` when it can be written.
    """
    out = Path(out)
    blocker = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        return f"is under {blocker}, which is a file"
    if folder and out.exists() and not out.is_dir():
        return "exists and is not a folder"
    if not folder and out.is_dir():
        return "is a folder; give the path of the file to write"
    if not folder and out.exists() and not out.is_file():
        return "exists and is not a regular file"
    if not folder and out.is_file() and not os.access(out, os.W_OK):
        return "exists and cannot be written (permission denied)"
    base = _nearest_existing(out if folder else out.parent)
    return None if base is None else _cannot_write(base)


def same_file(a: Path | str, b: Path | str) -> bool:
    """True when ``a`` and ``b`` name one file (the same inode, through links or ``..``, or the same resolved
    path when one does not exist yet)."""
    a, b = Path(a), Path(b)
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except OSError:
        return False


#: environment variable naming simkit's cache folder (compiled models and other derived files)
CACHE_ENV = "SIMKIT_CACHE"


def user_cache_dir() -> Path:
    """simkit's per-user cache folder: ``$SIMKIT_CACHE`` when set (used as is), else
    ``$XDG_CACHE_HOME/simkit``, else ``~/.cache/simkit`` (the XDG base-directory default). Never the
    current directory or an output folder. The folder may not exist yet."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "simkit"
