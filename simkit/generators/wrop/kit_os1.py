"""OS-1 (object solidity) choreography shared by the tasks in which a ball rolls at a barrier.

Each of those tasks builds its own barrier (a wall with an opening, a fence, a table, a grid, a door, a
gate...) and decides whether the ball passes; :func:`roll_ball_at_barrier` builds the ball and its run
toward the barrier with :func:`simkit.generators.wrop.kit.barrier_run`, so the tasks differ only in their
geometry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simkit.generators.wrop.base import Clip, Composition, Look
from simkit.generators.wrop.kit import Motion, SceneObject, barrier_run


def roll_ball_at_barrier(
    clip: Clip,
    look: Look,
    s: Mapping[str, Any],
    parts: list[SceneObject],
    passes: bool,
    x_contact: float,
    blocker: str,
    *,
    speed: float | None = None,
    contact_at: float | None = None,
    lane_y: float = 0,
) -> Composition:
    """A ball ``"target"`` of radius ``s["radius"]`` (m) rolls along +x on the floor, in the lane
    y = ``lane_y`` (m), toward the wall ``parts`` at x = 0 (see :func:`~simkit.generators.wrop.kit.barrier_run`
    for the approach speed, the event frame and the rebound).

    ``passes``: the ball's centre crosses x = 0 on the event frame; otherwise it touches ``blocker`` there
    with its centre at ``x_contact`` (m) and rolls back at ``s["restitution"]`` times its speed. The speed
    is ``s["speed"]`` (m/s) and the event at clip fraction ``s["contact_at"]`` unless ``speed`` or
    ``contact_at`` are given.
    """
    r = s["radius"]
    ball = SceneObject("target", "target", "sphere", (r,), look.mat("target"), None)
    return barrier_run(
        clip,
        look,
        ball,
        Motion(clip.frames, clip.fps, (0, lane_y, r)),
        r,
        parts,
        passes,
        x_contact,
        s["speed"] if speed is None else speed,
        s["restitution"],
        s["contact_at"] if contact_at is None else contact_at,
        blocker,
    )
