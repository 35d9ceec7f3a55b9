"""OP-3/stacked_cups."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, Motion, X, cups_and_ball, lifted
from simkit.scenes.wrop.params import Choice, Uniform


class StackedCups(Task):
    family, name = "OP-3", "stacked_cups"
    summary = (
        "a ball is under the lower of two stacked cups; the stack slides, then the cups come off one by one"
    )
    description = (
        "An upturned cup is lowered over a ball and a second upturned cup is set on top of it, so the two "
        "cups form a stack that hides the ball twice over in appearance but holds it only in the lower cup. "
        "After the cut the stack slides along the floor (the upper cup riding on the lower one); then the "
        "upper cup is lifted off, which must reveal nothing, and finally the lower cup is lifted, revealing "
        "the ball at the stack's new place. The model must know which of the stacked containers actually "
        "encloses the ball. Ball size, start place, slide direction and distance vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "x": Uniform(-0.6, 0.6),
        "direction": Choice([1, -1]),
        "distance": Uniform(0.8, 1.6),
    }
    colour_slots = ("target", "lower", "upper")

    def compose(self, s, clip, look):
        T, fps, cut, r, x = clip.frames, clip.fps, clip.cut, s["radius"], s["x"]
        x1 = x + s["direction"] * s["distance"]
        side = -1.3 * s["direction"]  # the upper cup waits beside the lower one, away from the slide
        rem = T - 3 - cut
        move1 = cut + max(3, int(0.4 * rem))
        up0, up1 = move1 + 1, move1 + max(2, int(0.25 * rem))
        low0 = up1 + 1
        lower = Motion(T, fps, (x, 0, lifted()))
        upper = Motion(T, fps, (x + side, 0, CUP_H / 2))
        lower.move(max(1, cut // 6), cut // 2, (x, 0, CUP_H / 2), "smooth")
        upper.arc(cut // 2 + 1, cut - 2, (x, 0, CUP_H * 1.5), 0.5)
        lower.move(cut, move1, (x1, 0, CUP_H / 2), "smooth")
        upper.follow(lower, cut, move1)
        upper.arc(up0, up1, (x1 - side, 0, CUP_H / 2), 0.6)
        lower.move(low0, T - 3, (x1, 0, lifted()), "smooth")
        ball = Motion(T, fps, (x, 0, r)).follow(lower, cut, move1).roll(r)
        objs, exps, hid = cups_and_ball(clip, look, r, {"lower": lower}, "lower", ball)
        stacked = [f for f in range(T) if abs(upper.pos[f, 2] - 1.5 * CUP_H) < 1e-6]
        exps += [
            X.touching("upper", "lower", stacked),
            X.hidden("target", list(range(up0, low0))),
            X.same_place("target", [move1, T - 1]),
        ]
        objs.insert(
            1, objs[0].__class__("upper", "container", "cup", objs[0].dims, look.mat("upper"), upper.track())
        )
        return Composition(
            [look.ground(T), *objs],
            {"covered": hid[0], "slide_start": cut, "upper_lift": up0, "lower_lift": low0},
            "slide_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised {look.colour('lower')} cup; "
            f"a {look.colour('upper')} cup stands nearby. Continue the video.",
            outcome="the stacked cups slide; the upper cup comes off over nothing, and the ball is revealed "
            "under the lower cup at the new place",
            derived={"end_x": round(x1, 4)},
        )
