"""Outcome claims: what a task's outcome text says happens, as small checks of a trajectory.

A task's ``outcome`` is a sentence ("the ball hits the rim and rolls back"); its ``claims`` say the same
in checkable terms, so that the text cannot drift from the motion. Each claim is a frozen dataclass with
``says`` (the words of the outcome it stands for), ``validate(stage)`` (its own fields, as for the
expectations of :mod:`simkit.scenes.wrop.expect`) and ``check(trajectory)`` (one message per way the
trajectory contradicts the words; empty: the words are true). The generator checks them on the composed
(analytic) tracks when ``compose`` returns (a false claim there is an authoring error) and on the rendered
trajectory with the expectations; the audit re-composes the task from the recorded seeds and checks them on
the stored trajectory.

============== =========================================================================================
``Displaced``   net displacement of ``object`` along world ``axis`` from frame ``start`` to ``end`` (last
                frame when ``None``) has sign ``sign`` and is at least ``at_least`` m ("rolls back",
                "falls": axis 2, sign -1)
``Rests``       ``object`` stays within ``tol`` m of its frame-``start`` position up to ``end`` ("stops",
                "stays")
``Passes``      the centre of ``object`` starts on the near side of the plane ``axis`` = ``plane`` and ends
                on the far side (``sign``: the direction of travel): "passes through", "rolls under"
``Blocked``     the centre of ``object`` stays on the near side of that plane on every frame ("is stopped")
============== =========================================================================================

Positions are the trajectory's world ``position`` (T, 3) in m (:mod:`simkit.renderers.blender.visibility`).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simkit.scenes.wrop.expect import AuthoringError, Stage, frame_ok, objects_known, one_of, positive

AXES = "xyz"


def _position(trajectory: Mapping[str, Any], name: str) -> np.ndarray:
    objs = trajectory.get("objects", {})
    if name not in objs:
        raise KeyError(f"object {name!r} not in the trajectory")
    return np.asarray(objs[name]["position"], float)


def _number(fname: str, value: Any) -> list[str]:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and math.isfinite(value)
    return [] if ok else [f"field {fname!r}: {value!r} is not a finite number"]


@dataclass(frozen=True)
class Claim(ABC):
    """Base of the claim kinds; ``says`` is the part of the outcome text the claim stands for."""

    @abstractmethod
    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        """Ways the trajectory contradicts the claim (empty: true).

        Raises:
            KeyError, IndexError: the trajectory lacks the object or a frame.
        """

    @abstractmethod
    def validate(self, stage: Stage) -> list[str]:
        """Problems of the claim's own fields against the composed scene; empty: well formed."""


@dataclass(frozen=True)
class Displaced(Claim):
    """Net displacement ``p[end] - p[start]`` of ``object`` along world ``axis`` is ``sign`` times at least
    ``at_least`` m (``end`` ``None``: the last frame)."""

    says: str
    object: str
    axis: int
    sign: int
    start: int
    at_least: float
    end: int | None = None

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        p = _position(trajectory, self.object)[:, self.axis]
        end = len(p) - 1 if self.end is None else self.end
        d = float(p[end] - p[self.start])
        if self.sign * d >= self.at_least:
            return []
        return [
            f"the outcome says {self.says!r}, but {self.object} moves {d:+.3f} m along {AXES[self.axis]} from "
            f"frame {self.start} to {end} (the words need {self.sign * self.at_least:+.3f} m or more that way)"
        ]

    def validate(self, stage: Stage) -> list[str]:
        out = objects_known(stage, object=self.object) + one_of("axis", self.axis, (0, 1, 2))
        out += one_of("sign", self.sign, (-1, 1)) + frame_ok(stage, "start", self.start)
        out += [] if self.end is None else frame_ok(stage, "end", self.end)
        return out + positive("at_least", self.at_least)


@dataclass(frozen=True)
class Rests(Claim):
    """``object`` stays within ``tol`` m of its position at ``start`` on every frame up to ``end`` (``None``:
    the last frame)."""

    says: str
    object: str
    start: int
    end: int | None = None
    tol: float = 0.002

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        p = _position(trajectory, self.object)
        end = len(p) - 1 if self.end is None else self.end
        d = np.linalg.norm(p[self.start : end + 1] - p[self.start], axis=-1)
        if float(d.max()) <= self.tol:
            return []
        f = self.start + int(np.argmax(d))
        return [
            f"the outcome says {self.says!r}, but {self.object} is still moving after frame {self.start}: "
            f"{float(d.max()):.3f} m away at frame {f}"
        ]

    def validate(self, stage: Stage) -> list[str]:
        out = objects_known(stage, object=self.object) + frame_ok(stage, "start", self.start)
        out += [] if self.end is None else frame_ok(stage, "end", self.end)
        return out + positive("tol", self.tol)


@dataclass(frozen=True)
class _Plane(Claim):
    """A claim about which side of the plane world ``axis`` = ``plane`` (m) the centre of ``object`` is on;
    ``sign`` is the direction of travel (the far side is where ``sign (p - plane) > 0``)."""

    says: str
    object: str
    axis: int
    plane: float
    sign: int

    def beyond(self, trajectory: Mapping[str, Any]) -> np.ndarray:
        """(T,) bool: the centre is on the far side."""
        return self.sign * (_position(trajectory, self.object)[:, self.axis] - self.plane) > 0

    def validate(self, stage: Stage) -> list[str]:
        out = objects_known(stage, object=self.object) + one_of("axis", self.axis, (0, 1, 2))
        return out + one_of("sign", self.sign, (-1, 1)) + _number("plane", self.plane)

    def _where(self) -> str:
        return f"the plane {AXES[self.axis]} = {self.plane:+.3f} m"


@dataclass(frozen=True)
class Passes(_Plane):
    """The centre of ``object`` starts on the near side of the plane and ends on the far side."""

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        far = self.beyond(trajectory)
        if not far[0] and far[-1]:
            return []
        state = "starts beyond" if far[0] else "never ends beyond"
        return [f"the outcome says {self.says!r}, but {self.object} {state} {self._where()}"]


@dataclass(frozen=True)
class Blocked(_Plane):
    """The centre of ``object`` is on the near side of the plane on every frame."""

    def check(self, trajectory: Mapping[str, Any]) -> list[str]:
        far = np.nonzero(self.beyond(trajectory))[0]
        if not len(far):
            return []
        return [
            f"the outcome says {self.says!r}, but {self.object} is beyond {self._where()} at frame {far[0]}"
        ]


def evaluate(claims: Iterable[Claim], trajectory: Mapping[str, Any]) -> list[str]:
    """Problems of ``claims`` on ``trajectory`` (empty: the outcome text is true of it); a missing object
    or frame gives one problem instead of raising."""
    problems: list[str] = []
    for c in claims:
        try:
            problems += c.check(trajectory)
        except (KeyError, IndexError) as exc:
            problems.append(f"claim {type(c).__name__} cannot be checked: {exc}")
    return problems


def validate(task: str, claims: Sequence[Claim], stage: Stage) -> None:
    """Raise :class:`~simkit.scenes.wrop.expect.AuthoringError` for the first malformed claim of ``task``.

    Raises:
        AuthoringError: an entry is no :class:`Claim`, or a field is wrong (the message names it).
    """
    for i, c in enumerate(claims):
        problems = c.validate(stage) if isinstance(c, Claim) else [f"{type(c).__name__} is no Claim"]
        if problems:
            raise AuthoringError(task, f"outcome claim {i} ({type(c).__name__})", problems[0])
