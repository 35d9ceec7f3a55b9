"""Mesh asset sources, their index, and the FreeMatching asset filter.

Sources (:func:`list_meshes`):

* a folder in the Objaverse layout, ``glbs/<shard>/<uid>.glb`` (as the ``objaverse`` package caches it);
  the asset id is the uid;
* any folder of GLB/GLTF/OBJ/PLY files (searched recursively); the asset id is the relative path;
* ``embedded``: meshes that install with simkit's extras, no download: the scanned, textured household
  objects of the LIBERO asset wheels (:func:`simkit.assets.libero_assets.libero_assets_root`) and the
  meshes shipped in ``pybullet_data`` (duck, bunny, teddy and the 1,000 ``random_urdfs`` objects).

Filter (FreeMatching, Sec. 3.3 "Synthetic Objaverse scenes"), applied after normalising the mesh to a
bounding-box diagonal of :data:`DIAGONAL` = 2.0: reject an empty mesh, non-finite vertices, a degenerate
mesh (zero surface area or zero extent along an axis: flat), an aspect ratio (longest over shortest
bounding-box side) above :data:`MAX_ASPECT` = 3.0, and a silhouette whose 2D convex-hull area over its 2D
bounding-box area is below :data:`MIN_HULL_RATIO` = 0.2 in any of the three axis-aligned orthographic views
(the hull of the projected vertices is the hull of the silhouette).

An index (:class:`MeshRecord` per file: path, size, sha256, bounds, face count, has texture, verdict) is
written by ``simkit assets scan DIR --out INDEX.json`` and read back by the generators
(:func:`load_index`), so the files are parsed once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import ExtraMissing, InputError, SimkitError, require

DIAGONAL = 2.0  #: normalised bounding-box diagonal (m)
MAX_ASPECT = 3.0  #: longest / shortest bounding-box side above this is rejected
MIN_HULL_RATIO = 0.2  #: silhouette convex-hull area / bounding-box area below this is rejected
SUFFIXES = (".glb", ".gltf", ".obj", ".ply")  #: mesh files a source lists
INDEX_VERSION = 1


@dataclass
class MeshRecord:
    """One mesh file of a source and the filter's verdict.

    ``path`` absolute, ``asset_id`` stable id (Objaverse uid or path relative to the source folder),
    ``size`` bytes, ``sha256`` of the file, ``bounds`` [[min xyz], [max xyz]] in the file's units and axes,
    ``faces`` triangle count, ``has_texture`` (an image texture is attached), ``accepted`` and ``reason``
    (empty when accepted).
    """

    path: str
    asset_id: str
    size: int
    sha256: str
    bounds: list[list[float]]
    faces: int
    has_texture: bool
    accepted: bool
    reason: str = ""


def filter_reason(vertices: np.ndarray, faces: np.ndarray) -> str:
    """Why the filter rejects the mesh (``""`` when accepted); see the module docstring for the rules.

    Args:
        vertices: (V, 3) float, any units; faces: (F, 3) int triangle indices.
    """
    v, f = np.asarray(vertices, float).reshape(-1, 3), np.asarray(faces).reshape(-1, 3)
    if len(v) == 0 or len(f) == 0:
        return "empty mesh (no vertices or faces)"
    if not np.all(np.isfinite(v)):
        return "non-finite vertex coordinates (NaN or inf)"
    ext = v.max(0) - v.min(0)
    diag = float(np.linalg.norm(ext))
    tri = v[f]
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1).sum()
    if diag <= 0 or area <= 1e-12 * diag**2:
        return "degenerate mesh (zero surface area)"
    ext = ext * (DIAGONAL / diag)
    flat = [ax for ax, e in zip("xyz", ext) if e <= 1e-6 * DIAGONAL]
    if flat:
        return f"degenerate mesh: flat (zero extent along {flat[0]})"
    aspect = float(ext.max() / ext.min())
    if aspect > MAX_ASPECT:
        return f"aspect ratio {aspect:.2f} > {MAX_ASPECT}"
    ratio, view = hull_ratio(v)
    if ratio < MIN_HULL_RATIO:
        return (
            f"silhouette convex-hull / bounding-box area {ratio:.3f} < {MIN_HULL_RATIO} (view along {view})"
        )
    return ""


def hull_ratio(vertices: np.ndarray) -> tuple[float, str]:
    """(smallest 2D convex-hull area / 2D bounding-box area over the orthographic views along x, y, z, that
    view's axis) of ``vertices`` (V, 3)."""
    spatial = require("scipy.spatial", "blender")
    ConvexHull, QhullError = spatial.ConvexHull, spatial.QhullError

    worst = (1.0, "x")
    for ax, keep in (("x", [1, 2]), ("y", [0, 2]), ("z", [0, 1])):
        p = np.unique(np.round(vertices[:, keep], 9), axis=0)
        box = float(np.prod(p.max(0) - p.min(0)))
        try:
            hull = ConvexHull(p).volume if len(p) >= 3 and box > 0 else 0.0  # 2D "volume" is the area
        except QhullError:
            hull = 0.0
        r = hull / box if box > 0 else 0.0
        if r < worst[0]:
            worst = (r, ax)
    return worst


def _load(path: Path) -> tuple[np.ndarray, np.ndarray, bool]:
    """(vertices, faces, has_texture) of a mesh file, every part concatenated, transforms applied."""
    trimesh = require("trimesh", "blender")
    loaded = trimesh.load(str(path), process=False)
    geoms = list(loaded.dump()) if isinstance(loaded, trimesh.Scene) else [loaded]
    geoms = [g for g in geoms if isinstance(g, trimesh.Trimesh)]
    textured = False
    for g in geoms:
        mat = getattr(getattr(g, "visual", None), "material", None)
        img = getattr(mat, "image", None) or getattr(mat, "baseColorTexture", None)
        textured = textured or img is not None
    if not geoms:
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64), False
    verts, faces, off = [], [], 0
    for g in geoms:
        verts.append(np.asarray(g.vertices, float))
        faces.append(np.asarray(g.faces, np.int64) + off)
        off += len(g.vertices)
    return np.concatenate(verts), np.concatenate(faces), textured


