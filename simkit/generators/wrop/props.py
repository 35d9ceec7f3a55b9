"""Everyday rigid objects (toys, household items) that may stand in for a primitive (a surface draw).

A curated table of meshes shipped in ``pybullet_data`` (installed with ``simkit[blender]``, read offline),
chosen because they stay recognisable at 320 x 180 and have a compact bounding box (longest over shortest
side <= 3). Each entry gives the noun prompts use, the file relative to ``pybullet_data``'s folder, and the
XYZ Euler rotation (rad) that stands it upright (z up) facing along x. A task lets a slot's primitive be
replaced (``Task.mesh_slots``); the mesh is then scaled uniformly into the primitive's bounding box and
stands on its bottom face on the same pose track (:attr:`simkit.core.scene.MeshSource.fit_box`), so sizes,
trajectories and events are unchanged. It is painted with the slot's palette material (colour, finish,
pattern), so "the red toy duck" stays true and identities stay distinct by colour.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.core.errors import require
from simkit.core.scene import PRIMITIVES, MeshSource, SceneObject, Track

_Q = float(np.pi / 2)


@dataclass(frozen=True)
class Prop:
    """One curated mesh: ``noun`` (prompt word), ``path`` (relative to ``pybullet_data``), ``rotation``
    (XYZ Euler, rad, baked before fitting)."""

    noun: str
    path: str
    rotation: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def asset_id(self) -> str:
        return f"pybullet_data/{self.path}"


#: the curated props, name -> :class:`Prop` (the name is what ``mesh_<slot>`` records)
PROPS: dict[str, Prop] = {
    "duck": Prop("toy duck", "duck.obj", (_Q, 0.0, 0.0)),
    "bunny": Prop("toy bunny", "bunny.obj", (_Q, 0.0, _Q)),
    "teddy": Prop("teddy bear", "teddy2_VHACD_CHs.obj", (_Q, 0.0, 0.0)),
    "mug": Prop("mug", "objects/mug.obj", (0.0, 0.0, -_Q)),
    "brick": Prop("toy brick", "lego/lego.obj", (_Q, 0.0, 0.0)),
    "ring": Prop("toy ring", "torus/torus_textured.obj"),
    "cone": Prop("traffic cone", "racecar/meshes/cone.obj"),
}


def prop_root() -> Path:
    """The installed ``pybullet_data`` folder.

    Raises:
        ExtraMissing: ``pybullet`` is not installed (``pip install 'simkit[blender]'``).
    """
    return Path(require("pybullet_data", "blender").getDataPath())


def prop_object(
    name: str, role: str, kind: str, dims: tuple[float, ...], material, track: Track, prop: str
) -> SceneObject:
    """A ``mesh`` :class:`SceneObject` of prop ``prop`` standing in for primitive ``kind``/``dims``: fitted
    into the primitive's bounding box (sizes in m; ``dims`` records that box), same ``material``/``track``.

    Raises:
        KeyError: unknown prop; ExtraMissing: ``pybullet_data`` is not installed.
    """
    p = PROPS[prop]
    if kind not in PRIMITIVES:
        raise ValueError(f"a prop can only replace a primitive, got kind {kind!r}")
    hx, hy, hz = (float(2 * h) for h in SceneObject(name, role, kind, dims, None).half_extent())
    box = (hx, hy, hz)
    src = MeshSource(str(prop_root() / p.path), asset_id=p.asset_id, rotation=p.rotation, fit_box=box)
    return SceneObject(name, role, "mesh", box, material, track, mesh=src)
