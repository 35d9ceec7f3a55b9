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
  the object hit first;
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
    """
    from mathutils import Vector

    bpy, sc = session.bpy, session.scene
    cam = sc.camera
    W, H = sc.render.resolution_x, sc.render.resolution_y
    k = cam.data.lens / cam.data.sensor_width
    samples = {o.name: _surface_samples(session.objects[o.name].data, points) for o in scene.objects}
    T = scene.frames
    out: dict[str, dict[str, Any]] = {
        o.name: {
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
        for o in scene.objects
    }
    for f in range(T):
        sc.frame_set(f)
        dg = bpy.context.evaluated_depsgraph_get()
        cm = np.array(cam.matrix_world)
        c = cm[:3, 3]
        w2c = np.linalg.inv(cm)
        origin = Vector(c.tolist())
        for o in scene.objects:
            ob = session.objects[o.name]
            rec = out[o.name]
            m = np.array(ob.matrix_world)
            R, t = m[:3, :3], m[:3, 3]
            loc, rot, scl = ob.matrix_world.decompose()
            rec["position"].append([round(float(x), 6) for x in t])
            rec["rotation"].append([round(float(x), 6) for x in (rot.w, rot.x, rot.y, rot.z)])
            rec["scale"].append([round(float(x), 6) for x in scl])
            pc = w2c[:3, :3] @ t + w2c[:3, 3]
            depth = max(-pc[2], 1e-9)
            rec["image_xy"].append(
                [round(0.5 + k * pc[0] / depth, 6), round(0.5 + k * (W / H) * pc[1] / depth, 6)]
            )
            pts, nrm, verts = samples[o.name]
            vw = verts @ R.T + t
            rec["bbox_min"].append([round(float(x), 6) for x in vw.min(0)])
            rec["bbox_max"].append([round(float(x), 6) for x in vw.max(0)])
            if not o.measure:
                rec["visibility"].append(1.0)
                rec["occluded_by"].append({})
                continue
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
                v = 0.5 + k * (W / H) * Pc[:, 1] / zc
            in_frame = (zc > cam.data.clip_start) & (u >= 0) & (u <= 1) & (v >= 0) & (v <= 1)
            seen = 0.0
            occ: dict[str, float] = {}
            for i in np.nonzero(facing & in_frame)[0]:
                direction = Vector((-d[i]).tolist())
                hit, _loc, _n, _idx, hob, _mat = sc.ray_cast(
                    dg, origin, direction, distance=float(dist[i]) + 1e-3
                )
                if not hit:
                    seen += weight[i]
                    continue
                name = hob.original.name if hasattr(hob, "original") else hob.name
                if name == o.name or (_loc - origin).length >= dist[i] - 1e-3 * max(1.0, dist[i]):
                    seen += weight[i]
                else:
                    occ[name] = occ.get(name, 0.0) + weight[i]
            rec["visibility"].append(round(seen / total, 4) if total > 0 else 0.0)
            rec["occluded_by"].append(
                {n: round(w / total, 4) for n, w in sorted(occ.items()) if w / total >= 0.005}
                if total > 0
                else {}
            )
    cam_loc, cam_rot, _ = cam.matrix_world.decompose()
    return {
        "frames": T,
        "fps": float(scene.fps),
        "resolution": [W, H],
        "camera": {
            "position": [float(x) for x in cam_loc],
            "rotation": [cam_rot.w, cam_rot.x, cam_rot.y, cam_rot.z],
            "lens_mm": float(cam.data.lens),
            "sensor_mm": float(cam.data.sensor_width),
        },
        "objects": out,
    }
