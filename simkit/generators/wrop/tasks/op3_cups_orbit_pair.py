"""OP-3/cups_orbit_pair (several legal outcomes)."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, Motion, X, cup_timeline, cups_and_ball, lifted
from simkit.scenes.wrop.params import Choice, Uniform


class CupsOrbitPair(Task):
    family, name = "OP-3", "cups_orbit_pair"
    summary = "two cups circle around their midpoint by a half, full or one and a half turn, then are lifted"
    description = (
        "Two upturned cups stand apart, one covering a ball. After the cut the pair revolves about the point "
        "midway between them, like the ends of a rotating bar, by half a turn, a full turn or one and a half "
        "turns, in either direction, with no turntable underneath; then both cups are lifted. A full turn "
        "brings every cup back to its place, a half turn exchanges them, so either side is legal; the ball "
        "must come out under its own cup. The rotation passes the cups in front of and behind each other, so "
        "the holding cup must be tracked in depth as well. Which cup holds the ball, spacing, ball size and "
        "the number of half turns vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "spacing": Uniform(1.1, 1.6),
        "ball_under": Choice(["left", "right"]),
        "half_turns": Choice([1, 2, 3]),
        "turn": Choice([1, -1]),
    }
    colour_slots = ("target", "cup_a", "cup_b")

    def compose(self, s, clip, look):
        T, fps, r, h = clip.frames, clip.fps, s["radius"], s["spacing"] / 2
        t = cup_timeline(clip)
        xa = -h if s["ball_under"] == "left" else h
        a = Motion(T, fps, (xa, 0, lifted()))
        b = Motion(T, fps, (-xa, 0, CUP_H / 2))
        a.move(t["lower0"], t["lower1"], (xa, 0, CUP_H / 2), "smooth")
        ang = s["turn"] * s["half_turns"] * np.pi
        ball = Motion(T, fps, (xa, 0, r))
        for m in (a, b, ball):
            m.orbit(t["move0"], t["move1"], (0, 0, 0), ang)
        for c in (a, b):
            e = c.at(t["lift0"])
            c.move(t["lift0"], t["lift1"], (e[0], e[1], lifted()), "smooth")
        objs, exps, hid = cups_and_ball(clip, look, r, {"cup_a": a, "cup_b": b}, "cup_a", ball)
        end = float(ball.at(T - 1)[0])
        late = [f for f in next(e.frames for e in exps if isinstance(e, X.Visible)) if f > t["move1"]]
        exps += [X.side("target", "cup_b", late, 1 if end > 0 else -1, space="world")]
        ca = look.colour("cup_a")
        legal = [f"the ball is revealed under the {ca} cup, now on the {p}" for p in ("left", "right")]
        return Composition(
            [look.ground(T), *objs],
            {"covered": hid[0], "rotation_start": t["move0"], "lift": t["lift0"]},
            "rotation_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised {ca} cup; a "
            f"{look.colour('cup_b')} cup stands apart from it. Continue the video.",
            outcome=legal[1 if end > 0 else 0],
            legal_outcomes=legal,
            derived={
                "angle_deg": round(float(np.degrees(ang)), 1),
                "ball_end_side": "right" if end > 0 else "left",
            },
        )
