"""Compiled-model cache of Hebero task scenes: each task's MuJoCo model compiled once, kept as a binary.

:func:`cached_scene` returns the same :class:`~simkit.sims.hebero.scene.Scene` as
:func:`~simkit.sims.hebero.scene.build_scene` (model, bindings, goal evaluator, layout sampler, initial
state), reading the compiled model from the cache when an entry for the task's inputs is there and
compiling it (and storing the entry) otherwise. Compiling a LIBERO task scene takes seconds (each asset
compiled to measure it, the full model once more to freeze its inertias, then the scene); reading its
binary takes milliseconds. Everything else the env needs (bindings, entity-slot ids, the layout
sampler) is derived from the compiled model by the same code in both cases, so an env built from the
cache is bit-identical to one built afresh.

Where: ``<cache>/hebero/models/`` with ``<cache>`` = :func:`simkit.core.paths.user_cache_dir`
(``$SIMKIT_CACHE``, else ``$XDG_CACHE_HOME/simkit``, else ``~/.cache/simkit``). Deleting the folder
clears the cache.

One file per task and model kind, ``<recipe>.entry``. The *recipe* (the file name) is the sha256 of
:data:`MODEL_CACHE_VERSION`, simkit's and MuJoCo's versions, the source of the modules that assemble a
scene (:data:`BUILDER_MODULES`), the task descriptor (canonical JSON: it is compiled from the BDDL file
and the task table), the asset root and the build options (visual, robot). The entry records the sha256
of every input file the compile read (entity MJCF files, the Panda's MJCF files, every mesh and texture
they reference) and its *key*, the sha256 of the recipe and those digests. On load the file's own
digest, the recipe and the current input digests (through a size/mtime memo,
``<cache>/hebero/file_digests.json``, so unchanged files are not re-read) are checked; a corrupt or
mismatching entry is compiled anew and replaced, with one warning on the ``simkit.hebero.cache``
logger. Writers write a temporary file in the same folder and rename it over the entry (atomic on
POSIX): concurrent builders never read a half-written entry, the last one wins.

Entry layout: ``MAGIC`` (8 bytes), sha256 of the rest (32 bytes), header length (8 bytes, big-endian),
UTF-8 JSON header (recipe, key, input digests, per-entity placement facts, warnings), then the model as
MuJoCo's binary (``mj_saveModel``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from simkit.assets.mujoco_log import import_mujoco
from simkit.core.paths import user_cache_dir

LOG = logging.getLogger("simkit.hebero.cache")
#: bump when the entry format or what it stores changes
MODEL_CACHE_VERSION = 1
MAGIC = b"SKMCACHE"
#: modules whose source decides a compiled task model (their bytes are part of the recipe)
BUILDER_MODULES = (
    "simkit.sims.hebero.scene",
    "simkit.sims.hebero.cameras",
    "simkit.sims.hebero.predicates",
    "simkit.scenes.hebero.cameras",
    "simkit.scenes.hebero.placement",
    "simkit.assets.mjcf2usd",
)
_HEAD = len(MAGIC) + 32 + 8


def cache_root() -> Path:
    """The folder of the Hebero cache, ``<user cache>/hebero`` (see module doc)."""
    return user_cache_dir() / "hebero"


def models_dir() -> Path:
    """The folder of the compiled-model entries, ``<user cache>/hebero/models``."""
    return cache_root() / "models"


@functools.cache
def _builder_digest() -> str:
    import importlib.util

    h = hashlib.sha256()
    for name in BUILDER_MODULES:
        spec = importlib.util.find_spec(name)
        h.update(name.encode() + b"\n")
        if spec is not None and spec.origin:
            h.update(Path(spec.origin).read_bytes())
    return h.hexdigest()


def recipe(desc: dict, libero_root: str | Path, visual: bool, with_robot: bool = True) -> str:
    """sha256 (hex) naming a task model's entry: versions, builder source, descriptor, root, options."""
    from simkit._version import __version__

    mujoco = import_mujoco()
    h = hashlib.sha256()
    h.update(f"simkit-hebero-model v{MODEL_CACHE_VERSION}\n".encode())
    h.update(f"simkit {__version__}\nmujoco {mujoco.__version__}\n".encode())
    h.update(_builder_digest().encode())
    h.update(json.dumps(desc, sort_keys=True, separators=(",", ":")).encode())
    h.update(
        f"\nroot {Path(libero_root).resolve()}\nvisual {bool(visual)}\nrobot {bool(with_robot)}".encode()
    )
    return h.hexdigest()


def entry_key(recipe_hex: str, inputs: dict[str, str]) -> str:
    """sha256 (hex) of a recipe and its input files' digests (path -> sha256), in path order."""
    h = hashlib.sha256(recipe_hex.encode())
    for p in sorted(inputs):
        h.update(f"\n{p}\0{inputs[p]}".encode())
    return h.hexdigest()


