"""Ground truth from the rendered Blender scene: pose, image position, bounding box, visibility, occluders.

Visibility is measured with camera ray casts against Blender's evaluated scene
(``Scene.ray_cast`` on the depsgraph, i.e. exactly the geometry the renderer
draws). Each measured object carries ``points`` surface samples drawn once,
area-weighted over its triangles (fixed generator seed 0, so the same mesh
always gets the same samples, whatever the order of the mesh's elements: triangles are put in a
canonical order first). On each frame:

* a sample ``p`` with outward normal ``n`` is *camera-facing* when
  ``n . (c - p) > 0`` (``c`` the camera centre), and *in frame* when its pinhole
  projection falls inside the image (horizontal sensor fit, Blender's camera
  model: ``u = 1/2 + (lens/sensor) x/(-z)``, ``v = 1/2 + (lens/sensor)(W/H) y/(-z)``
  in camera coordinates);
* a ray from ``c`` toward ``p`` is cast; the sample is *seen* when the first hit
  is the object itself (or nothing before ``p``), otherwise it is occluded by
  the object hit first; objects of a clear material (``Material.clear``: glass,
  clear plastic) never hide anything: the ray passes through them (the renderer
  draws them without refraction, so what a straight ray meets is what shows) and
  the shares seen through each are recorded as ``seen_through``;
* each camera-facing sample is weighted by its projected solid angle
  ``w = (n . d) / |c - p|^2`` (``d`` the unit direction to the camera), so the
  visibility fraction approximates the visible share of the object's image
  area: ``visibility = sum(w, seen & in frame) / sum(w, camera-facing)``.

``occluded_by`` gives, per frame, each occluding object's share of the weight.
Positions and quaternions come from the evaluated ``matrix_world``; the AABB is
over the evaluated mesh vertices in world space.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simkit.core.scene import Scene


def _surface_samples(me, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(points (n, 3), normals (n, 3), vertices (V, 3)) of mesh ``me`` in its local frame."""
    me.calc_loop_triangles()
    nv = len(me.vertices)
    verts = np.empty(nv * 3)
    me.vertices.foreach_get("co", verts)
    verts = verts.reshape(-1, 3)
    nt = len(me.loop_triangles)
    tri = np.empty(nt * 3, dtype=np.int64)
    me.loop_triangles.foreach_get("vertices", tri)
    tri = tri.reshape(-1, 3)
    corners = verts[tri]  # (nt, 3 corners, 3)
    # Canonical triangle order. bmesh primitive operators emit faces (and so loop triangles) in an order
    # that changes from process to process (it follows memory addresses), while the vertex coordinates
    # and the set of triangles do not. Sampling over triangles in mesh order would give another point
    # set in every process; so each triangle starts at its lexicographically smallest corner (winding
    # kept, so normals are unchanged) and triangles are sorted by their corner coordinates.
    key = np.round(corners, 6)
    start = np.array([np.lexsort(k[:, ::-1].T)[0] for k in key], dtype=np.int64)
    roll = (start[:, None] + np.arange(3)[None, :]) % 3
    corners = np.take_along_axis(corners, roll[:, :, None], axis=1)
    key = np.round(corners, 6).reshape(nt, 9)
    corners = corners[np.lexsort(key.T[::-1])]
    a, b, c = corners[:, 0], corners[:, 1], corners[:, 2]
    cr = np.cross(b - a, c - a)
    area = 0.5 * np.linalg.norm(cr, axis=1)
    normals = cr / np.maximum(2 * area, 1e-12)[:, None]
    rng = np.random.default_rng(0)
    pick = rng.choice(nt, size=n, p=area / area.sum())
    r1, r2 = rng.random(n), rng.random(n)
    s = np.sqrt(r1)
    pts = (1 - s)[:, None] * a[pick] + (s * (1 - r2))[:, None] * b[pick] + (s * r2)[:, None] * c[pick]
    return pts, normals[pick], verts


#: most clear surfaces (two per pane: front and back face) a visibility ray passes through
MAX_CLEAR_LAYERS = 16


