"""MJCF -> USD asset conversion (usd-core) with physics-schema checks.

Pipeline: :func:`load_mjcf` rewrites a real-world MJCF file so MuJoCo can load
it (below), MuJoCo compiles it (meshes in OBJ, STL and legacy ``.msh`` are read
by MuJoCo itself), and :func:`convert_mjcf_to_usd` writes the compiled model
as a USD stage:

* stage metadata: ``metersPerUnit = 1``, ``upAxis = Z``, default prim ``/<model>``;
* one ``Xform`` per rigid group (a body with a joint, or a top-level body, with
  the joint-less bodies welded to it -- MuJoCo's ``body_weldid``), placed at
  its world pose at ``qpos0``, with ``UsdPhysics.RigidBodyAPI`` and
  ``MassAPI`` (mass kg, centre of mass m in the group frame, principal
  inertia kg m^2 and principal axes, combined from the welded bodies by the
  parallel-axis theorem);
* geoms under ``<group>/collision`` (``CollisionAPI``; meshes also
  ``MeshCollisionAPI`` with ``convexHull`` approximation, which is how MuJoCo
  collides meshes) and ``<group>/visual`` (no collision), boxes as ``Cube``,
  spheres, capsules and cylinders as their UsdGeom primitives (axis Z),
  ellipsoids as scaled spheres, meshes as ``Mesh`` with MuJoCo's compiled
  vertices; collision prims get purpose ``guide``;
* colours: a ``UsdPreviewSurface`` material per distinct RGBA (geom or
  MuJoCo material colour); friction: a ``UsdPhysics.MaterialAPI`` material
  per distinct sliding friction (static = dynamic = MuJoCo ``friction[0]``);
* hinge/slide joints -> ``PhysicsRevoluteJoint``/``PhysicsPrismaticJoint``
  between the parent group and the child group, axis X after a rotation of the
  joint frame that maps X onto the MuJoCo axis, limits in degrees
  (revolute) or metres (prismatic) exactly where MuJoCo's compiled model says
  the joint is limited (``jnt_limited``/``jnt_range``, after ``limited``,
  ``range``, ``autolimits`` and ``angle``), none (unlimited) elsewhere; free
  joints become nothing (a free rigid body); ball joints -> ``PhysicsSphericalJoint``;
* joint damping, stiffness/springref, armature, frictionloss and joint actuators (position,
  velocity, motor) -> ``UsdPhysics.DriveAPI`` and ``physxJoint:*`` attributes, and
  ``UsdPhysics.ArticulationRootAPI`` on the root body of each joint tree
  (:mod:`simkit.assets.mjcf_dynamics`, which states the units: angular drives per degree);
* :class:`ConversionReport` lists what was written (``written``) and what the stage does not carry
  (``not_written``: tendons, equality constraints, sites, contact solver parameters, textures, ...).

A standalone file whose moving body MuJoCo rejects as massless because ``compiler/@inertiagrouprange``
leaves its geoms out (LIBERO's microwave, faucet, window, slide cabinet) is converted the way LIBERO's
scene loads it: the range is ignored (one warning); any other massless moving body is one InputError
naming the body.

Textures are not carried over (colours are); the source texture file names
are kept as ``simkit:textures`` custom data on the default prim (relative to
the MJCF file's folder).

Loader (:func:`load_mjcf`): every ``file=`` is resolved against the compiler's
``meshdir``/``texturedir``/``assetdir`` and made absolute; a name repeated
within one asset kind is renamed ``NAME__dupK`` and later references follow
it; a missing texture file -> one warning, texture dropped; a missing mesh
file used only by visual geoms (``contype = conaffinity = 0``) -> one warning,
those geoms dropped; a missing mesh used by a collision geom -> InputError;
``<include>`` is inlined; ``<size njmax/nconmax/nstack>`` removed; ``<region>`` markers (not MJCF)
removed with a warning.
Errors are :class:`~simkit.core.errors.InputError` naming the file (and
line/column for XML syntax errors).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.assets.mjcf_dynamics import (
    articulation_roots,
    joint_dynamics,
    unconverted_features,
    write_joint_dynamics,
)
from simkit.assets.mujoco_log import import_mujoco
from simkit.core.errors import InputError, require

ASSET_KINDS = ("texture", "material", "mesh", "hfield", "skin")


@dataclass
class LoadedMjcf:
    """Result of :func:`load_mjcf`: the rewritten XML text, the MjSpec, the warnings and the dropped items."""

    path: Path
    xml: str
    spec: Any
    warnings: list[str] = field(default_factory=list)
    dropped_meshes: list[str] = field(default_factory=list)
    texture_files: dict[str, str] = field(default_factory=dict)


#: deepest element nesting accepted in an MJCF file (deeper trees would exhaust Python's recursion limit
#: in the XML serialiser; real kinematic chains stay far below it)
MAX_XML_DEPTH = 400


def _xml_depth(root: ET.Element) -> int:
    """Deepest element nesting below ``root`` (iterative, so it cannot overflow the stack)."""
    deepest, stack = 0, [(root, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in node)
    return deepest


def _parse_xml(path: Path) -> ET.Element:
    """Parse an XML file.

    Raises:
        InputError: missing/unreadable file, XML syntax error (line/column), nesting deeper than
            :data:`MAX_XML_DEPTH`.
    """
    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except ET.ParseError as exc:
        line, col = exc.position
        raise InputError(
            path, f"not a valid MJCF/XML file ({exc.msg if hasattr(exc, 'msg') else exc})", line, col + 1
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read file ({exc})") from None
    depth = _xml_depth(root)
    if depth > MAX_XML_DEPTH:
        raise InputError(path, f"elements nested {depth} deep; at most {MAX_XML_DEPTH} levels are supported")
    return root


def _inline_includes(root: ET.Element, base: Path, depth: int = 0) -> None:
    if depth > 8:
        raise InputError(base, "<include> nested more than 8 deep")
    for parent in list(root.iter()):
        for i, child in enumerate(list(parent)):
            if child.tag == "include":
                f = (base / child.get("file", "")).resolve()
                sub = _parse_xml(f)
                _inline_includes(sub, f.parent, depth + 1)
                parent.remove(child)
                kids = list(sub) if sub.tag == "mujoco" else [sub]
                for k, node in enumerate(kids):
                    parent.insert(i + k, node)


def _is_visual(geom: ET.Element, defaults: dict[str, dict[str, str]]) -> bool:
    cls = defaults.get(geom.get("class", "main"), {})
    ct = geom.get("contype", cls.get("contype", "1"))
    ca = geom.get("conaffinity", cls.get("conaffinity", "1"))
    return ct.strip() == "0" and ca.strip() == "0"


def _geom_defaults(root: ET.Element) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}

    def walk(node: ET.Element, inherited: dict[str, str]):
        name = node.get("class", "main")
        mine = dict(inherited)
        g = node.find("geom")
        if g is not None:
            mine.update(g.attrib)
        out[name] = mine
        for sub in node.findall("default"):
            walk(sub, mine)

    for d in root.findall("default"):
        walk(d, {})
    return out


def _rename_duplicates(root: ET.Element, path: Path, warnings: list[str]) -> None:
    """Rename later definitions of a name repeated within one asset kind ``NAME__dupK`` and re-point the
    references after them (a warning each)."""
    seen: dict[tuple[str, str], int] = {}
    current: dict[tuple[str, str], str] = {}
    for node in root.iter():
        tag = node.tag
        # references first (an element refers to definitions before it)
        for ref_tag, (kind, attrs) in (
            ("material", ("texture", ("texture",))),
            ("geom", ("mesh", ("mesh",))),
            ("geom", ("material", ("material",))),
            ("site", ("material", ("material",))),
        ):
            if tag == ref_tag:
                for a in attrs:
                    v = node.get(a)
                    if v is not None and (kind, v) in current:
                        node.set(a, current[(kind, v)])
        if tag in ASSET_KINDS and node.get("name"):
            key = (tag, node.get("name", ""))
            if key in seen:
                seen[key] += 1
                new = f"{key[1]}__dup{seen[key]}"
                warnings.append(
                    f"{path}: {tag} name {key[1]!r} is defined more than once; the later one is "
                    f"renamed {new!r}"
                )
                node.set("name", new)
                current[key] = new
            else:
                seen[key] = 0


def _drop_region_markers(root: ET.Element, path: Path, warnings: list[str]) -> None:
    """Remove ``<region>`` elements (not MJCF: a marker some LIBERO assets carry, which MuJoCo's schema
    rejects); one warning naming them."""
    names = []
    for parent in list(root.iter()):
        for child in list(parent):
            if child.tag == "region":
                names.append(child.get("name", "?"))
                parent.remove(child)
    if names:
        warnings.append(f"{path}: <region> is not an MJCF element; removed {', '.join(sorted(names))}")


def rewrite_mjcf(path: str | Path, merged: bool = False) -> tuple[str, list[str], list[str], dict[str, str]]:
    """Rewrite an MJCF file as described in the module docstring.

    With ``merged`` the file is treated as a file merged into a scene: its
    ``compiler/@inertiagrouprange`` is ignored (MuJoCo's default, all groups,
    applies), so visual geoms count towards mass. (LIBERO's scenes compile
    under robosuite's ``base.xml``, ``inertiagrouprange="0 0"``: collision geoms
    only; the Hebero task scenes set that range, :mod:`simkit.sims.hebero.scene`.)

    Returns:
        (xml text, warnings, names of dropped meshes, texture name -> absolute file).

    Raises:
        InputError: not XML, root is not ``<mujoco>``, collision mesh file missing.
    """
    path = Path(path).resolve()
    root = _parse_xml(path)
    if root.tag != "mujoco":
        raise InputError(path, f"not an MJCF file: root element is <{root.tag}>, expected <mujoco>")
    _inline_includes(root, path.parent)
    depth = _xml_depth(root)
    if depth > MAX_XML_DEPTH:
        raise InputError(
            path,
            f"elements nested {depth} deep after <include>; at most {MAX_XML_DEPTH} levels are supported",
        )
    warnings: list[str] = []
    comp = root.find("compiler")
    base = path.parent
    assetdir = meshdir = texdir = base
    if comp is not None:
        dirs = {k: comp.get(k, "") for k in ("assetdir", "meshdir", "texturedir")}
        if dirs["assetdir"]:
            assetdir = meshdir = texdir = (base / dirs["assetdir"]).resolve()
        if dirs["meshdir"]:
            meshdir = (base / dirs["meshdir"]).resolve()
        if dirs["texturedir"]:
            texdir = (base / dirs["texturedir"]).resolve()
        for k in ("assetdir", "meshdir", "texturedir"):
            comp.attrib.pop(k, None)
        if merged and comp.attrib.pop("inertiagrouprange", None) is not None:
            warnings.append(
                f"{path}: compiler inertiagrouprange ignored (merged into a scene, as LIBERO does)"
            )
    size = root.find("size")
    if size is not None:
        for k in ("njmax", "nconmax", "nstack"):
            size.attrib.pop(k, None)

    _rename_duplicates(root, path, warnings)
    _drop_region_markers(root, path, warnings)

    defaults = _geom_defaults(root)
    asset_nodes = [(a, n) for a in root.findall("asset") for n in list(a)]
    dropped: list[str] = []
    textures: dict[str, str] = {}
    for parent, node in asset_nodes:
        f = node.get("file")
        if f is None:  # builtin textures, user meshes, materials
            continue
        d = meshdir if node.tag in ("mesh", "skin") else texdir if node.tag in ("texture",) else assetdir
        full = (d / f).resolve()
        if node.tag == "mesh" and node.get("name") is None:
            node.set("name", Path(f).stem)
        if full.is_file():
            node.set("file", str(full))
            if node.tag == "texture" and node.get("name"):
                textures[node.get("name", "")] = str(full)
            continue
        if node.tag == "texture":
            warnings.append(
                f"{path}: texture file {f!r} is missing; texture {node.get('name')!r} skipped "
                "(materials keep their colour)"
            )
            parent.remove(node)
            for m in root.iter("material"):
                if m.get("texture") == node.get("name"):
                    m.attrib.pop("texture", None)
        elif node.tag == "mesh":
            name = node.get("name", "")
            users = [g for g in root.iter("geom") if g.get("mesh") == name]
            if any(not _is_visual(g, defaults) for g in users):
                raise InputError(
                    path,
                    f"collision mesh file {f!r} (mesh {name!r}) is missing; collision geometry is required",
                )
            warnings.append(
                f"{path}: visual mesh file {f!r} is missing; {len(users)} visual geom(s) of mesh "
                f"{name!r} skipped, collision kept"
            )
            parent.remove(node)
            for body in root.iter():
                for g in list(body):
                    if g.tag == "geom" and g.get("mesh") == name:
                        body.remove(g)
            dropped.append(name)
        else:
            raise InputError(path, f"{node.tag} file {f!r} is missing")
    return ET.tostring(root, encoding="unicode"), warnings, dropped, textures


def load_mjcf(path: str | Path, compile_check: bool = True, merged: bool = False) -> LoadedMjcf:
    """Rewrite and load an MJCF file into a ``mujoco.MjSpec``.

    Args:
        path: the MJCF XML file.
        compile_check: also compile once so that errors surface here.
        merged: see :func:`rewrite_mjcf`.

    Raises:
        InputError: see :func:`rewrite_mjcf`; MuJoCo rejecting the file (its message is kept).
    """
    mujoco = import_mujoco()
    path = Path(path).resolve()
    xml, warnings, dropped, textures = rewrite_mjcf(path, merged)
    try:
        spec = mujoco.MjSpec.from_string(xml)
        if compile_check:
            spec.compile()
    except (ValueError, RuntimeError) as exc:
        msg = " ".join(str(exc).split())
        raise InputError(path, f"MuJoCo rejects the model: {msg}") from None
    return LoadedMjcf(path, xml, spec, warnings, dropped, textures)


def geom_is_collision(model, g: int) -> bool:
    """A geom takes part in collisions when contype or conaffinity is non-zero (MuJoCo's rule)."""
    return bool(model.geom_contype[g] != 0 or model.geom_conaffinity[g] != 0)


# --------------------------------------------------------------------------- geometry helpers


def _mat_to_quat(r: np.ndarray) -> np.ndarray:
    import mujoco

    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.ascontiguousarray(r, dtype=float).reshape(9))
    return q


