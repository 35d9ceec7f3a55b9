"""``pairs``: Blender-rendered object pairs with exact dense correspondence and covisibility.

Each episode is one (source A, target B) pair: 2-3 meshes (:mod:`simkit.assets.meshes`) under independent
rigid motions seen from two viewpoints (:mod:`simkit.scenes.pairs.compile`), rendered by the Blender session
(Cycles, 128 samples, 640 x 360 by default; FreeMatching Sec. 3.3), and labelled analytically from the
rendered geometry, the object poses and the camera matrices (:mod:`simkit.renderers.pairs.correspondence`): the
labels never depend on the engine, sample count or image format. ``check()`` (``simkit validate``)
verifies them against the rendered images independently (see :func:`check_pair`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field, model_validator

from simkit.core.episode import Episode, Image
from simkit.core.errors import InputError, SampleRejected
from simkit.core.fields import FieldSpec
from simkit.core.generator import Generator, GeneratorConfig
from simkit.renderers.blender import BlenderBacked

log = logging.getLogger("simkit.pairs")

#: largest deviation (levels of 255) from the background colour that still counts as background in check()
BACKGROUND_LEVELS = 6
#: fewest covisible pixels for the photometric check
PHOTOMETRIC_MIN_PIXELS = 200


class PairsConfig(GeneratorConfig):
    """Config of ``pairs``. Defaults are the paper's (Cycles, 128 samples, 640 x 360, 2-3 objects)."""

    assets: str = Field(
        "embedded",
        description="mesh source: 'embedded' (LIBERO objects + pybullet_data meshes), a folder (Objaverse "
        "layout glbs/<shard>/<uid>.glb, or any GLB/GLTF/OBJ/PLY files) or an index JSON from `simkit assets scan`",
    )
    objects_min: int = Field(2, ge=1, le=8, description="fewest objects per scene")
    objects_max: int = Field(3, ge=1, le=8, description="most objects per scene")
    width: int = Field(640, ge=16, le=7680, description="image width (px)")
    height: int = Field(360, ge=16, le=4320, description="image height (px)")
    engine: Literal["cycles", "eevee", "workbench"] = Field("cycles", description="Blender render engine")
    samples: int = Field(128, ge=1, le=4096, description="samples per pixel (Cycles paths, EEVEE TAA)")
    denoise: bool = Field(True, description="Cycles denoising (OpenImageDenoise)")
    device: Literal["auto", "cpu", "gpu"] = Field("auto", description="Cycles device")
    workbench_light: Literal["studio", "flat"] = Field(
        "studio", description="Workbench lighting (flat = unlit texture colours, for photometric tests)"
    )
    tilt_max_deg: float = Field(30.0, ge=0, le=90, description="largest frame-A tilt (deg)")
    rotation_increment_min_deg: float = Field(30.0, ge=0, le=180, description="smallest A->B rotation (deg)")
    rotation_increment_max_deg: float = Field(50.0, ge=0, le=180, description="largest A->B rotation (deg)")
    depth_tolerance: float = Field(0.01, gt=0, le=0.2, description="relative depth tolerance of covisibility")
    min_covisible: float = Field(0.01, ge=0, le=1, description="redraw pairs with a smaller covisible share")
    max_faces: int = Field(300_000, ge=1, description="skip meshes with more triangles than this")

    @model_validator(mode="after")
    def _ranges(self) -> PairsConfig:
        if self.objects_min > self.objects_max:
            raise ValueError(f"objects_min {self.objects_min} > objects_max {self.objects_max}")
        if self.rotation_increment_min_deg > self.rotation_increment_max_deg:
            raise ValueError("rotation_increment_min_deg > rotation_increment_max_deg")
        return self


