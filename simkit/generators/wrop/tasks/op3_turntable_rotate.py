"""OP-3/turntable_rotate."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, Motion, SceneObject, cup_timeline, cups_and_ball, lifted
from simkit.scenes.wrop.params import Choice, Uniform

PLATE_R, PLATE_H = 1.35, 0.08


class TurntableRotate(Task):
    family, name = "OP-3", "turntable_rotate"
    summary = "two cups on a turntable rotate; the ball must come out under its cup at the cup's new place"
    description = (
        "Two upturned cups stand on a round turntable, one covering a ball. After the cut the turntable turns "
        "by a large angle, carrying both cups (and the hidden ball) around its centre, and then the cups are "
        "lifted. The ball must be revealed under the same cup at the position that cup was rotated to: the "
        "hidden object follows the rotation of its container, not its original place in the room. Rotation "
        "angle and direction, which cup holds the ball and the ball size vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "angle_deg": Uniform(120.0, 200.0),
        "turn": Choice([1, -1]),
        "ball_under": Choice(["left", "right"]),
    }
    colour_slots = ("target", "cup_a", "cup_b", "plate")

    def compose(self, s, clip, look):
        T, fps, r = clip.frames, clip.fps, s["radius"]
        t = cup_timeline(clip)
        ang = s["turn"] * np.radians(s["angle_deg"])
        xa = -0.75 if s["ball_under"] == "left" else 0.75
        zc = PLATE_H + CUP_H / 2
        a = Motion(T, fps, (xa, 0, PLATE_H + lifted()))
        b = Motion(T, fps, (-xa, 0, zc))
        a.move(t["lower0"], t["lower1"], (xa, 0, zc), "smooth")
        plate = Motion(T, fps, (0, 0, PLATE_H / 2))
        for m in (a, b, plate):
            m.orbit(t["move0"], t["move1"], (0, 0, 0), ang)
        for c in (a, b):
            end = c.at(t["lift0"])
            c.move(t["lift0"], t["lift1"], (end[0], end[1], PLATE_H + lifted()), "smooth")
        ball = Motion(T, fps, (xa, 0, PLATE_H + r)).follow(a, t["move0"], t["lift0"])
        objs, exps, hid = cups_and_ball(
            clip, look, r, {"cup_a": a, "cup_b": b}, "cup_a", ball, floor_z=PLATE_H
        )
        objs.insert(
            0,
            SceneObject(
                "turntable",
                "platform",
                "cylinder",
                (PLATE_R, PLATE_H),
                look.mat("plate"),
                plate.track(),
                measure=False,
            ),
        )
        end = ball.at(T - 1)
        return Composition(
            [look.ground(T), *objs],
            {"rotation_start": t["move0"], "lift": t["lift0"]},
            "rotation_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests under a raised {look.colour('cup_a')} "
            f"cup on a {look.colour('plate')} turntable beside a {look.colour('cup_b')} cup. "
            f"Continue the video.",
            outcome=f"the turntable turns {s['angle_deg']:.0f} degrees; the ball is revealed under "
            f"the {look.colour('cup_a')} cup at its new place",
            derived={"ball_end_xy": [round(float(end[0]), 4), round(float(end[1]), 4)]},
        )
