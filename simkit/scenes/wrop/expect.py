"""Expectations about a rendered WROP scene: typed declarations, their compose-time validation and the checker.

A task declares what must be true of its rendered sample as a list of :class:`Expectation` objects, one
frozen dataclass per kind, made with the constructor helpers below (:func:`hidden`, :func:`contact`...).
Each one

* ``validate(stage)``: checks its own fields against the composed scene (:class:`Stage`: the clip's frame
  count and the objects by name) and returns one message per problem (an object name the scene does not
  hold, a frame outside the clip or too close to its ends for the differences a check takes, a tolerance
  that is not positive, masses that do not match the objects...). The generator runs it when ``compose``
  returns and raises :class:`AuthoringError` (a bug of the task, never redrawn);
* ``check(trajectory)``: checks itself against the trajectory the renderer measured (visibility from
  camera ray casts, world positions and axis-aligned bounding boxes of the evaluated meshes, image
  positions) and returns one message per violation (empty: it holds);
* ``to_dict()``: the plain dict stored in the episode metadata (``meta["expectations"]``), which
  :func:`from_dict` reads back; :func:`evaluate` takes either form.

This is the event checker of the audit: for OP families the target is invisible during the occlusion
window and visible (on the right side) after; for OS families contact happens at the declared frame,
nothing interpenetrates, and momentum is conserved at impacts.

Kinds (``frames`` are lists of 0-based frame numbers):

============== ===================================================================================
``hidden``      visibility of ``object`` <= ``max`` (default 0.05) on every frame in ``frames``
``visible``     visibility of ``object`` >= ``min`` (default 0.6) on every frame in ``frames``
``side``        sign of (object - reference) along ``axis`` (image x by default, or world) is ``sign``
``contact``     AABB gap between ``a`` and ``b`` <= ``tol`` at ``frame`` and > ``tol`` at ``frame - 1``
``touching``    gap <= ``tol`` on every frame in ``frames``
``apart``       gap > ``tol`` on every frame in ``frames``
``no_penetration`` overlap depth of ``a`` and ``b`` <= ``tol`` on every frame
``momentum``    sum m v along ``axis`` just before ``frame`` equals the sum just after (rel. ``rtol``);
                v from one-sided 2nd-order differences (3p0 - 4p-1 + p-2)/(2 dt), (-3p0 + 4p1 - p2)/(2 dt)
``same_place``  position of ``object`` equal (within ``tol`` m) at every frame in ``frames``
``bound``       offset ``object - reference`` constant (within ``tol`` m) over ``frames``
``velocity``    velocity of ``object`` along ``axis`` just after (or before) ``frame`` equals ``value``
============== ===================================================================================

Gaps (:func:`pair_gap`): sphere-sphere and sphere-box distances are exact for
spheres against axis-aligned boxes; other pairs use the AABB gap, the Euclidean
distance between the two boxes (0 when they touch) or minus the smallest
overlap depth when they intersect.
Gap expectations made with ``exact=True`` use :func:`solid_gap` instead: the sphere's distance to
the oriented solid (box or wedge, from the object's per-frame rotation), for tilted plates, hinged
doors and ramps, whose axis-aligned boxes are much larger than the solid.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

import numpy as np

from simkit.core.errors import SimkitError
from simkit.core.scene import SceneObject

DEFAULT_TOL = 0.012  # m: polygonal sphere error (1 - cos(pi/24)) r for r <= 0.35 m is < 3 mm, plus margin
#: relative mismatch allowed between the declared mass ratios and the objects' volume ratios (the language's
#: rule: masses are proportional to volume); 1e-6 leaves room for the rounding of a task's own arithmetic
MASS_RTOL = 1e-6


class AuthoringError(SimkitError):
    """A task's composition breaks a rule of the task language (an expectation names an object the scene
    does not hold, a frame outside the clip, a tolerance that is not positive...). It is a bug of the task,
    not an unlucky draw: the generator raises it as soon as ``compose`` returns, and the engine fails the
    episode at once (it is no :class:`~simkit.core.errors.SampleRejected`, so it is never redrawn).

    Args:
        task: the task id (``FAMILY/name``).
        where: what is wrong, e.g. ``"expectation 3 (contact), field 'b'"``.
        reason: one sentence.
    """

    def __init__(self, task: str, where: str, reason: str):
        self.task, self.where, self.reason = task, where, reason
        super().__init__(f"{task}: authoring error in {where}: {reason}")


@dataclass(frozen=True)
class Stage:
    """What an expectation may refer to: the clip's ``frames`` T (frames are 0 .. T-1) and the composed
    scene's ``objects`` by name."""

    frames: int
    objects: Mapping[str, SceneObject]

    @classmethod
    def of(cls, objects: Iterable[SceneObject], frames: int) -> Stage:
        return cls(int(frames), {o.name: o for o in objects})