def _x_to_axis(axis: np.ndarray) -> np.ndarray:
    """Rotation matrix whose first column is the unit vector ``axis`` (maps +X onto it)."""
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    helper = np.array([0.0, 0.0, 1.0]) if abs(a[2]) < 0.9 else np.array([0.0, 1.0, 0.0])
    b = np.cross(helper, a)
    b /= np.linalg.norm(b)
    c = np.cross(a, b)
    return np.stack([a, b, c], axis=1)


def _geom_local_extent(model, g: int) -> np.ndarray:
    """Corner points (N, 3) in the geom frame whose hull bounds the geom (vertices for meshes), m."""
    import mujoco

    t = int(model.geom_type[g])
    s = model.geom_size[g]
    if t == mujoco.mjtGeom.mjGEOM_MESH:
        mid = model.geom_dataid[g]
        a, n = model.mesh_vertadr[mid], model.mesh_vertnum[mid]
        return np.asarray(model.mesh_vert[a : a + n], float)
    if t == mujoco.mjtGeom.mjGEOM_BOX:
        h = s[:3]
    elif t == mujoco.mjtGeom.mjGEOM_SPHERE:
        h = np.array([s[0]] * 3)
    elif t == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
        h = s[:3]
    elif t == mujoco.mjtGeom.mjGEOM_CAPSULE:
        h = np.array([s[0], s[0], s[1] + s[0]])
    elif t == mujoco.mjtGeom.mjGEOM_CYLINDER:
        h = np.array([s[0], s[0], s[1]])
    elif t == mujoco.mjtGeom.mjGEOM_PLANE and min(s[:2]) > 0:
        h = np.array([s[0], s[1], 0.0])
    else:
        return np.zeros((0, 3))
    signs = np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)], float)
    return signs * h


