"""Benchmark: seconds per WROP sample per engine, simkit vs a bare bpy script (the floor).

For each engine the same scene (one task generator, fixed seeds) is rendered twice:

* simkit: ``WropGenerator.generate`` (compose, reset + build, render to PNG and read back, ray-cast
  visibility for every object and frame, expectation check) plus H.264 encoding of both halves;
* floor: a subprocess running a bare ``bpy`` script (no simkit import) that reads the scene as JSON,
  builds the same meshes (props: the OBJ rotated and fitted into its box), materials (procedural patterns
  included), keyframes, camera, sun, lamps and world, and renders the animation to PNG files.

Both time only the work after ``import bpy`` and the factory-empty reset. Slow engines can render a
shorter clip (``--frames``); the table reports seconds per frame and the extrapolation to a 120-frame
sample. ``--generator sample:K`` times K generators spread over the catalogue (each its first sample that
passes its checks, as the engine redraws) and prints the total ratio. The floor builds the same primitives
(wedges, open boxes, cups), clear materials and moving cameras. Usage::

    python tools/bench_wrop.py --engines workbench,cycles --frames 24 --width 1280 --height 720
    python tools/bench_wrop.py --generator sample:8 --frames 24 --width 1280 --height 720
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

FLOOR = r"""
import json, sys, time, tempfile
import bpy, bmesh
import numpy as np
spec = json.load(open(sys.argv[1]))
bpy.ops.wm.read_factory_settings(use_empty=True)
t0 = time.perf_counter()
sc = bpy.context.scene
def lin(c):
    c = np.asarray(c, float)
    return tuple(np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).tolist())
from mathutils import Matrix, Euler
def prop_mesh(o):  # an OBJ rotated upright and fitted into its box, standing on the box's bottom
    before = set(bpy.data.objects)
    bpy.ops.wm.obj_import(filepath=o["path"], forward_axis="Y", up_axis="Z")
    parts = [x for x in bpy.data.objects if x not in before]
    me = parts[0].data; me.transform(parts[0].matrix_world); me.transform(Euler(o["rot"], "XYZ").to_matrix().to_4x4())
    for x in parts: bpy.data.objects.remove(x)
    v = np.array([x.co[:] for x in me.vertices]); lo, hi = v.min(0), v.max(0); box = np.array(o["dims"])
    s = float(np.min(box / np.maximum(hi - lo, 1e-12))); c = (lo + hi) / 2
    m = np.eye(4) * s; m[3, 3] = 1; m[:3, 3] = [-s * c[0], -s * c[1], -box[2] / 2 - s * lo[2]]
    me.transform(Matrix(m.tolist())); me.materials.clear(); return me
def pattern(tree, b, o):  # base * (1 - contrast * f), f from a procedural texture on object coordinates
    n, L = tree.nodes, tree.links; p, s = o["pattern"], o["pattern_scale"]
    tc = n.new("ShaderNodeTexCoord"); mp = n.new("ShaderNodeMapping"); L.new(tc.outputs["Object"], mp.inputs["Vector"])
    mp.inputs["Scale"].default_value = (s / 8, s * 6, s * 6) if p == "brushed" else (s, s, s)
    def wave(kind, axis, dist, det):
        w = n.new("ShaderNodeTexWave"); w.wave_type = kind
        setattr(w, "rings_direction" if kind == "RINGS" else "bands_direction", axis)
        w.inputs["Scale"].default_value = 1.0; w.inputs["Distortion"].default_value = dist
        w.inputs["Detail"].default_value = det; L.new(mp.outputs["Vector"], w.inputs["Vector"]); return w.outputs["Fac"]
    if p == "wood": f = wave("RINGS", "Z", 2.0, 3.0)
    elif p == "marble": f = wave("BANDS", "DIAGONAL", 9.0, 6.0)
    elif p == "checker":
        c = n.new("ShaderNodeTexChecker"); c.inputs["Scale"].default_value = 1.0
        c.inputs["Color1"].default_value = (0, 0, 0, 1); c.inputs["Color2"].default_value = (1, 1, 1, 1)
        L.new(mp.outputs["Vector"], c.inputs["Vector"]); f = c.outputs["Fac"]
    elif p == "brushed":
        c = n.new("ShaderNodeTexNoise"); c.inputs["Scale"].default_value = 1.0; c.inputs["Detail"].default_value = 4.0
        L.new(mp.outputs["Vector"], c.inputs["Vector"]); f = c.outputs["Fac"]
        b.inputs["Metallic"].default_value, b.inputs["Roughness"].default_value = 0.8, 0.3
    else:
        mu = n.new("ShaderNodeMath"); mu.operation = "MULTIPLY"
        L.new(wave("BANDS", "X", 0, 0), mu.inputs[0]); L.new(wave("BANDS", "Y", 0, 0), mu.inputs[1]); f = mu.outputs[0]
        b.inputs["Roughness"].default_value = 0.9
    k = n.new("ShaderNodeMath"); k.operation, k.use_clamp = "MULTIPLY_ADD", True; L.new(f, k.inputs[0])
    k.inputs[1].default_value, k.inputs[2].default_value = -o["pattern_contrast"], 1.0
    t = n.new("ShaderNodeVectorMath"); t.operation = "SCALE"; t.inputs[0].default_value = lin(o["rgb"])
    L.new(k.outputs[0], t.inputs["Scale"]); L.new(t.outputs["Vector"], b.inputs["Base Color"])