def _series(trajectory: Mapping[str, Any], name: str, key: str) -> np.ndarray:
    """``trajectory["objects"][name][key]`` as a float array (raises ``KeyError`` naming a missing object)."""
    objs = trajectory.get("objects", {})
    if name not in objs:
        raise KeyError(f"object {name!r} not in the trajectory")
    return np.asarray(objs[name][key], float)


def _fps(trajectory: Mapping[str, Any]) -> float:
    return float(trajectory.get("fps", 24.0))


def _span(frames: Sequence[int]) -> str:
    return f"{frames[0]}..{frames[-1]}"


# -- field checks shared by the kinds' validate ---------------------------------------------------------------
def objects_known(stage: Stage, **named: Any) -> list[str]:
    """One message per ``field=name`` whose name is not an object of the scene."""
    out = []
    for fname, name in named.items():
        if not isinstance(name, str) or name not in stage.objects:
            known = ", ".join(sorted(stage.objects))
            out.append(f"field {fname!r}: {name!r} is not an object of the scene (objects: {known})")
    return out


def distinct(**named: str) -> list[str]:
    """A message when the two named fields name the same object."""
    (fa, a), (fb, b) = named.items()
    return [f"fields {fa!r} and {fb!r} name the same object {a!r}"] if a == b else []


def frame_ok(stage: Stage, fname: str, f: Any, before: int = 0, after: int = 0) -> list[str]:
    """``f`` is an integer frame with ``before`` frames before it and ``after`` frames after it in the clip."""
    lo, hi = before, stage.frames - 1 - after
    if isinstance(f, (bool, np.bool_)) or not isinstance(f, (int, np.integer)) or not lo <= f <= hi:
        need = f" (this check reads {before} frame(s) before and {after} after it)" if before or after else ""
        return [
            f"field {fname!r}: frame {f!r} is not within {lo}..{hi} of the {stage.frames}-frame clip{need}"
        ]
    return []


def frames_ok(stage: Stage, frames: Sequence[Any], required: bool) -> list[str]:
    """A message when ``frames`` holds a frame outside the clip (or is empty and ``required``)."""
    if required and not frames:
        return ["field 'frames': empty (this check needs at least one frame)"]
    bad = [f for f in frames if frame_ok(stage, "frames", f)]
    if bad:
        return [
            f"field 'frames': {len(bad)} frame(s) outside 0..{stage.frames - 1} of the clip, e.g. {bad[0]!r}"
        ]
    return []