def mujoco_bbox(model, data, geoms=None) -> tuple[np.ndarray, np.ndarray]:
    """World AABB (lo, hi) in metres of the given geoms (default all but planes) at ``data``'s pose.

    Each geom contributes its mesh vertices or the corners of its local extent
    box (primitives), transformed to world -- the same bound USD's
    ``BBoxCache`` computes from a primitive's ``extent``.
    """
    pts = []
    for g in range(model.ngeom) if geoms is None else geoms:
        loc = _geom_local_extent(model, g)
        if len(loc) == 0:
            continue
        r = np.asarray(data.geom_xmat[g]).reshape(3, 3)
        pts.append(loc @ r.T + data.geom_xpos[g])
    if not pts:
        raise ValueError("no geometry")
    p = np.concatenate(pts)
    return p.min(axis=0), p.max(axis=0)


# --------------------------------------------------------------------------- conversion


@dataclass
class ConversionReport:
    """What :func:`convert_mjcf_to_usd` wrote: output path, counts, warnings and the MuJoCo bbox (m)."""

    out: Path
    rigid_bodies: int = 0
    collision_geoms: int = 0
    visual_geoms: int = 0
    joints: int = 0
    warnings: list[str] = field(default_factory=list)
    bbox_lo: tuple = ()
    bbox_hi: tuple = ()
    #: joint property -> number of joints it was written on (``drive``, ``damping``, ``armature``, ...)
    written: dict[str, int] = field(default_factory=dict)
    #: MJCF properties of the model that the stage does not carry, one line each
    not_written: list[str] = field(default_factory=list)
    #: prim paths that carry ``UsdPhysics.ArticulationRootAPI``
    articulation_roots: list[str] = field(default_factory=list)


