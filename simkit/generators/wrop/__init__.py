"""``wrop``: object permanence (OP) / object solidity (OS) video continuation samples rendered with Blender.

Each episode is one sample of one task generator (``FAMILY/name``, see
``simkit list wrop`` / :func:`simkit.generators.wrop.base.catalogue`): a T-frame
keyframed animation (T = 120 at 24 fps in the paper) cut at frame T/2 into

==================  ==========================================================================
``input_video``     :class:`~simkit.core.episode.Video`, uint8 (T/2, H, W, 3), frames 0 .. T/2-1
``target_video``    :class:`~simkit.core.episode.Video`, uint8 (T/2, H, W, 3), frames T/2 .. T-1
``prompt``          str, natural-language description of the scene (never of the outcome)
``trajectory``      dict: per frame, per object position (m), rotation (quaternion wxyz), scale,
                    image position, AABB, visibility fraction in the camera, occluded-by shares
                    (see :func:`simkit.renderers.blender.visibility.measure`)
==================  ==========================================================================

``Episode.params`` holds ``structural`` (task id + its structural parameters) and ``surface``
(colours, finishes, patterns, floor, sky, sun, lighting set-up, camera jitter, props); ``Episode.meta`` holds generator id,
family, expected outcome, legal outcomes, event frames, cut, structural and surface seeds,
split, engine and Blender version, and the declared expectations the checker verifies.
Source: the WROP paper's data pipeline (spec ``wrop``), Sec. "Pipeline" steps 1-3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field, field_validator

from simkit.core.episode import Episode, Video
from simkit.core.errors import SampleRejected
from simkit.core.fields import FieldSpec
from simkit.core.generator import Generator, GeneratorConfig
from simkit.generators.wrop.base import (
    EXAM_OFFSET,
    FAMILIES,
    Clip,
    catalogue,
    check_composition,
    fix_articles,
    select,
)
from simkit.renderers.blender import BlenderBacked

#: the view transforms Blender 5.0's bundled OpenColorIO config offers for the sRGB display device
ViewTransform = Literal[
    "Standard",
    "ACES 1.3",
    "ACES 2.0",
    "Khronos PBR Neutral",
    "AgX",
    "Filmic",
    "Filmic Log",
    "False Color",
    "Raw",
]


class WropConfig(GeneratorConfig):
    """Config of ``wrop``. The defaults are laptop-cheap (Workbench, 320x180); the paper's production
    setting is ``frames=120 fps=24 width=1280 height=720 engine=eevee`` (or ``cycles``)."""

    generator: str = Field(
        "all",
        description="task generator: FAMILY/NAME, a family (OP-1 .. OS-3) or 'all' "
        "(episode i uses task i mod count)",
    )
    split: Literal["train", "exam"] = Field(
        "train", description="train, or exam (structural seeds from a disjoint range)"
    )
    frames: int = Field(120, ge=24, le=2400, description="frames per sample (even); the cut is frames/2")
    fps: float = Field(24.0, gt=0, le=240, description="frames per second")
    width: int = Field(320, ge=16, le=7680, description="image width in pixels (even)")
    height: int = Field(180, ge=16, le=4320, description="image height in pixels (even)")
    engine: Literal["workbench", "eevee", "cycles"] = Field("workbench", description="Blender render engine")
    samples: int = Field(16, ge=1, le=4096, description="samples per pixel (Cycles path samples, EEVEE TAA)")
    denoise: bool = Field(True, description="Cycles denoising (OpenImageDenoise)")
    device: Literal["auto", "cpu", "gpu"] = Field("auto", description="Cycles device")
    cycles_backend: Literal["auto", "optix", "cuda", "hip", "metal", "oneapi"] = Field(
        "auto",
        description="GPU API of Cycles (auto: the first of OptiX, CUDA, HIP, Metal, oneAPI with a device)",
    )
    frame_progress: Literal["auto", "on", "off"] = Field(
        "auto", description="one stderr line per rendered frame (auto: EEVEE and Cycles on, Workbench off)"
    )
    view_transform: ViewTransform = Field(
        "Standard",
        description="Blender colour management view transform (for the sRGB display Blender 5.0 ships)",
    )
    visibility_points: int = Field(
        192, ge=16, le=4096, description="surface samples per object for visibility ray casts"
    )
    crf: int = Field(18, ge=0, le=51, description="H.264 constant rate factor of the stored videos")

    @field_validator("frames", "width", "height")
    @classmethod
    def _even(cls, v: int) -> int:
        if v % 2:
            raise ValueError("must be even")
        return v

    @field_validator("generator")
    @classmethod
    def _known(cls, v: str) -> str:
        select(v)
        return v


class WropGenerator(BlenderBacked, Generator[WropConfig]):
    name = "wrop"
    version = "2"  # 2: procedural materials, lighting set-ups and props in the surface draw
    description = "object permanence / solidity video continuation (Blender; OP-1..OS-3 task generators)"
    extra = "blender"
    requires = ("bpy",)
    Config = WropConfig
    fields = (
        FieldSpec(
            "input_video",
            "mp4",
            "uint8",
            ("F", "H", "W", 3),
            description="frames 0 .. F-1 of the 2F-frame clip, RGB, H.264",
        ),
        FieldSpec(
            "target_video",
            "mp4",
            "uint8",
            ("F", "H", "W", 3),
            description="frames F .. 2F-1 of the clip, RGB, H.264",
        ),
        FieldSpec("prompt", "txt", description="describes the scene, never the outcome"),
        FieldSpec(
            "trajectory",
            "json",
            units="m",
            frame="world, z up; quaternion (w, x, y, z)",
            description="frames, fps, cut, resolution, camera (position, rotation, lens, sensor); "
            "objects[name]: role, kind, dims, colour, mesh (asset id of a prop standing in for a primitive, whose "
            "bounding box dims records; else empty), and per frame position, rotation, scale, image_xy "
            "(normalised, origin bottom-left), bbox_min/bbox_max (world AABB of the evaluated mesh), "
            "visibility (0..1), occluded_by (name -> share), seen_through (name -> share seen through a clear "
            "object; scenes with one); camera.track: per-frame position and rotation of a moving camera",
        ),
    )
    smoke_config = {"frames": 24, "width": 64, "height": 36, "visibility_points": 16}
    #: ``task`` plus the union of the task generators' structural parameter names (set below the class)
    structural_params: ClassVar[tuple[str, ...]] = ("task",)
    surface_params = (
        "floor",
        "sky",
        "finish",
        "sun_azimuth_deg",
        "sun_elevation_deg",
        "sun_strength",
        "camera_azimuth_jitter_deg",
        "camera_elevation_jitter_deg",
        "camera_distance_scale",
        "lighting",
        "floor_pattern",
        "floor_pattern_scale",
        "colour_<slot>",
        "pattern_<slot>",
        "pattern_scale_<slot>",
        "pattern_contrast_<slot>",
        "mesh_<slot>",
    )

    @classmethod
    def list_lines(cls) -> list[str]:
        """One line per task generator: ``FAMILY/NAME  summary`` (``simkit list wrop``)."""
        cat = catalogue()
        w = max(len(k) for k in cat)
        return [f"{k:<{w}}  {c.summary}" for k, c in cat.items()]

    @classmethod
    def catalogue_ids(cls, spec: str = "all") -> list[str]:
        """Ids of the task generators ``spec`` selects (``all``, a family or one id).

        Raises:
            ValueError: ``spec`` selects nothing.
        """
        return [t.id() for t in select(spec)]

    @classmethod
    def write_catalogue(
        cls, path: Path, spec: str = "all", thumbnails: bool = True, workers: int = 1, on_done=None
    ) -> tuple[Path, list[str]]:
        """Write the catalogue page (``simkit list wrop --catalogue PATH``); see
        :func:`simkit.generators.wrop.catalogue_page.write_catalogue`."""
        from simkit.generators.wrop.catalogue_page import write_catalogue

        return write_catalogue(path, spec, thumbnails, workers, on_done)

    def setup(self, config: WropConfig) -> None:
        super().setup(config)
        self.tasks = select(config.generator)

    # -- seeds --------------------------------------------------------------------------------------
    @staticmethod
    def draw_seeds(rng: np.random.Generator, split: str) -> tuple[int, int]:
        """(structural_seed, surface_seed) of a sample: two draws from the episode rng, in this order."""
        structural = int(rng.integers(0, EXAM_OFFSET))
        surface = int(rng.integers(0, EXAM_OFFSET))
        if split == "exam":
            structural += EXAM_OFFSET
        return structural, surface

    def compose(self, task_cls, structural_seed: int, surface_seed: int):
        """(task, structural params, look, composition) of the given seeds under this config.

        Raises:
            ValueError: this structural draw does not fit the clip (``generate`` redraws it).
            AuthoringError: the composition breaks a rule of the task language
                (:func:`~simkit.generators.wrop.base.check_composition`): a bug of the task, never redrawn.
        """
        cfg = self.config
        task = task_cls()
        s = task.sample_structural(structural_seed)
        look = task.sample_surface(surface_seed)
        clip = Clip(cfg.frames, cfg.fps)
        if cfg.frames < task.min_frames:
            raise ValueError(f"{task.id()} needs frames >= {task.min_frames}, got {cfg.frames}")
        comp = task.compose(s, clip, look)
        comp.prompt, comp.outcome = fix_articles(comp.prompt), fix_articles(comp.outcome)
        check_composition(task.id(), comp, clip.frames)
        return task, s, look, comp

    def render(self, task, look, comp):
        """Build, render and measure a composition; returns (frames uint8 (T,H,W,3), trajectory dict)."""
        from simkit.renderers.blender import RenderSettings
        from simkit.scenes.wrop.spec import Scene

        cfg = self.config
        camera = look.camera(task.view) if comp.camera is None else look.camera_path(comp.camera)
        sun, world_strength, lamps = look.lights()
        scene = Scene(
            cfg.frames,
            cfg.fps,
            comp.objects,
            camera,
            sun,
            look.background(),
            world_strength=world_strength,
            lamps=lamps,
        )
        ses = self.session()
        ses.reset()
        ses.configure(
            RenderSettings(
                cfg.engine,
                cfg.width,
                cfg.height,
                cfg.samples,
                cfg.denoise,
                cfg.device,
                cfg.view_transform,
                cycles_backend=cfg.cycles_backend,
                frame_progress={"auto": None, "on": True, "off": False}[cfg.frame_progress],
            ),
            cfg.frames,
            cfg.fps,
        )
        ses.build(scene)
        frames = ses.render(cfg.frames)
        traj = ses.measure(scene, cfg.visibility_points)
        return frames, traj

    def generate(self, index: int, rng: np.random.Generator) -> Episode:
        """One sample of task ``index mod count``. A draw that does not fit the clip, or whose rendered
        trajectory breaks an expectation or an outcome claim, raises ``SampleRejected`` (the engine redraws
        it); an authoring error of the task (``AuthoringError``, raised by :meth:`compose` before anything is
        rendered) propagates and fails the episode at once."""
        from simkit.scenes.wrop import claims
        from simkit.scenes.wrop.expect import evaluate

        cfg = self.config
        task_cls = self.tasks[index % len(self.tasks)]
        structural_seed, surface_seed = self.draw_seeds(rng, cfg.split)
        try:
            task, s, look, comp = self.compose(task_cls, structural_seed, surface_seed)
        except ValueError as exc:  # this structural draw does not fit the clip: redraw
            raise SampleRejected(f"{task_cls.id()}: {exc}") from exc
        frames, traj = self.render(task, look, comp)
        problems = evaluate(comp.expectations, traj) + claims.evaluate(comp.claims, traj)
        if problems:
            raise SampleRejected(f"{task.id()}: {problems[0]}")
        cut = cfg.frames // 2
        traj["cut"] = cut
        meta = {
            "generator_id": task.id(),
            "family": task.family,
            "split": cfg.split,
            "structural_seed": structural_seed,
            "surface_seed": surface_seed,
            "expected_outcome": comp.outcome,
            "legal_outcomes": comp.legal_outcomes or [comp.outcome],
            "event_frames": comp.events,
            "key_event": comp.key_event,
            "cut_frame": cut,
            "input_frames": [0, cut - 1],
            "target_frames": [cut, cfg.frames - 1],
            "frames": cfg.frames,
            "fps": cfg.fps,
            "input_fps": cfg.fps,
            "target_fps": cfg.fps,
            "resolution": [cfg.width, cfg.height],
            "engine": cfg.engine,
            "blender_version": self.session().version,
            "expectations": [e.to_dict() for e in comp.expectations],
            "derived": comp.derived,
        }
        fields = {
            "input_video": Video(frames[:cut], fps=cfg.fps, crf=cfg.crf),
            "target_video": Video(frames[cut:], fps=cfg.fps, crf=cfg.crf),
            "prompt": comp.prompt,
            "trajectory": traj,
        }
        params = {"structural": {"task": task.id(), **s}, "surface": look.flat()}
        return Episode(fields, params=params, meta=meta)

    # -- audit ----------------------------------------------------------------------------------------
    def check(self, sample: dict[str, Any]) -> list[str]:
        from simkit.generators.wrop.audit import audit

        return audit(self, sample)

    def inspect(self, samples: list[dict[str, Any]], out_dir: Path) -> list[Path]:
        from simkit.generators.wrop.sheet import contact_sheets

        return contact_sheets(samples, out_dir)


WropGenerator.structural_params = ("task",) + tuple(
    sorted({k for c in catalogue().values() for k in c.structural})
)

__all__ = ["FAMILIES", "WropConfig", "WropGenerator", "catalogue", "select"]
