"""One scratch folder per process for temporary files (Blender's session folder, rendered frames).

``process_scratch()`` is ``$TMPDIR/simkit-scratch-<pid>-<random>``: made on first use, removed when the
process exits normally, and, since a process killed with SIGKILL cannot remove its own, removed by the
next process that makes one once its pid is gone (as the object-store staging folders are). So killed
runs never leave temporary folders that pile up.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

SCRATCH_PREFIX = "simkit-scratch-"

_mine: tuple[int, Path] | None = None


def pid_alive(pid: int) -> bool:
    """True when a process with this id exists (owned by anyone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def remove_dead(base: Path, prefix: str) -> int:
    """Remove the folders ``base/<prefix><pid>-*`` whose process no longer exists; returns how many."""
    n = 0
    for old in base.glob(f"{prefix}*"):
        pid = old.name[len(prefix) :].split("-", 1)[0]
        if old.is_dir() and pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
            n += 1
    return n


def process_scratch() -> Path:
    """This process's scratch folder (see the module docstring); the same path on every call."""
    global _mine
    if _mine is not None and _mine[0] == os.getpid() and _mine[1].is_dir():
        return _mine[1]
    base = Path(tempfile.gettempdir())
    remove_dead(base, SCRATCH_PREFIX)
    path = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=base))
    _mine = (os.getpid(), path)
    atexit.register(shutil.rmtree, path, True)
    return path
