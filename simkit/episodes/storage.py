"""Where a corpus lives: a local directory, or a URL on an object store read and written through fsspec.

``corpus_path("runs/a")`` is a :class:`pathlib.Path`; ``corpus_path("s3://bucket/run")`` (also ``gs://``,
``az://``, ``memory://`` ... any fsspec protocol) is a ``upath.UPath``, which offers the part of the
pathlib API the engine uses (``/``, ``name``, ``exists``, ``is_file``, ``is_dir``, ``glob``, ``open``,
``read_text``, ``write_bytes``, ``unlink``, ``stat``). ``file://`` URLs are local paths. Local corpora
keep the local code path (``os.replace``, ``fsync``) untouched.

An object store has no rename, but a single PUT is atomic: an object is visible only when complete.
The engine relies on exactly that: a shard's tar object(s) are written first and its rows object
last, so a rows object marks a complete shard just as the renamed rows file does on a disk.

Credentials and endpoint come from the environment as the fsspec backend reads it (for ``s3://``:
s3fs/botocore, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_DEFAULT_REGION``,
``AWS_ENDPOINT_URL``). Directory listings are never cached, so a driver sees the shards that other
processes or Ray tasks completed.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from simkit.core.errors import SimkitError

#: ``scheme://`` at the start of a corpus location (``s3://``, ``gs://``, ``file://`` ...)
_URL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://")

#: fsspec protocol -> the pip package that provides it (named in the error when it is missing)
_BACKENDS = {"s3": "s3fs", "s3a": "s3fs", "gs": "gcsfs", "gcs": "gcsfs", "az": "adlfs", "abfs": "adlfs"}

#: prefix of the local staging folders remote runs keep their unfinished episodes in (under the system temp dir)
STAGE_PREFIX = "simkit-stage-"


def is_url(location: str | Path) -> bool:
    """True when ``location`` is a URL (``scheme://...``) rather than a local path."""
    return isinstance(location, str) and _URL.match(location) is not None


def corpus_path(location: str | Path) -> Path:
    """The corpus location as a path object: :class:`~pathlib.Path` for local paths and ``file://``
    URLs, ``upath.UPath`` (typed as ``Path``: it implements the pathlib calls the engine makes) for
    object-store URLs.

    Raises:
        SimkitError: a URL whose fsspec backend (or ``universal-pathlib``) is not installed, naming the
            package and the ``[cloud]`` extra, an unknown protocol, or an object-store URL without a
            bucket (``s3://``, ``s3:///x``).
    """
    if not isinstance(location, str):
        return location  # a Path, or already a remote path
    text = location
    m = _URL.match(text)
    if m is None:
        return Path(text)
    protocol = m.group(1).lower()
    if protocol == "file":
        return Path(text[len("file://") :])
    try:
        from upath import UPath
    except ImportError:
        raise SimkitError(
            f"{text}: corpus URLs need universal-pathlib; pip install 'simkit[cloud]'"
        ) from None
    try:
        import fsspec

        fsspec.get_filesystem_class(protocol)
    except ImportError:
        pkg = _BACKENDS.get(protocol, f"the fsspec backend of {protocol}://")
        raise SimkitError(f"{text}: {protocol}:// needs {pkg}; pip install 'simkit[cloud]'") from None
    except ValueError:
        raise SimkitError(f"{text}: unknown storage protocol {protocol}://") from None
    if protocol in _BACKENDS and not text[m.end() :].split("/", 1)[0]:
        raise SimkitError(f"{text}: no bucket in the URL; write {protocol}://BUCKET/PATH")
    options: dict[str, Any] = {"use_listings_cache": False} if protocol in ("s3", "s3a", "gs", "gcs") else {}
    try:
        return UPath(text, **options)
    except ValueError as exc:
        raise SimkitError(f"{text}: not a valid corpus URL ({exc})") from None


#: top-level packages whose exceptions are object-store client errors (no credentials, endpoint unreachable...)
_CLIENT_PACKAGES = frozenset(
    {"botocore", "aiobotocore", "aiohttp", "s3fs", "gcsfs", "google", "adlfs", "azure"}
)


@contextlib.contextmanager
def store_errors(*locations: str | Path) -> Iterator[None]:
    """Turn an object-store client failure (missing credentials, unreachable endpoint, access denied) raised
    inside the block into one :class:`SimkitError` line naming the URL, when one of ``locations`` is a URL.

    Raises:
        SimkitError: ``"s3://b/run: object store error: NoCredentialsError: Unable to locate credentials
            (...)"``; other exceptions pass through unchanged.
    """
    urls = [str(x) for x in locations if is_url(x)]
    try:
        yield
    except SimkitError:
        raise
    except Exception as exc:
        if not urls or type(exc).__module__.split(".", 1)[0] not in _CLIENT_PACKAGES:
            raise
        first = (str(exc).splitlines() or [""])[0]
        raise SimkitError(
            f"{', '.join(urls)}: object store error: {type(exc).__name__}: {first} (credentials and endpoint "
            "come from the environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL, ...)"
        ) from None


def is_remote(path: Path) -> bool:
    """True for a path on an object store (what :func:`corpus_path` made of a URL)."""
    return not isinstance(path, Path)


def fork_safe(path: Path) -> Path:
    """``path`` bound to a filesystem instance of this process.

    fsspec's async clients (s3fs, gcsfs) cannot be used across ``fork`` (DataLoader workers): a remote
    path made in the parent is rebuilt from its URL and storage options, which gives the child its own
    client (fsspec's instance cache is per process). Local paths are returned as they are.
    """
    if not is_remote(path):
        return path
    from upath import UPath

    options: dict[str, Any] = path.storage_options  # type: ignore[attr-defined]
    return cast(Path, UPath(str(path), **options))


def put_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that it appears complete or not at all.

    Local: a ``.tmp`` sibling renamed over ``path`` (``os.replace``); object store: one PUT (atomic).
    """
    if is_remote(path):
        path.write_bytes(data)
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def upload_file(src: Path, dst: Path) -> None:
    """Copy the local file ``src`` to ``dst`` (an object-store path: one PUT, visible only when complete)."""
    fs: Any = dst.fs  # type: ignore[attr-defined]
    fs.put_file(str(src), dst.path)  # type: ignore[attr-defined]


def download_file(src: Path, dst: Path) -> None:
    """Copy the object ``src`` to the local file ``dst``."""
    fs: Any = src.fs  # type: ignore[attr-defined]
    fs.get_file(src.path, str(dst))  # type: ignore[attr-defined]


def copy_file(src: Path, dst: Path) -> None:
    """Copy ``src`` to ``dst`` (each local or on an object store) so that ``dst`` appears only when complete:
    local destinations through a ``.tmp`` sibling and a rename, object-store destinations in one upload
    (an object, even a multipart one, becomes visible only when the upload completes)."""
    if not is_remote(dst):
        tmp = dst.with_name(dst.name + ".tmp")
        if is_remote(src):
            download_file(src, tmp)
        else:
            shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    elif not is_remote(src):
        upload_file(src, dst)
    else:
        with src.open("rb") as fa, dst.open("wb") as fb:
            shutil.copyfileobj(fa, fb, 1 << 22)


def same_location(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name the same corpus (local: after resolving links; URLs: the same text)."""
    if is_remote(a) or is_remote(b):
        return str(a).rstrip("/") == str(b).rstrip("/")
    return a.resolve() == b.resolve()


def remove_tree(path: Path) -> None:
    """Remove a directory (local) or every object under a prefix (object store); nothing if absent."""
    if is_remote(path):
        fs: Any = path.fs  # type: ignore[attr-defined]
        if fs.exists(path.path):  # type: ignore[attr-defined]
            fs.rm(path.path, recursive=True)  # type: ignore[attr-defined]
        return
    if path.is_dir():
        shutil.rmtree(path)


def make_stage() -> Path:
    """A new local staging folder under the system temp dir for a run that writes to an object store.

    Its name carries this process's id; staging folders of processes that no longer exist (a run
    killed with SIGKILL cannot remove its own) are removed first, so none pile up.
    """
    from simkit.core.scratch import remove_dead

    base = Path(tempfile.gettempdir())
    remove_dead(base, STAGE_PREFIX)
    return Path(tempfile.mkdtemp(prefix=f"{STAGE_PREFIX}{os.getpid()}-"))