def load_pool(source: str, max_faces: int) -> list:
    """Accepted assets (:class:`simkit.scenes.pairs.compile.Asset`) of ``source``, sorted by asset id; each rejected
    mesh is reported once on the ``simkit.pairs`` logger.

    Raises:
        InputError: the folder is missing or empty, or every mesh is rejected (one line naming it).
    """
    from simkit.assets.meshes import embedded_index, load_index, scan
    from simkit.scenes.pairs.compile import Asset

    if source == "embedded":
        records = embedded_index()
    elif source.endswith(".json") and Path(source).is_file():
        records = load_index(source)
    else:
        records = scan(source)
    for r in records:
        if not r.accepted and source != "embedded":
            log.warning("%s: rejected: %s", r.path, r.reason)
    pool = [
        Asset(r.path, r.asset_id, r.has_texture, r.sha256)
        for r in sorted(records, key=lambda r: r.asset_id)
        if r.accepted and r.faces <= max_faces
    ]
    if not pool:
        reasons = sorted({r.reason for r in records if r.reason})[:3]
        raise InputError(source, f"every mesh was rejected ({len(records)} files; e.g. {'; '.join(reasons)})")
    return pool


def _background_mask(objects: np.ndarray) -> np.ndarray:
    """Pixels two pixels away from any object and from the image border (the pixel filter and the denoiser
    spread edges)."""
    from scipy.ndimage import binary_dilation

    bg = ~binary_dilation(objects > 0, iterations=2)
    bg[:2], bg[-2:], bg[:, :2], bg[:, -2:] = False, False, False, False
    return bg


def _silhouette(image: np.ndarray, objects: np.ndarray, name: str) -> list[str]:
    """Problems when ``image`` shows surfaces where ``objects`` says background (see :func:`check_pair`)."""
    bg = _background_mask(objects)
    if bg.sum() <= 50:
        return []
    ref = np.median(image[bg].reshape(-1, 3), axis=0)
    off = np.abs(image[bg].astype(float) - ref).max(-1) > BACKGROUND_LEVELS
    if off.mean() > 0.01:
        return [f"image {name} shows surfaces where the labels say background ({off.mean():.1%} px)"]
    return []


def _lands_on_surfaces(a: np.ndarray, obj_a: np.ndarray, c: np.ndarray, sel: np.ndarray) -> list[str]:
    """Problems when covisible target pixels map into a region that image A renders as background: pixels
    of the background colour whose 5 x 5 neighbourhood is all background colour (away from anti-aliased
    outlines)."""
    from scipy.ndimage import binary_erosion

    bg = _background_mask(obj_a)
    if bg.sum() <= 50 or sel.sum() <= 50:
        return []
    ref = np.median(a[bg].reshape(-1, 3), axis=0)
    rendered_bg = binary_erosion(np.abs(a.astype(float) - ref).max(-1) <= BACKGROUND_LEVELS, iterations=2)
    q = np.rint(c[sel]).astype(np.int64)
    share = float(rendered_bg[q[:, 1], q[:, 0]].mean())
    if share > 0.01:
        return [f"covisible pixels map onto background in image A ({share:.1%})"]
    return []


def _photometric_optimum(a, b, c, sel: np.ndarray) -> list[str]:
    """Problems when warping A by C is not better inside ``sel`` than by C shifted 2 px along an axis."""
    from scipy.ndimage import binary_erosion

    from simkit.renderers.pairs.correspondence import warp

    inner = binary_erosion(sel, iterations=1)
    if inner.sum() < PHOTOMETRIC_MIN_PIXELS:
        return []

    def err(shift):
        return float(np.abs(warp(a, c + np.asarray(shift, float)) - b)[inner].mean())

    e0 = err((0, 0))
    worse = min(err(s) for s in ((2, 0), (-2, 0), (0, 2), (0, -2)))
    if e0 >= worse:
        return [f"warping A by C ({e0:.2f}) is not better than by C shifted 2 px ({worse:.2f})"]
    return []


