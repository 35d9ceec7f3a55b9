"""A persistent per-process Blender session that renders :class:`simkit.core.scene.Scene` objects.

``bpy`` is imported here, inside functions, so importing this module is cheap.
Blender's Python module keeps one global ``bpy.data``; one :class:`BlenderSession`
per process owns it. It loads the factory-empty startup once, and
:meth:`BlenderSession.reset` deletes every object, mesh, material, light, camera,
world and action between samples (no reload of the startup file).

Per scene it

1. builds one Blender object per scene object with the builder of its kind: the
   primitives with ``bmesh`` (:data:`PRIMITIVE_BUILDERS`) and one material each
   (Principled BSDF for Cycles/EEVEE, with the procedural pattern nodes of
   :data:`PATTERN_TEXTURES`; the viewport colour/roughness/metallic that
   Workbench's MATERIAL colour mode shows, the plain base colour); ``mesh`` objects
   with Blender's importers (:data:`MESH_IMPORTERS`, the file's materials and
   textures kept unless a material is set; rotated and fitted into a box on request);
   then the camera (static or keyed per frame), a sun, the lamps and a world colour;
2. keys location, XYZ Euler rotation and scale of every object on every frame;
3. renders frames ``0 .. T-1`` to PNG files in a temporary directory and reads them
   back as one uint8 array (T, H, W, 3);
4. measures ground truth per object per frame (see :mod:`.visibility`).

Engines: ``workbench`` (BLENDER_WORKBENCH), ``eevee`` (BLENDER_EEVEE, EEVEE Next in
Blender >= 4.2), ``cycles`` (CPU, or GPU when ``device`` is ``gpu``/``auto`` and
one is available through OptiX, CUDA, HIP, Metal or oneAPI; ``cycles_backend`` picks one).
EEVEE and Cycles animations print one progress line per frame to stderr
(``Cycles frame k/T: s (about s left)``, :class:`FrameProgress`).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import TransientError, require
from simkit.core.scene import Scene, SceneObject, euler_xyz_to_matrix, fit_box_matrix

ENGINES = {"workbench": "BLENDER_WORKBENCH", "eevee": "BLENDER_EEVEE", "cycles": "CYCLES"}

#: seconds per 1280x720 frame, 16 TAA samples, of EEVEE on software OpenGL with 2 CPU cores (Blender 5.0,
#: measured on a 2-core x86_64 VM; see docs/benchmarks.md, wrop benchmark notes)
EEVEE_CPU_REF_SECONDS = 60.0
#: seconds per frame EEVEE takes on software OpenGL whatever the size (a 24-frame 32x18 clip at 1 sample took
#: about 100 s on the same kind of machine, shared)
EEVEE_CPU_FRAME_FLOOR = 3.0

logger = logging.getLogger("simkit.blender")


def eevee_cpu_seconds_per_frame(width: int, height: int, samples: int, cores: int | None = None) -> float:
    """Estimated seconds per frame of EEVEE without a GPU (software OpenGL).

    Scales :data:`EEVEE_CPU_REF_SECONDS` linearly with the pixel count (against 1280 x 720), the TAA
    sample count (against 16) and inversely with the CPU cores (against 2; ``None``: ``os.cpu_count()``),
    never below :data:`EEVEE_CPU_FRAME_FLOOR`.
    An order-of-magnitude estimate for the warning users see before a long run, not a benchmark.
    """
    n = max(1, cores if cores is not None else (os.cpu_count() or 1))
    scaled = EEVEE_CPU_REF_SECONDS * (width * height) / (1280 * 720) * samples / 16 * 2 / n
    return max(EEVEE_CPU_FRAME_FLOOR, scaled)


@dataclass
class RenderSettings:
    """Render settings: ``engine`` (workbench|eevee|cycles), ``width``/``height`` px, ``samples`` per pixel
    (Cycles path samples, EEVEE TAA samples; Workbench anti-aliasing is fixed at 8 samples), ``denoise``
    (Cycles OpenImageDenoise), ``device`` (auto|cpu|gpu, Cycles only), ``view_transform`` (Blender colour
    management: Standard, AgX, Filmic, ...), ``threads`` (0 = Blender decides), ``workbench_light`` (Workbench
    lighting: STUDIO, MATCAP, FLAT = unlit and without shadows), ``workbench_color`` (Workbench colour source: MATERIAL, TEXTURE
    = the image textures of textured materials, ...), ``cycles_backend`` (the GPU API Cycles uses: ``auto``
    tries OptiX, CUDA, HIP, Metal, oneAPI in this order; or one of :data:`CYCLES_BACKENDS`) and
    ``frame_progress`` (one stderr line per rendered frame; ``None``: on for EEVEE and Cycles animations of
    more than one frame, off for Workbench)."""

    engine: str = "workbench"
    width: int = 320
    height: int = 180
    samples: int = 16
    denoise: bool = True
    device: str = "auto"
    view_transform: str = "Standard"
    threads: int = 0
    workbench_light: str = "STUDIO"
    workbench_color: str = "MATERIAL"
    cycles_backend: str = "auto"
    frame_progress: bool | None = None


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
    (see :func:`blender_version`) and loading the libraries that must precede software OpenGL in one process
    (Triton's; see :mod:`simkit.core.llvm`). Blender makes its session folder (``blender_*``) under ``$TMPDIR`` when
    it starts, so ``TMPDIR`` points into this process's scratch folder
    (:func:`simkit.core.scratch.process_scratch`) while it is imported: a killed run's frames and
    session folder are removed by the next run."""
    import sys

    from simkit.core.llvm import load_llvm_libraries

    load_llvm_libraries()
    if "bpy" in sys.modules:
        return sys.modules["bpy"]
    sys.path[:] = [p for p in sys.path if not (os.sep + "bpy" + os.sep in p and os.sep + "scripts" in p)]
    from simkit.core.scratch import process_scratch

    old = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(process_scratch())
    try:
        return require("bpy", "blender")
    finally:
        if old is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old