for o in spec["objects"]:
    bm = bmesh.new(); k, d = o["kind"], o["dims"]
    if k == "mesh":
        pass
    elif k == "wedge":
        sx, sy, sz = d[0] / 2, d[1] / 2, d[2] / 2
        c = [(-sx, -sy, -sz), (sx, -sy, -sz), (sx, -sy, sz), (-sx, sy, -sz), (sx, sy, -sz), (sx, sy, sz)]
        v = [bm.verts.new(p) for p in c]
        for fc in ((0, 1, 2), (3, 5, 4), (0, 3, 4, 1), (1, 4, 5, 2), (0, 2, 5, 3)):
            bm.faces.new([v[i] for i in fc])
    elif k in ("box", "open_box"):
        bmesh.ops.create_cube(bm, size=1.0); bmesh.ops.scale(bm, vec=d, verts=bm.verts)
        if k == "open_box":
            bmesh.ops.delete(bm, geom=[f for f in bm.faces if f.normal.z > 0.9], context="FACES_ONLY")
    elif k == "sphere":
        bmesh.ops.create_uvsphere(bm, u_segments=24, v_segments=12, radius=d[0])
    else:
        bmesh.ops.create_cone(bm, cap_ends=True, cap_tris=False, segments=32, radius1=d[0], radius2=d[0], depth=d[1])
        if k == "cup":
            bmesh.ops.delete(bm, geom=[f for f in bm.faces if f.normal.z < -0.9], context="FACES_ONLY")
    if k == "mesh":
        me = prop_mesh(o); bm.free()
    else:
        me = bpy.data.meshes.new(o["name"]); bm.to_mesh(me); bm.free()
    mat = bpy.data.materials.new(o["name"]); mat.diffuse_color = (*lin(o["rgb"]), 1.0)
    mat.roughness, mat.metallic = o["roughness"], o["metallic"]
    b = mat.node_tree.nodes.get("Principled BSDF")
    b.inputs["Base Color"].default_value = (*lin(o["rgb"]), 1.0)
    if o["pattern"] != "plain":
        pattern(mat.node_tree, b, o)
    if o["alpha"] < 1.0:
        mat.diffuse_color = (*lin(o["rgb"]), o["alpha"]); mat.surface_render_method = "BLENDED"
        b.inputs["Alpha"].default_value = o["alpha"]
    me.materials.append(mat)
    ob = bpy.data.objects.new(o["name"], me); sc.collection.objects.link(ob)
    for f, (p, r) in enumerate(zip(o["position"], o["rotation"])):
        ob.location, ob.rotation_euler = p, r
        ob.keyframe_insert("location", frame=f); ob.keyframe_insert("rotation_euler", frame=f)
        ob.keyframe_insert("scale", frame=f)
cam = bpy.data.cameras.new("c"); cam.lens = spec["lens"]; co = bpy.data.objects.new("c", cam)
co.location = spec["cam_loc"]; co.rotation_mode = "QUATERNION"; co.rotation_quaternion = spec["cam_rot"]
sc.collection.objects.link(co); sc.camera = co
for f, (p, q) in enumerate(spec["cam_track"]):
    co.location, co.rotation_quaternion = p, q
    co.keyframe_insert("location", frame=f); co.keyframe_insert("rotation_quaternion", frame=f)