def _safe(name: str, fallback: str) -> str:
    import re

    s = re.sub(r"[^A-Za-z0-9_]", "_", name or "")
    if not s:
        s = fallback
    if s[0].isdigit():
        s = "_" + s
    return s


def _group_of(model, b: int) -> int:
    """Rigid group of body b: its weld body, or its top-level ancestor when welded to the world."""
    w = int(model.body_weldid[b])
    return w if w != 0 else int(model.body_rootid[b])


def convert_mjcf_to_usd(src: str | Path, dst: str | Path, static: bool | None = None) -> ConversionReport:
    """Convert an MJCF file to a USD stage (``.usda`` text or ``.usd``/``.usdc`` binary).

    Top-level bodies without joints are welded to the world in MuJoCo. An
    object asset (LIBERO adds the free joint when it places the object) wants
    them as dynamic rigid bodies; an environment file (arena, table) wants
    them static. ``static=None`` decides per file: static when the world body
    itself holds geoms (an environment file), dynamic otherwise. Static groups
    and world geoms become colliders without ``RigidBodyAPI`` (customData
    ``simkit:static = True``); a group with zero mass is always static.

    Joint limits follow MuJoCo's compiled model exactly: a joint MuJoCo treats
    as limited (``jnt_limited``) gets ``lowerLimit``/``upperLimit`` from
    ``jnt_range`` (degrees for revolute joints, metres for prismatic ones); an
    unlimited joint gets no authored limits (UsdPhysics' fallback -inf/inf
    means unlimited).

    Args:
        src: MJCF XML file. dst: output stage path (its folder is created).
        static: force static (True) or dynamic (False) top-level bodies.

    Returns:
        :class:`ConversionReport` (warnings name every skipped file).

    Raises:
        InputError: unreadable/invalid MJCF, missing collision mesh, a model
            without geoms or without collision geometry, an output suffix other
            than .usd/.usda/.usdc (checked after the source, so a missing source
            is reported first).
    """
    src, dst = Path(src), Path(dst)
    loaded, model, data = _compile_for_usd(src, dst)
    stage, root_name = _new_stage(src, dst, loaded)
    rep = ConversionReport(dst, warnings=list(loaded.warnings))
    gpath, static_groups, fixed = _write_groups(stage, root_name, model, data, static, rep)
    _write_geoms(stage, root_name, model, data, gpath, rep, src)
    _write_joints(stage, root_name, model, data, gpath, static_groups, rep, src, fixed)
    rep.not_written += unconverted_features(model)
    if loaded.texture_files:
        rep.not_written.append(f"{len(loaded.texture_files)} texture(s) (file names kept as customData)")
    lo, hi = mujoco_bbox(model, data)
    rep.bbox_lo, rep.bbox_hi = tuple(map(float, lo)), tuple(map(float, hi))
    stage.GetPrimAtPath(f"/{root_name}").SetCustomDataByKey("simkit:source", str(Path(src).name))
    stage.GetRootLayer().Save()
    return rep


def _compile_for_usd(src: Path, dst: Path):
    """Load and compile ``src`` for conversion: (loaded, model, data at qpos0 after mj_forward).

    Raises:
        InputError: see :func:`convert_mjcf_to_usd`.
    """
    mujoco = import_mujoco()
    require("pxr.Usd", "hebero")
    loaded = load_mjcf(src, compile_check=False)  # input errors (missing/invalid source) come first
    if dst.suffix not in (".usd", ".usda", ".usdc"):
        raise InputError(dst, "output must end in .usd, .usda or .usdc")
    try:
        model = loaded.spec.compile()
    except (ValueError, RuntimeError) as exc:
        loaded, model = _compile_as_merged(src, " ".join(str(exc).split()))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    if model.ngeom == 0:
        raise InputError(src, "the model has no geoms (nothing to collide with or to draw)")
    ncol = sum(geom_is_collision(model, g) for g in range(model.ngeom))
    if ncol == 0:
        raise InputError(
            src, "the model has no collision geometry (every geom has contype = conaffinity = 0)"
        )
    return loaded, model, data


def _compile_as_merged(src: Path, msg: str):
    """Second attempt for a standalone file MuJoCo rejects because a moving body has no mass
    (``mjMINVAL``) while ``compiler/@inertiagrouprange`` leaves its geoms out of the inertia: compile it
    as LIBERO's scene does (:func:`rewrite_mjcf` with ``merged=True``: the range is ignored, every geom
    group counts). Returns (loaded, model).

    Raises:
        InputError: any other rejection (MuJoCo's message), or the body still massless, naming it.
    """
    import re

    # MuJoCo's line numbers count lines of the rewritten XML (comments dropped, includes inlined), so
    # the body is named by its name (or body id), not by a line of the source file
    m = re.search(r"mass and inertia of moving bodies.*?Element name '([^']*)', id (\d+)", msg)
    if m is None:
        raise InputError(src, f"MuJoCo rejects the model: {msg}")
    body = repr(m.group(1)) if m.group(1) else f"number {m.group(2)}"
    merged = load_mjcf(src, compile_check=False, merged=True)
    try:
        if not any("inertiagrouprange ignored" in w for w in merged.warnings):
            raise ValueError(msg)
        model = merged.spec.compile()
    except (ValueError, RuntimeError):
        raise InputError(
            src,
            f"moving body {body} has no mass or inertia (below MuJoCo's mjMINVAL); "
            "give its geoms a mass or the body an <inertial>",
        ) from None
    merged.warnings.append(
        f"{src}: MuJoCo rejects the standalone file (moving body {body} has no mass: its "
        "geoms lie outside compiler inertiagrouprange); converted as LIBERO's scene loads it, with the "
        "range ignored so that every geom counts towards mass and inertia"
    )
    return merged, model