def positive(fname: str, value: Any) -> list[str]:
    """A message when ``value`` is not a positive finite number."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and math.isfinite(value) and value > 0
    return [] if ok else [f"field {fname!r}: {value!r} is not a positive finite number"]


def threshold(fname: str, value: Any, lo: float, hi: float, lo_inclusive: bool) -> list[str]:
    """``value`` is a visibility threshold in [``lo``, ``hi``) (``lo_inclusive``) or (``lo``, ``hi``]: outside
    that range every frame, or none, meets it."""
    num = isinstance(value, (int, float, np.integer, np.floating)) and math.isfinite(value)
    ok = num and ((lo <= value < hi) if lo_inclusive else (lo < value <= hi))
    rng = f"[{lo}, {hi})" if lo_inclusive else f"({lo}, {hi}]"
    return [] if ok else [f"field {fname!r}: visibility threshold {value!r} is not within {rng}"]


def one_of(fname: str, value: Any, allowed: Sequence[Any]) -> list[str]:
    """A message when ``value`` is not one of ``allowed``."""
    return [] if value in allowed else [f"field {fname!r}: {value!r} is not one of {list(allowed)}"]


def _volume(o: SceneObject) -> float | None:
    """Volume (m^3) of a solid primitive (sphere, box, cylinder, wedge); ``None`` for hollow or mesh kinds."""
    d = o.dims
    if o.kind == "sphere":
        return 4.0 / 3.0 * math.pi * d[0] ** 3
    if o.kind == "box":
        return d[0] * d[1] * d[2]
    if o.kind == "cylinder":
        return math.pi * d[0] ** 2 * d[1]
    if o.kind == "wedge":
        return d[0] * d[1] * d[2] / 2
    return None


# -- gaps ------------------------------------------------------------------------------------------------------
def aabb_gap(amin: np.ndarray, amax: np.ndarray, bmin: np.ndarray, bmax: np.ndarray) -> np.ndarray:
    """Gap (m) between boxes per frame: arrays (T, 3) -> (T,). Positive = distance, negative = -overlap depth."""
    sep = np.maximum(amin - bmax, bmin - amax)  # (T, 3): > 0 where separated along that axis
    pos = np.linalg.norm(np.maximum(sep, 0.0), axis=-1)
    return np.where(np.any(sep > 0, axis=-1), pos, np.max(sep, axis=-1))


def pair_gap(objs: dict[str, Any], a: str, b: str) -> np.ndarray:
    """Gap (m) per frame between objects ``a`` and ``b`` of a trajectory: sphere-sphere centre distance minus
    radii, sphere-box distance from the centre to the box's AABB minus the radius, else :func:`aabb_gap`."""
    for n in (a, b):
        if n not in objs:
            raise KeyError(f"object {n!r} not in the trajectory")
    A, B = objs[a], objs[b]
    if B.get("kind") == "sphere" and A.get("kind") != "sphere":
        A, B = B, A
    if A.get("kind") == "sphere":
        ca, ra = np.asarray(A["position"], float), float(A["dims"][0])
        if B.get("kind") == "sphere":
            return np.linalg.norm(ca - np.asarray(B["position"], float), axis=-1) - ra - float(B["dims"][0])
        bmin, bmax = np.asarray(B["bbox_min"], float), np.asarray(B["bbox_max"], float)
        q = np.clip(ca, bmin, bmax)
        d = np.linalg.norm(ca - q, axis=-1)
        inside = np.all((ca > bmin) & (ca < bmax), axis=-1)
        return np.where(inside, -ra, d - ra)
    return aabb_gap(
        np.asarray(A["bbox_min"], float),
        np.asarray(A["bbox_max"], float),
        np.asarray(B["bbox_min"], float),
        np.asarray(B["bbox_max"], float),
    )


def _triangle_distance(px: np.ndarray, pz: np.ndarray, a: float, c: float) -> tuple[np.ndarray, np.ndarray]:
    """(distance outside, depth inside) of points (px, pz) (n,) to the wedge's cross-section, the triangle
    (-a, -c), (a, -c), (a, c) in the local x-z plane (distance 0 inside; depth 0 outside)."""
    verts = np.array([[-a, -c], [a, -c], [a, c]])
    p = np.stack([px, pz], -1)
    dists, signed = [], []
    for k in range(3):
        v0, v1 = verts[k], verts[(k + 1) % 3]
        e = v1 - v0
        t = np.clip(((p - v0) @ e) / float(e @ e), 0.0, 1.0)
        dists.append(np.linalg.norm(p - (v0 + t[:, None] * e), axis=-1))
        n = np.array([e[1], -e[0]]) / np.linalg.norm(e)  # outward normal (vertices are counter-clockwise)
        signed.append((p - v0) @ n)
    s = np.stack(signed, -1)
    inside = np.all(s <= 0, axis=-1)
    d = np.min(np.stack(dists, -1), axis=-1)
    return np.where(inside, 0.0, d), np.where(inside, -np.max(s, axis=-1), 0.0)


