"""Seconds per pair: a bare bpy script rendering the same scene vs simkit's pairs generator with labels.

    python tools/bench_pairs.py [--n 3] [--width 640] [--height 360] [--samples 128] [--engine cycles]

For each pair the scene is composed once (same meshes, poses, cameras, lights); then

* ``bare``: a plain bpy script (factory-empty file, the glTF/OBJ/PLY importers, keyframes, the same Cycles
  settings as simkit: samples, adaptive sampling, denoising, CPU; ``render.render(animation=True)`` of the
  two frames to PNG), no simkit code in the loop;
* ``simkit``: ``PairsGenerator.generate`` (build, render, geometry read-back, analytic labels, episode);
* ``labels``: the part of ``simkit`` spent on the labels (rasterising both views, correspondence,
  covisibility), measured on the same geometry.

Runs alternate (bare, simkit) per pair so load changes on a shared machine hit both, after one tiny warm-up
render (Cycles and the denoiser load once per process). Prints a markdown table.
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from pathlib import Path

import numpy as np

from simkit.core.seeding import episode_rng
from simkit.generators.pairs.generator import PairsConfig, PairsGenerator


def bare_render(scene, width: int, height: int, samples: int, engine: str) -> float:
    """Render ``scene`` (a simkit.core.scene.Scene) with plain bpy calls; returns seconds."""
    import bpy
    from mathutils import Matrix

    t0 = time.perf_counter()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    sc = bpy.context.scene
    for o in scene.objects:
        before = set(bpy.data.objects)
        p = o.mesh.path
        if p.lower().endswith((".glb", ".gltf")):
            bpy.ops.import_scene.gltf(filepath=p)
        elif p.lower().endswith(".obj"):
            bpy.ops.wm.obj_import(filepath=p, forward_axis="Y", up_axis="Z")
        else:
            bpy.ops.wm.ply_import(filepath=p)
        parts = [ob for ob in bpy.data.objects if ob not in before and ob.type == "MESH"]
        for ob in parts:  # bake the file's transforms, then fit all parts together to a 2 m diagonal
            ob.data.transform(ob.matrix_world)
            ob.parent, ob.matrix_world = None, Matrix.Identity(4)
        v = np.concatenate([np.array([tuple(x.co) for x in ob.data.vertices]) for ob in parts])
        lo, hi = v.min(0), v.max(0)
        s = 2.0 / np.linalg.norm(hi - lo)
        m = np.eye(4) * s
        m[3, 3], m[:3, 3] = 1, -s * (lo + hi) / 2
        for ob in parts:
            ob.data.transform(Matrix(m.tolist()))
            if o.material is not None:
                mat = bpy.data.materials.new("m")
                mat.diffuse_color = (*o.material.rgb, 1)
                ob.data.materials.clear()
                ob.data.materials.append(mat)
            ob.rotation_mode = "XYZ"
            for f in range(2):
                ob.location, ob.rotation_euler = o.track.position[f], o.track.rotation[f]
                ob.scale = o.track.scale[f]
                for attr in ("location", "rotation_euler", "scale"):
                    ob.keyframe_insert(attr, frame=f)
    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    cam.data.lens, cam.data.sensor_width = scene.camera.lens_mm, scene.camera.sensor_mm
    cam.rotation_mode = "QUATERNION"
    for f in range(2):
        cam.location = scene.camera.track.location[f]
        cam.rotation_quaternion = scene.camera.track.quaternion[f]
        cam.keyframe_insert("location", frame=f)
        cam.keyframe_insert("rotation_quaternion", frame=f)
    sc.collection.objects.link(cam)
    sc.camera = cam
    sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
    sun.data.energy, sun.data.angle = scene.sun.strength, np.radians(3.0)
    sun.rotation_euler = (np.pi / 2 - scene.sun.elevation, 0, scene.sun.azimuth)
    sc.collection.objects.link(sun)
    world = bpy.data.worlds.new("world")
    bg = world.node_tree.nodes["Background"]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in scene.background]  # sRGB
    bg.inputs["Color"].default_value = (*lin, 1.0)
    bg.inputs["Strength"].default_value = scene.world_strength
    sc.world = world
    r = sc.render
    r.engine = {"cycles": "CYCLES", "eevee": "BLENDER_EEVEE", "workbench": "BLENDER_WORKBENCH"}[engine]
    r.resolution_x, r.resolution_y, r.resolution_percentage = width, height, 100
    sc.view_settings.view_transform = "Standard"
    cy = sc.cycles  # the same sampling settings as simkit's session
    cy.samples, cy.use_denoising, cy.use_adaptive_sampling, cy.device = samples, True, True, "CPU"
    sc.frame_start, sc.frame_end = 0, 1
    with tempfile.TemporaryDirectory() as tmp:
        r.filepath = str(Path(tmp) / "f_")
        bpy.ops.render.render(animation=True)
    return time.perf_counter() - t0


def labels_seconds(g: PairsGenerator, scene) -> float:
    """Seconds of the label computation alone on the geometry of ``scene`` (built by ``g``'s session)."""
    from simkit.renderers.pairs.correspondence import View, dense_correspondence
    from simkit.renderers.raster import extrinsics, intrinsics
    from simkit.scenes.pairs.compile import LENS_MM, SENSOR_MM

    ses, c = g.session(), g.config
    names = [o.name for o in scene.objects]
    meshes = [ses.geometry(n) for n in names]
    pa, ca = ses.world_matrices(0)
    pb, cb = ses.world_matrices(1)
    K = intrinsics(LENS_MM, SENSOR_MM, c.width, c.height)
    t0 = time.perf_counter()
    a = View(K, extrinsics(ca), [pa[n] for n in names], c.width, c.height)
    b = View(K, extrinsics(cb), [pb[n] for n in names], c.width, c.height)
    dense_correspondence(meshes, a, b)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=3)
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=360)
    ap.add_argument("--samples", type=int, default=128)
    ap.add_argument("--engine", default="cycles")
    args = ap.parse_args()
    g = PairsGenerator()
    cfg = PairsConfig(
        width=args.width, height=args.height, samples=args.samples, engine=args.engine, device="cpu"
    )
    g.setup(cfg)
    rows = []
    _, _, first = g.compose(*[int(x) for x in episode_rng(0, "pairs", 0).integers(0, 2**62, size=2)])
    bare_render(first, 64, 36, 1, args.engine)  # warm-up: Cycles and the denoiser load once per process
    for i in range(args.n):
        rng = episode_rng(0, "pairs", i)
        seeds = [int(x) for x in rng.integers(0, 2**62, size=2)]
        _, _, scene = g.compose(*seeds)
        bare = bare_render(scene, args.width, args.height, args.samples, args.engine)
        g._session = None  # the bare script reset Blender's file; a fresh session object reloads it
        import simkit.renderers.blender.session as S

        S._SESSION = None
        t0 = time.perf_counter()
        g.generate(i, episode_rng(0, "pairs", i))
        full = time.perf_counter() - t0
        lab = labels_seconds(g, scene)
        rows.append((i, len(scene.objects), bare, full, lab))
        print(f"pair {i}: bare {bare:.2f} s, simkit {full:.2f} s, labels {lab:.3f} s", flush=True)
    print(
        f"\n{platform.processor() or platform.machine()}, {args.width}x{args.height}, {args.engine} {args.samples} spp\n"
    )
    print("| pair | objects | bare s | simkit s | labels s | simkit / bare | labels / bare |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for i, n, b, f, lab in rows:
        print(f"| {i} | {n} | {b:.2f} | {f:.2f} | {lab:.3f} | {f / b:.3f} | {lab / b:.3%} |")
    b, f, lab = (np.mean([r[k] for r in rows]) for k in (2, 3, 4))
    print(f"| mean | | {b:.2f} | {f:.2f} | {lab:.3f} | {f / b:.3f} | {lab / b:.3%} |")


if __name__ == "__main__":
    main()