class FileDigests:
    """sha256 of files, remembered by (size, mtime_ns, inode) in a JSON memo so that unchanged files
    are read once (the memo is rewritten atomically when it gained entries)."""

    def __init__(self, path: Path):
        self.path = path
        self.memo: dict[str, list] = {}
        self.dirty = False
        try:
            self.memo = json.loads(path.read_text())
        except (OSError, ValueError):
            self.memo = {}

    def digest(self, file: str) -> str | None:
        """sha256 (hex) of ``file``, None when it cannot be read."""
        try:
            st = os.stat(file)
        except OSError:
            return None
        stamp = [st.st_size, st.st_mtime_ns, st.st_ino]
        hit = self.memo.get(file)
        if hit is not None and hit[:3] == stamp:
            return str(hit[3])
        try:
            with open(file, "rb") as f:
                d = hashlib.file_digest(f, "sha256").hexdigest()
        except OSError:
            return None
        self.memo[file] = [*stamp, d]
        self.dirty = True
        return d

    def save(self) -> None:
        if self.dirty:
            try:
                _atomic_write(self.path, json.dumps(self.memo, sort_keys=True).encode())
                self.dirty = False
            except OSError:
                pass


def _atomic_write(path: Path, payload: bytes) -> None:
    """Write ``payload`` to a temporary file beside ``path`` and rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _model_bytes(model) -> bytes:
    mujoco = import_mujoco()
    buf = np.empty(mujoco.mj_sizeModel(model), np.uint8)
    mujoco.mj_saveModel(model, None, buf)
    return buf.tobytes()


def encode_entry(header: dict, model) -> bytes:
    """An entry's bytes (module doc) for ``header`` and ``model``."""
    head = json.dumps(header, sort_keys=True).encode()
    body = len(head).to_bytes(8, "big") + head + _model_bytes(model)
    return MAGIC + hashlib.sha256(body).digest() + body


def decode_entry(blob: bytes) -> tuple[dict, bytes]:
    """(header, model binary) of an entry's bytes.

    Raises:
        ValueError: not an entry, or its digest does not match its bytes (a corrupt file).
    """
    if len(blob) < _HEAD or not blob.startswith(MAGIC):
        raise ValueError("not a compiled-model cache entry")
    body = memoryview(blob)[len(MAGIC) + 32 :]  # views: an entry is megabytes, copied once (the model)
    if hashlib.sha256(body).digest() != blob[len(MAGIC) : len(MAGIC) + 32]:
        raise ValueError("corrupt (its sha256 does not match its bytes)")
    n = int.from_bytes(body[:8], "big")
    try:
        header = json.loads(bytes(body[8 : 8 + n]))
    except ValueError:
        raise ValueError("corrupt header") from None
    return header, bytes(body[8 + n :])


def _asset_facts(scene) -> dict[str, dict[str, Any]]:
    assert scene.layout is not None
    return {
        n: {
            "kind": a.kind,
            "extent": [np.asarray(a.extent[0]).tolist(), np.asarray(a.extent[1]).tolist()],
            "radius": a.radius,
            "category": a.category,
            "bottom_site_z": a.bottom_site_z,
        }
        for n, a in scene.layout.assets.items()
    }


def _assets_from(facts: dict[str, dict[str, Any]]) -> dict:
    from simkit.sims.hebero.scene import _Asset

    return {
        n: _Asset(
            f["kind"],
            None,
            (np.asarray(f["extent"][0]), np.asarray(f["extent"][1])),
            float(f["radius"]),
            f["category"],
            None if f["bottom_site_z"] is None else float(f["bottom_site_z"]),
        )
        for n, f in facts.items()
    }


_digests: FileDigests | None = None


def _file_digests() -> FileDigests:
    global _digests
    path = cache_root() / "file_digests.json"
    if _digests is None or _digests.path != path:
        _digests = FileDigests(path)
    return _digests


def _resolve_root(libero_root: str | Path | None) -> Path:
    if libero_root is None:
        from simkit.assets.libero_assets import libero_root as installed_root

        return installed_root()
    return Path(libero_root)


