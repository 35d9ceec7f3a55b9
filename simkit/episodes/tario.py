"""Deterministic tar I/O for WebDataset-style shards.

Members are written with fixed metadata (mtime 0, uid/gid 0, mode 0644, no
user names, POSIX ustar/pax) so that the same members give the same bytes.
Readers refuse unsafe member names (absolute paths, ``..`` components) and
non-regular members.
"""

from __future__ import annotations

import io
import os
import tarfile
from collections.abc import Iterable, Iterator
from pathlib import Path


class UnsafeMember(ValueError):
    """A tar member name that is absolute or escapes its directory, or a member that is not a regular file."""


def safe_member_name(name: str) -> bool:
    """True when ``name`` is relative, has no ``..`` component and no backslash/drive tricks."""
    if not name or name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return False
    parts = name.replace("\\", "/").split("/")
    return all(p not in ("..",) for p in parts)


def _info(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = 0
    info.mode = 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.type = tarfile.REGTYPE
    return info


def write_tar(path: str | Path, members: Iterable[tuple[str, bytes]], fsync: bool = True) -> int:
    """Write ``members`` (name, bytes) to ``path`` deterministically; returns the file size in bytes.

    The file is written to ``path + '.tmp'`` and renamed, so ``path`` exists only when complete
    (a killed process never leaves a partial ``path``). ``fsync`` also flushes it to disk first,
    which protects against power loss, not just process death.
    """
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        with tarfile.open(fileobj=fh, mode="w", format=tarfile.PAX_FORMAT) as tf:
            for name, data in members:
                tf.addfile(_info(name, len(data)), io.BytesIO(data))
        if fsync:
            fh.flush()
            os.fsync(fh.fileno())
    os.replace(tmp, path)
    return path.stat().st_size


def iter_tar(path: str | Path) -> Iterator[tuple[str, bytes]]:
    """Yield (name, bytes) for each member of a tar file, in order.

    Raises:
        UnsafeMember: a member name is absolute or contains ``..``, or a member is not a regular file.
        tarfile.TarError / EOFError / OSError: the file is truncated or not a tar archive.
    """
    with tarfile.open(path, mode="r:") as tf:
        for info in tf:
            if not safe_member_name(info.name):
                raise UnsafeMember(f"unsafe member name {info.name!r}")
            if not info.isreg():
                raise UnsafeMember(f"member {info.name!r} is not a regular file")
            fh = tf.extractfile(info)
            data = fh.read() if fh is not None else b""
            if len(data) != info.size:
                raise EOFError(f"member {info.name!r} is truncated")
            yield info.name, data


def split_member(name: str) -> tuple[str, str, str]:
    """``"dir/key.field.ext"`` -> ``(key, field, ext)`` using WebDataset's rule (split at the first dot of the basename)."""
    base = name.rsplit("/", 1)[-1]
    key, _, rest = base.partition(".")
    field, _, ext = rest.rpartition(".")
    if not field:
        field, ext = ext, ""
    return key, field, ext