def _cast(sc, dg, origin, direction, dist: float, own: str, clear: frozenset[str]):
    """Follow one visibility ray from the camera centre ``origin`` toward a sample ``dist`` m away.

    Returns (seen, occluder, passed): ``seen`` when the first opaque hit is the object ``own`` itself or
    lies at/after the sample; otherwise ``occluder`` names the opaque object hit first. Hits on objects in
    ``clear`` (clear materials, :attr:`simkit.core.scene.Material.clear`) do not stop the ray: it continues
    just past them, and ``passed`` lists the clear objects it went through.
    """
    start, reach = origin, float(dist) + 1e-3
    passed: list[str] = []
    for _ in range(MAX_CLEAR_LAYERS):
        hit, loc, _n, _idx, hob, _mat = sc.ray_cast(dg, start, direction, distance=reach)
        if not hit:
            return True, None, passed
        name = hob.original.name if hasattr(hob, "original") else hob.name
        travelled = (loc - origin).length
        if name == own or travelled >= dist - 1e-3 * max(1.0, dist):
            return True, None, passed
        if name not in clear:
            return False, name, passed
        if name not in passed:
            passed.append(name)
        start = loc + direction * 1e-4
        reach = float(dist) + 1e-3 - travelled - 1e-4
    return True, None, passed