def _new_stage(src: Path, dst: Path, loaded: LoadedMjcf):
    """A fresh stage at ``dst`` (Z up, metres, kilograms) with the default prim ``/<model>``:
    (stage, root prim name)."""
    from pxr import Usd, UsdGeom, UsdPhysics

    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists():
        dst.unlink()
    stage = Usd.Stage.CreateNew(str(dst))
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 1.0)
    root_name = _safe(Path(src).stem, "asset")
    root = UsdGeom.Xform.Define(stage, f"/{root_name}")
    stage.SetDefaultPrim(root.GetPrim())
    if loaded.texture_files:  # file names relative to the MJCF's folder, so the stage stays portable
        import os

        root.GetPrim().SetCustomDataByKey(
            "simkit:textures",
            {k: os.path.relpath(v, loaded.path.parent) for k, v in loaded.texture_files.items()},
        )
    return stage, root_name


def _set_pose(xf, pos, quat) -> None:
    """Author translate + orient (double precision) on an Xformable."""
    from pxr import Gf, UsdGeom

    xf.AddTranslateOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Vec3d(*map(float, pos)))
    xf.AddOrientOp(UsdGeom.XformOp.PrecisionDouble).Set(
        Gf.Quatd(float(quat[0]), Gf.Vec3d(*map(float, quat[1:])))
    )


def _group_mass(model, data, members: list[int], rot: np.ndarray, pos: np.ndarray):
    """Mass (kg), centre of mass (m, group frame), principal inertia (kg m^2) and principal axes
    (quaternion w, x, y, z) of welded bodies, combined by the parallel-axis theorem."""
    mass = float(sum(model.body_mass[b] for b in members))
    com_w = sum(model.body_mass[b] * data.xipos[b] for b in members) / max(mass, 1e-12)
    inertia = np.zeros((3, 3))
    for b in members:
        rb = np.asarray(data.ximat[b]).reshape(3, 3)
        ib = rb @ np.diag(model.body_inertia[b]) @ rb.T
        dvec = data.xipos[b] - com_w
        inertia += ib + model.body_mass[b] * (dvec @ dvec * np.eye(3) - np.outer(dvec, dvec))
    evals, evecs = np.linalg.eigh(rot.T @ inertia @ rot)
    if np.linalg.det(evecs) < 0:
        evecs[:, 0] *= -1
    return mass, rot.T @ (com_w - pos), evals, _mat_to_quat(evecs)


def _write_groups(stage, root_name: str, model, data, static: bool | None, rep: ConversionReport):
    """One Xform per rigid group (module docstring) with RigidBodyAPI + MassAPI unless static.

    Returns:
        (group id -> prim path, set of static group ids, set of groups welded to the world by a fixed
        joint); group 0 = geoms on the world body.
    """
    import mujoco
    from pxr import Gf, UsdGeom, UsdPhysics

    if static is None:
        static = bool(np.any(model.geom_bodyid == 0))
    groups: dict[int, list[int]] = {}
    for b in range(1, model.nbody):
        groups.setdefault(_group_of(model, b), []).append(b)
    static_groups = {
        g
        for g, members in groups.items()
        if float(sum(model.body_mass[b] for b in members)) <= 0.0
        or (static and model.body_jntnum[g] == 0 and model.body_parentid[g] == 0)
    }
    # a static group that carries jointed bodies stays a rigid body, welded to the world by a fixed
    # joint (a fixed-base articulation, as Isaac Lab builds one), unless it has no mass
    fixed = {
        _group_of(model, int(model.body_parentid[model.jnt_bodyid[j]]))
        for j in range(model.njnt)
        if int(model.jnt_type[j]) != mujoco.mjtJoint.mjJNT_FREE
        and model.body_parentid[model.jnt_bodyid[j]] != 0
    } & {g for g in static_groups if float(sum(model.body_mass[b] for b in groups[g])) > 0.0}
    static_groups -= fixed
    if np.any(model.geom_bodyid == 0):
        groups[0] = [0]
        static_groups.add(0)
    gpath: dict[int, str] = {}
    used_names: set[str] = set()
    for gid, members in groups.items():
        nm = (
            "world_static"
            if gid == 0
            else _safe(mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, gid) or "", f"body{gid}")
        )
        while nm in used_names:
            nm += "_"
        used_names.add(nm)
        gpath[gid] = f"/{root_name}/{nm}"
        x = UsdGeom.Xform.Define(stage, gpath[gid])
        pos, rot = data.xpos[gid], np.asarray(data.xmat[gid]).reshape(3, 3)
        _set_pose(x, pos, _mat_to_quat(rot))
        prim = x.GetPrim()
        if gid in static_groups:
            prim.SetCustomDataByKey("simkit:static", True)
            continue
        mass, com, evals, pa = _group_mass(model, data, members, rot, pos)
        UsdPhysics.RigidBodyAPI.Apply(prim)
        m = UsdPhysics.MassAPI.Apply(prim)
        m.CreateMassAttr(mass)
        m.CreateCenterOfMassAttr(Gf.Vec3f(*map(float, com)))
        m.CreateDiagonalInertiaAttr(Gf.Vec3f(*map(float, np.maximum(evals, 0.0))))
        m.CreatePrincipalAxesAttr(Gf.Quatf(float(pa[0]), Gf.Vec3f(*map(float, pa[1:]))))
        rep.rigid_bodies += 1
    return gpath, static_groups, fixed


class _Materials:
    """Preview-surface materials per distinct RGBA and physics materials per distinct friction."""

    def __init__(self, stage, root_name: str) -> None:
        from pxr import UsdGeom

        self.stage, self.root = stage, root_name
        self.looks: dict[tuple, str] = {}
        self.phys: dict[float, str] = {}
        UsdGeom.Scope.Define(stage, f"/{root_name}/Looks")

    def look_for(self, rgba) -> str:
        from pxr import Gf, Sdf, UsdShade

        key = tuple(round(float(v), 4) for v in rgba)
        if key not in self.looks:
            p = f"/{self.root}/Looks/color_{len(self.looks)}"
            mat = UsdShade.Material.Define(self.stage, p)
            sh = UsdShade.Shader.Define(self.stage, p + "/surface")
            sh.CreateIdAttr("UsdPreviewSurface")
            sh.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).Set(Gf.Vec3f(*key[:3]))
            sh.CreateInput("opacity", Sdf.ValueTypeNames.Float).Set(key[3])
            mat.CreateSurfaceOutput().ConnectToSource(sh.ConnectableAPI(), "surface")
            self.looks[key] = p
        return self.looks[key]

    def phys_for(self, mu: float) -> str:
        from pxr import UsdPhysics, UsdShade

        key = round(float(mu), 4)
        if key not in self.phys:
            p = f"/{self.root}/Looks/physics_{len(self.phys)}"
            mat = UsdShade.Material.Define(self.stage, p)
            api = UsdPhysics.MaterialAPI.Apply(mat.GetPrim())
            api.CreateStaticFrictionAttr(key)
            api.CreateDynamicFrictionAttr(key)
            self.phys[key] = p
        return self.phys[key]


