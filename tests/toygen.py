"""A small generator used by the engine tests (registered through $SIMKIT_GENERATORS)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from pydantic import Field, field_validator

from simkit.core.episode import Audio, Episode, Image, Video
from simkit.core.errors import SampleInvalid, SampleRejected, TransientError
from simkit.core.fields import FieldSpec
from simkit.core.generator import Generator, GeneratorConfig


class ToyConfig(GeneratorConfig):
    size: int = Field(16, ge=2, description="image side in pixels")
    reject_below: float = Field(0.0, ge=0, le=1, description="reject samples whose first draw is below this")
    fail_index: int = Field(-1, description="this index raises a permanent error")
    invalid_index: int = Field(-1, description="this index raises SampleInvalid (no redraw can fix it)")
    sleep_s: float = Field(0.0, ge=0, description="seconds to sleep per episode (kill tests)")
    payload_bytes: int = Field(0, ge=0, description="extra random bytes per episode")
    flaky_dir: str = Field("", description="if set, the first attempt of each episode raises TransientError")
    input_dir: str = Field(
        "", description="if set, must be an existing directory (like a user's asset folder)"
    )

    @field_validator("input_dir")
    @classmethod
    def _exists(cls, v: str) -> str:
        if v and not Path(v).is_dir():
            raise ValueError(f"{v} is not a directory")
        return v


class ToyGenerator(Generator):
    name = "toy"
    version = "1"
    description = "test generator: random image + numbers"
    Config = ToyConfig
    fields = (
        FieldSpec("image", "png", "uint8", ("S", "S", 3), description="random pixels, red channel = tint"),
        FieldSpec("values", "npy", "float32", ("V",), description="V standard normal draws"),
        FieldSpec("info", "json", description="first draw, V"),
        FieldSpec(
            "payload", "npy", "uint8", ("P",), description="payload_bytes random bytes", required=False
        ),
    )
    smoke_config = {"size": 8}
    structural_params = ("n_values",)
    surface_params = ("tint",)

    def generate(self, index, rng):
        cfg = self.config
        first = float(rng.random())
        if index == cfg.invalid_index:
            raise SampleInvalid("its fixed input cannot pass")
        if first < cfg.reject_below:
            raise SampleRejected(f"first draw {first:.3f} < {cfg.reject_below}")
        if index == cfg.fail_index:
            raise RuntimeError("deliberate permanent failure")
        if cfg.flaky_dir:
            marker = Path(cfg.flaky_dir) / f"{index}.seen"
            if not marker.exists():
                marker.write_text("x")
                raise TransientError("first attempt fails")
        if cfg.sleep_s:
            time.sleep(cfg.sleep_s)
        n_values = int(rng.integers(1, 6))
        tint = int(rng.integers(0, 256))
        img = rng.integers(0, 256, size=(cfg.size, cfg.size, 3), dtype=np.uint8)
        img[..., 0] = tint
        fields = {
            "image": Image(img),
            "values": rng.normal(size=n_values).astype(np.float32),
            "info": {"first": first, "n_values": n_values, "pid_free": True},
        }
        if cfg.payload_bytes:
            fields["payload"] = rng.integers(0, 256, size=cfg.payload_bytes, dtype=np.uint8)
        return Episode(fields, params={"structural": {"n_values": n_values}, "surface": {"tint": tint}})

    def check(self, sample):
        problems = []
        if len(sample["values"]) != sample["info"]["n_values"]:
            problems.append("values length differs from info.n_values")
        side = self.config.size if self.config is not None else None
        if side is not None and tuple(np.asarray(sample["image"]).shape[:2]) != (side, side):
            problems.append(f"image is not {side}x{side} pixels (config size)")
        return problems


class MediaConfig(GeneratorConfig):
    frames: int = Field(3, ge=1, description="video frames")
    seconds: float = Field(0.05, gt=0, description="audio length, s")


class MediaGenerator(Generator):
    """Test generator with every media codec: PNG image, FLAC audio, MP4 video, ragged npy track."""

    name = "media"
    version = "1"
    description = "test generator: png + flac + mp4 + a ragged per-step track"
    Config = MediaConfig
    fields = (
        FieldSpec("image", "png", "uint8", (8, 8, 3), description="random image"),
        FieldSpec("audio", "flac", "float32", ("T", 1), units="", description="a sine"),
        FieldSpec("video", "mp4", "uint8", ("F", 16, 16, 3), description="grey ramp frames"),
        FieldSpec("track", "npy", "float32", ("S", 2), units="m", description="per-step positions"),
        FieldSpec("steps", "json", description="one record per step"),
    )
    required_fields = ("image", "audio", "video", "track", "steps")
    smoke_config: ClassVar[dict[str, Any]] = {"frames": 2}

    def generate(self, index, rng):
        cfg = self.config
        sr = 16000
        t = np.arange(int(cfg.seconds * sr)) / sr
        freq = float(rng.uniform(200, 800))
        audio = (0.5 * np.sin(2 * np.pi * freq * t))[:, None].astype(np.float32)
        level = int(rng.integers(16, 240))
        video = np.full((cfg.frames, 16, 16, 3), level, np.uint8)
        n_steps = int(rng.integers(2, 7))  # ragged across episodes
        track = rng.normal(size=(n_steps, 2)).astype(np.float32)
        fields = {
            "image": Image(rng.integers(0, 256, (8, 8, 3), dtype=np.uint8)),
            "audio": Audio(audio, sr),
            "video": Video(video, fps=10),
            "track": track,
            "steps": [{"t": k, "level": level} for k in range(n_steps)],
        }
        return Episode(fields, params={"structural": {"n_steps": n_steps}, "surface": {"freq": freq}})
