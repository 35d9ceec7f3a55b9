"""OS-1 (object solidity) choreography shared by the tasks in which a ball rolls at a barrier.

Each of those tasks builds its own barrier (a wall with an opening, a fence, a table, a grid, a door, a
gate...) and decides whether the ball passes; :func:`roll_ball_at_barrier` builds the ball and its run
toward the barrier with :func:`simkit.generators.wrop.kit.barrier_run`, so the tasks differ only in their
geometry. :func:`wall_with_opening` is the wall most of them (and the slot tasks) stand in the path, and
:func:`back_off` words what a blocked mover does after the contact (with the claims those words make).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simkit.generators.wrop.base import Clip, Composition, Look
from simkit.generators.wrop.kit import WALL_T, Motion, SceneObject, barrier_run, wall_part
from simkit.scenes.wrop import claims as C

#: m: the least net rebound after the contact that the words "rolls back" stand for (a visible roll, about half
#: the diameter of the smallest OS-1 ball); a shorter rebound is "back a few centimetres"
ROLL_BACK = 0.1
#: m: the least rebound called "back a few centimetres"; a shorter one is no visible rebound ("stops")
FEW_CM = 0.01
#: m: the drift per frame below which a mover counts as at rest
REST_TOL = 0.002


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


def wall_with_opening(
    look: Look,
    T: int,
    width: float,
    height: float,
    *,
    side: float = 1.0,
    top: float | None = None,
    top_name: str = "wall_top",
) -> list[SceneObject]:
    """The static wall parts (:data:`~simkit.generators.wrop.kit.WALL_T` thick, centred on the plane x = 0,
    ``height`` m tall, for ``T`` frames) around an opening ``width`` m wide centred on y = 0: ``wall_left`` and
    ``wall_right``, each ``side`` m wide, and, when ``top`` is given, the part ``top_name`` above the opening,
    from ``top`` m up to ``height``. An opening without ``top`` is a slot open to the full height."""
    t = WALL_T / 2
    parts = [
        wall_part("wall_left", look, T, (-t, -width / 2 - side, 0), (t, -width / 2, height)),
        wall_part("wall_right", look, T, (-t, width / 2, 0), (t, width / 2 + side, height)),
    ]
    if top is not None:
        parts.append(wall_part(top_name, look, T, (-t, -width / 2, top), (t, width / 2, height)))
    return parts


def back_off(c: Composition, verb: str = "rolls", mover: str = "target") -> str:
    """Words for what a blocked ``mover`` of a :func:`~simkit.generators.wrop.kit.barrier_run` composition
    ``c`` does after its contact (the event ``c.key_event``), true of its track, and the claims they make,
    appended to ``c.claims`` (the mover approaches along +x, so "back" is -x):

    * ``"<verb> back"`` when it ends at least :data:`ROLL_BACK` m behind its contact position (claim:
      :class:`~simkit.scenes.wrop.claims.Displaced` by that much);
    * when it comes to rest at least two frames before the end: ``"<verb> back a few centimetres, then
      stops"`` for a rebound of at least :data:`FEW_CM` m (claims: displaced by that much, then at rest), else
      ``"stops"`` (at rest within :data:`FEW_CM` m of the contact position);
    * ``"<verb> back a little"`` otherwise (still moving at the end of a short clip; displaced by at least
      :data:`REST_TOL` m).

    The rebound speed is fixed by the approach speed, the restitution and the rolling friction of
    ``barrier_run``: at 120 frames the approach is slowed to keep the mover in view, so most rebounds are a few
    centimetres, while at 24 frames they are tens of centimetres.
    """
    x = next(o for o in c.objects if o.name == mover).pose.position[:, 0]
    f = c.events[c.key_event]
    back = float(x[f] - x[-1])
    if back >= ROLL_BACK:
        says = f"{verb} back"
        c.claims.append(C.Displaced(says, mover, 0, -1, f, ROLL_BACK))
        return says
    moving = [k for k in range(f, len(x) - 1) if abs(x[k + 1] - x[k]) > REST_TOL / 10]
    rest = moving[-1] + 1 if moving else f
    if rest <= len(x) - 3 and back >= FEW_CM:
        says = f"{verb} back a few centimetres, then stops"
        c.claims += [C.Displaced(says, mover, 0, -1, f, FEW_CM), C.Rests(says, mover, rest)]
    elif rest <= len(x) - 3:
        says = "stops"
        c.claims.append(C.Rests(says, mover, f, tol=FEW_CM))
    else:
        says = f"{verb} back a little"
        c.claims.append(C.Displaced(says, mover, 0, -1, f, REST_TOL))
    return says