def inspect_mesh(path: str | Path, asset_id: str = "") -> MeshRecord:
    """Read one mesh file and judge it (never raises for a bad file: an unreadable one is a rejection).

    Raises:
        ExtraMissing: trimesh or scipy (the silhouette test) is not installed.
    """
    p = Path(path)
    data = p.read_bytes()
    rec = MeshRecord(
        str(p.resolve()), asset_id or p.stem, len(data), hashlib.sha256(data).hexdigest(), [], 0, False, False
    )
    try:
        v, f, rec.has_texture = _load(p)
    except ExtraMissing:  # trimesh is not installed: no file can be read, none is to blame
        raise
    except Exception as exc:  # any parser failure of a third-party file is a rejection with its reason
        rec.reason = f"cannot be read ({type(exc).__name__}: {str(exc).strip()[:160]})"
        return rec
    rec.faces = len(f)
    if len(v):
        with np.errstate(invalid="ignore"):
            rec.bounds = [
                np.nan_to_num(v.min(0)).round(6).tolist(),
                np.nan_to_num(v.max(0)).round(6).tolist(),
            ]
    rec.reason = filter_reason(v, f)
    rec.accepted = not rec.reason
    return rec


def embedded_roots() -> dict[str, Path]:
    """The installed roots of the embedded source: ``libero`` (LIBERO asset wheels) and ``pybullet_data``,
    each present only when its package is installed."""
    roots: dict[str, Path] = {}
    try:
        from simkit.assets.libero_assets import libero_assets_root

        roots["libero"] = libero_assets_root()
    except SimkitError:  # the LIBERO wheels are optional: without them the pybullet_data meshes remain
        pass
    try:
        import pybullet_data

        roots["pybullet_data"] = Path(pybullet_data.getDataPath())
    except ImportError:
        pass
    return roots


