"""The WROP task base class, the shared surface space and the catalogue of task generators.

A task generator is a short declarative class (one module per task under
``simkit.generators.wrop.tasks``) with

* ``family`` (OP-1, OP-2, OP-3, OS-1, OS-2, OS-3), ``name``, one-line ``summary`` and a
  one-paragraph ``description`` of the cognitive test it poses;
* ``structural``: its structural parameter space (what changes the physics/cognitive challenge);
* ``colour_slots``: which objects get distinct palette colours (surface);
* ``view``: its nominal camera (surface jitter is added around it);
* ``compose(s, clip, look)``: the scene build and choreography, returning a :class:`Composition`
  (objects with analytic tracks, event frames, expectations, prompt, expected outcome).

Seeds (the surface/structure partition of the spec): one sample draws two integers from the
engine's episode rng, ``structural_seed`` then ``surface_seed``. Structural parameters are
``sample_space(task.structural, default_rng(structural_seed))``; surface parameters are
``sample_space(SURFACE, default_rng(surface_seed))`` plus the colours. So a recorded
structural seed reproduces the structure exactly, and changing the surface seed changes
colours, finishes, procedural patterns, floor, sky, lighting set-up, camera jitter and props (everyday
meshes in the slots a task opts in with ``mesh_slots``, fitted into the primitive's bounding box) but
never a structural value, a trajectory or an event frame. Exam samples use structural seeds in [2^62, 2^63), training
samples in [0, 2^62): the two ranges are disjoint.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from simkit.core.scene import PATTERNS
from simkit.generators.wrop.props import PROPS, prop_object
from simkit.scenes.wrop import claims as C
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.camera import ViewPath
from simkit.scenes.wrop.claims import Claim
from simkit.scenes.wrop.expect import AuthoringError, Expectation, Stage
from simkit.scenes.wrop.lighting import LIGHTINGS, lighting
from simkit.scenes.wrop.palette import FLOORS, SKIES, material, pick_colours
from simkit.scenes.wrop.params import Choice, Uniform, sample_space
from simkit.scenes.wrop.spec import Camera, CameraTrack, Lamp, Material, SceneObject, Sun, Track, orbit_camera

FAMILIES = ("OP-1", "OP-2", "OP-3", "OS-1", "OS-2", "OS-3")
FAMILY_TITLES = {
    "OP-1": "Baillargeonian occlusion",
    "OP-2": "object static occlusion",
    "OP-3": "container permanence",
    "OS-1": "Baillargeonian obstruction",
    "OS-2": "object drop",
    "OS-3": "object collision",
}
EXAM_OFFSET = 2**62

#: the shared surface space (look only); colours are drawn after these, per task slot
SURFACE = {
    "floor": Choice(list(FLOORS)),
    "sky": Choice(list(SKIES)),
    "finish": Choice(["matte", "satin", "glossy"]),
    "sun_azimuth_deg": Uniform(-60.0, 60.0, 2),
    "sun_elevation_deg": Uniform(35.0, 70.0, 2),
    "sun_strength": Uniform(2.5, 4.0, 3),
    "camera_azimuth_jitter_deg": Uniform(-3.0, 3.0, 3),
    "camera_elevation_jitter_deg": Uniform(-1.5, 1.5, 3),
    "camera_distance_scale": Uniform(0.97, 1.03, 4),
    "lighting": Choice(list(LIGHTINGS)),
    "floor_pattern": Choice(["plain", "wood", "checker", "marble"]),
    "floor_pattern_scale": Uniform(1.0, 3.0, 3),
}

#: per colour slot, drawn after the colours: the slot's procedural pattern, its scale (features per metre)
#: and contrast (the dark tone is the base colour times 1 - contrast: the hue stays the named colour's)
SLOT_SURFACE = {
    "pattern": Choice(list(PATTERNS)),
    "pattern_scale": Uniform(3.0, 8.0, 3),
    "pattern_contrast": Uniform(0.2, 0.4, 3),
}
#: the chance that an opted-in slot (``Task.mesh_slots``) shows a prop (an everyday mesh) instead of its
#: primitive
PROP_CHANCE = 0.5


@dataclass(frozen=True)
class Clip:
    """Timing of one sample: ``frames`` T (even), ``fps``; ``cut`` = T/2 is the first target frame."""

    frames: int
    fps: float

    @property
    def cut(self) -> int:
        return self.frames // 2

    @property
    def last(self) -> int:
        return self.frames - 1

    def at(self, u: float, lo: int | None = None) -> int:
        """Frame at clip fraction ``u`` (0 = first, 1 = last frame), clamped to ``lo`` .. last."""
        f = int(round(u * (self.frames - 1)))
        return int(min(max(f, 0 if lo is None else lo), self.frames - 1))

    def span(self, a: int, b: int) -> list[int]:
        """Frames a..b inclusive (empty when b < a)."""
        return list(range(max(a, 0), min(b, self.frames - 1) + 1))


@dataclass
class Look:
    """The surface parameters of one sample, with helpers that turn them into materials, lights, camera and
    (for opted-in slots) props.

    ``values``: the shared surface draws (:data:`SURFACE`); ``colours``: slot -> palette colour name;
    ``patterns``: slot -> {pattern, pattern_scale, pattern_contrast} (:data:`SLOT_SURFACE`); ``props``:
    slot -> prop name (:data:`simkit.generators.wrop.props.PROPS`) or ``"none"`` for the task's
    ``mesh_slots``.
    """

    values: dict[str, Any]
    colours: dict[str, str]
    patterns: dict[str, dict[str, Any]] = field(default_factory=dict)
    props: dict[str, str] = field(default_factory=dict)

    def colour(self, slot: str) -> str:
        return self.colours[slot]

    def mat(self, slot: str) -> Material:
        """The slot's palette material: colour, finish and its procedural pattern (plain when not drawn)."""
        p = self.patterns.get(slot, {})
        return material(
            self.colours[slot],
            self.values["finish"],
            p.get("pattern", "plain"),
            p.get("pattern_scale", 4.0),
            p.get("pattern_contrast", 0.0),
        )

    def solid(
        self, name: str, role: str, kind: str, dims: tuple[float, ...], slot: str, track: Track
    ) -> SceneObject:
        """A primitive of ``kind``/``dims`` in the slot's material, or the slot's prop (an everyday mesh
        fitted into the primitive's bounding box, same track) when the surface draw gave it one."""
        prop = self.props.get(slot, "none")
        if prop != "none":
            return prop_object(name, role, kind, dims, self.mat(slot), track, prop)
        return SceneObject(name, role, kind, dims, self.mat(slot), track)

    def noun(self, slot: str, primitive: str) -> str:
        """What prompts call the slot's object: the prop's noun ("toy duck") or ``primitive`` ("block")."""
        prop = self.props.get(slot, "none")
        return PROPS[prop].noun if prop != "none" else primitive

    def ground(self, frames: int, size: float = 30.0) -> SceneObject:
        """The ground slab (top face at z = 0); not measured for visibility."""
        v = self.values
        return SceneObject(
            "ground",
            "ground",
            "box",
            (size, size, 0.2),
            material(v["floor"], "matte", v["floor_pattern"], v["floor_pattern_scale"], 0.25),
            Track.static(frames, (0.0, 0.0, -0.1)),
            measure=False,
        )

    def camera(self, view: dict[str, Any]) -> Camera:
        """The nominal ``view`` (target, distance, azimuth_deg, elevation_deg, lens_mm) with this look's jitter."""
        v = self.values
        return orbit_camera(
            view.get("target", (0.0, 0.0, 0.5)),
            view.get("distance", 7.0) * v["camera_distance_scale"],
            np.radians(view.get("azimuth_deg", 0.0) + v["camera_azimuth_jitter_deg"]),
            np.radians(view.get("elevation_deg", 14.0) + v["camera_elevation_jitter_deg"]),
            view.get("lens_mm", 35.0),
        )

    def camera_path(self, path: ViewPath) -> Camera:
        """A moving camera: :meth:`camera` of every frame's view of ``path`` (the same surface jitter on every
        frame), keyed as a :class:`~simkit.core.scene.CameraTrack`; the static pose is frame 0's."""
        cams = [self.camera(path.view(f)) for f in range(path.frames)]
        track = CameraTrack(
            np.array([c.location for c in cams], float), np.stack([c.quaternion() for c in cams])
        )
        first = cams[0]
        return Camera(first.location, first.look_at, first.lens_mm, first.sensor_mm, track)

    def lights(self) -> tuple[Sun, float, list[Lamp]]:
        """(sun, world strength, lamps) of the drawn lighting set-up (:mod:`simkit.scenes.wrop.lighting`)."""
        v = self.values
        return lighting(v["lighting"], v["sun_azimuth_deg"], v["sun_elevation_deg"], v["sun_strength"])

    def sun(self) -> Sun:
        return self.lights()[0]

    def background(self) -> tuple[float, float, float]:
        return SKIES[self.values["sky"]]

    def flat(self) -> dict[str, Any]:
        """Surface parameters as one flat dict (what the episode records): the shared values, then per slot
        ``colour_<slot>``, ``pattern_<slot>``, ``pattern_scale_<slot>``, ``pattern_contrast_<slot>`` and,
        for opted-in slots, ``mesh_<slot>`` (prop name or "none")."""
        out = {**self.values, **{f"colour_{k}": c for k, c in self.colours.items()}}
        for slot, p in self.patterns.items():
            out.update({f"{k}_{slot}": v for k, v in p.items()})
        out.update({f"mesh_{k}": v for k, v in self.props.items()})
        return out


