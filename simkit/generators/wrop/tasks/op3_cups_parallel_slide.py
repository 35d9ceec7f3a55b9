"""OP-3/cups_parallel_slide."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, Motion, X, cup_timeline, cups_and_ball, lifted
from simkit.scenes.wrop.params import Choice, Uniform


class CupsParallelSlide(Task):
    family, name = "OP-3", "cups_parallel_slide"
    summary = "two cups, one hiding a ball, slide together in the same direction before both are lifted"
    description = (
        "Two upturned cups stand side by side and one of them is lowered over a ball. After the cut both "
        "cups slide together by the same displacement, sideways and toward or away from the camera, keeping "
        "their spacing, and then both are lifted. Because the pair keeps its layout, a model that only "
        "remembers 'the left cup' succeeds, but one that binds the ball to the room fails: the ball must come "
        "out under its own cup at that cup's new place, the other cup must be empty. Which cup holds the ball, "
        "spacing, ball size and the shared displacement vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "spacing": Uniform(1.0, 1.4),
        "ball_under": Choice(["left", "right"]),
        "shift_x": Uniform(-1.2, 1.2),
        "shift_y": Uniform(-0.6, 0.8),
    }
    colour_slots = ("target", "cup_a", "cup_b")

    def compose(self, s, clip, look):
        T, fps, r, h = clip.frames, clip.fps, s["radius"], s["spacing"] / 2
        t = cup_timeline(clip)
        xa = -h if s["ball_under"] == "left" else h
        dx, dy = s["shift_x"], s["shift_y"]
        a = Motion(T, fps, (xa, 0, lifted()))
        b = Motion(T, fps, (-xa, 0, CUP_H / 2))
        a.move(t["lower0"], t["lower1"], (xa, 0, CUP_H / 2), "smooth")
        for c, x in ((a, xa), (b, -xa)):
            c.move(t["move0"], t["move1"], (x + dx, dy, CUP_H / 2), "smooth")
            c.move(t["lift0"], t["lift1"], (x + dx, dy, lifted()), "smooth")
        ball = Motion(T, fps, (xa, 0, r)).follow(a, t["move0"], t["move1"])
        objs, exps, hid = cups_and_ball(clip, look, r, {"cup_a": a, "cup_b": b}, "cup_a", ball)
        vis = next(e.frames for e in exps if isinstance(e, X.Visible))
        exps += [
            X.side("target", "cup_b", vis, 1 if xa > 0 else -1, space="world"),
            X.same_place("target", [t["move1"], T - 1]),
        ]
        end = ball.at(T - 1)
        return Composition(
            [look.ground(T), *objs],
            {"covered": hid[0], "slide_start": t["move0"], "lift": t["lift0"]},
            "slide_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised {look.colour('cup_a')} "
            f"cup beside a {look.colour('cup_b')} cup. Continue the video.",
            outcome=f"both cups slide together; the ball is revealed under the {look.colour('cup_a')} cup "
            f"at its new place, the {look.colour('cup_b')} cup is empty",
            derived={"ball_end_xy": [round(float(end[0]), 4), round(float(end[1]), 4)]},
        )