def check_pair(sample: dict[str, Any]) -> list[str]:
    """Verify one stored pair's labels against its images; returns the problems found (empty = good).

    * shapes agree; C finite; M in {0, 1}; C inside image A wherever M = 1;
    * silhouettes: where the labels say "background" in A and in B (object index 0, two pixels away from any
      object and from the image border), the rendered image is the flat background colour (median of those
      pixels) within 6 levels on >= 99 % of them: nothing was rendered where the geometry says there is
      nothing (sub-pixel slivers that cover no pixel centre stay under 1 %);
    * surfaces: at most 1 % of the covisible target pixels map into a region that image A renders as
      background (background colour over the pixel's whole 5 x 5 neighbourhood);
    * photometry, on unlit renders (``engine=workbench``, ``workbench_light=flat``, where a surface point has
      the same colour in both views): warping A by C reproduces B inside M (eroded by one pixel) better than
      warping by C shifted 2 px along any axis (skipped below :data:`PHOTOMETRIC_MIN_PIXELS` pixels). Lit renders are not judged photometrically: shading changes
      as each object turns 30-50 deg, which at these resolutions can favour a shifted map on weakly
      textured objects; their labels rest on the checks above and on the exactness tests.
    """
    a, b = np.asarray(sample["image_a"]), np.asarray(sample["image_b"])
    c, m = np.asarray(sample["correspondence"], np.float64), np.asarray(sample["covisibility"])
    oa, ob = np.asarray(sample["object_index_a"]), np.asarray(sample["object_index_b"])
    h, w = b.shape[:2]
    if a.shape != b.shape or c.shape != (h, w, 2) or m.shape != (h, w) or not oa.shape == ob.shape == (h, w):
        return [f"shapes disagree: A {a.shape}, B {b.shape}, C {c.shape}, M {m.shape}, object_b {ob.shape}"]
    problems = []
    if not np.all(np.isfinite(c)):
        return ["correspondence has non-finite values"]
    if not set(np.unique(m).tolist()) <= {0, 1}:
        problems.append("covisibility is not in {0, 1}")
    sel = m == 1
    lo, hi = np.array([-1e-3, -1e-3]), np.array([w - 1 + 1e-3, h - 1 + 1e-3])
    if sel.any() and (np.any(c[sel] < lo) or np.any(c[sel] > hi)):
        return [*problems, "covisible pixels map outside image A"]
    problems += _silhouette(a, oa, "A") + _silhouette(b, ob, "B") + _lands_on_surfaces(a, oa, c, sel)
    meta = sample.get("meta") or {}
    if meta.get("engine") == "workbench" and meta.get("workbench_light") == "flat":
        problems += _photometric_optimum(a, b, c, sel)
    return problems


#: the captions of the four panels of a pair picture (``inspect``)
PANEL_CAPTIONS = (
    "A (view 1)",
    "B (view 2)",
    "M: covisible in A (white)",
    "flow A->B (hue = direction)",
)