@dataclass
class Composition:
    """What ``Task.compose`` returns: the scene content and its declared outcome.

    ``events``: name -> frame (the key event at or after the cut); ``expectations``: typed declarations of
    :mod:`simkit.scenes.wrop.expect` (validated when ``compose`` returns, stored as their dicts);
    ``claims``: what the ``outcome`` text says happens, as checks of :mod:`simkit.scenes.wrop.claims`
    (evaluated with the expectations and by the audit; not stored); ``derived``: values computed from structural parameters and
    the clip (e.g. a drop height rounded to whole frames), recorded for traceability; ``camera``: a moving
    camera's nominal path (:class:`~simkit.scenes.wrop.camera.ViewPath`, ``None``: the task's static ``view``).
    """

    objects: list[SceneObject]
    events: dict[str, int]
    key_event: str
    expectations: list[Expectation]
    prompt: str
    outcome: str
    legal_outcomes: list[str] = field(default_factory=list)
    derived: dict[str, Any] = field(default_factory=dict)
    camera: ViewPath | None = None
    claims: list[Claim] = field(default_factory=list)


def check_composition(task: str, comp: Composition, frames: int) -> None:
    """Check what ``task``'s ``compose`` returned before anything is rendered: every expectation and outcome
    claim well formed against the composed scene (:meth:`~simkit.scenes.wrop.expect.Expectation.validate`),
    and every claim true of the composed (analytic) tracks, which the renderer keys as they are.

    Raises:
        AuthoringError: the first problem, naming the task, the declaration (index and kind) and the field,
            or the outcome words the tracks contradict. It is a bug of the task (no redraw can fix it).
    """
    stage = Stage.of(comp.objects, frames)
    X.validate(task, comp.expectations, stage)
    C.validate(task, comp.claims, stage)
    tracks = {"objects": {o.name: {"position": o.pose.position} for o in comp.objects}}
    false = C.evaluate(comp.claims, tracks)
    if false:
        raise AuthoringError(task, f"outcome {comp.outcome!r}", f"false of the composed motion: {false[0]}")


