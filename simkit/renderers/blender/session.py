"""A persistent per-process Blender session that renders :class:`simkit.scenes.wrop.spec.Scene` objects.

``bpy`` is imported here, inside functions, so importing this module is cheap.
Blender's Python module keeps one global ``bpy.data``; one :class:`BlenderSession`
per process owns it. It loads the factory-empty startup once, and
:meth:`BlenderSession.reset` deletes every object, mesh, material, light, camera,
world and action between samples (no reload of the startup file).

Per scene it

1. builds meshes for the primitives (``bmesh``), one material per object
   (Principled BSDF for Cycles/EEVEE; the viewport colour/roughness/metallic
   that Workbench's MATERIAL colour mode shows), a sun and a world colour;
2. keys location, XYZ Euler rotation and scale of every object on every frame;
3. renders frames ``0 .. T-1`` to PNG files in a temporary directory and reads them
   back as one uint8 array (T, H, W, 3);
4. measures ground truth per object per frame (see :mod:`.visibility`).

Engines: ``workbench`` (BLENDER_WORKBENCH), ``eevee`` (BLENDER_EEVEE, EEVEE Next in
Blender >= 4.2), ``cycles`` (CPU, or GPU when ``device`` is ``gpu``/``auto`` and
one is available through OptiX, CUDA, HIP, Metal or oneAPI).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import TransientError, require
from simkit.scenes.wrop.spec import Scene, SceneObject

ENGINES = {"workbench": "BLENDER_WORKBENCH", "eevee": "BLENDER_EEVEE", "cycles": "CYCLES"}


@dataclass
class RenderSettings:
    """Render settings: ``engine`` (workbench|eevee|cycles), ``width``/``height`` px, ``samples`` per pixel
    (Cycles path samples, EEVEE TAA samples; Workbench anti-aliasing is fixed at 8 samples), ``denoise``
    (Cycles OpenImageDenoise), ``device`` (auto|cpu|gpu, Cycles only), ``view_transform`` (Blender colour
    management: Standard, AgX, Filmic, ...), ``threads`` (0 = Blender decides)."""

    engine: str = "workbench"
    width: int = 320
    height: int = 180
    samples: int = 16
    denoise: bool = True
    device: str = "auto"
    view_transform: str = "Standard"
    threads: int = 0


@contextlib.contextmanager
def quiet_fds():
    """Silence C-level stdout/stderr (Blender's per-frame 'Fra:'/'Saved:' lines) for the duration."""
    try:
        saved = os.dup(1), os.dup(2)
    except OSError:  # pragma: no cover - no file descriptors (embedded)
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
        os.close(devnull)


def blender_version() -> str:
    """The version of the installed ``bpy`` (e.g. ``"5.0.1"``), read from its package metadata.

    ``bpy`` is deliberately not imported: importing it puts Blender's ``scripts/modules`` folders on
    ``sys.path``, and process pools that spawn workers copy the parent's ``sys.path``, where the inner
    ``bpy`` package of those folders would then shadow the real module (``No module named '_bpy'``).
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bpy")
    except PackageNotFoundError:
        return require("bpy", "blender").app.version_string


def _import_bpy():
    """Import ``bpy``, first dropping Blender ``scripts`` folders a parent process may have left on ``sys.path``
    (see :func:`blender_version`)."""
    import sys

    if "bpy" not in sys.modules:
        sys.path[:] = [p for p in sys.path if not (os.sep + "bpy" + os.sep in p and os.sep + "scripts" in p)]
    return require("bpy", "blender")


class BlenderSession:
    """The process's Blender: build, render and measure scenes; see the module docstring.

    Raises:
        ExtraMissing: ``bpy`` is not installed (``pip install 'simkit[blender]'``).
    """

    def __init__(self) -> None:
        self.bpy = _import_bpy()
        with quiet_fds():
            self.bpy.ops.wm.read_factory_settings(use_empty=True)
        self.scene = self.bpy.context.scene
        self.version = self.bpy.app.version_string
        self._gpu: bool | None = None
        self.objects: dict[str, Any] = {}

    # -- scene life cycle -------------------------------------------------------------------------
    def reset(self) -> None:
        """Delete every data-block a scene build creates; the (empty) scene and its settings stay."""
        d = self.bpy.data
        for obj in list(self.scene.collection.objects):
            self.scene.collection.objects.unlink(obj)
        ids = []
        for coll in (d.objects, d.meshes, d.materials, d.lights, d.cameras, d.worlds, d.actions, d.images):
            ids.extend(coll)
        if ids:
            d.batch_remove(ids)
        self.objects = {}

    def configure(self, s: RenderSettings, frames: int, fps: float) -> None:
        """Apply render settings, frame range ``0 .. frames-1`` and ``fps`` to the scene."""
        sc, r = self.scene, self.scene.render
        if s.engine not in ENGINES:
            raise ValueError(f"unknown engine {s.engine!r}; use one of {sorted(ENGINES)}")
        r.engine = ENGINES[s.engine]
        r.resolution_x, r.resolution_y, r.resolution_percentage = int(s.width), int(s.height), 100
        r.pixel_aspect_x = r.pixel_aspect_y = 1.0
        from fractions import Fraction

        fr = Fraction(fps).limit_denominator(1001)
        r.fps, r.fps_base = fr.numerator, fr.numerator / float(fps)
        sc.frame_start, sc.frame_end, sc.frame_step = 0, frames - 1, 1
        r.image_settings.file_format = "PNG"
        r.image_settings.color_mode = "RGB"
        r.image_settings.color_depth = "8"
        r.use_file_extension = True
        r.film_transparent = False
        r.threads_mode = "FIXED" if s.threads > 0 else "AUTO"
        if s.threads > 0:
            r.threads = s.threads
        sc.view_settings.view_transform = s.view_transform
        sc.view_settings.look = "None"
        sc.view_settings.exposure = 0.0
        sc.view_settings.gamma = 1.0
        sc.display_settings.display_device = "sRGB"
        if s.engine == "workbench":
            sh = sc.display.shading
            sh.light = "STUDIO"
            sh.color_type = "MATERIAL"
            sh.show_shadows = True
            sh.shadow_intensity = 0.4
            sh.background_type = "WORLD"
            sc.display.render_aa = "8"
        elif s.engine == "eevee":
            sc.eevee.taa_render_samples = int(s.samples)
        else:
            cy = sc.cycles
            cy.samples = int(s.samples)
            cy.use_denoising = bool(s.denoise)
            cy.use_adaptive_sampling = True
            cy.device = "GPU" if (s.device != "cpu" and self._has_gpu(s.device == "gpu")) else "CPU"

    def _has_gpu(self, required: bool) -> bool:
        if self._gpu is None:
            self._gpu = False
            try:
                prefs = self.bpy.context.preferences.addons["cycles"].preferences
                for kind in ("OPTIX", "CUDA", "HIP", "METAL", "ONEAPI"):
                    try:
                        prefs.compute_device_type = kind
                    except TypeError:
                        continue
                    with quiet_fds():  # Cycles prints a warning per missing GPU runtime
                        prefs.get_devices()
                    devs = [d for d in prefs.devices if d.type == kind]
                    if devs:
                        for d in prefs.devices:
                            d.use = d.type == kind
                        self._gpu = True
                        break
            except (KeyError, AttributeError, RuntimeError):
                self._gpu = False
        if required and not self._gpu:
            from simkit.core.errors import InputError

            raise InputError(None, "device=gpu but Cycles finds no GPU (OptiX/CUDA/HIP/Metal/oneAPI)")
        return self._gpu

    # -- build ------------------------------------------------------------------------------------
    def _mesh(self, o: SceneObject):
        import bmesh

        bm = bmesh.new()
        k, d = o.kind, o.dims
        if k in ("box", "open_box"):
            bmesh.ops.create_cube(bm, size=1.0)
            bmesh.ops.scale(bm, vec=(d[0], d[1], d[2]), verts=bm.verts)
            if k == "open_box":
                top = [f for f in bm.faces if f.normal.z > 0.9]
                bmesh.ops.delete(bm, geom=top, context="FACES_ONLY")
        elif k == "sphere":
            bmesh.ops.create_uvsphere(bm, u_segments=24, v_segments=12, radius=d[0])
        elif k in ("cylinder", "cup"):
            bmesh.ops.create_cone(
                bm, cap_ends=True, cap_tris=False, segments=32, radius1=d[0], radius2=d[0], depth=d[1]
            )
            if k == "cup":
                bottom = [f for f in bm.faces if f.normal.z < -0.9]
                bmesh.ops.delete(bm, geom=bottom, context="FACES_ONLY")
        elif k == "wedge":
            sx, sy, sz = d[0] / 2, d[1] / 2, d[2] / 2
            v = [
                bm.verts.new(p)
                for p in [
                    (-sx, -sy, -sz),
                    (sx, -sy, -sz),
                    (sx, -sy, sz),
                    (-sx, sy, -sz),
                    (sx, sy, -sz),
                    (sx, sy, sz),
                ]
            ]
            for face in ((0, 1, 2), (3, 5, 4), (0, 3, 4, 1), (1, 4, 5, 2), (0, 2, 5, 3)):
                bm.faces.new([v[i] for i in face])
            bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
        # bmesh operators emit faces in an order that follows memory addresses (it changes between
        # processes); sort them by their centres so the mesh Blender builds, renders and ray casts is the
        # same in every process (the sampling in .visibility canonicalises its triangles as well)
        bm.faces.index_update()
        ranked = sorted(
            bm.faces,
            key=lambda f: (
                tuple(round(c, 6) for c in f.calc_center_median()),
                tuple(round(c, 6) for v in f.verts for c in v.co),
            ),
        )
        rank = {f.index: i for i, f in enumerate(ranked)}
        bm.faces.sort(key=lambda f: rank[f.index])
        me = self.bpy.data.meshes.new(o.name)
        bm.to_mesh(me)
        bm.free()
        for poly in me.polygons:
            poly.use_smooth = o.kind in ("sphere", "cylinder", "cup")
        return me

    def _material(self, o: SceneObject):
        m = o.material
        mat = self.bpy.data.materials.new(f"{o.name}:{m.name}")
        rgba = (*m.rgb, 1.0)
        mat.diffuse_color = rgba
        mat.roughness = float(m.roughness)
        mat.metallic = float(m.metallic)
        if self.bpy.app.version < (5, 0, 0):  # node trees are always on from Blender 5.0
            mat.use_nodes = True
        tree = getattr(mat, "node_tree", None)
        if tree is not None:
            bsdf = tree.nodes.get("Principled BSDF")
            if bsdf is not None:
                bsdf.inputs["Base Color"].default_value = _srgb_to_linear(rgba)
                bsdf.inputs["Roughness"].default_value = float(m.roughness)
                bsdf.inputs["Metallic"].default_value = float(m.metallic)
        # the viewport colour Workbench shows is scene-linear too
        mat.diffuse_color = _srgb_to_linear(rgba)
        return mat

    def build(self, scene: Scene) -> None:
        """Create ``scene`` (after :meth:`reset`): objects with keyed tracks, camera, sun, world."""
        bpy, sc = self.bpy, self.scene
        for o in scene.objects:
            ob = bpy.data.objects.new(o.name, self._mesh(o))
            ob.data.materials.append(self._material(o))
            ob.rotation_mode = "XYZ"
            sc.collection.objects.link(ob)
            tr = o.track
            for f in range(scene.frames):
                ob.location = tr.position[f]
                ob.rotation_euler = tr.rotation[f]
                ob.scale = tr.scale[f]
                ob.keyframe_insert("location", frame=f)
                ob.keyframe_insert("rotation_euler", frame=f)
                ob.keyframe_insert("scale", frame=f)
            self.objects[o.name] = ob
        cam = bpy.data.cameras.new("camera")
        cam.lens = scene.camera.lens_mm
        cam.sensor_width = scene.camera.sensor_mm
        cam.sensor_fit = "HORIZONTAL"
        cam.clip_start, cam.clip_end = 0.05, 200.0
        co = bpy.data.objects.new("camera", cam)
        co.location = scene.camera.location
        co.rotation_mode = "QUATERNION"
        co.rotation_quaternion = tuple(scene.camera.quaternion())
        sc.collection.objects.link(co)
        sc.camera = co
        sun = bpy.data.lights.new("sun", "SUN")
        sun.energy = scene.sun.strength
        sun.color = scene.sun.rgb
        sun.angle = np.radians(3.0)
        so = bpy.data.objects.new("sun", sun)
        # a sun shines along its local -Z: Rx(pi/2 - el) then Rz(az) maps -Z to -(sin az cos el, -cos az cos el, sin el)
        az, el = scene.sun.azimuth, scene.sun.elevation
        so.rotation_mode = "XYZ"
        so.rotation_euler = (np.pi / 2 - el, 0.0, az)
        sc.collection.objects.link(so)
        world = bpy.data.worlds.new("world")
        bg = _srgb_to_linear((*scene.background, 1.0))
        world.color = bg[:3]
        if self.bpy.app.version < (5, 0, 0):
            world.use_nodes = True
        tree = getattr(world, "node_tree", None)
        if tree is not None and tree.nodes.get("Background") is not None:
            tree.nodes["Background"].inputs["Color"].default_value = bg
            tree.nodes["Background"].inputs["Strength"].default_value = 1.0
        sc.world = world

    # -- render -----------------------------------------------------------------------------------
    def render(self, frames: int) -> np.ndarray:
        """Render frames ``0 .. frames-1`` of the built scene; returns uint8 (T, H, W, 3) RGB.

        Raises:
            TransientError: Blender failed or wrote fewer frames than asked (worth a retry).
        """
        from PIL import Image as PILImage

        sc = self.scene
        with tempfile.TemporaryDirectory(prefix="simkit-blender-") as tmp:
            sc.render.filepath = str(Path(tmp) / "f_")
            try:
                with quiet_fds():
                    self.bpy.ops.render.render(animation=True)
            except RuntimeError as exc:
                raise TransientError(f"Blender render failed: {exc}") from exc
            files = sorted(Path(tmp).glob("f_*.png"))
            if len(files) != frames:
                raise TransientError(f"Blender wrote {len(files)} frames, expected {frames}")
            out = []
            for p in files:
                with PILImage.open(p) as im:
                    out.append(np.asarray(im.convert("RGB")))
        return np.stack(out)

    def measure(self, scene: Scene, points: int = 192) -> dict[str, Any]:
        """Per-frame ground truth of the built scene (see :func:`simkit.renderers.blender.visibility.measure`)."""
        from simkit.renderers.blender.visibility import measure

        return measure(self, scene, points)


def _srgb_to_linear(rgba) -> tuple[float, float, float, float]:
    """sRGB-encoded colour -> scene-linear (IEC 61966-2-1 transfer function); alpha unchanged."""
    c = np.asarray(rgba[:3], float)
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return (float(lin[0]), float(lin[1]), float(lin[2]), float(rgba[3]))


_SESSION: BlenderSession | None = None


def get_session() -> BlenderSession:
    """The process's :class:`BlenderSession` (created on first use, kept for the process lifetime)."""
    global _SESSION
    if _SESSION is None:
        _SESSION = BlenderSession()
    return _SESSION