def flow_colour(flow_source: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """uint8 (H, W, 3) colour coding of the displacement ``C(x, y) - (x, y)``: hue = direction, saturation =
    magnitude relative to the largest valid one, value 1 (the usual HSV coding of optical flow), grey where
    ``valid`` is 0."""
    import colorsys

    h, w = valid.shape
    ys, xs = np.mgrid[0:h, 0:w]
    d = flow_source - np.stack([xs, ys], -1)
    mag = np.hypot(d[..., 0], d[..., 1])
    top = float(mag[valid > 0].max()) if (valid > 0).any() else 1.0
    hue = (np.arctan2(d[..., 1], d[..., 0]) / (2 * np.pi)) % 1.0
    sat = np.clip(mag / max(top, 1e-9), 0, 1)
    rgb = np.vectorize(colorsys.hsv_to_rgb)(hue, sat, np.ones_like(hue))
    out = (np.stack(rgb, -1) * 255).astype(np.uint8)
    out[valid == 0] = 128
    return out


class PairsGenerator(BlenderBacked, Generator[PairsConfig]):
    """The ``pairs`` generator: compose (:mod:`simkit.scenes.pairs.compile`) -> render (Blender session) -> analytic
    labels (:func:`simkit.renderers.pairs.correspondence.dense_correspondence`) -> :class:`Episode`; see the module
    docstring and ``docs/pairs.md``. Raises :class:`SampleRejected` (redrawn by the engine) when a mesh fails
    to import or the covisible share is below ``min_covisible``."""

    name = "pairs"
    version = "1"
    description = (
        "object pairs with exact dense correspondence + covisibility (Blender; FreeMatching Sec. 3.3)"
    )
    extra = "blender"
    requires = ("bpy",)
    Config = PairsConfig
    fields = (
        FieldSpec("image_a", "png", "uint8", ("H", "W", 3), "", "", "source image A (frame 0), sRGB"),
        FieldSpec("image_b", "png", "uint8", ("H", "W", 3), "", "", "target image B (frame 1), sRGB"),
        FieldSpec(
            "correspondence",
            "exr",
            "float32",
            ("H", "W", 2),
            "px",
            "image A pixels, centres at integers",
            "C (EXR channels u, v): for each target pixel (x, y) the absolute source pixel (u, v) of the same "
            "surface point, also where it is hidden in A; (-1, -1) on background",
        ),
        FieldSpec(
            "covisibility",
            "npy",
            "uint8",
            ("H", "W"),
            "",
            "image B",
            "M in {0, 1}: 1 where the target pixel's surface point is visible in A (inside image A, same "
            "object at the nearest source pixel, depth within depth_tolerance); 0 elsewhere and on background",
        ),
        FieldSpec(
            "depth_a",
            "exr",
            "float32",
            ("H", "W"),
            "m",
            "camera A, z forward",
            "z-depth of image A along the camera axis; 0 on background",
        ),
        FieldSpec(
            "depth_b",
            "exr",
            "float32",
            ("H", "W"),
            "m",
            "camera B, z forward",
            "z-depth of image B along the camera axis; 0 on background",
        ),
        FieldSpec(
            "object_index_a", "png", "uint8", ("H", "W"), "", "image A", "0 background, k = object k-1"
        ),
        FieldSpec(
            "object_index_b", "png", "uint8", ("H", "W"), "", "image B", "0 background, k = object k-1"
        ),
        FieldSpec(
            "cameras",
            "json",
            None,
            None,
            "m",
            "OpenCV (x right, y down, z forward), world z up",
            "K (3x3 px), world_to_camera_a/b (4x4), lens_mm, sensor_mm, width, height",
        ),
        FieldSpec(
            "objects",
            "json",
            None,
            None,
            "m",
            "world, z up",
            "per object: asset_id, sha256, has_texture, object_to_world_a/b (4x4, local frame = normalised mesh)",
        ),
    )
    required_fields = tuple(f.name for f in fields)
    structural_params = ("n_objects", "objects", "views", "distance_margin")
    surface_params = (
        "background",
        "world_strength",
        "sun_azimuth_deg",
        "sun_elevation_deg",
        "sun_strength",
        "colours",
        "roughness",
    )
    smoke_config: ClassVar[dict[str, Any]] = {"width": 64, "height": 48, "samples": 2, "engine": "cycles"}

    def setup(self, config: PairsConfig) -> None:
        super().setup(config)
        self.pool = load_pool(config.assets, config.max_faces)

    def compose(self, structural_seed: int, surface_seed: int):
        """(structure, surface, scene) of the seeds under this config (no rendering)."""
        from simkit.scenes.pairs.compile import Motion, compile_scene, sample_structure, sample_surface

        c = self.config
        motion = Motion(
            tilt_max_deg=c.tilt_max_deg,
            rotation_increment_deg=(c.rotation_increment_min_deg, c.rotation_increment_max_deg),
        )
        s = sample_structure(
            np.random.default_rng(structural_seed), self.pool, motion, (c.objects_min, c.objects_max)
        )
        surf = sample_surface(np.random.default_rng(surface_seed), s["n_objects"])
        return s, surf, compile_scene(s, surf, self.pool, c.width, c.height)

    def render(self, scene):
        """Build and render ``scene``; returns (frames uint8 (2, H, W, 3), meshes, poses A/B, cameras A/B)."""
        from simkit.renderers.blender import RenderSettings

        c, ses = self.config, self.session()
        ses.reset()
        settings = RenderSettings(c.engine, c.width, c.height, c.samples, c.denoise, c.device)
        settings.workbench_light, settings.workbench_color = c.workbench_light.upper(), "TEXTURE"
        ses.configure(settings, 2, 1.0)
        try:
            ses.build(scene)
        except InputError as exc:
            log.warning("%s", exc)
            raise SampleRejected(str(exc)) from exc
        frames = ses.render(2)
        meshes = [ses.geometry(o.name) for o in scene.objects]
        pa, ca = ses.world_matrices(0)
        pb, cb = ses.world_matrices(1)
        names = [o.name for o in scene.objects]
        return frames, meshes, [pa[n] for n in names], [pb[n] for n in names], ca, cb

    def generate(self, index: int, rng: np.random.Generator) -> Episode:
        from simkit.renderers.pairs.correspondence import View, dense_correspondence
        from simkit.renderers.raster import extrinsics, intrinsics
        from simkit.scenes.pairs.compile import LENS_MM, SENSOR_MM

        c = self.config
        structural_seed, surface_seed = (int(x) for x in rng.integers(0, 2**62, size=2))
        s, surf, scene = self.compose(structural_seed, surface_seed)
        frames, meshes, pa, pb, ca, cb = self.render(scene)
        K = intrinsics(LENS_MM, SENSOR_MM, c.width, c.height)
        ea, eb = extrinsics(ca), extrinsics(cb)
        lab = dense_correspondence(
            meshes, View(K, ea, pa, c.width, c.height), View(K, eb, pb, c.width, c.height), c.depth_tolerance
        )
        share = float(lab.covisible.mean())
        if share < c.min_covisible:
            raise SampleRejected(f"covisible share {share:.3f} < min_covisible {c.min_covisible}")
        cams = {
            "K": K.tolist(),
            "world_to_camera_a": ea.tolist(),
            "world_to_camera_b": eb.tolist(),
            "lens_mm": LENS_MM,
            "sensor_mm": SENSOR_MM,
            "width": c.width,
            "height": c.height,
        }
        objs = [
            {
                "name": o.name,
                "asset_id": o.mesh.asset_id if o.mesh else "",
                "sha256": asset.sha256,
                "has_texture": asset.has_texture,
                "object_to_world_a": a.tolist(),
                "object_to_world_b": b.tolist(),
            }
            for o, a, b in zip(scene.objects, pa, pb)
            for asset in (self._asset(o.mesh),)
        ]
        fields = {
            "image_a": Image(frames[0]),
            "image_b": Image(frames[1]),
            "correspondence": Image(lab.flow_source),
            "covisibility": lab.covisible,
            "depth_a": Image(lab.depth_a),
            "depth_b": Image(lab.depth_b),
            "object_index_a": Image(lab.object_a),
            "object_index_b": Image(lab.object_b),
            "cameras": cams,
            "objects": objs,
        }
        meta = {
            "structural_seed": structural_seed,
            "surface_seed": surface_seed,
            "engine": c.engine,
            "samples": c.samples,
            "workbench_light": c.workbench_light,
            "covisible_share": round(share, 6),
            "depth_tolerance": c.depth_tolerance,
        }
        return Episode(fields, params={"structural": s, "surface": surf}, meta=meta)

    def _asset(self, mesh):
        """The pool entry of ``mesh`` (:class:`simkit.scenes.pairs.compile.Asset`)."""
        return next(a for a in self.pool if mesh is not None and a.asset_id == mesh.asset_id)

    def check(self, sample: dict[str, Any]) -> list[str]:
        return check_pair(sample)

    def inspect(self, samples: list[dict[str, Any]], out_dir: Path) -> list[Path]:
        """``pair_<key>.png`` per pair: A | B | M | colour-coded flow, each panel captioned
        (:data:`PANEL_CAPTIONS`), and ``pairs_sheet.png`` stacking them."""
        from simkit.core.images import captioned, save_png, tile

        out_dir = Path(out_dir)
        rows: list[np.ndarray] = []
        paths: list[Path] = []
        for smp in samples:
            if "image_a" not in smp:
                continue
            m = np.asarray(smp["covisibility"])
            panels = [
                np.asarray(smp["image_a"]),
                np.asarray(smp["image_b"]),
                np.repeat((m * 255).astype(np.uint8)[..., None], 3, -1),
                flow_colour(np.asarray(smp["correspondence"], np.float64), m),
            ]
            row = tile([captioned(p, c) for p, c in zip(panels, PANEL_CAPTIONS, strict=True)], cols=4)
            key = smp.get("__key__", smp.get("meta", {}).get("key", f"{len(rows):06d}"))
            paths.append(save_png(row, out_dir / f"pair_{key}.png"))
            rows.append(row)
        if rows:
            paths.append(save_png(tile(rows, cols=1), out_dir / "pairs_sheet.png"))
        return paths
