"""OP-3/cup_slide."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, Motion, X, cup_timeline, cups_and_ball, lifted
from simkit.scenes.wrop.params import Choice, Uniform


class CupSlide(Task):
    family, name = "OP-3", "cup_slide"
    summary = "a cup covering a ball slides to a new place; the ball must be revealed at the new place"
    description = (
        "An upturned cup is lowered over a ball, then slides along the floor to a new place after the cut and "
        "is lifted. The ball is carried inside, so it must reappear where the cup went, not at the spot where "
        "it was covered: the hidden object is bound to its container, not to the world. Ball size, start "
        "position, slide direction and distance vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "x": Uniform(-0.6, 0.6),
        "direction": Choice([1, -1]),
        "distance": Uniform(1.0, 2.0),
    }
    colour_slots = ("target", "cup")

    def compose(self, s, clip, look):
        T, fps, x, r = clip.frames, clip.fps, s["x"], s["radius"]
        x1 = x + s["direction"] * s["distance"]
        t = cup_timeline(clip)
        c = Motion(T, fps, (x, 0, lifted()))
        c.move(t["lower0"], t["lower1"], (x, 0, CUP_H / 2), "smooth").move(
            t["move0"], t["move1"], (x1, 0, CUP_H / 2), "smooth"
        )
        c.move(t["lift0"], t["lift1"], (x1, 0, lifted()), "smooth")
        ball = Motion(T, fps, (x, 0, r)).follow(c, t["move0"], t["move1"])
        objs, exps, hid = cups_and_ball(clip, look, r, {"cup": c}, "cup", ball)
        exps.append(X.same_place("target", [t["lift1"], T - 1]))
        return Composition(
            [look.ground(T), *objs],
            {"slide_start": t["move0"], "lift": t["lift0"]},
            "slide_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised "
            f"{look.colour('cup')} cup. Continue the video.",
            outcome="the cup carries the ball to its new place; lifting it reveals the ball there",
            derived={"end_x": round(x1, 4)},
        )