def _define_geom(stage, p: str, model, g: int, rel_pos: np.ndarray, rel_rot: np.ndarray):
    """Define the UsdGeom prim of geom ``g`` at path ``p``: (prim schema, scale or None, pose to author)."""
    import mujoco
    from pxr import UsdGeom, Vt

    t = int(model.geom_type[g])
    s = model.geom_size[g]
    scale = None
    if t == mujoco.mjtGeom.mjGEOM_BOX:
        gp = UsdGeom.Cube.Define(stage, p)
        gp.CreateSizeAttr(2.0)
        gp.CreateExtentAttr([(-1, -1, -1), (1, 1, 1)])
        scale = s[:3]
    elif t == mujoco.mjtGeom.mjGEOM_SPHERE:
        gp = UsdGeom.Sphere.Define(stage, p)
        gp.CreateRadiusAttr(float(s[0]))
        gp.CreateExtentAttr([(-s[0],) * 3, (s[0],) * 3])
    elif t == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
        gp = UsdGeom.Sphere.Define(stage, p)
        gp.CreateRadiusAttr(1.0)
        gp.CreateExtentAttr([(-1, -1, -1), (1, 1, 1)])
        scale = s[:3]
    elif t in (mujoco.mjtGeom.mjGEOM_CAPSULE, mujoco.mjtGeom.mjGEOM_CYLINDER):
        cls = UsdGeom.Capsule if t == mujoco.mjtGeom.mjGEOM_CAPSULE else UsdGeom.Cylinder
        gp = cls.Define(stage, p)
        gp.CreateRadiusAttr(float(s[0]))
        gp.CreateHeightAttr(float(2 * s[1]))
        gp.CreateAxisAttr(UsdGeom.Tokens.z)
        hz = s[1] + (s[0] if t == mujoco.mjtGeom.mjGEOM_CAPSULE else 0.0)
        gp.CreateExtentAttr([(-s[0], -s[0], -hz), (s[0], s[0], hz)])
    elif t == mujoco.mjtGeom.mjGEOM_PLANE:
        gp = UsdGeom.Plane.Define(stage, p)
        gp.CreateWidthAttr(float(2 * s[0]))
        gp.CreateLengthAttr(float(2 * s[1]))
        gp.CreateAxisAttr(UsdGeom.Tokens.z)
        gp.CreateExtentAttr([(-s[0], -s[1], 0.0), (s[0], s[1], 0.0)])
    else:  # mesh: bake the geom pose into the points so the authored extent is tight in the group frame
        mid = model.geom_dataid[g]
        va, vn = model.mesh_vertadr[mid], model.mesh_vertnum[mid]
        fa, fn = model.mesh_faceadr[mid], model.mesh_facenum[mid]
        verts = np.asarray(model.mesh_vert[va : va + vn], float) @ rel_rot.T + rel_pos
        rel_pos, rel_rot = np.zeros(3), np.eye(3)
        faces = np.asarray(model.mesh_face[fa : fa + fn], int)
        gp = UsdGeom.Mesh.Define(stage, p)
        gp.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(verts.astype(np.float32)))
        gp.CreateFaceVertexCountsAttr(Vt.IntArray([3] * len(faces)))
        gp.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(faces.reshape(-1).astype(np.int32)))
        gp.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
        gp.CreateExtentAttr([tuple(map(float, verts.min(0))), tuple(map(float, verts.max(0)))])
    return gp, scale, rel_pos, rel_rot


def _write_geoms(stage, root_name: str, model, data, gpath: dict, rep: ConversionReport, src) -> None:
    """Geoms under ``<group>/collision`` (CollisionAPI, physics material) or ``<group>/visual``."""
    import mujoco
    from pxr import Gf, UsdGeom, UsdPhysics, UsdShade

    mats = _Materials(stage, root_name)
    for g in range(model.ngeom):
        b = int(model.geom_bodyid[g])
        t = int(model.geom_type[g])
        if t in (int(mujoco.mjtGeom.mjGEOM_HFIELD), int(mujoco.mjtGeom.mjGEOM_SDF)) or (
            t == int(mujoco.mjtGeom.mjGEOM_PLANE) and min(model.geom_size[g][:2]) <= 0
        ):
            rep.warnings.append(
                f"{src}: geom {g} (type {t}: height field, SDF or infinite plane) is not converted"
            )
            continue
        gid = 0 if b == 0 else _group_of(model, b)
        col = geom_is_collision(model, g)
        parent = f"{gpath[gid]}/{'collision' if col else 'visual'}"
        if not stage.GetPrimAtPath(parent):
            UsdGeom.Scope.Define(stage, parent)
        gname = _safe(mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g) or "", f"geom{g}")
        p = f"{parent}/{gname}"
        while stage.GetPrimAtPath(p):
            p += "_"
        rg = np.asarray(data.xmat[gid]).reshape(3, 3)  # geom pose in the group frame
        rel_pos = rg.T @ (data.geom_xpos[g] - data.xpos[gid])
        rel_rot = rg.T @ np.asarray(data.geom_xmat[g]).reshape(3, 3)
        gp, scale, rel_pos, rel_rot = _define_geom(stage, p, model, g, rel_pos, rel_rot)
        xf = UsdGeom.Xformable(gp)
        _set_pose(xf, rel_pos, _mat_to_quat(rel_rot))
        if scale is not None:
            xf.AddScaleOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Vec3d(*map(float, scale)))
        prim = gp.GetPrim()
        matid = model.geom_matid[g]
        rgba = model.mat_rgba[matid] if matid >= 0 else model.geom_rgba[g]
        UsdShade.MaterialBindingAPI.Apply(prim).Bind(
            UsdShade.Material(stage.GetPrimAtPath(mats.look_for(rgba)))
        )
        if not col:
            rep.visual_geoms += 1
            continue
        UsdPhysics.CollisionAPI.Apply(prim)
        if t == mujoco.mjtGeom.mjGEOM_MESH:
            UsdPhysics.MeshCollisionAPI.Apply(prim).CreateApproximationAttr(UsdPhysics.Tokens.convexHull)
        UsdShade.MaterialBindingAPI(prim).Bind(
            UsdShade.Material(stage.GetPrimAtPath(mats.phys_for(model.geom_friction[g][0]))),
            UsdShade.Tokens.weakerThanDescendants,
            "physics",
        )
        gp.CreatePurposeAttr(UsdGeom.Tokens.guide)
        rep.collision_geoms += 1


