"""Loader of user-supplied scene meshes (GLB/glTF, OBJ, PLY) for navigation.

:func:`load_scene_mesh` returns one ``trimesh.Trimesh`` in simkit's world frame (z up, metres).
glTF files are y up by specification (glTF 2.0, sec. 3.4), and Habitat's GLB scenes follow it, so
``.glb``/``.gltf`` files are rotated ``(x, y, z) -> (x, -z, y)`` (the inverse of
:data:`simkit.scenes.nav.floorplan.Z_UP_TO_Y_UP`); OBJ and PLY files are taken as z up unless ``up="y"``.

:func:`floor_height` estimates the floor as the height carrying the most upward-facing area
(5 cm bins), the usual case for indoor scans and the procedural plans; pass it explicitly
otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np

from simkit.core.errors import InputError

MESH_SUFFIXES = (".glb", ".gltf", ".obj", ".ply")
Y_UP_TO_Z_UP = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], dtype=float)


def load_scene_mesh(path: str | Path, up: Literal["auto", "y", "z"] = "auto"):
    """Load a scene mesh as one z-up ``trimesh.Trimesh`` (metres).

    Args:
        path: a ``.glb``, ``.gltf``, ``.obj`` or ``.ply`` file.
        up: the file's up axis; ``auto``: y for glTF, z otherwise.

    Raises:
        InputError: missing file, unsupported suffix, unreadable or empty mesh (names the file).
    """
    import trimesh

    path = Path(path)
    if not path.is_file():
        raise InputError(path, "scene mesh not found")
    if path.suffix.lower() not in MESH_SUFFIXES:
        raise InputError(
            path, f"unsupported scene mesh type {path.suffix!r}; use one of {', '.join(MESH_SUFFIXES)}"
        )
    try:
        loaded = trimesh.load(str(path), force="mesh")
    except Exception as exc:
        raise InputError(path, f"cannot read the scene mesh ({type(exc).__name__}: {exc})") from None
    if not isinstance(loaded, trimesh.Trimesh) or len(loaded.faces) == 0:
        raise InputError(path, "the scene mesh has no triangles")
    if up == "y" or (up == "auto" and path.suffix.lower() in (".glb", ".gltf")):
        loaded.apply_transform(Y_UP_TO_Z_UP)
    return loaded


def floor_height(mesh, bin_m: float = 0.05) -> float:
    """Height (m) with the most upward-facing triangle area (normal z > 0.9), in ``bin_m`` bins.

    Raises:
        InputError: the mesh has no upward-facing triangle (no floor).
    """
    n = np.asarray(mesh.face_normals)
    up = n[:, 2] > 0.9
    if not np.any(up):
        raise InputError(None, "the scene mesh has no upward-facing surface to walk on")
    z = np.asarray(mesh.triangles_center)[up, 2]
    area = np.asarray(mesh.area_faces)[up]
    bins = np.floor(z / bin_m).astype(np.int64)
    uniq, inv = np.unique(bins, return_inverse=True)
    best = int(np.argmax(np.bincount(inv, weights=area)))
    return float(np.average(z[inv == best], weights=area[inv == best]))