sun = bpy.data.lights.new("s", "SUN"); sun.energy = spec["sun"][2]; so = bpy.data.objects.new("s", sun)
sun.color, sun.angle = spec["sun"][3], spec["sun"][4]
so.rotation_euler = (np.pi / 2 - spec["sun"][1], 0, spec["sun"][0]); sc.collection.objects.link(so)
for i, (kind, loc, quat, power, rgb, size, spot) in enumerate(spec["lamps"]):
    li = bpy.data.lights.new(f"l{i}", kind.upper()); li.energy, li.color = power, rgb
    if kind == "area":
        li.shape, li.size = "SQUARE", size
    else:
        li.shadow_soft_size = size
    if kind == "spot":
        li.spot_size, li.spot_blend = np.radians(spot), 0.3
    lo = bpy.data.objects.new(f"l{i}", li); lo.location = loc; lo.rotation_mode = "QUATERNION"
    lo.rotation_quaternion = quat; sc.collection.objects.link(lo)
w = bpy.data.worlds.new("w"); w.color = lin(spec["bg"]); sc.world = w
w.node_tree.nodes["Background"].inputs["Color"].default_value = (*lin(spec["bg"]), 1.0)
w.node_tree.nodes["Background"].inputs["Strength"].default_value = spec["world_strength"]
r = sc.render
r.engine = {"workbench": "BLENDER_WORKBENCH", "eevee": "BLENDER_EEVEE", "cycles": "CYCLES"}[spec["engine"]]
r.resolution_x, r.resolution_y, r.resolution_percentage = spec["width"], spec["height"], 100
sc.frame_start, sc.frame_end = 0, spec["frames"] - 1
r.image_settings.file_format = "PNG"; r.image_settings.color_mode = "RGB"
sc.view_settings.view_transform = "Standard"
if spec["engine"] == "workbench":
    sc.display.shading.color_type = "MATERIAL"; sc.display.shading.show_shadows = True
    sc.display.shading.background_type = "WORLD"
elif spec["engine"] == "cycles":
    sc.cycles.samples = spec["samples"]; sc.cycles.use_denoising = True
else:
    sc.eevee.taa_render_samples = spec["samples"]
with tempfile.TemporaryDirectory() as tmp:
    r.filepath = tmp + "/f_"
    bpy.ops.render.render(animation=True)