def joint_limits(model, j: int) -> tuple[float, float] | None:
    """USD limits of MuJoCo joint ``j`` from the compiled model: ``None`` when MuJoCo treats it as
    unlimited (``jnt_limited == 0``), else ``jnt_range`` in degrees (hinge; MuJoCo stores radians
    whatever ``compiler/@angle``) or metres (slide), measured from the converted pose: the stage is
    written at ``qpos0`` (the joint's ``ref``), where the USD joint position is 0, so ``qpos0`` is
    subtracted (0 unless the MJCF sets ``ref``)."""
    import mujoco

    if not model.jnt_limited[j]:
        return None
    q0 = float(model.qpos0[model.jnt_qposadr[j]])
    lo, hi = (float(v) - q0 for v in model.jnt_range[j])
    if int(model.jnt_type[j]) == mujoco.mjtJoint.mjJNT_HINGE:
        return math.degrees(lo), math.degrees(hi)
    return lo, hi


def _write_world_welds(stage, root_name: str, model, data, gpath, fixed: set[int]) -> list[tuple[None, int]]:
    """A ``PhysicsFixedJoint`` from the world (no body0) to each group of ``fixed`` at its current
    pose; returns the (world, group) articulation edges."""
    import mujoco
    from pxr import Gf, Sdf, UsdPhysics

    for g in sorted(fixed):
        name = _safe(mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, g) or "", f"body{g}")
        js = UsdPhysics.FixedJoint.Define(stage, f"/{root_name}/joints/{name}_to_world")
        js.CreateBody1Rel().SetTargets([Sdf.Path(gpath[g])])
        q = _mat_to_quat(np.asarray(data.xmat[g]).reshape(3, 3))
        js.CreateLocalPos0Attr(Gf.Vec3f(*map(float, data.xpos[g])))
        js.CreateLocalRot0Attr(Gf.Quatf(float(q[0]), Gf.Vec3f(*map(float, q[1:]))))
        js.CreateLocalPos1Attr(Gf.Vec3f(0.0, 0.0, 0.0))
        js.CreateLocalRot1Attr(Gf.Quatf(1.0, Gf.Vec3f(0.0, 0.0, 0.0)))
    return [(None, g) for g in sorted(fixed)]


def _write_joints(
    stage, root_name: str, model, data, gpath, static_groups, rep: ConversionReport, src, fixed=frozenset()
) -> None:
    """Hinge/slide/ball joints between rigid groups (module docstring); limits by :func:`joint_limits`;
    the groups of ``fixed`` welded to the world (:func:`_write_world_welds`); articulation roots."""
    import mujoco
    from pxr import Gf, Sdf, UsdGeom, UsdPhysics

    UsdGeom.Scope.Define(stage, f"/{root_name}/joints")
    edges: list[tuple[int | None, int]] = list(
        _write_world_welds(stage, root_name, model, data, gpath, set(fixed))
    )
    for j in range(model.njnt):
        jt = int(model.jnt_type[j])
        if jt == mujoco.mjtJoint.mjJNT_FREE:
            continue
        b = int(model.jnt_bodyid[j])
        child = _group_of(model, b)
        par_body = int(model.body_parentid[b])
        if par_body == 0 or child in static_groups:
            rep.warnings.append(
                f"{src}: joint {j} connects a top-level or static body to the world; not "
                "converted (the asset's root body is free)"
            )
            continue
        parent = _group_of(model, par_body)
        if parent in static_groups:
            rep.warnings.append(f"{src}: joint {j} hangs on a static body; body0 left empty (world)")
        jname = _safe(mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) or "", f"joint{j}")
        p = f"/{root_name}/joints/{jname}"
        if jt == mujoco.mjtJoint.mjJNT_HINGE:
            js = UsdPhysics.RevoluteJoint.Define(stage, p)
        elif jt == mujoco.mjtJoint.mjJNT_SLIDE:
            js = UsdPhysics.PrismaticJoint.Define(stage, p)
        else:
            js = UsdPhysics.SphericalJoint.Define(stage, p)
        if parent not in static_groups:
            js.CreateBody0Rel().SetTargets([Sdf.Path(gpath[parent])])
        js.CreateBody1Rel().SetTargets([Sdf.Path(gpath[child])])
        r_joint = _x_to_axis(data.xaxis[j])
        for which, grp in ((0, parent), (1, child)):
            rgp = np.asarray(data.xmat[grp]).reshape(3, 3)
            lp = rgp.T @ (data.xanchor[j] - data.xpos[grp])
            lr = _mat_to_quat(rgp.T @ r_joint)
            getattr(js, f"CreateLocalPos{which}Attr")(Gf.Vec3f(*map(float, lp)))
            getattr(js, f"CreateLocalRot{which}Attr")(Gf.Quatf(float(lr[0]), Gf.Vec3f(*map(float, lr[1:]))))
        if jt in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
            js.CreateAxisAttr(UsdPhysics.Tokens.x)
            lim = joint_limits(model, j)
            if lim is not None:  # unlimited: no authored limits (UsdPhysics' fallback -inf/inf)
                js.CreateLowerLimitAttr(lim[0])
                js.CreateUpperLimitAttr(lim[1])
            dyn = joint_dynamics(model, j, rep.not_written)
            for what in write_joint_dynamics(js.GetPrim(), dyn, jt == mujoco.mjtJoint.mjJNT_HINGE):
                rep.written[what] = rep.written.get(what, 0) + 1
        else:
            _note_ball_dynamics(model, j, jname, rep)
        edges.append((None if parent in static_groups else parent, child))
        rep.joints += 1
    roots = articulation_roots(edges)
    for path in [f"/{root_name}"] if roots is None else [gpath[g] for g in roots]:
        UsdPhysics.ArticulationRootAPI.Apply(stage.GetPrimAtPath(path))
        rep.articulation_roots.append(path)