def solid_gap(objs: dict[str, Any], a: str, b: str) -> np.ndarray:
    """Gap (m) per frame between a sphere and an oriented solid: the distance from the sphere's centre to a
    ``box`` (any rotation) or ``wedge`` (ramp rising along local +x, see :mod:`simkit.core.scene`) in the
    solid's own frame, minus the radius; negative: minus (radius + depth of the centre inside). The solid's
    frame comes from its per-frame ``position`` and ``rotation`` quaternion (w, x, y, z). Pairs without a
    sphere, or with another solid kind, fall back to :func:`pair_gap`."""
    from simkit.core.rotations import quaternion_to_matrix

    A, B = objs[a], objs[b]
    if B.get("kind") == "sphere" and A.get("kind") != "sphere":
        A, B = B, A
    if A.get("kind") != "sphere" or B.get("kind") not in ("box", "wedge"):
        return pair_gap(objs, a, b)
    r = float(A["dims"][0])
    h = np.asarray(B["dims"], float) / 2
    centre, origin = np.asarray(A["position"], float), np.asarray(B["position"], float)
    local = np.stack([quaternion_to_matrix(q).T @ (c - o) for q, c, o in zip(B["rotation"], centre, origin)])
    if B["kind"] == "box":
        out = np.linalg.norm(local - np.clip(local, -h, h), axis=-1)
        depth = np.min(h - np.abs(local), axis=-1)
        return np.where(out > 0, out - r, -(r + np.maximum(depth, 0.0)))
    d_xz, depth_xz = _triangle_distance(local[:, 0], local[:, 2], h[0], h[2])
    dy = np.abs(local[:, 1]) - h[1]
    out = np.hypot(d_xz, np.maximum(dy, 0.0))
    depth = np.minimum(depth_xz, -dy)
    return np.where(out > 0, out - r, -(r + np.maximum(depth, 0.0)))


# -- the kinds ------------------------------------------------------------------------------------------------
#: kind -> class, filled by :meth:`Expectation.__init_subclass__`
KINDS: dict[str, type[Expectation]] = {}