def _visibility(sc, dg, cam, c, w2c, k, aspect, o, R, t, sample, clear):
    """(visibility, occluded_by, seen_through) of object ``o`` at world pose (R, t) on the current frame;
    see the module docstring."""
    from mathutils import Vector

    pts, nrm, _verts = sample
    P = pts @ R.T + t
    Nw = nrm @ np.linalg.inv(R)  # normals transform with the inverse transpose
    Nw = Nw / np.maximum(np.linalg.norm(Nw, axis=1), 1e-12)[:, None]
    to_cam = c - P
    dist = np.linalg.norm(to_cam, axis=1)
    d = to_cam / dist[:, None]
    cosang = np.einsum("ij,ij->i", Nw, d)
    facing = cosang > 1e-6
    weight = np.where(facing, cosang / np.maximum(dist, 1e-9) ** 2, 0.0)
    total = float(weight.sum())
    Pc = P @ w2c[:3, :3].T + w2c[:3, 3]
    zc = -Pc[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        u = 0.5 + k * Pc[:, 0] / zc
        v = 0.5 + k * aspect * Pc[:, 1] / zc
    in_frame = (zc > cam.data.clip_start) & (u >= 0) & (u <= 1) & (v >= 0) & (v <= 1)
    origin = Vector(c.tolist())
    seen = 0.0
    occ: dict[str, float] = {}
    through: dict[str, float] = {}
    for i in np.nonzero(facing & in_frame)[0]:
        ok, hit_name, passed = _cast(sc, dg, origin, Vector((-d[i]).tolist()), float(dist[i]), o.name, clear)
        if ok:
            seen += weight[i]
            for n in passed:
                through[n] = through.get(n, 0.0) + weight[i]
        else:
            occ[hit_name] = occ.get(hit_name, 0.0) + weight[i]

    def shares(acc: dict[str, float]) -> dict[str, float]:
        return (
            {n: round(w / total, 4) for n, w in sorted(acc.items()) if w / total >= 0.005}
            if total > 0
            else {}
        )

    return (round(seen / total, 4) if total > 0 else 0.0), shares(occ), shares(through)


def _record(o) -> dict[str, Any]:
    return {
        "role": o.role,
        "kind": o.kind,
        "dims": [float(x) for x in o.dims],
        "colour": o.material.name if o.material is not None else "",
        "mesh": o.mesh.asset_id if o.mesh is not None else "",
        "position": [],
        "rotation": [],
        "scale": [],
        "image_xy": [],
        "bbox_min": [],
        "bbox_max": [],
        "visibility": [],
        "occluded_by": [],
    }


def measure(session, scene: Scene, points: int = 192) -> dict[str, Any]:
    """Measure the built ``scene`` on every frame; returns the trajectory dict stored with the episode.

    Layout (lists, JSON-ready; T = ``scene.frames``)::

        {"frames": T, "fps": float, "resolution": [W, H],
         "camera": {"position": [x, y, z], "rotation": [w, x, y, z], "lens_mm": f, "sensor_mm": s},
         "objects": {name: {"role", "kind", "dims", "colour", "mesh" (asset id of a mesh object, else ""),
                            "position": (T, 3) m, "rotation": (T, 4) quaternion wxyz, "scale": (T, 3),
                            "image_xy": (T, 2) normalised image coords of the origin (0,0 bottom-left),
                            "bbox_min"/"bbox_max": (T, 3) m, "visibility": (T,) in [0, 1],
                            "occluded_by": T dicts name -> share}}}

    A moving camera (``scene.camera.track``): image positions and visibility are measured from the camera
    pose of each frame, ``camera.position``/``rotation`` give the last frame's pose and ``camera.track`` holds
    ``position`` (T, 3) and ``rotation`` (T, 4) of every frame.

    Clear materials (:attr:`simkit.core.scene.Material.clear`, e.g. a glass pane) are excluded from the
    hiding ray casts: a sample seen through one counts as seen. When the scene holds a clear object, every
    measured object also gets ``seen_through``: T dicts name -> share of its weight seen through that clear
    object (absent otherwise, so scenes without clear objects keep their layout).
    """
    bpy, sc = session.bpy, session.scene
    cam = sc.camera
    W, H = sc.render.resolution_x, sc.render.resolution_y
    k = cam.data.lens / cam.data.sensor_width
    samples = {o.name: _surface_samples(session.objects[o.name].data, points) for o in scene.objects}
    clear = frozenset(o.name for o in scene.objects if o.material is not None and o.material.clear)
    T = scene.frames
    out: dict[str, dict[str, Any]] = {o.name: _record(o) for o in scene.objects}
    if clear:
        for rec in out.values():
            rec["seen_through"] = []
    cam_track: dict[str, list] = {"position": [], "rotation": []}
    for f in range(T):
        sc.frame_set(f)
        dg = bpy.context.evaluated_depsgraph_get()
        cm = np.array(cam.matrix_world)
        c = cm[:3, 3]
        w2c = np.linalg.inv(cm)
        if scene.camera.track is not None:
            loc_f, rot_f, _ = cam.matrix_world.decompose()
            cam_track["position"].append([round(float(x), 6) for x in loc_f])
            cam_track["rotation"].append([round(float(x), 6) for x in (rot_f.w, rot_f.x, rot_f.y, rot_f.z)])
        for o in scene.objects:
            ob = session.objects[o.name]
            rec = out[o.name]
            m = np.array(ob.matrix_world)
            R, t = m[:3, :3], m[:3, 3]
            loc, rot, scl = ob.matrix_world.decompose()
            rec["position"].append([round(float(x), 6) for x in t])
            rec["rotation"].append([round(float(x), 6) for x in (rot.w, rot.x, rot.y, rot.z)])
            rec["scale"].append([round(float(x), 6) for x in scl])
            # in float64 whatever the arrays' dtype: numpy 2 keeps float32 scalars float32 (NEP 50)
            pc = [float(c) for c in w2c[:3, :3] @ t + w2c[:3, 3]]
            depth = max(-pc[2], 1e-9)
            rec["image_xy"].append(
                [round(0.5 + k * pc[0] / depth, 6), round(0.5 + k * (W / H) * pc[1] / depth, 6)]
            )
            vw = samples[o.name][2] @ R.T + t
            rec["bbox_min"].append([round(float(x), 6) for x in vw.min(0)])
            rec["bbox_max"].append([round(float(x), 6) for x in vw.max(0)])
            if not o.measure:
                vis, occ, through = 1.0, {}, {}
            else:
                vis, occ, through = _visibility(
                    sc, dg, cam, c, w2c, k, W / H, o, R, t, samples[o.name], clear
                )
            rec["visibility"].append(vis)
            rec["occluded_by"].append(occ)
            if clear:
                rec["seen_through"].append(through)
    cam_loc, cam_rot, _ = cam.matrix_world.decompose()
    camera = {
        "position": [float(x) for x in cam_loc],
        "rotation": [cam_rot.w, cam_rot.x, cam_rot.y, cam_rot.z],
        "lens_mm": float(cam.data.lens),
        "sensor_mm": float(cam.data.sensor_width),
    }
    if scene.camera.track is not None:
        camera["track"] = cam_track
    return {"frames": T, "fps": float(scene.fps), "resolution": [W, H], "camera": camera, "objects": out}
