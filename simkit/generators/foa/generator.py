"""``foa-qa``: first-order Ambisonics scenes with spatial-audio question answering.

Reads top to bottom as compile -> render -> episode:

1. compile: :func:`simkit.generators.foa.director.direct_scene` draws a structured scene
   (by default 1-3 foreground + 1-2 off-screen sources, in counts that fit the timeline, and an
   ambient bed; labels, LUFS, onsets, world trajectories, a camera with a yaw trajectory, a shoebox room);
2. render: :func:`simkit.generators.foa.director.render_scene` synthesises the stems (procedural
   bank, or ``sounds: DIR``) and renders AmbiX FOA with :mod:`simkit.renderers.foa`;
   :func:`simkit.renderers.foa.foa_features` computes the 5 x 128 x T features;
3. episode: the QA list is generated deterministically from the stored trajectories by
   :func:`make_qa` (four kinds: direction, motion, 3D localisation, camera rotation), so
   ``simkit validate`` can regenerate and compare it.

``mode: foa-static`` makes encoder pre-training scenes instead (OmniEcho stage 1): 1-4 static
sources at any azimuth (elevation -30..60 deg), 2-8 s, no camera turn, no off-screen sources; its QA has only
the direction and 3D-localisation kinds.

Source: OmniEcho data pipeline (seed notes ``omniecho_foa_nav``; digest ``specs/foa.md``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from simkit.core.episode import Audio, Episode
from simkit.core.errors import SampleRejected
from simkit.core.fields import FieldSpec
from simkit.core.generator import Generator, GeneratorConfig, module_versions
from simkit.core.seeding import stable_hash

QA_KINDS = ("direction", "motion", "localization_3d", "camera_rotation")
MOTION_TEXT = {
    "left-to-right": "It moves from left to right.",
    "right-to-left": "It moves from right to left.",
    "approaching": "It comes closer.",
    "receding": "It moves away.",
    "stationary": "It stays in place.",
}
#: the same options for a source whose name is plural ("footsteps": "They move from left to right.")
MOTION_TEXT_PLURAL = {
    "left-to-right": "They move from left to right.",
    "right-to-left": "They move from right to left.",
    "approaching": "They come closer.",
    "receding": "They move away.",
    "stationary": "They stay in place.",
}
ROTATION_TEXT = {
    "left": "The camera turns left.",
    "right": "The camera turns right.",
    "none": "The camera does not turn.",
    "around": "The camera turns around (about 180 degrees).",
}
LETTERS = "ABCD"
STRUCTURED_KEYS = {
    "direction": {"direction", "azimuth_deg", "time_s"},
    "motion": {"motion", "choice", "options", "delta_y_m", "delta_distance_m"},
    "localization_3d": {"direction", "azimuth_deg", "elevation_deg", "distance_m", "time_s"},
    "camera_rotation": {"rotation", "angle_deg", "choice", "options"},
}


Range = tuple[float, float]
#: nearest source distance the renderer models (``render_foa`` clamps r to r_min = 0.3 m)
R_MIN_M = 0.3


class FoaQaConfig(GeneratorConfig):
    """Configuration of ``foa-qa`` (defaults: 3 s of 16 kHz FOA per episode, well under 1 s of CPU)."""

    mode: Literal["qa", "foa-static"] = Field(
        "qa", description="qa: QA scenes; foa-static: encoder pre-training scenes"
    )
    sample_rate: Literal[16000, 48000] = Field(16000, description="FOA sample rate in Hz: 16000 or 48000")
    duration_s: float = Field(3.0, ge=1.0, le=60.0, description="episode length in seconds (mode qa), 1-60")
    static_duration_s: Range = Field(
        (2.0, 8.0), description="[min, max] episode length in seconds (mode foa-static), within (0.5, 60]"
    )
    n_sources: tuple[int, int] = Field((1, 3), description="[min, max] foreground sources")
    n_offscreen: tuple[int, int] = Field((1, 2), description="[min, max] off-screen sources (mode qa)")
    distance_m: Range = Field(
        (1.0, 4.0),
        description="[min, max] source distance in metres (min >= 0.3), capped by max_distance_rc",
    )
    elevation_deg: Range = Field(
        (-20.0, 30.0),
        description="[min, max] source elevation in degrees (mode qa); must reach the camera's vertical view",
    )
    lufs: Range = Field((-32.0, -20.0), description="[min, max] source loudness at 1 m in LUFS")
    ambient: bool = Field(True, description="add an ambient bed")
    ambient_lufs: Range = Field((-58.0, -48.0), description="[min, max] ambient bed loudness in LUFS")
    fov_deg: float = Field(90.0, gt=10.0, lt=170.0, description="camera horizontal field of view in degrees")
    image_width: int = Field(640, ge=16, description="image width in pixels (pinhole coordinates)")
    image_height: int = Field(360, ge=16, description="image height in pixels")
    camera_turn_prob: float = Field(
        0.6, ge=0.0, le=1.0, description="probability that the camera turns (mode qa)"
    )
    turn_deg: Range = Field(
        (30.0, 75.0),
        description="[min, max] camera turn angle in degrees, within [0, 180] and max + fov_deg <= 270",
    )
    room: bool = Field(True, description="shoebox room with image-source early reflections")
    image_order: int = Field(1, ge=0, le=4, description="image-source reflection order")
    tail: bool = Field(True, description="diffuse late tail (needs room)")
    rt60_s: Range = Field(
        (0.2, 0.4),
        description="[min, max] reverberation time in seconds (mid-band: mean of 500 Hz and 1 kHz)",
    )
    max_distance_rc: float | None = Field(
        2.0,
        gt=0.0,
        description="room drawn first (realistic size) and sources within this many critical distances "
        "(2 = DRR >= -6 dB); null = v2 behaviour (room drawn around the sources)",
    )
    materials: bool = Field(
        True, description="octave-band wall absorption from material tables (per-band RT60 of the tail)"
    )
    max_concurrent: int | None = Field(
        2,
        ge=1,
        description="at most this many sources sound at once (mode qa); null = v2 timing (all overlap)",
    )
    dominance_db: float | None = Field(
        6.0,
        description="direction/3D questions only about a source whose direct sound exceeds the other "
        "sources and the ambient bed by this margin (dB) at the question time, with a DRR >= min_drr_db; "
        "null = ask about every source (v2 behaviour)",
    )
    min_drr_db: float = Field(
        -3.0, description="least direct-to-reverberant ratio (dB) at a direction question's time"
    )
    n_interferers: tuple[int, int] = Field((0, 0), description="[min, max] plane-wave interferers")
    snr_choices_db: list[float] = Field(
        [20.0, 15.0, 10.0, 5.0, 0.0],
        min_length=1,
        description="interferer SNR choices in dB (W-channel power)",
    )
    propagation_delay: bool = Field(
        True, description="propagation delay r/c (and Doppler) on the direct path"
    )
    block: int = Field(
        32, ge=1, le=4096, description="geometry update interval in samples (gains ramp in between)"
    )
    sounds: str = Field(
        "", description="sound bank directory (one folder per label or an ESC-50 CSV); empty = procedural"
    )

    @field_validator("duration_s", mode="before")
    @classmethod
    def _duration(cls, v):
        """One message with the usable range (every source of a qa scene sounds for at least 1 s)."""
        if isinstance(v, (int, float)) and not isinstance(v, bool) and not 1.0 <= v <= 60.0:
            raise ValueError(
                f"duration_s must lie within [1, 60] s (every source sounds for at least 1 s), got {v}"
            )
        return v

    @field_validator("sounds")
    @classmethod
    def _sounds_dir(cls, v: str) -> str:
        """Fail at config validation (before any output is written) on a missing or empty bank folder."""
        from simkit.assets.sounds import check_bank_dir

        return check_bank_dir(v)

    features: bool = Field(True, description="store the 5x128xT feature tensor")
    channel_format: Literal["ambix", "fuma"] = Field(
        "ambix", description="ambix: ACN W,Y,Z,X / SN3D (default); fuma: W,X,Y,Z with W at -3 dB"
    )

    @model_validator(mode="after")
    def _ranges(self):
        for name in (
            "static_duration_s",
            "n_sources",
            "n_offscreen",
            "distance_m",
            "elevation_deg",
            "lufs",
            "ambient_lufs",
            "turn_deg",
            "rt60_s",
            "n_interferers",
        ):
            lo, hi = getattr(self, name)
            if lo > hi:
                raise ValueError(f"{name}: min {lo} > max {hi}")
        if self.n_sources[0] < 1 or self.n_sources[1] > 4:
            raise ValueError("n_sources must lie within [1, 4]")
        if self.n_offscreen[0] < 0 or self.n_offscreen[1] > 6:
            raise ValueError("n_offscreen must lie within [0, 6]")
        if self.distance_m[0] < R_MIN_M:
            raise ValueError(
                f"distance_m must lie within [{R_MIN_M}, inf) m (the renderer clamps nearer sources "
                f"to {R_MIN_M} m), got {list(self.distance_m)}"
            )
        if self.rt60_s[0] <= 0:
            raise ValueError(f"rt60_s must be > 0, got {list(self.rt60_s)}")
        if self.static_duration_s[0] <= 0.5 or self.static_duration_s[1] > 60.0:
            raise ValueError(
                f"static_duration_s must lie within (0.5, 60] s, got {list(self.static_duration_s)}"
            )
        if self.n_interferers[0] < 0:
            raise ValueError("n_interferers must be >= 0")
        if self.elevation_deg[0] < -90.0 or self.elevation_deg[1] > 90.0:
            raise ValueError(f"elevation_deg must lie within [-90, 90], got {list(self.elevation_deg)}")
        if self.turn_deg[0] < 0.0 or self.turn_deg[1] > 180.0:
            raise ValueError(f"turn_deg must lie within [0, 180], got {list(self.turn_deg)}")
        if self.mode == "qa" and self.max_concurrent is not None:
            from simkit.generators.foa.director import MIN_ACTIVE_S

            most = self.n_sources[1] + self.n_offscreen[1]
            room = self.max_concurrent * int(self.duration_s // MIN_ACTIVE_S)
            if most > room:
                raise ValueError(
                    f"max_concurrent {self.max_concurrent}: up to {most} sources (n_sources + n_offscreen) "
                    f"cannot each sound for >= {MIN_ACTIVE_S:.0f} s with at most {self.max_concurrent} at once "
                    f"in duration_s {self.duration_s} s (room for {room}); raise max_concurrent or duration_s, "
                    "lower the source counts, or set max_concurrent null"
                )
        if self.mode == "qa":
            from simkit.generators.foa.director import foreground_elevation_limit

            lim = foreground_elevation_limit(self.fov_deg, self.image_width, self.image_height)
            if self.elevation_deg[0] > lim or self.elevation_deg[1] < -lim:
                raise ValueError(
                    f"elevation_deg {list(self.elevation_deg)} must overlap [{-lim:.1f}, {lim:.1f}] deg, the "
                    f"elevations at which a foreground source is on screen with fov_deg {self.fov_deg} and "
                    f"{self.image_width}x{self.image_height} pixels"
                )
            if (
                self.n_offscreen[1] > 0
                and self.camera_turn_prob > 0
                and self.turn_deg[1] + self.fov_deg > 270.0
            ):
                raise ValueError(
                    f"turn_deg max {self.turn_deg[1]} + fov_deg {self.fov_deg} must be <= 270 so that off-screen "
                    "sources have room outside the swept field of view (or set n_offscreen [0, 0] or "
                    "camera_turn_prob 0)"
                )
        return self


# -- QA ------------------------------------------------------------------------------------------
def _options(correct: str, pool: list[str], tag: str) -> tuple[list[str], str]:
    """Four options (the correct one + 3 distractors), ordered by a hash of ``tag`` (deterministic)."""
    others = sorted((o for o in pool if o != correct), key=lambda o: stable_hash(f"{tag}|{o}"))[:3]
    opts = sorted([correct] + others, key=lambda o: stable_hash(f"{tag}#{o}"))
    return opts, LETTERS[opts.index(correct)]


def _at(track: dict, t: float) -> int:
    ts = np.asarray(track["time_s"])
    return int(np.argmin(np.abs(ts - t)))


def make_qa(scene: dict) -> list[dict]:
    """Question-answer pairs of a scene, computed only from its stored trajectories (deterministic).

    Kinds (OmniEcho QA; scoring rules in the seed notes): ``direction`` (8-way token + azimuth at
    the middle of the source's activity; scored by exact 8-way match or angle within +-45 deg),
    ``motion`` (4-way multiple choice over the classes of
    :func:`~simkit.generators.foa.director.motion_of`), ``localization_3d`` (direction token,
    azimuth, elevation and distance a quarter into the activity; scored by distance error <= 2 m
    and a correct direction), ``camera_rotation`` (4-way multiple choice + angle). Directions are
    in the listener (camera) frame at the question's time. Only sources whose label is unique in
    the scene get questions (so "the <label>" is unambiguous).

    Returns:
        list of ``{"id", "kind", "source_id", "question", "answer", "structured"}`` dicts.
    """
    static = scene["mode"] == "foa-static"
    labels = [s["label"] for s in scene["sources"]]
    qa: list[dict] = []

    def add(kind, sid, q, a, st):
        qa.append(
            {
                "id": f"q{len(qa)}",
                "kind": kind,
                "source_id": sid,
                "question": q,
                "answer": a,
                "structured": st,
            }
        )

    for s in scene["sources"]:
        if labels.count(s["label"]) != 1:
            continue
        name = s["label"].replace("_", " ")
        tr = s["track"]
        aud = s.get("audibility") or {}
        if aud.get("answerable", True):
            _direction_items(add, s, name, tr, aud.get("question_time_s"))
        if not static:
            _motion_item(add, s, name, scene)
    if not static:
        _rotation_item(add, scene, len(labels))
    return qa


def _direction_items(add, s: dict, name: str, tr: dict, t_q: float | None) -> None:
    """The ``direction`` and ``localization_3d`` items of a source: at ``t_q`` (its audibility
    question time) or, for scenes without one, at the middle / a quarter into its activity."""
    from simkit.generators.foa.director import direction8

    on, off = s["onset_s"], s["offset_s"]
    k = _at(tr, 0.5 * (on + off) if t_q is None else t_q)
    t, az = tr["time_s"][k], tr["azimuth_deg"][k]
    d8 = direction8(az)
    add(
        "direction",
        s["id"],
        f"At {t:.1f} s, from which direction relative to you does the {name} sound come?",
        f"From the {d8} (azimuth {az:.0f} degrees).",
        {"direction": d8, "azimuth_deg": round(az, 1), "time_s": t},
    )
    k = _at(tr, on + 0.25 * (off - on) if t_q is None else t_q)
    t, az, el, r = tr["time_s"][k], tr["azimuth_deg"][k], tr["elevation_deg"][k], tr["distance_m"][k]
    d8 = direction8(az)
    add(
        "localization_3d",
        s["id"],
        f"Where {'are' if is_plural(name) else 'is'} the {name} at {t:.1f} s? Give "
        f"{'their' if is_plural(name) else 'its'} direction and distance from you.",
        f"To the {d8}, about {r:.1f} m away (azimuth {az:.0f} degrees, elevation {el:.0f} degrees).",
        {
            "direction": d8,
            "azimuth_deg": round(az, 1),
            "elevation_deg": round(el, 1),
            "distance_m": round(r, 2),
            "time_s": t,
        },
    )


#: last words of sound labels that are plural without ending in a plural "s"
_IRREGULAR_PLURALS = frozenset({"teeth", "people", "geese", "mice", "feet", "children"})


def is_plural(name: str) -> bool:
    """Whether a sound name reads as a plural noun phrase ("footsteps", "church bells", "brushing
    teeth"; not "glass", "bus", "sneezing"): its last word ends in "s" but not "ss"/"us"/"is", or is
    an irregular plural. Decides the verbs and pronouns of the motion and localization items ("How do the
    footsteps move ... They move from left to right", "Where are the footsteps ... their direction")."""
    last = name.split()[-1].lower() if name.split() else ""
    return last in _IRREGULAR_PLURALS or (last.endswith("s") and not last.endswith(("ss", "us", "is")))


def _motion_item(add, s: dict, name: str, scene: dict) -> None:
    """The 4-way ``motion`` item of a source."""
    from simkit.generators.foa.director import motion_of

    on, off = s["onset_s"], s["offset_s"]
    mot = motion_of(s, scene)
    plural = is_plural(name)
    q = (
        f"How do the {name} move while they are sounding?"
        if plural
        else f"How does the {name} move while it is sounding?"
    )
    text = MOTION_TEXT_PLURAL if plural else MOTION_TEXT
    opts, letter = _options(mot["motion"], list(MOTION_TEXT), f"{s['id']}|{s['label']}|motion|{on}|{off}")
    q += " " + " ".join(f"{LETTERS[i]}. {text[o]}" for i, o in enumerate(opts))
    add(
        "motion",
        s["id"],
        q,
        f"{letter}. {text[mot['motion']]}",
        {
            "motion": mot["motion"],
            "choice": letter,
            "options": opts,
            "delta_y_m": mot["delta_y_m"],
            "delta_distance_m": mot["delta_distance_m"],
        },
    )


def _rotation_item(add, scene: dict, n_labels: int) -> None:
    """The ``camera_rotation`` item of a scene."""
    turn = scene["camera"]["turn"]
    rot = turn["direction"]
    opts, letter = _options(rot, list(ROTATION_TEXT), f"camera|{scene['duration_s']}|{n_labels}")
    q = "Does the camera turn during the clip? If so, which way and by how many degrees? " + " ".join(
        f"{LETTERS[i]}. {ROTATION_TEXT[o]}" for i, o in enumerate(opts)
    )
    ans = f"{letter}. {ROTATION_TEXT[rot]}" + (
        f" It turns by about {turn['angle_deg']:.0f} degrees." if rot != "none" else ""
    )
    add(
        "camera_rotation",
        None,
        q,
        ans,
        {"rotation": rot, "angle_deg": float(turn["angle_deg"]), "choice": letter, "options": opts},
    )


#: a direction label whose onset-weighted DOA estimate misses it by more than this fails the label-audibility
#: check (between the 20 deg agreement goal and the benchmark's +-45 deg tolerance for angle answers)
DOA_FAIL_DEG = 30.0
#: the agreement the corpus reports: the share of direction labels within this angle of the DOA estimate
DOA_AGREE_DEG = 20.0
#: lowest frequency (Hz) of the label-audibility DOA estimate: below it small rooms are modal and their
#: longer low-frequency reverberation (octave-band RT60) blurs the intensity direction
DOA_FMIN_HZ = 500.0


def direction_errors(foa_acn: np.ndarray, sr: int, qa: list[dict]) -> list[tuple[str, float]]:
    """Angle (degrees, in [0, 180]) between each direction-bearing label (``direction`` and
    ``localization_3d`` items) and the direction estimated from the episode's own FOA around the
    question's time (:func:`simkit.renderers.foa.estimate_directions`, onset-weighted DirAC
    intensity over +-``AUDIBILITY_HALF_WINDOW_S``; azimuth only, the quantity the 8-way and +-45 deg
    scoring rules use). A silent window counts as 180 deg.

    Returns:
        ``[(question id, error_deg), ...]`` in QA order.
    """
    from simkit.generators.foa.director import AUDIBILITY_HALF_WINDOW_S
    from simkit.renderers.foa import estimate_directions

    items = [q for q in qa if q.get("kind") in ("direction", "localization_3d")]
    if not items:
        return []
    est = estimate_directions(
        foa_acn, sr, [q["structured"]["time_s"] for q in items], AUDIBILITY_HALF_WINDOW_S, fmin=DOA_FMIN_HZ
    )
    out = []
    for q, (az, _el, _w) in zip(items, est):
        err = (
            180.0
            if not np.isfinite(az)
            else abs((az - q["structured"]["azimuth_deg"] + 180.0) % 360.0 - 180.0)
        )
        out.append((q["id"], float(err)))
    return out


def check_qa_schema(qa: Any) -> list[str]:
    """Problems with the structure of a QA list (types, kinds, structured keys, choice letters)."""
    if not isinstance(qa, list):
        return ["qa is not a list"]
    problems = []
    for i, item in enumerate(qa):
        if not isinstance(item, dict):
            problems.append(f"qa[{i}] is not an object")
            continue
        kind = item.get("kind")
        if kind not in QA_KINDS:
            problems.append(f"qa[{i}]: unknown kind {kind!r}")
            continue
        for key in ("question", "answer"):
            if not isinstance(item.get(key), str) or not item[key]:
                problems.append(f"qa[{i}]: {key} must be a non-empty string")
        st = item.get("structured")
        if not isinstance(st, dict) or not STRUCTURED_KEYS[kind] <= set(st):
            problems.append(f"qa[{i}] ({kind}): structured answer needs keys {sorted(STRUCTURED_KEYS[kind])}")
            continue
        if "choice" in st and (st["choice"] not in LETTERS or len(st["options"]) != 4):
            problems.append(f"qa[{i}] ({kind}): choice must be one of A-D over 4 options")
    return problems


# -- generator -----------------------------------------------------------------------------------
class FoaQaGenerator(Generator[FoaQaConfig]):
    """FOA spatial-audio scenes + QA (see the module docstring)."""

    name = "foa-qa"
    version = "7"
    description = "first-order Ambisonics scenes (AmbiX) with direction/motion/3D/camera-rotation QA"
    extra = "audio"
    requires = ("scipy", "pyloudnorm", "pyroomacoustics")
    Config = FoaQaConfig
    fields = (
        FieldSpec(
            "foa",
            "flac",
            "float32",
            ("S", 4),
            units="full scale, [-1, 1]",
            frame="listener: x ahead, y left, z up",
            description="S samples of first-order Ambisonics: AmbiX W, Y, Z, X (FuMa W, X, Y, Z with "
            "channel_format: fuma); peak-limited to 0.99 (never amplified)",
        ),
        FieldSpec(
            "features",
            "npy",
            "float32",
            (5, 128, "F"),
            frame="listener: x ahead, y left, z up",
            description="log-mel W, intensity x/y/z, diffuseness; F = 1 + S16k // 160 frames (S16k: samples "
            "at 16 kHz); config features",
            required=False,
        ),
        FieldSpec(
            "scene", "json", description="the scene description (below): sources, camera, room, mix gain"
        ),
        FieldSpec(
            "qa", "json", description="list of question-answer items with structured labels (four kinds)"
        ),
    )
    smoke_config = {"duration_s": 1.0, "n_sources": (1, 1), "n_offscreen": (0, 1)}
    structural_params = ("mode", "n_sources", "n_offscreen", "camera_turn", "labels", "motions", "duration_s")
    surface_params = ("lufs", "ambient_label", "rt60_s", "room_size_m", "interferer_snr_db")

    def setup(self, config: FoaQaConfig) -> None:
        super().setup(config)
        from simkit.assets.sounds import load_bank

        self.bank = load_bank(config.sounds or None)

    def _params(self):
        from simkit.generators.foa.director import DirectorParams

        c: FoaQaConfig = self.config
        return DirectorParams(
            mode=c.mode,
            duration_s=c.duration_s,
            static_duration_s=c.static_duration_s,
            n_sources=c.n_sources,
            n_offscreen=c.n_offscreen,
            distance_m=c.distance_m,
            elevation_deg=c.elevation_deg,
            lufs=c.lufs,
            ambient=c.ambient,
            ambient_lufs=c.ambient_lufs,
            fov_deg=c.fov_deg,
            image_size=(c.image_width, c.image_height),
            camera_turn_prob=c.camera_turn_prob,
            turn_deg=c.turn_deg,
            room=c.room,
            image_order=c.image_order,
            rt60_s=c.rt60_s,
            tail=c.tail,
            n_interferers=c.n_interferers,
            snr_choices_db=tuple(c.snr_choices_db),
            max_distance_rc=c.max_distance_rc,
            materials=c.materials,
            dominance_db=c.dominance_db,
            max_concurrent=c.max_concurrent,
            labels=list(self.bank.labels),
            ambient_labels=list(self.bank.ambient_labels),
        )

    def generate(self, index: int, rng: np.random.Generator) -> Episode:
        from simkit.generators.foa.director import (
            DirectorFailed,
            direct_scene,
            measure_audibility,
            render_scene,
        )
        from simkit.renderers.foa import acn_sn3d_to_fuma, ambisonics_comment, foa_features

        c: FoaQaConfig = self.config
        # 1. compile
        try:
            scene = direct_scene(rng, self._params())
        except DirectorFailed as exc:
            raise SampleRejected(str(exc)) from None
        scene["sample_rate"] = int(c.sample_rate)
        scene["sound_bank"] = self.bank.name
        # 2. render
        foa, info = render_scene(
            scene, self.bank, c.sample_rate, rng, delay=c.propagation_delay, block=c.block
        )
        if not np.any(foa):
            raise SampleRejected("silent mix")
        scene["mix_gain_db"] = info["mix_gain_db"]
        aud = measure_audibility(
            scene, info["stems"], info["background_w"], c.sample_rate, c.dominance_db, c.min_drr_db
        )
        for s, a in zip(scene["sources"], aud["sources"]):
            s["audibility"] = a
        scene["audibility"] = {
            "dominance_db": c.dominance_db,
            "critical_distance_m": scene["room"]["critical_distance_m"] if scene["room"] else None,
            "max_concurrent_sources": aud["max_concurrent_sources"],
            "answerable_sources": sum(a["answerable"] for a in aud["sources"]),
        }
        for itf, snr in zip(scene["interferers"], info["snr_db_measured"]):
            itf["snr_db_measured"] = snr
        scene["channel_format"] = c.channel_format
        stored = foa if c.channel_format == "ambix" else acn_sn3d_to_fuma(foa)
        fields: dict[str, Any] = {
            "foa": Audio(
                stored.astype(np.float32), int(c.sample_rate), comment=ambisonics_comment(c.channel_format)
            )
        }
        if c.features:
            fields["features"] = foa_features(foa, c.sample_rate)  # always from the ACN/SN3D signal
        # 3. episode
        fields["scene"] = scene
        fields["qa"] = make_qa(scene)
        if c.dominance_db is not None:  # label audibility: direction labels must be recoverable
            # 1 deg tighter than validate's bound: the stored audio is the 24-bit FLAC of this signal
            bound = DOA_FAIL_DEG - 1.0
            bad = [(q, e) for q, e in direction_errors(foa, c.sample_rate, fields["qa"]) if e > bound]
            if bad:
                raise SampleRejected(
                    f"direction label {bad[0][0]} is {bad[0][1]:.0f} deg from the audio's DOA "
                    f"(> {bound:.0f} deg)"
                )
        srcs = scene["sources"]
        params = {
            "structural": {
                "mode": c.mode,
                "n_sources": sum(s["role"] != "offscreen" for s in srcs),
                "n_offscreen": sum(s["role"] == "offscreen" for s in srcs),
                "camera_turn": scene["camera"]["turn"]["direction"],
                "labels": [s["label"] for s in srcs],
                "motions": [s["motion"] for s in srcs],
                "duration_s": scene["duration_s"],
            },
            "surface": {
                "lufs": [s["lufs"] for s in srcs],
                "ambient_label": scene["ambient"]["label"] if scene["ambient"] else None,
                "rt60_s": scene["room"]["rt60_s"] if scene["room"] else None,
                "room_size_m": scene["room"]["size_m"] if scene["room"] else None,
                "interferer_snr_db": [i["snr_db"] for i in scene["interferers"]],
            },
        }
        return Episode(fields, params=params)

    def backend_versions(self) -> dict[str, str]:
        return module_versions("numpy", "scipy", "pyloudnorm", "soundfile")

    # -- validate / inspect ------------------------------------------------------------------------
    def check(self, sample: dict[str, Any]) -> list[str]:
        """Channel count, sample rate, duration, peak, feature shape/ranges, QA schema, and that the QA
        and every 10 Hz track agree with the stored keyframes and camera (recomputed)."""
        from simkit.generators.foa.director import track_from_scene
        from simkit.renderers.foa import n_frames

        problems: list[str] = []
        scene, qa = sample.get("scene"), sample.get("qa")
        if not isinstance(scene, dict):
            return ["scene is missing or not a JSON object"]
        sr_cfg = int(getattr(self.config, "sample_rate", None) or scene.get("sample_rate") or 16000)
        foa = sample.get("foa")
        n = None
        if foa is not None:
            x, sr = foa
            n = x.shape[0]
            if x.ndim != 2 or x.shape[1] != 4:
                problems.append(f"foa has shape {x.shape}, expected (T, 4) AmbiX")
            fmt = getattr(self.config, "channel_format", "ambix")
            if scene.get("channel_format", "ambix") != fmt:
                problems.append(f"scene channel format {scene.get('channel_format')!r}, config {fmt!r}")
            if sr != sr_cfg or sr != scene.get("sample_rate"):
                problems.append(
                    f"foa sample rate {sr} Hz, config {sr_cfg} Hz, scene {scene.get('sample_rate')} Hz"
                )
            want = int(round(scene["duration_s"] * sr))
            if n != want:
                problems.append(f"foa has {n} samples, expected {want} ({scene['duration_s']} s at {sr} Hz)")
            problems += self._check_duration(scene)
            if x.size and float(np.max(np.abs(x))) > 1.0:
                problems.append("foa peak exceeds 1.0")
            if x.size and not np.any(x):
                problems.append("foa is silent")
        feats = sample.get("features")
        if feats is not None and n is not None and foa is not None:
            shape = (5, 128, n_frames(n, foa[1]))
            if feats.shape != shape or feats.dtype != np.float32:
                problems.append(f"features {feats.dtype} {feats.shape}, expected float32 {shape}")
            elif not np.all(np.isfinite(feats)):
                problems.append("features contain NaN/inf")
            elif np.abs(feats[1:4]).max() > 1.0 + 1e-4 or feats[4].min() < 0 or feats[4].max() > 1.0:
                problems.append("intensity features outside [-1, 1] or diffuseness outside [0, 1]")
        half = scene["camera"]["fov_deg"] / 2.0
        for s in scene.get("sources", []):
            try:
                tr = track_from_scene(s, scene)
            except (KeyError, ValueError, TypeError) as exc:
                problems.append(f"source {s.get('id')}: bad keyframes ({exc})")
                continue
            if not np.allclose(tr["azimuth_deg"], s["track"]["azimuth_deg"], atol=1e-3) or not np.allclose(
                tr["distance_m"], s["track"]["distance_m"], atol=1e-3
            ):
                problems.append(f"source {s['id']}: stored track disagrees with its keyframes and the camera")
            if s["role"] == "offscreen" and (
                any(s["track"]["on_screen"]) or np.min(np.abs(s["track"]["azimuth_deg"])) <= half
            ):
                problems.append(f"source {s['id']}: off-screen source enters the field of view")
        problems += check_qa_schema(qa)
        if not problems and make_qa(scene) != qa:
            problems.append("qa disagrees with the answers recomputed from the stored trajectories")
        if not problems and foa is not None and isinstance(qa, list):
            problems += self._check_audibility(foa, scene, qa)
        return problems

    def _check_audibility(self, foa, scene: dict, qa: list) -> list[str]:
        """Label audibility: every direction label against the DOA of the episode's own audio
        (:func:`direction_errors`); errors are tallied for :meth:`check_summary`. A label more than
        :data:`DOA_FAIL_DEG` off fails the sample when the corpus was made with ``dominance_db`` set
        (audible defaults); otherwise (hard settings) it is only counted."""
        from simkit.renderers.foa import fuma_to_acn_sn3d

        x, sr = foa
        x = np.asarray(x, dtype=np.float64)
        if scene.get("channel_format") == "fuma":
            x = fuma_to_acn_sn3d(x)
        errs = direction_errors(x, sr, qa)
        tally = self.__dict__.setdefault("_doa_errors", [])
        tally.extend(e for _, e in errs)
        if (scene.get("audibility") or {}).get("dominance_db") is None:
            return []
        return [
            f"{qid}: direction label is {e:.0f} deg from the audio's DOA estimate (> {DOA_FAIL_DEG:.0f} deg)"
            for qid, e in errs
            if e > DOA_FAIL_DEG
        ]

    def check_summary(self) -> list[str]:
        """The corpus's label-audibility rate: the share of direction labels within
        :data:`DOA_AGREE_DEG` of the DOA estimated from the audio (over the samples checked)."""
        errs = np.asarray(self.__dict__.get("_doa_errors", []))
        if errs.size == 0:
            return []
        return [
            f"label audibility: {100 * np.mean(errs <= DOA_AGREE_DEG):.1f} % of {errs.size} direction labels "
            f"within {DOA_AGREE_DEG:.0f} deg of the audio's DOA estimate (median error {np.median(errs):.1f} deg, "
            f"{int(np.sum(errs > DOA_FAIL_DEG))} beyond {DOA_FAIL_DEG:.0f} deg)"
        ]

    def _check_duration(self, scene: dict) -> list[str]:
        """The scene's duration against the config (mode qa: equal to ``duration_s``; mode foa-static:
        within ``static_duration_s``); the audio length is checked against the scene's duration."""
        c = self.config
        if c is None or not hasattr(c, "duration_s"):
            return []
        d = scene.get("duration_s")
        if scene.get("mode") != c.mode:
            return [f"scene mode {scene.get('mode')!r}, config {c.mode!r}"]
        if c.mode == "qa" and (not isinstance(d, (int, float)) or abs(d - c.duration_s) > 1e-9):
            return [f"scene duration {d} s, config duration_s {c.duration_s} s"]
        lo, hi = c.static_duration_s
        if c.mode == "foa-static" and (not isinstance(d, (int, float)) or not lo - 0.005 <= d <= hi + 0.005):
            return [f"scene duration {d} s outside config static_duration_s [{lo}, {hi}] s"]
        return []

    def inspect(self, samples: list[dict[str, Any]], out_dir: Path) -> list[Path]:
        """One PNG per sample (``azimuth_<key>.png``): azimuth over time, ground truth per source
        (listener frame, unwrapped across +-180 deg, thick while sounding, a ring at each direction
        question's time) against the intensity-vector DOA estimate of the FOA audio (dots); the
        camera's field of view shaded; the legend beside the axes, never over the data."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        paths: list[Path] = []
        for smp in samples:
            scene, foa = smp.get("scene"), smp.get("foa")
            if not isinstance(scene, dict) or foa is None:
                continue
            fig = _azimuth_figure(plt, scene, foa, smp.get("qa") or [], str(smp.get("__key__", "")))
            p = out_dir / f"azimuth_{smp.get('__key__', len(paths))}.png"
            fig.savefig(p, bbox_inches="tight")
            plt.close(fig)
            paths.append(p)
        return paths


def unwrapped_copies(az_deg) -> list[np.ndarray]:
    """A track's azimuth unwrapped (no jump of more than 180 deg between samples) and its copies
    shifted by -360 and +360 deg, so that drawn in a [-180, 180] window a track crossing +-180 deg
    leaves at one edge and re-enters at the other instead of drawing a line across the plot."""
    a = np.degrees(np.unwrap(np.radians(np.asarray(az_deg, dtype=np.float64))))
    return [a - 360.0, a, a + 360.0]


def _azimuth_figure(plt, scene: dict, foa, qa: list, key: str):
    """The figure of :meth:`FoaQaGenerator.inspect` for one sample."""
    from simkit.renderers.foa import estimate_doa, fuma_to_acn_sn3d

    x, sr = foa
    if scene.get("channel_format") == "fuma":
        x = fuma_to_acn_sn3d(x)
    doa = estimate_doa(x, sr)
    e = doa["energy"]
    keep = e > e.max() * 1e-3 if e.size and e.max() > 0 else np.zeros(e.shape, bool)
    fig, ax = plt.subplots(figsize=(9, 4), dpi=100)
    ax.scatter(doa["time_s"][keep], doa["azimuth_deg"][keep], s=4, c="k", alpha=0.35, label="DOA estimate")
    asked = {q["source_id"]: q["structured"]["time_s"] for q in qa if q.get("kind") == "direction"}
    for j, s in enumerate(scene["sources"]):
        tr = s["track"]
        t = np.asarray(tr["time_s"])
        col = f"C{j % 10}"
        act = (t >= s["onset_s"]) & (t <= s["offset_s"])
        tag = {"foreground": " (on-screen)", "offscreen": " (off-screen)"}.get(s["role"], "")
        for c, az in enumerate(unwrapped_copies(tr["azimuth_deg"])):
            ax.plot(t, az, color=col, lw=0.8, ls=":")
            ax.plot(
                np.where(act, t, np.nan),
                az,
                color=col,
                lw=2.2,
                label=f"{s['label']}{tag}" if c == 1 else None,
            )
            if s["id"] in asked:
                k = int(np.argmin(np.abs(t - asked[s["id"]])))
                ax.plot(t[k], az[k], "o", mfc="none", mec=col, ms=9, mew=1.5)
    fov = scene["camera"]["fov_deg"] / 2
    ax.axhspan(-fov, fov, color="y", alpha=0.12, label="camera FOV")
    ax.plot([], [], "o", mfc="none", mec="0.3", label="direction question")
    ax.set_ylim(-180, 180)
    ax.set_xlim(0, scene["duration_s"])
    ax.set_yticks(range(-180, 181, 45))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("azimuth (deg, +90 = left)")
    ax.set_title(f"{key}: camera turn {scene['camera']['turn']['direction']}")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    ax.grid(alpha=0.3)
    return fig