def eevee_cpu_warning(width: int, height: int, samples: int, frames: int) -> str:
    """The one-line warning for EEVEE on a machine without a GPU, with the estimated time per frame."""
    per = eevee_cpu_seconds_per_frame(width, height, samples)
    return (
        f"EEVEE without a GPU renders through software OpenGL: about {per:.0f} s per {width}x{height} frame "
        f"at {samples} samples here, about {per * frames / 60:.1f} min per {frames}-frame sample; "
        "per-frame progress follows (use engine=workbench or cycles on a CPU machine)"
    )


#: Cycles GPU back-ends by config name (``cycles_backend``), in the order ``auto`` tries them
CYCLES_BACKENDS = {"optix": "OPTIX", "cuda": "CUDA", "hip": "HIP", "metal": "METAL", "oneapi": "ONEAPI"}


class FrameProgress:
    """A ``bpy.app.handlers.render_write`` handler: one line per written frame with its time,
    ``<label> frame k/T: s (about s left)``, written to a duplicate of the process's stderr taken before
    rendering (Blender's own output is silenced then)."""

    def __init__(self, frames: int, label: str = "EEVEE") -> None:
        import time

        self.frames, self.done, self._clock, self.label = frames, 0, time.perf_counter, label
        self._t0 = self._last = self._clock()
        self.stream = os.fdopen(os.dup(2), "w")

    def line(self, now: float) -> str:
        """The progress line after one more frame at time ``now`` (s)."""
        self.done += 1
        eta = (now - self._t0) / self.done * (self.frames - self.done)
        return (
            f"{self.label} frame {self.done}/{self.frames}: {now - self._last:.1f} s (about {eta:.0f} s left)"
        )

    def __call__(self, *_args: Any) -> None:
        now = self._clock()
        print(self.line(now), file=self.stream, flush=True)
        self._last = now

    def close(self) -> None:
        self.stream.close()


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
        self._gpu: dict[str, bool] = {}  # cycles_backend -> whether Cycles found a GPU through it
        self._progress: str | None = None  # the engine label of per-frame progress lines while rendering
        self._warned_eevee = False
        self.objects: dict[str, Any] = {}

    # -- scene life cycle -------------------------------------------------------------------------
    def reset(self) -> None:
        """Delete every data-block a scene build creates; the (empty) scene and its settings stay."""
        d = self.bpy.data
        for obj in list(self.scene.collection.objects):
            self.scene.collection.objects.unlink(obj)
        ids = []
        kinds = (d.objects, d.meshes, d.materials, d.lights, d.cameras, d.worlds, d.actions, d.images)
        for coll in (*kinds, d.node_groups, d.textures):
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
            sh.light = s.workbench_light
            sh.color_type = s.workbench_color
            sh.show_shadows = s.workbench_light != "FLAT"  # unlit: no shadows either
            sh.shadow_intensity = 0.4
            sh.background_type = "WORLD"
            sc.display.render_aa = "8"
        elif s.engine == "eevee":
            sc.eevee.taa_render_samples = int(s.samples)
        eevee_cpu = s.engine == "eevee" and not self._has_gpu(False)
        if eevee_cpu and not self._warned_eevee:
            self._warned_eevee = True
            logger.warning(eevee_cpu_warning(s.width, s.height, s.samples, frames))
        else:
            cy = sc.cycles
            cy.samples = int(s.samples)
            cy.use_denoising = bool(s.denoise)
            cy.use_adaptive_sampling = True
            gpu = s.device != "cpu" and self._has_gpu(s.device == "gpu", s.cycles_backend)
            cy.device = "GPU" if gpu else "CPU"
        auto = eevee_cpu or (s.engine != "workbench" and frames > 1)
        on = auto if s.frame_progress is None else s.frame_progress
        self._progress = (
            {"workbench": "Workbench", "eevee": "EEVEE", "cycles": "Cycles"}[s.engine] if on else None
        )

    def _has_gpu(self, required: bool, backend: str = "auto") -> bool:
        """Whether Cycles finds a GPU through ``backend`` (``auto``: the first of :data:`CYCLES_BACKENDS`
        that has a device); selects that back-end's devices. Cached per back-end.

        Raises:
            InputError: ``required`` and no GPU found; an unknown ``backend``.
        """
        from simkit.core.errors import InputError

        if backend != "auto" and backend not in CYCLES_BACKENDS:
            raise InputError(None, f"cycles_backend={backend}: use auto or one of {sorted(CYCLES_BACKENDS)}")
        if backend not in self._gpu:
            self._gpu[backend] = False
            kinds = CYCLES_BACKENDS.values() if backend == "auto" else [CYCLES_BACKENDS[backend]]
            try:
                prefs = self.bpy.context.preferences.addons["cycles"].preferences
                for kind in kinds:
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
                        self._gpu[backend] = True
                        break
            except (KeyError, AttributeError, RuntimeError):
                self._gpu[backend] = False
        if required and not self._gpu[backend]:
            apis = "OptiX/CUDA/HIP/Metal/oneAPI" if backend == "auto" else CYCLES_BACKENDS[backend]
            raise InputError(None, f"device=gpu but Cycles finds no GPU ({apis})")
        return self._gpu[backend]

    # -- build ------------------------------------------------------------------------------------
    def _primitive_mesh(self, o: SceneObject):
        """A Blender mesh of primitive ``o`` (see :data:`PRIMITIVE_BUILDERS`), faces in a canonical order."""
        import bmesh

        bm = bmesh.new()
        PRIMITIVE_BUILDERS[o.kind](bmesh, bm, o.dims)
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

    def _build_primitive(self, o: SceneObject):
        ob = self.bpy.data.objects.new(o.name, self._primitive_mesh(o))
        ob.data.materials.append(self._material(o))
        return ob

    def _build_mesh(self, o: SceneObject):
        """Import ``o.mesh`` (its materials and textures kept), join its mesh parts into one object with the
        file's transforms baked in, and fit it to ``o.mesh.diagonal`` when set."""
        from mathutils import Matrix

        from simkit.core.errors import InputError

        bpy, src = self.bpy, o.mesh
        assert src is not None  # SceneObject guarantees it for kind "mesh"
        path = Path(src.path)
        if not path.is_file():
            raise InputError(path, "mesh file not found")
        before = set(bpy.data.objects)
        chatter = io.StringIO()  # the glTF add-on logs per import to new handlers on sys.stdout/stderr
        try:
            with quiet_fds(), contextlib.redirect_stdout(chatter), contextlib.redirect_stderr(chatter):
                MESH_IMPORTERS[src.format](bpy, str(path))
        except (RuntimeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            raise InputError(path, f"Blender cannot import this mesh ({str(exc).strip()[:200]})") from exc
        finally:
            for name in ("glTFImporter", "glTFImporter_errors"):
                lg = logging.getLogger(name)
                for h in list(lg.handlers):
                    lg.removeHandler(h)
        new = [ob for ob in bpy.data.objects if ob not in before]
        parts = sorted((ob for ob in new if ob.type == "MESH"), key=lambda ob: ob.name)
        if not parts or not any(len(ob.data.polygons) for ob in parts):
            bpy.data.batch_remove(new)
            raise InputError(path, "the file holds no mesh faces")
        for ob in parts:  # bake the file's node transforms into the vertices
            mw = ob.matrix_world.copy()
            ob.parent = None
            if ob.data.users > 1:
                ob.data = ob.data.copy()
            ob.data.transform(mw)
            ob.matrix_world = Matrix.Identity(4)
        for ob in new:
            if ob not in parts:
                bpy.data.objects.remove(ob)
        for ob in new:
            for coll in list(ob.users_collection):
                coll.objects.unlink(ob)
        joined = parts[0]
        if len(parts) > 1:
            for ob in parts:
                self.scene.collection.objects.link(ob)
            with bpy.context.temp_override(
                active_object=joined, object=joined, selected_objects=parts, selected_editable_objects=parts
            ):
                bpy.ops.object.join()
            self.scene.collection.objects.unlink(joined)
        joined.name = joined.data.name = o.name
        if src.diagonal is not None:
            joined.data.transform(Matrix(fit_matrix(self._vertices(joined.data), src.diagonal).tolist()))
        self._fit_to_box(joined.data, src)
        if o.material is not None:
            joined.data.materials.clear()
            joined.data.materials.append(self._material(o))
        return joined

    def _fit_to_box(self, me, src) -> None:
        """Bake ``src.rotation`` into mesh ``me`` and fit it into ``src.fit_box`` (see
        :attr:`simkit.core.scene.MeshSource.fit_box`); nothing when neither is set."""
        from mathutils import Matrix

        if any(src.rotation):
            rot = np.eye(4)
            rot[:3, :3] = euler_xyz_to_matrix(src.rotation)
            me.transform(Matrix(rot.tolist()))
        if src.fit_box is not None:
            me.transform(Matrix(fit_box_matrix(self._vertices(me), src.fit_box).tolist()))

    def _material(self, o: SceneObject):
        m = o.material
        assert m is not None
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
            if bsdf is not None and m.pattern != "plain":
                _pattern_nodes(tree, bsdf, m, _srgb_to_linear(rgba))
        # the viewport colour Workbench shows is scene-linear too (Workbench draws no node texture: a
        # patterned material shows its plain base colour there)
        mat.diffuse_color = _srgb_to_linear(rgba)
        if m.alpha < 1.0:
            self._clear_material(mat, m.alpha)
        return mat

    def _clear_material(self, mat, alpha: float) -> None:
        """Make ``mat`` see-through with opacity ``alpha`` (a clear pane: glass, clear plastic).

        All three engines blend the surface over what lies behind it without refraction, so an object behind
        shows where a straight camera ray sees it (the visibility measure's model): Workbench through the
        viewport colour's alpha, EEVEE through the Principled BSDF's ``Alpha`` with the ``BLENDED`` render
        method, Cycles through the same ``Alpha`` (transparent BSDF mix). Shadows are transparent as well.
        """
        mat.diffuse_color = (*tuple(mat.diffuse_color)[:3], float(alpha))
        mat.surface_render_method = "BLENDED"
        mat.use_transparent_shadow = True
        mat.show_transparent_back = False
        tree = getattr(mat, "node_tree", None)
        bsdf = tree.nodes.get("Principled BSDF") if tree is not None else None
        if bsdf is not None:
            bsdf.inputs["Alpha"].default_value = float(alpha)

    def _build_camera(self, scene: Scene) -> None:
        bpy, sc = self.bpy, self.scene
        cam = bpy.data.cameras.new("camera")
        cam.lens = scene.camera.lens_mm
        cam.sensor_width = scene.camera.sensor_mm
        cam.sensor_fit = "HORIZONTAL"
        cam.clip_start, cam.clip_end = 0.05, 200.0
        co = bpy.data.objects.new("camera", cam)
        co.location = scene.camera.location
        co.rotation_mode = "QUATERNION"
        co.rotation_quaternion = tuple(scene.camera.quaternion())
        tr = scene.camera.track
        if tr is not None:
            for f in range(scene.frames):
                co.location = tuple(float(x) for x in tr.location[f])
                co.rotation_quaternion = tuple(float(x) for x in tr.quaternion[f])
                co.keyframe_insert("location", frame=f)
                co.keyframe_insert("rotation_quaternion", frame=f)
        sc.collection.objects.link(co)
        sc.camera = co

    def _build_lights(self, scene: Scene) -> None:
        bpy, sc = self.bpy, self.scene
        sun = bpy.data.lights.new("sun", "SUN")
        sun.energy = scene.sun.strength
        sun.color = scene.sun.rgb
        sun.angle = float(scene.sun.angle)
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
            tree.nodes["Background"].inputs["Strength"].default_value = float(scene.world_strength)
        sc.world = world
        self._build_lamps(scene)

    def _build_lamps(self, scene: Scene) -> None:
        """One Blender light per :class:`simkit.core.scene.Lamp` of ``scene`` (area: square of side
        ``size``; spot: cone ``spot_deg``, radius ``size``; point: radius ``size``), aimed at its target."""
        bpy, sc = self.bpy, self.scene
        for i, lamp in enumerate(scene.lamps):
            li = bpy.data.lights.new(f"lamp{i}", lamp.kind.upper())
            li.energy = float(lamp.power)
            li.color = tuple(float(c) for c in lamp.rgb)
            if lamp.kind == "area":
                li.shape, li.size = "SQUARE", float(lamp.size)
            else:
                li.shadow_soft_size = float(lamp.size)
            if lamp.kind == "spot":
                li.spot_size, li.spot_blend = float(np.radians(lamp.spot_deg)), 0.3
            lo = bpy.data.objects.new(f"lamp{i}", li)
            lo.location = lamp.location
            lo.rotation_mode = "QUATERNION"
            lo.rotation_quaternion = tuple(float(q) for q in lamp.quaternion())
            sc.collection.objects.link(lo)

    def build(self, scene: Scene) -> None:
        """Create ``scene`` (after :meth:`reset`): objects with keyed tracks, camera, sun, world.

        Raises:
            InputError: a mesh file is missing, cannot be imported or holds no faces.
        """
        sc = self.scene
        for o in scene.objects:
            ob = self._build_mesh(o) if o.kind == "mesh" else self._build_primitive(o)
            ob.rotation_mode = "XYZ"
            sc.collection.objects.link(ob)
            tr = o.pose
            for f in range(scene.frames):
                ob.location = tr.position[f]
                ob.rotation_euler = tr.rotation[f]
                ob.scale = tr.scale[f]
                ob.keyframe_insert("location", frame=f)
                ob.keyframe_insert("rotation_euler", frame=f)
                ob.keyframe_insert("scale", frame=f)
            self.objects[o.name] = ob
        self._build_camera(scene)
        self._build_lights(scene)

    # -- geometry read-back (what the renderer draws) ---------------------------------------------
    @staticmethod
    def _vertices(me) -> np.ndarray:
        v = np.empty(len(me.vertices) * 3)
        me.vertices.foreach_get("co", v)
        return v.reshape(-1, 3)

    def geometry(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The triangles the renderer draws for object ``name``: vertices (V, 3) float64 in the object's local
        frame (m) and triangles (F, 3) int64 (Blender's loop triangulation, which Cycles and EEVEE use)."""
        me = self.objects[name].data
        me.calc_loop_triangles()
        tri = np.empty(len(me.loop_triangles) * 3, dtype=np.int64)
        me.loop_triangles.foreach_get("vertices", tri)
        return self._vertices(me), tri.reshape(-1, 3)

    def world_matrices(self, frame: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """({name: object-to-world (4, 4)}, camera-to-world (4, 4)) evaluated on ``frame`` (camera frame:
        -Z forward, +Y up)."""
        self.scene.frame_set(frame)
        objs = {n: np.array(ob.matrix_world, dtype=np.float64) for n, ob in self.objects.items()}
        return objs, np.array(self.scene.camera.matrix_world, dtype=np.float64)

    # -- render -----------------------------------------------------------------------------------
    def render(self, frames: int) -> np.ndarray:
        """Render frames ``0 .. frames-1`` of the built scene; returns uint8 (T, H, W, 3) RGB.

        Raises:
            TransientError: Blender failed or wrote fewer frames than asked (worth a retry).
        """
        from PIL import Image as PILImage

        sc = self.scene
        from simkit.core.scratch import process_scratch

        with tempfile.TemporaryDirectory(prefix="frames-", dir=process_scratch()) as tmp:
            sc.render.filepath = str(Path(tmp) / "f_")
            progress = FrameProgress(frames, self._progress) if self._progress else None
            if progress is not None:
                self.bpy.app.handlers.render_write.append(progress)
            try:
                with quiet_fds():
                    self.bpy.ops.render.render(animation=True)
            except RuntimeError as exc:
                raise TransientError(f"Blender render failed: {exc}") from exc
            finally:
                if progress is not None:
                    self.bpy.app.handlers.render_write.remove(progress)
                    progress.close()
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


def _box(bmesh, bm, d, open_top: bool = False) -> None:
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=(d[0], d[1], d[2]), verts=bm.verts)
    if open_top:
        top = [f for f in bm.faces if f.normal.z > 0.9]
        bmesh.ops.delete(bm, geom=top, context="FACES_ONLY")


def _sphere(bmesh, bm, d) -> None:
    bmesh.ops.create_uvsphere(bm, u_segments=24, v_segments=12, radius=d[0])


def _cylinder(bmesh, bm, d, open_bottom: bool = False) -> None:
    bmesh.ops.create_cone(
        bm, cap_ends=True, cap_tris=False, segments=32, radius1=d[0], radius2=d[0], depth=d[1]
    )
    if open_bottom:
        bottom = [f for f in bm.faces if f.normal.z < -0.9]
        bmesh.ops.delete(bm, geom=bottom, context="FACES_ONLY")


def _wedge(bmesh, bm, d) -> None:
    sx, sy, sz = d[0] / 2, d[1] / 2, d[2] / 2
    corners = [(-sx, -sy, -sz), (sx, -sy, -sz), (sx, -sy, sz), (-sx, sy, -sz), (sx, sy, -sz), (sx, sy, sz)]
    v = [bm.verts.new(p) for p in corners]
    for face in ((0, 1, 2), (3, 5, 4), (0, 3, 4, 1), (1, 4, 5, 2), (0, 2, 5, 3)):
        bm.faces.new([v[i] for i in face])
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces)


#: one ``bmesh`` builder per primitive kind of :data:`simkit.core.scene.PRIMITIVES`: ``(bmesh, bm, dims)``
PRIMITIVE_BUILDERS: dict[str, Callable[[Any, Any, tuple[float, ...]], None]] = {
    "box": _box,
    "open_box": lambda bmesh, bm, d: _box(bmesh, bm, d, open_top=True),
    "sphere": _sphere,
    "cylinder": _cylinder,
    "cup": lambda bmesh, bm, d: _cylinder(bmesh, bm, d, open_bottom=True),
    "wedge": _wedge,
}

#: one Blender importer per mesh format of :data:`simkit.core.scene.MESH_FORMATS`: ``(bpy, path)``. OBJ is
#: read with +Z up and +Y forward (the file's own axes, as trimesh reads it); glTF converts its +Y up to +Z
#: (glTF 2.0 spec, "Coordinate System and Units"); PLY keeps the file's axes.
MESH_IMPORTERS: dict[str, Callable[[Any, str], Any]] = {
    "gltf": lambda bpy, p: bpy.ops.import_scene.gltf(filepath=p),
    "obj": lambda bpy, p: bpy.ops.wm.obj_import(filepath=p, forward_axis="Y", up_axis="Z"),
    "ply": lambda bpy, p: bpy.ops.wm.ply_import(filepath=p, forward_axis="Y", up_axis="Z"),
}


def _pattern_nodes(tree, bsdf, m, base_linear) -> None:
    """Draw procedural pattern ``m.pattern`` (see :data:`simkit.core.scene.PATTERNS`) into the Principled
    BSDF's base colour: ``base * (1 - contrast * f)`` with ``f`` in [0, 1] from Blender's procedural
    textures on the object's own coordinates scaled by ``m.pattern_scale``, so every pixel keeps the base
    colour's hue (a scalar multiple of the linear RGB). ``brushed`` also turns the surface metallic (0.8,
    roughness 0.3); ``weave`` rough (0.9)."""
    nodes, links = tree.nodes, tree.links
    coord = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    scale = float(m.pattern_scale)
    stretch = {"brushed": (scale / 8.0, scale * 6.0, scale * 6.0)}.get(m.pattern, (scale, scale, scale))
    mapping.inputs["Scale"].default_value = stretch
    links.new(coord.outputs["Object"], mapping.inputs["Vector"])
    fac = PATTERN_TEXTURES[m.pattern](nodes, links, mapping.outputs["Vector"])
    k = nodes.new("ShaderNodeMath")
    k.operation, k.use_clamp = "MULTIPLY_ADD", True  # 1 - contrast * f, clamped to [0, 1]
    links.new(fac, k.inputs[0])
    k.inputs[1].default_value = -float(m.pattern_contrast)
    k.inputs[2].default_value = 1.0
    tint = nodes.new("ShaderNodeVectorMath")
    tint.operation = "SCALE"
    tint.inputs[0].default_value = tuple(base_linear[:3])
    links.new(k.outputs[0], tint.inputs["Scale"])
    links.new(tint.outputs["Vector"], bsdf.inputs["Base Color"])
    if m.pattern == "brushed":
        bsdf.inputs["Metallic"].default_value, bsdf.inputs["Roughness"].default_value = 0.8, 0.3
    elif m.pattern == "weave":
        bsdf.inputs["Roughness"].default_value = 0.9


def _wave(nodes, links, vec, kind: str, axis: str, distortion: float, detail: float):
    w = nodes.new("ShaderNodeTexWave")
    w.wave_type = kind
    if kind == "RINGS":
        w.rings_direction = axis
    else:
        w.bands_direction = axis
    w.inputs["Scale"].default_value = 1.0
    w.inputs["Distortion"].default_value = distortion
    w.inputs["Detail"].default_value = detail
    links.new(vec, w.inputs["Vector"])
    return w.outputs["Fac"]


def _checker(nodes, links, vec):
    c = nodes.new("ShaderNodeTexChecker")
    c.inputs["Scale"].default_value = 1.0
    c.inputs["Color1"].default_value = (0.0, 0.0, 0.0, 1.0)
    c.inputs["Color2"].default_value = (1.0, 1.0, 1.0, 1.0)
    links.new(vec, c.inputs["Vector"])
    return c.outputs["Fac"]


def _noise(nodes, links, vec):
    n = nodes.new("ShaderNodeTexNoise")
    n.inputs["Scale"].default_value = 1.0
    n.inputs["Detail"].default_value = 4.0
    links.new(vec, n.inputs["Vector"])
    return n.outputs["Fac"]


def _weave(nodes, links, vec):
    mul = nodes.new("ShaderNodeMath")
    mul.operation = "MULTIPLY"
    links.new(_wave(nodes, links, vec, "BANDS", "X", 0.0, 0.0), mul.inputs[0])
    links.new(_wave(nodes, links, vec, "BANDS", "Y", 0.0, 0.0), mul.inputs[1])
    return mul.outputs[0]


#: the texture graph of each pattern: ``(nodes, links, coordinate socket) -> factor socket`` in [0, 1]
PATTERN_TEXTURES: dict[str, Callable[[Any, Any, Any], Any]] = {
    "wood": lambda n, li, v: _wave(n, li, v, "RINGS", "Z", 2.0, 3.0),
    "checker": _checker,
    "marble": lambda n, li, v: _wave(n, li, v, "BANDS", "DIAGONAL", 9.0, 6.0),
    "brushed": _noise,
    "weave": _weave,
}


def fit_matrix(vertices: np.ndarray, diagonal: float) -> np.ndarray:
    """(4, 4) matrix that moves the axis-aligned bounding box of ``vertices`` (V, 3) to the origin and scales
    it uniformly to a bounding-box diagonal of ``diagonal`` (m); the normalisation of the FreeMatching
    Objaverse pairs (diagonal 2.0)."""
    lo, hi = vertices.min(0), vertices.max(0)
    s = diagonal / max(float(np.linalg.norm(hi - lo)), 1e-12)
    m = np.eye(4) * s
    m[3, 3] = 1.0
    m[:3, 3] = -s * (lo + hi) / 2
    return m


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


class BlenderBacked:
    """Mixin for generators that render with Blender: the process's session on first use (not at
    set-up, so workers that never render never import ``bpy``), its version as the backend version,
    and a reset of the session at teardown. Put it before :class:`simkit.core.generator.Generator`.
    """

    _session: BlenderSession | None = None

    def session(self) -> BlenderSession:
        if self._session is None:
            self._session = get_session()
        return self._session

    def backend_versions(self) -> dict[str, str]:
        return {"blender": blender_version()}

    def teardown(self) -> None:
        if self._session is not None:
            self._session.reset()