print("FLOOR_SECONDS", time.perf_counter() - t0)
"""


def scene_json(gen, task_cls, s_seed: int, u_seed: int, path: str) -> None:
    task, _s, look, comp = gen.compose(task_cls, s_seed, u_seed)
    cam = look.camera(task.view) if comp.camera is None else look.camera_path(comp.camera)
    track = [] if cam.track is None else list(zip(cam.track.location.tolist(), cam.track.quaternion.tolist()))
    sun, world_strength, lamps = look.lights()
    cfg = gen.config
    spec = {
        "objects": [
            {
                "name": o.name,
                "kind": o.kind,
                "dims": list(o.dims),
                "rgb": list(o.material.rgb),
                "roughness": o.material.roughness,
                "metallic": o.material.metallic,
                "pattern": o.material.pattern,
                "pattern_scale": o.material.pattern_scale,
                "pattern_contrast": o.material.pattern_contrast,
                "path": o.mesh.path if o.mesh else "",
                "rot": list(o.mesh.rotation) if o.mesh else [],
                "alpha": getattr(o.material, "alpha", 1.0),
                "position": o.track.position.tolist(),
                "rotation": o.track.rotation.tolist(),
            }
            for o in comp.objects
        ],
        "lamps": [
            [
                la.kind,
                list(la.location),
                la.quaternion().tolist(),
                la.power,
                list(la.rgb),
                la.size,
                la.spot_deg,
            ]
            for la in lamps
        ],
        "world_strength": world_strength,
        "lens": cam.lens_mm,
        "cam_loc": list(cam.location),
        "cam_rot": cam.quaternion().tolist(),
        "cam_track": track,
        "sun": [sun.azimuth, sun.elevation, sun.strength, list(sun.rgb), sun.angle],
        "bg": list(look.background()),
        "engine": cfg.engine,
        "width": cfg.width,
        "height": cfg.height,
        "frames": cfg.frames,
        "samples": cfg.samples,
    }
    with open(path, "w") as f:
        json.dump(spec, f)


def pick(spec: str) -> list[str]:
    """Generator ids: a comma list of ids, or ``sample:K`` = K ids spread evenly over the catalogue (every
    (n/K)-th in catalogue order, so each family is represented in proportion)."""
    from simkit.generators.wrop import catalogue

    ids = list(catalogue())
    if spec.startswith("sample:"):
        k = min(int(spec.split(":", 1)[1]), len(ids))
        return [ids[int(i * len(ids) / k)] for i in range(k)]
    return spec.split(",")


def time_one(gid: str, engine: str, args) -> dict:
    """Median seconds of simkit and of the bare bpy floor for one generator's first passing sample."""
    import numpy as np

    from simkit.core.errors import SampleRejected
    from simkit.core.seeding import episode_rng
    from simkit.episodes.codecs import encode
    from simkit.generators.wrop import WropConfig, WropGenerator, catalogue

    gen = WropGenerator()
    cfg = WropConfig(
        generator=gid,
        frames=args.frames,
        width=args.width,
        height=args.height,
        engine=engine,
        samples=args.samples,
        frame_progress="off",
    )
    gen.setup(cfg)
    gen.session()  # import bpy + factory-empty reset, outside the timing (the floor does the same)
    redraw = 0
    while True:  # the engine's redraw: the first derived seed whose sample passes its checks
        try:
            gen.generate(0, episode_rng(0, "wrop", 0, redraw))
            break
        except SampleRejected:
            redraw += 1
    s_seed, u_seed = gen.draw_seeds(episode_rng(0, "wrop", 0, redraw), "train")
    simkit_t, floor_t = [], []
    for _rep in range(args.repeats):
        t0 = time.perf_counter()
        ep = gen.generate(0, episode_rng(0, "wrop", 0, redraw))
        for name in ("input_video", "target_video"):
            encode(ep.fields[name])
        simkit_t.append(time.perf_counter() - t0)
        with tempfile.TemporaryDirectory() as tmp:
            js, py = os.path.join(tmp, "scene.json"), os.path.join(tmp, "floor.py")
            scene_json(gen, catalogue()[gid], s_seed, u_seed, js)
            with open(py, "w") as f:
                f.write(FLOOR)
            out = subprocess.run([sys.executable, py, js], capture_output=True, text=True, check=True).stdout
            floor_t.append(
                float(next(ln for ln in out.splitlines() if ln.startswith("FLOOR_SECONDS")).split()[1])
            )
    sk, fl = float(np.median(simkit_t)), float(np.median(floor_t))
    return {
        "generator": gid,
        "engine": engine,
        "frames": args.frames,
        "resolution": f"{args.width}x{args.height}",
        "samples": args.samples,
        "simkit_s": round(sk, 2),
        "floor_s": round(fl, 2),
        "simkit_s_per_120": round(sk / args.frames * 120, 1),
        "floor_s_per_120": round(fl / args.frames * 120, 1),
        "ratio": round(sk / fl, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engines", default="workbench")
    ap.add_argument(
        "--generator",
        default="OP-1/ball_behind_screen",
        help="ids (comma list) or sample:K (K spread evenly)",
    )
    ap.add_argument(
        "--frames", type=int, default=120, help="frames rendered (per-frame cost is extrapolated to 120)"
    )
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()

    rows = []
    for engine in args.engines.split(","):
        for gid in pick(args.generator):
            rows.append(time_one(gid, engine, args))
            print(json.dumps(rows[-1]), flush=True)
    print(
        f"{'generator':<34} {'engine':<10} {'frames':>6} {'res':>10} {'simkit s':>9} {'floor s':>8} {'ratio':>6}"
    )
    for r in rows:
        print(
            f"{r['generator']:<34} {r['engine']:<10} {r['frames']:>6} {r['resolution']:>10} {r['simkit_s']:>9} "
            f"{r['floor_s']:>8} {r['ratio']:>6}"
        )
    tot_s, tot_f = sum(r["simkit_s"] for r in rows), sum(r["floor_s"] for r in rows)
    print(f"all: simkit {tot_s:.1f} s, floor {tot_f:.1f} s, ratio {tot_s / tot_f:.3f}")


if __name__ == "__main__":
    main()
