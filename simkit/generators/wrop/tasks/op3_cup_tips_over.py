"""OP-3/cup_tips_over."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, CUP_R, Motion, SceneObject, X, cup, lifted
from simkit.generators.wrop.kit_op3 import hinge
from simkit.scenes.wrop.params import Choice, Uniform


class CupTipsOver(Task):
    family, name = "OP-3", "cup_tips_over"
    summary = "a cup over a ball slides (or not) and then tips over sideways, uncovering the ball"
    description = (
        "An upturned cup is lowered over a ball. After the cut it may slide a little along the floor, "
        "carrying the hidden ball, and then it tips over sideways about the lower edge of its rim until it "
        "lies on its side. Tipping lifts the wall away from the ball without touching it, so the ball must "
        "be revealed lying still at the place where the cup stood just before it tipped, not at the cup's "
        "final place and not where it was first covered. Ball size, start place, slide distance (including "
        "none) and the side the cup falls to vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "x": Uniform(-0.8, 0.4),
        "slide": Uniform(0.0, 1.0),
        "tip_to": Choice([1, -1]),
    }
    colour_slots = ("target", "cup")

    def compose(self, s, clip, look):
        T, fps, cut, r, x, d = clip.frames, clip.fps, clip.cut, s["radius"], s["x"], s["tip_to"]
        x1 = x + s["slide"]
        lower0, lower1 = max(1, cut // 4), cut - 2
        rem = T - 3 - cut
        slide1 = cut + max(2, int(0.4 * rem))
        tip0, tip1 = slide1 + 1, T - 3
        c = Motion(T, fps, (x, 0, lifted()))
        c.move(lower0, lower1, (x, 0, CUP_H / 2), "smooth").move(cut, slide1, (x1, 0, CUP_H / 2), "smooth")
        hinge(c, tip0, tip1, (x1 + d * CUP_R, 0, 0), d * np.pi / 2)
        ball = Motion(T, fps, (x, 0, r)).follow(c, cut, slide1)
        ball.roll(r)
        tilt = np.abs(c.rot[:, 1])
        rim = c.pos[:, 2] - CUP_H / 2
        hid = [f for f in range(T) if rim[f] <= 0.01 and tilt[f] < 1e-6]
        vis = [f for f in range(T) if tilt[f] >= 0.45 * np.pi or rim[f] >= 2 * r + 0.5]
        exps = [
            X.hidden("target", hid),
            X.visible("target", vis),
            X.bound("target", "cup", [f for f in hid if f >= lower1]),
            X.same_place("target", list(range(slide1, T))),
        ]
        side = "right" if d > 0 else "left"
        return Composition(
            [
                look.ground(T),
                cup("cup", look, "cup", c.track()),
                SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()),
            ],
            {"covered": hid[0], "slide_start": cut, "tip_start": tip0},
            "slide_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised "
            f"{look.colour('cup')} cup. Continue the video.",
            outcome=f"the cup tips over to the {side}; the ball lies where the cup stood",
            derived={"ball_end_x": round(x1, 4)},
        )