def _note_ball_dynamics(model, j: int, jname: str, rep: ConversionReport) -> None:
    """List the damping/stiffness/armature/frictionloss of a ball joint as not written (no USD drive
    covers a spherical joint)."""
    dof = int(model.jnt_dofadr[j])
    for what, v in (
        ("damping", model.dof_damping[dof]),
        ("stiffness", model.jnt_stiffness[j]),
        ("armature", model.dof_armature[dof]),
        ("frictionloss", model.dof_frictionloss[dof]),
    ):
        if v:
            rep.not_written.append(f"ball joint {jname!r} {what}")


def check_physics(path: str | Path) -> list[str]:
    """Physics-schema checks of a USD stage; returns the problems found (empty = pass).

    Checks: the stage opens; ``metersPerUnit == 1`` and ``upAxis == Z``; every
    ``RigidBodyAPI`` prim has ``MassAPI`` with mass > 0 and non-negative
    diagonal inertia, both finite; every joint has exactly one body1 target, an existing
    rigid body, and a body0 that is one too or empty (UsdPhysics: the world); every revolute/prismatic joint is either
    unlimited (no authored limits, or -inf/inf: UsdPhysics' fallback) or has
    finite lower <= upper limits; every ``CollisionAPI`` prim lies under a rigid body
    or a static group (customData ``simkit:static``); at least one collision
    prim exists.
    """
    from pxr import Usd, UsdGeom, UsdPhysics

    problems: list[str] = []
    stage = Usd.Stage.Open(str(path))
    if stage is None:
        return [f"{path}: cannot open stage"]
    if UsdGeom.GetStageMetersPerUnit(stage) != 1.0:
        problems.append("metersPerUnit is not 1")
    if UsdGeom.GetStageUpAxis(stage) != UsdGeom.Tokens.z:
        problems.append("upAxis is not Z")
    bodies = set()
    ncol = 0
    for prim in stage.Traverse():
        if prim.HasAPI(UsdPhysics.RigidBodyAPI):
            bodies.add(prim.GetPath())
            if not prim.HasAPI(UsdPhysics.MassAPI):
                problems.append(f"{prim.GetPath()}: rigid body without MassAPI")
                continue
            m = UsdPhysics.MassAPI(prim)
            mass = m.GetMassAttr().Get()
            if mass is None or not (mass > 0 and math.isfinite(mass)):
                problems.append(f"{prim.GetPath()}: rigid body mass {mass} is not finite and > 0")
            inertia = m.GetDiagonalInertiaAttr().Get()
            if inertia is None or not all(math.isfinite(v) and v >= 0 for v in inertia):
                problems.append(
                    f"{prim.GetPath()}: diagonal inertia {inertia} missing, negative or not finite"
                )
    for prim in stage.Traverse():
        if prim.HasAPI(UsdPhysics.CollisionAPI):
            ncol += 1
            anc = prim.GetPath()
            static_ok = False
            while anc != anc.absoluteRootPath and anc not in bodies:
                if stage.GetPrimAtPath(anc).GetCustomDataByKey("simkit:static"):
                    static_ok = True
                anc = anc.GetParentPath()
            if anc not in bodies and not static_ok:
                problems.append(f"{prim.GetPath()}: collision prim outside any rigid body or static group")
        if prim.IsA(UsdPhysics.Joint):
            jt = UsdPhysics.Joint(prim)
            for k, rel in (("body0", jt.GetBody0Rel()), ("body1", jt.GetBody1Rel())):
                tg = rel.GetTargets()
                if k == "body0" and not tg:  # UsdPhysics: an empty body0 is the world
                    continue
                if len(tg) != 1 or tg[0] not in bodies:
                    problems.append(f"{prim.GetPath()}: {k} is {list(map(str, tg))}, not one rigid body")
            if prim.IsA(UsdPhysics.RevoluteJoint) or prim.IsA(UsdPhysics.PrismaticJoint):
                api = (
                    UsdPhysics.RevoluteJoint(prim)
                    if prim.IsA(UsdPhysics.RevoluteJoint)
                    else UsdPhysics.PrismaticJoint(prim)
                )
                lo, hi = api.GetLowerLimitAttr().Get(), api.GetUpperLimitAttr().Get()
                lo = -math.inf if lo is None else lo
                hi = math.inf if hi is None else hi
                unlimited = lo == -math.inf and hi == math.inf
                if not unlimited and not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
                    problems.append(
                        f"{prim.GetPath()}: limits ({lo}, {hi}) neither unlimited nor finite and ordered"
                    )
    if ncol == 0:
        problems.append("no collision geometry")
    return problems


def usd_bbox(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """World AABB (lo, hi), metres, of every geometry prim of a stage (purposes default, render, guide)."""
    from pxr import Usd, UsdGeom

    stage = Usd.Stage.Open(str(path))
    cache = UsdGeom.BBoxCache(
        Usd.TimeCode.Default(),
        [UsdGeom.Tokens.default_, UsdGeom.Tokens.render, UsdGeom.Tokens.guide],
        useExtentsHint=False,
    )
    rng = cache.ComputeWorldBound(stage.GetDefaultPrim()).ComputeAlignedRange()
    return np.array(rng.GetMin()), np.array(rng.GetMax())