@dataclass(frozen=True)
class Expectation(ABC):
    """Base of the expectation kinds: each subclass sets ``kind`` and declares its fields in the order of its
    stored dict (:meth:`to_dict`); tuples are stored as lists."""

    kind: ClassVar[str] = ""

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.kind:
            KINDS[cls.kind] = cls

    @abstractmethod
    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        """Violations of this expectation on a measured ``trajectory`` (see :func:`evaluate`); empty: it holds.

        Raises:
            KeyError, IndexError: the trajectory lacks an object or frame it names.
        """

    @abstractmethod
    def validate(self, stage: Stage) -> list[str]:
        """Problems of this declaration's own fields against the composed scene, one message per problem
        (each names the field); empty: well formed."""

    def to_dict(self) -> dict[str, Any]:
        """The stored form: ``{"kind": kind, field: value, ...}`` in field order, tuples as lists."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


def from_dict(d: Mapping[str, Any]) -> Expectation:
    """The expectation a stored dict (:meth:`Expectation.to_dict`) describes.

    Raises:
        ValueError: unknown ``kind``. TypeError: missing or unknown fields.
    """
    cls = KINDS.get(d.get("kind"))  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(f"unknown expectation kind {d.get('kind')!r}")
    kw = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items() if k != "kind"}
    return cls(**kw)


@dataclass(frozen=True)
class Hidden(Expectation):
    """Visibility of ``object`` <= ``max`` on every frame in ``frames``."""

    kind: ClassVar[str] = "hidden"
    object: str
    frames: tuple[int, ...]
    max: float = 0.05

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        v = _series(trajectory, self.object, "visibility")
        bad = [f for f in self.frames if v[f] > self.max]
        if not bad:
            return []
        return [
            f"{self.object} should be hidden on frames {_span(bad)} but is visible "
            f"(visibility {v[bad[0]]:.2f} at frame {bad[0]})"
        ]

    def validate(self, stage: Stage) -> list[str]:
        return (
            objects_known(stage, object=self.object)
            + frames_ok(stage, self.frames, required=False)
            + threshold("max", self.max, 0.0, 1.0, lo_inclusive=True)
        )


@dataclass(frozen=True)
class Visible(Expectation):
    """Visibility of ``object`` >= ``min`` on every frame in ``frames``."""

    kind: ClassVar[str] = "visible"
    object: str
    frames: tuple[int, ...]
    min: float = 0.6

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        v = _series(trajectory, self.object, "visibility")
        bad = [f for f in self.frames if v[f] < self.min]
        if not bad:
            return []
        return [
            f"{self.object} should be visible on frames {_span(bad)} but is not "
            f"(visibility {v[bad[0]]:.2f} at frame {bad[0]})"
        ]

    def validate(self, stage: Stage) -> list[str]:
        return (
            objects_known(stage, object=self.object)
            + frames_ok(stage, self.frames, required=False)
            + threshold("min", self.min, 0.0, 1.0, lo_inclusive=False)
        )


@dataclass(frozen=True)
class Side(Expectation):
    """Sign of (``object`` - ``reference``) along ``axis`` of ``space`` (``image``: normalised image x/y;
    ``world``: world x/y/z) is ``sign`` on every frame in ``frames``."""

    kind: ClassVar[str] = "side"
    object: str
    reference: str
    frames: tuple[int, ...]
    sign: int
    space: str = "image"
    axis: int = 0

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        key = "image_xy" if self.space == "image" else "position"
        a, b = _series(trajectory, self.object, key), _series(trajectory, self.reference, key)
        ax = self.axis
        bad = [f for f in self.frames if np.sign(a[f, ax] - b[f, ax]) != self.sign]
        if not bad:
            return []
        where = "left" if self.sign < 0 else "right"
        return [
            f"{self.object} should be on the {where} of {self.reference} "
            f"({self.space} axis {ax}) on frames {_span(bad)}"
        ]

    def validate(self, stage: Stage) -> list[str]:
        axes = (0, 1) if self.space == "image" else (0, 1, 2)
        return (
            objects_known(stage, object=self.object, reference=self.reference)
            + distinct(object=self.object, reference=self.reference)
            + frames_ok(stage, self.frames, required=False)
            + one_of("sign", self.sign, (-1, 1))
            + one_of("space", self.space, ("image", "world"))
            + one_of("axis", self.axis, axes)
        )


@dataclass(frozen=True)
class _Gap(Expectation):
    """A gap expectation between objects ``a`` and ``b`` (:func:`pair_gap`, or :func:`solid_gap` when
    ``exact``); ``exact`` is stored only when true."""

    def gap(self, trajectory: Mapping[str, Any]) -> np.ndarray:
        a, b = self.a, self.b  # type: ignore[attr-defined]
        return (solid_gap if self.exact else pair_gap)(trajectory.get("objects", {}), a, b)  # type: ignore[attr-defined]

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if not out.pop("exact"):
            return out
        out["exact"] = True
        return out

    def validate_pair(self, stage: Stage) -> list[str]:
        a, b, tol, exact = self.a, self.b, self.tol, self.exact  # type: ignore[attr-defined]
        out = objects_known(stage, a=a, b=b) + distinct(a=a, b=b) + positive("tol", tol)
        out += one_of("exact", exact, (True, False))
        if exact and not out:
            kinds = sorted([stage.objects[a].kind, stage.objects[b].kind])
            if "sphere" not in kinds or not ({"box", "wedge"} & set(kinds)):
                out.append(
                    f"field 'exact': the exact gap is defined for a sphere and a box or wedge, not {kinds}"
                )
        return out


@dataclass(frozen=True)
class Contact(_Gap):
    """Gap of ``a`` and ``b`` <= ``tol`` at ``frame`` and > ``tol`` at ``frame - 1`` (the first contact)."""

    kind: ClassVar[str] = "contact"
    a: str
    b: str
    frame: int
    tol: float = DEFAULT_TOL
    exact: bool = False

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        g, f, out = self.gap(trajectory), self.frame, []
        if not abs(g[f]) <= self.tol:
            out.append(f"{self.a} and {self.b} should touch at frame {f}: gap {g[f]:+.4f} m")
        if f > 0 and not g[f - 1] > self.tol:
            out.append(
                f"{self.a} and {self.b} already touch before frame {f} (gap {g[f - 1]:+.4f} m at frame {f - 1})"
            )
        return out

    def validate(self, stage: Stage) -> list[str]:
        return self.validate_pair(stage) + frame_ok(stage, "frame", self.frame)


@dataclass(frozen=True)
class Touching(_Gap):
    """|gap| of ``a`` and ``b`` <= ``tol`` on every frame in ``frames``."""

    kind: ClassVar[str] = "touching"
    a: str
    b: str
    frames: tuple[int, ...]
    tol: float = DEFAULT_TOL
    exact: bool = False

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        g = self.gap(trajectory)
        bad = [f for f in self.frames if abs(g[f]) > self.tol]
        if not bad:
            return []
        return [f"{self.a} and {self.b} should stay in contact; gap {g[bad[0]]:+.4f} m at frame {bad[0]}"]

    def validate(self, stage: Stage) -> list[str]:
        return self.validate_pair(stage) + frames_ok(stage, self.frames, required=False)


@dataclass(frozen=True)
class Apart(_Gap):
    """Gap of ``a`` and ``b`` > ``tol`` on every frame in ``frames``."""

    kind: ClassVar[str] = "apart"
    a: str
    b: str
    frames: tuple[int, ...]
    tol: float = DEFAULT_TOL
    exact: bool = False

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        g = self.gap(trajectory)
        bad = [f for f in self.frames if g[f] <= self.tol]
        if not bad:
            return []
        return [f"{self.a} and {self.b} should not touch; gap {g[bad[0]]:+.4f} m at frame {bad[0]}"]

    def validate(self, stage: Stage) -> list[str]:
        return self.validate_pair(stage) + frames_ok(stage, self.frames, required=False)


@dataclass(frozen=True)
class NoPenetration(_Gap):
    """Overlap depth of ``a`` and ``b`` <= ``tol`` on every frame."""

    kind: ClassVar[str] = "no_penetration"
    a: str
    b: str
    tol: float = DEFAULT_TOL
    exact: bool = False

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        g = self.gap(trajectory)
        f = int(np.argmin(g))
        return [f"{self.a} penetrates {self.b} by {-g[f]:.4f} m at frame {f}"] if g[f] < -self.tol else []

    def validate(self, stage: Stage) -> list[str]:
        return self.validate_pair(stage)


def _velocity_after(p: np.ndarray, f: int, fps: float) -> float:
    """One-sided second-order difference (-3 p[f] + 4 p[f+1] - p[f+2]) fps / 2 (m/s): exact for constant
    acceleration after ``f``."""
    return float((-3 * p[f] + 4 * p[f + 1] - p[f + 2]) * fps / 2)


def _velocity_before(p: np.ndarray, f: int, fps: float) -> float:
    """One-sided second-order difference (3 p[f] - 4 p[f-1] + p[f-2]) fps / 2 (m/s)."""
    return float((3 * p[f] - 4 * p[f - 1] + p[f - 2]) * fps / 2)


@dataclass(frozen=True)
class Momentum(Expectation):
    """Sum of m v of ``objects`` along world ``axis`` just before ``frame`` equals the sum just after, within
    ``rtol`` of the sum of |m v| before. ``masses`` are relative (proportional to the objects' volumes)."""

    kind: ClassVar[str] = "momentum"
    objects: tuple[str, ...]
    masses: tuple[float, ...]
    frame: int
    axis: int = 0
    rtol: float = 0.03

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        f, fps = self.frame, _fps(trajectory)
        before = after = scale = 0.0
        for name, m in zip(self.objects, self.masses):
            p = _series(trajectory, name, "position")[:, self.axis]
            # one-sided second-order differences: exact for constant velocity before the impact and for
            # constant deceleration (friction) after it
            vb, va = _velocity_before(p, f, fps), _velocity_after(p, f, fps)
            before += m * vb
            after += m * va
            scale += abs(m * vb)
        if abs(after - before) > self.rtol * max(scale, 1e-9):
            return [f"momentum not conserved at frame {f}: {before:.4f} before, {after:.4f} after (kg m/s)"]
        return []

    def validate(self, stage: Stage) -> list[str]:
        out = objects_known(stage, **{f"objects[{i}]": n for i, n in enumerate(self.objects)})
        if len(self.masses) != len(self.objects) or not self.objects:
            out.append(f"field 'masses': {len(self.masses)} masses for {len(self.objects)} objects")
        if len(set(self.objects)) != len(self.objects):
            out.append(f"field 'objects': names repeat in {list(self.objects)}")
        out += [p for i, m in enumerate(self.masses) for p in positive(f"masses[{i}]", m)]
        out += frame_ok(stage, "frame", self.frame, before=2, after=2)
        out += one_of("axis", self.axis, (0, 1, 2)) + positive("rtol", self.rtol)
        return out or self._mass_ratios(stage)

    def _mass_ratios(self, stage: Stage) -> list[str]:
        """The masses must be proportional to the volumes of the solid objects they weigh (a hollow or mesh
        object, whose volume the language does not define, is left out)."""
        vols = [(m, _volume(stage.objects[n]), n) for m, n in zip(self.masses, self.objects)]
        pairs = [(m, v, n) for m, v, n in vols if v is not None]
        if len(pairs) < 2:
            return []
        density = pairs[0][0] / pairs[0][1]
        for m, v, n in pairs[1:]:
            if abs(m / v - density) > MASS_RTOL * density:
                return [
                    f"field 'masses': {n!r} weighs {m:g} against {pairs[0][0]:g} for {pairs[0][2]!r}, but their "
                    f"volumes are in the ratio {v / pairs[0][1]:.4g} (masses are proportional to volume)"
                ]
        return []


@dataclass(frozen=True)
class SamePlace(Expectation):
    """Position of ``object`` equal (within ``tol`` m) on every frame in ``frames``."""

    kind: ClassVar[str] = "same_place"
    object: str
    frames: tuple[int, ...]
    tol: float = 0.005

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        p, fr = _series(trajectory, self.object, "position"), self.frames
        d = max(float(np.linalg.norm(p[f] - p[fr[0]])) for f in fr)
        if d > self.tol:
            return [f"{self.object} should be at the same place on frames {list(fr)}; moved {d:.4f} m"]
        return []

    def validate(self, stage: Stage) -> list[str]:
        return (
            objects_known(stage, object=self.object)
            + frames_ok(stage, self.frames, required=True)
            + positive("tol", self.tol)
        )


@dataclass(frozen=True)
class Bound(Expectation):
    """Offset ``object`` - ``reference`` constant (within ``tol`` m) over ``frames``."""

    kind: ClassVar[str] = "bound"
    object: str
    reference: str
    frames: tuple[int, ...]
    tol: float = 0.005

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        off = _series(trajectory, self.object, "position") - _series(trajectory, self.reference, "position")
        fr = self.frames
        d = max(float(np.linalg.norm(off[f] - off[fr[0]])) for f in fr)
        if d > self.tol:
            return [
                f"{self.object} should move with {self.reference} on frames {_span(fr)}; offset drifts {d:.4f} m"
            ]
        return []

    def validate(self, stage: Stage) -> list[str]:
        return (
            objects_known(stage, object=self.object, reference=self.reference)
            + distinct(object=self.object, reference=self.reference)
            + frames_ok(stage, self.frames, required=True)
            + positive("tol", self.tol)
        )


@dataclass(frozen=True)
class Velocity(Expectation):
    """Velocity (m/s) of ``object`` along world ``axis`` just ``after`` (or ``before``) ``frame`` equals
    ``value`` within ``rtol`` of it plus 0.02 m/s (one-sided 2nd-order differences, as for ``momentum``)."""

    kind: ClassVar[str] = "velocity"
    object: str
    frame: int
    value: float
    axis: int = 0
    side: str = "after"
    rtol: float = 0.03

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        p = _series(trajectory, self.object, "position")[:, self.axis]
        f, fps = self.frame, _fps(trajectory)
        v = _velocity_after(p, f, fps) if self.side == "after" else _velocity_before(p, f, fps)
        if abs(v - self.value) > self.rtol * abs(self.value) + 0.02:
            return [
                f"{self.object} should move at {self.value:+.3f} m/s {self.side} frame {f}; moves at {v:+.3f} m/s"
            ]
        return []

    def validate(self, stage: Stage) -> list[str]:
        reach = (0, 2) if self.side == "after" else (2, 0)
        out = objects_known(stage, object=self.object) + one_of("side", self.side, ("after", "before"))
        out += frame_ok(stage, "frame", self.frame, *reach) + one_of("axis", self.axis, (0, 1, 2))
        ok = isinstance(self.value, (int, float, np.floating)) and math.isfinite(self.value)
        return (
            out
            + ([] if ok else [f"field 'value': {self.value!r} is not a finite speed"])
            + positive("rtol", self.rtol)
        )


# -- constructor helpers (the task language: typed as the base, so lists of mixed kinds infer one type) -----------------------------------------------------------------
def hidden(obj: str, frames, max_visibility: float = 0.05) -> Expectation:
    return Hidden(obj, tuple(int(f) for f in frames), max_visibility)


def visible(obj: str, frames, min_visibility: float = 0.6) -> Expectation:
    return Visible(obj, tuple(int(f) for f in frames), min_visibility)


def side(obj: str, reference: str, frames, sign: int, space: str = "image", axis: int = 0) -> Expectation:
    return Side(obj, reference, tuple(int(f) for f in frames), int(sign), space, int(axis))


def contact(a: str, b: str, frame: int, tol: float = DEFAULT_TOL, exact: bool = False) -> Expectation:
    return Contact(a, b, int(frame), tol, exact)


def touching(a: str, b: str, frames, tol: float = DEFAULT_TOL, exact: bool = False) -> Expectation:
    return Touching(a, b, tuple(int(f) for f in frames), tol, exact)


def apart(a: str, b: str, frames, tol: float = DEFAULT_TOL, exact: bool = False) -> Expectation:
    return Apart(a, b, tuple(int(f) for f in frames), tol, exact)


def no_penetration(a: str, b: str, tol: float = DEFAULT_TOL, exact: bool = False) -> Expectation:
    return NoPenetration(a, b, tol, exact)


def momentum(
    objects: list[str], masses: list[float], frame: int, axis: int = 0, rtol: float = 0.03
) -> Expectation:
    return Momentum(tuple(objects), tuple(float(m) for m in masses), int(frame), int(axis), rtol)


def same_place(obj: str, frames, tol: float = 0.005) -> Expectation:
    return SamePlace(obj, tuple(int(f) for f in frames), tol)


def bound(obj: str, reference: str, frames, tol: float = 0.005) -> Expectation:
    return Bound(obj, reference, tuple(int(f) for f in frames), tol)


def velocity(
    obj: str, frame: int, value: float, axis: int = 0, side: str = "after", rtol: float = 0.03
) -> Expectation:
    return Velocity(obj, int(frame), float(value), int(axis), side, rtol)


# -- checking -------------------------------------------------------------------------------------------------
def evaluate(
    expectations: Iterable[Expectation | Mapping[str, Any]], trajectory: Mapping[str, Any]
) -> list[str]:
    """Check ``expectations`` (objects, or their stored dicts) against a measured ``trajectory``; return the
    problems (empty = all hold). A stored dict of an unknown kind or with missing fields, and a trajectory that
    lacks a named object or frame, each give one problem instead of raising.

    ``trajectory["objects"][name]`` must hold ``position`` (T, 3), ``visibility`` (T,), ``image_xy`` (T, 2),
    ``bbox_min``/``bbox_max`` (T, 3) (lists or arrays), and ``trajectory["fps"]``.
    """
    problems: list[str] = []
    for e in expectations:
        if isinstance(e, Expectation):
            exp = e
        else:
            try:
                exp = from_dict(e)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            except TypeError as exc:
                problems.append(f"expectation {e.get('kind')} cannot be read: {exc}")
                continue
        try:
            problems += exp.check(trajectory)
        except (KeyError, IndexError) as exc:
            problems.append(f"expectation {exp.kind} cannot be checked: {exc}")
    return problems


def validate(task: str, expectations: Sequence[Expectation], stage: Stage) -> None:
    """Raise :class:`AuthoringError` for the first malformed declaration of ``task`` (its index, kind and
    field), or for an entry that is no :class:`Expectation` at all.

    Raises:
        AuthoringError: see above; the message also says how many further problems there are.
    """
    problems: list[tuple[str, str]] = []
    for i, e in enumerate(expectations):
        if not isinstance(e, Expectation):
            problems.append(
                (f"expectation {i}", f"{type(e).__name__} is no Expectation (use the helpers of expect)")
            )
            continue
        problems += [(f"expectation {i} ({e.kind})", p) for p in e.validate(stage)]
    if problems:
        where, reason = problems[0]
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        raise AuthoringError(task, where, reason + more)