class Task(ABC):
    """Base of the WROP task generators (see the module docstring)."""

    family: ClassVar[str] = ""
    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    description: ClassVar[str] = ""
    structural: ClassVar[dict[str, Any]] = {}
    colour_slots: ClassVar[tuple[str, ...]] = ("target",)
    #: colour slots whose primitive the surface draw may replace by a prop (an everyday mesh of the same
    #: bounding box on the same track); only for objects whose shape plays no part in the physics (no
    #: rolling, stacking or contact gaps); the prompts must name them with ``look.noun``
    mesh_slots: ClassVar[tuple[str, ...]] = ()
    view: ClassVar[dict[str, Any]] = {}
    #: the minimum clip length (frames) the choreography fits into
    min_frames: ClassVar[int] = 24

    @classmethod
    def id(cls) -> str:
        return f"{cls.family}/{cls.name}"

    def sample_structural(self, seed: int) -> dict[str, Any]:
        """Structural parameters of ``seed`` (deterministic)."""
        return sample_space(self.structural, np.random.default_rng(seed))

    def sample_surface(self, seed: int) -> Look:
        """Surface parameters of ``seed`` (deterministic; never touches structure): :data:`SURFACE`, the
        colours of ``colour_slots``, each slot's pattern (:data:`SLOT_SURFACE`), then for each of
        ``mesh_slots`` a prop with chance :data:`PROP_CHANCE` (else ``"none"``), in this order."""
        rng = np.random.default_rng(seed)
        values = sample_space(SURFACE, rng)
        colours = pick_colours(rng, list(self.colour_slots))
        patterns = {slot: sample_space(SLOT_SURFACE, rng) for slot in self.colour_slots}
        props = {}
        for slot in self.mesh_slots:
            use, pick = rng.random() < PROP_CHANCE, list(PROPS)[int(rng.integers(0, len(PROPS)))]
            props[slot] = pick if use else "none"
        return Look(values, colours, patterns, props)

    @abstractmethod
    def compose(self, s: dict[str, Any], clip: Clip, look: Look) -> Composition:
        """The scene, choreography, prompt and expected outcome for structure ``s`` under ``look``."""

    # -- shared choreography helpers ------------------------------------------------------------
    @staticmethod
    def occlusion_frames(
        x: np.ndarray, centre: float, cover_half: float, clear_half: float
    ) -> tuple[list, list]:
        """(hidden frames, clear frames) of a target whose x is ``x`` (T,) behind an occluder at ``centre``:
        hidden where ``|x - centre| <= cover_half``, clear where ``|x - centre| >= clear_half``."""
        dx = np.abs(np.asarray(x) - centre)
        return [int(f) for f in np.nonzero(dx <= cover_half)[0]], [
            int(f) for f in np.nonzero(dx >= clear_half)[0]
        ]