def _embedded_files() -> list[tuple[Path, str]]:
    """(file, asset id) of the embedded source; the asset id is ``<root>/<path relative to the root>``."""
    roots = embedded_roots()
    found: list[Path] = []
    if "libero" in roots:
        for group in ("stable_scanned_objects", "stable_hope_objects", "turbosquid_objects"):
            for d in sorted(p for p in (roots["libero"] / group).iterdir() if p.is_dir()):
                pick = [d / "textured.obj", d / f"{d.name}.obj"]
                found.extend(p for p in pick[:1] if p.is_file())
                if not pick[0].is_file() and pick[1].is_file():
                    found.append(pick[1])
    if "pybullet_data" in roots:
        pb = roots["pybullet_data"]
        found.extend(pb / n for n in ("duck.obj", "bunny.obj", "teddy2_VHACD_CHs.obj") if (pb / n).is_file())
        found.extend(sorted((pb / "random_urdfs").glob("*/*.obj")))
    out = []
    for p in found:
        for name, root in roots.items():
            if p.is_relative_to(root):
                out.append((p, f"{name}/{p.relative_to(root).as_posix()}"))
                break
    return out


def embedded_index() -> list[MeshRecord]:
    """The shipped index of the embedded source (``simkit/data/pairs/embedded_index.json``, written by
    ``tools/pairs_embedded_index.py``), with paths resolved against the installed roots; records whose
    root is not installed are left out."""
    from importlib.resources import files

    doc = json.loads(files("simkit").joinpath("data/pairs/embedded_index.json").read_text())
    roots = embedded_roots()
    out = []
    for r in doc["records"]:
        name, _, rel = r["asset_id"].partition("/")
        if name in roots:
            out.append(MeshRecord(**{**r, "path": str(roots[name] / rel)}))
    return out


def list_meshes(source: str | Path) -> list[tuple[Path, str]]:
    """(file, asset id) of every mesh of ``source`` (``"embedded"``, an Objaverse-layout folder or any
    folder), sorted by asset id.

    Raises:
        InputError: the folder does not exist, or holds no mesh file.
        ExtraMissing: ``embedded`` and neither pybullet nor the LIBERO asset wheels are installed.
    """
    if str(source) == "embedded":
        files = _embedded_files()
        if not files:
            raise ExtraMissing("pybullet_data", "blender", "the embedded meshes come from pybullet's data")
        return sorted(files, key=lambda t: t[1])
    root = Path(source)
    if not root.is_dir():
        raise InputError(root, "not a folder" if root.exists() else "asset folder does not exist")
    if (root / "glbs").is_dir():
        files = [(p, p.stem) for p in sorted((root / "glbs").glob("*/*.glb"))]
    else:
        files = [
            (p, p.relative_to(root).as_posix())
            for p in sorted(root.rglob("*"))
            if p.suffix.lower() in SUFFIXES and p.is_file()
        ]
    if not files:
        raise InputError(root, f"no mesh files ({', '.join(SUFFIXES)}) in this folder")
    return sorted(files, key=lambda t: t[1])


def scan(source: str | Path, progress: Callable[[Iterable], Iterable] | None = None) -> list[MeshRecord]:
    """Inspect every mesh of ``source`` (see :func:`list_meshes`); one :class:`MeshRecord` per file."""
    files = list_meshes(source)
    it: Iterable = progress(files) if progress is not None else files
    return [inspect_mesh(p, aid) for p, aid in it]


def save_index(records: list[MeshRecord], path: str | Path, source: str) -> None:
    """Write ``records`` as an index JSON (``{"version", "source", "records": [...]}``, one record per line)."""
    rows = ",\n".join(json.dumps(asdict(r), sort_keys=True, separators=(",", ":")) for r in records)
    head = json.dumps({"source": source, "version": INDEX_VERSION})[:-1]
    Path(path).write_text(f'{head}, "records": [\n{rows}\n]}}\n')  # one record per line


def load_index(path: str | Path) -> list[MeshRecord]:
    """Read an index JSON written by :func:`save_index`.

    Raises:
        InputError: not a readable index of this version.
    """
    p = Path(path)
    try:
        doc: Any = json.loads(p.read_text())
        if doc.get("version") != INDEX_VERSION:
            raise ValueError(f"index version {doc.get('version')!r}, expected {INDEX_VERSION}")
        return [MeshRecord(**r) for r in doc["records"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(p, f"not a simkit mesh index ({exc})") from exc