def load_entry(path: Path, rec: str) -> tuple[dict, Any]:
    """(header, MjModel) of the entry at ``path`` for recipe ``rec``, checked as the module doc says.

    Raises:
        OSError: the file cannot be read. ValueError: a corrupt or mismatching entry (the reason).
    """
    mujoco = import_mujoco()
    header, mjb = decode_entry(path.read_bytes())
    if header.get("version") != MODEL_CACHE_VERSION or header.get("recipe") != rec:
        raise ValueError("built from other inputs (recipe mismatch)")
    digests = _file_digests()
    now = {p: digests.digest(p) for p in header["inputs"]}
    digests.save()
    changed = sorted(p for p, d in now.items() if d != header["inputs"][p])
    if changed:
        raise ValueError(f"{len(changed)} input file(s) changed or missing, e.g. {changed[0]}")
    if entry_key(rec, header["inputs"]) != header.get("key"):
        raise ValueError("key mismatch")
    try:
        model = mujoco.MjModel.from_binary_path("model.mjb", {"model.mjb": mjb})
    except (ValueError, RuntimeError) as exc:
        raise ValueError(f"MuJoCo cannot load its model ({exc})") from None
    return header, model


def store_entry(path: Path, rec: str, scene) -> dict:
    """Write the entry of a freshly built ``scene`` (recipe ``rec``) to ``path``; returns its header.

    Raises:
        OSError: the cache folder cannot be written. ValueError: an input file cannot be read.
    """
    digests = _file_digests()
    inputs = {p: digests.digest(p) for p in scene.inputs}
    digests.save()
    missing = [p for p, d in inputs.items() if d is None]
    if missing:
        raise ValueError(f"input file {missing[0]} cannot be read")
    header = {
        "version": MODEL_CACHE_VERSION,
        "recipe": rec,
        "key": entry_key(rec, inputs),  # type: ignore[arg-type]
        "task_id": scene.descriptor["task_id"],
        "inputs": inputs,
        "assets": _asset_facts(scene),
        "warnings": list(scene.compile_warnings),
    }
    _atomic_write(path, encode_entry(header, scene.model))
    return header


def cached_scene(
    desc: dict,
    libero_root: str | Path | None = None,
    rng: np.random.Generator | None = None,
    visual: bool = False,
    with_robot: bool = True,
    max_tries: int = 1000,
    max_layouts: int = 10,
):
    """:func:`~simkit.sims.hebero.scene.build_scene` through the compiled-model cache (module doc).

    Same arguments, returns and raised errors as ``build_scene``, except that the returned scene has no
    ``spec`` (None), whether its model was read from the cache or compiled (and stored) now. A cache
    folder that cannot be written costs one warning and nothing else.
    """
    from simkit.sims.hebero.scene import build_scene, scene_from_model

    root = _resolve_root(libero_root)
    rec = recipe(desc, root, visual, with_robot)
    path = models_dir() / f"{rec}.entry"
    if path.is_file():
        try:
            header, model = load_entry(path, rec)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            LOG.warning("compiled-model cache entry %s (%s): %s; rebuilt", path, desc["task_id"], exc)
        else:
            assets = _assets_from(header["assets"])
            return scene_from_model(
                desc, model, assets, header["warnings"], with_robot, max_tries, max_layouts, rng
            )
    scene = build_scene(desc, libero_root, rng, with_robot, max_tries, max_layouts, visual)
    scene.spec = None  # as read from the cache (and its memory back: the spec holds every mesh)
    try:
        store_entry(path, rec, scene)
    except (OSError, ValueError) as exc:
        LOG.warning("compiled-model cache %s not written (%s): %s", path, desc["task_id"], exc)
    return scene


def compile_models(
    descs: list[dict],
    libero_root: str | Path | None = None,
    visual: bool = False,
    force: bool = False,
    progress=None,
) -> dict[str, list[str]]:
    """Fill the cache with the task models of ``descs`` ahead of time (``simkit compile hebero --models``).

    An entry that loads and matches (module doc) is kept unless ``force``; any other is compiled and
    written. ``progress``: optional callable ``progress(message)`` per task.

    Returns:
        ``{"compiled": [task ids], "cached": [task ids], "errors": ["task: reason", ...]}``.

    Raises:
        LiberoAssetsMissing: ``libero_root`` None and the asset tree not installed.
    """
    from simkit.core.errors import SimkitError
    from simkit.sims.hebero.scene import build_scene

    root = _resolve_root(libero_root)
    out: dict[str, list[str]] = {"compiled": [], "cached": [], "errors": []}
    for desc in descs:
        tid = desc["task_id"]
        rec = recipe(desc, root, visual)
        path = models_dir() / f"{rec}.entry"
        if not force and path.is_file():
            try:
                load_entry(path, rec)
                out["cached"].append(tid)
                continue
            except (OSError, ValueError, KeyError, TypeError) as exc:
                LOG.warning("compiled-model cache entry %s (%s): %s; rebuilt", path, tid, exc)
        try:
            store_entry(path, rec, build_scene(desc, libero_root, visual=visual))
        except (SimkitError, OSError, ValueError) as exc:
            out["errors"].append(f"{tid}: {exc}")
            continue
        out["compiled"].append(tid)
        if progress is not None:
            progress(f"compiled {tid}")
    return out