#: vowel-letter word starts that take "a" (a consonant sound: "a uniform", "a one-way", "a European")
_A_BEFORE_VOWEL = ("uni", "use", "usu", "uti", "one", "once", "eu")


def fix_articles(text: str) -> str:
    """Use "an" before a vowel sound and "a" before a consonant sound in ``text`` (English indefinite
    article; vowel sound approximated by the first letter, with the exceptions in ``_A_BEFORE_VOWEL``)."""

    def repl(m: re.Match) -> str:
        art, word = m.group(1), m.group(2)
        w = word.lower()
        vowel = w[0] in "aeiou" and not w.startswith(_A_BEFORE_VOWEL)
        want = "an" if vowel else "a"
        return (want.capitalize() if art[0].isupper() else want) + " " + word

    return re.sub(r"\b(an|a|An|A)\s+([A-Za-z][\w-]*)", repl, text)


@lru_cache(maxsize=1)
def catalogue() -> dict[str, type[Task]]:
    """All task generators: ``"FAMILY/name"`` -> class, in family then name order (imports the task modules,
    which are light: no ``bpy``)."""
    from simkit.generators.wrop import tasks

    found: dict[str, type[Task]] = {}
    for mod in pkgutil.iter_modules(tasks.__path__):
        m = importlib.import_module(f"{tasks.__name__}.{mod.name}")
        for obj in vars(m).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, Task)
                and obj is not Task
                and obj.family
                and obj.name
            ):
                found[obj.id()] = obj
    order = sorted(found, key=lambda k: (FAMILIES.index(found[k].family), found[k].name))
    return {k: found[k] for k in order}


def select(spec: str) -> list[type[Task]]:
    """Tasks selected by ``spec``: ``"all"``, a family (``"OP-1"``) or one ``"FAMILY/name"``.

    Raises:
        ValueError: nothing matches (the message lists the families and an example id).
    """
    cat = catalogue()
    if spec == "all":
        return list(cat.values())
    if spec in FAMILIES:
        return [c for c in cat.values() if c.family == spec]
    if spec in cat:
        return [cat[spec]]
    raise ValueError(
        f"unknown WROP generator {spec!r}: use 'all', a family ({', '.join(FAMILIES)}) "
        f"or FAMILY/NAME (e.g. {next(iter(cat))}); see `simkit list wrop`"
    )
