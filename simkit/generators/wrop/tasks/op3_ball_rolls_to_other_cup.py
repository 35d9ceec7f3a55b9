"""OP-3/ball_rolls_to_other_cup."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, Motion, X, cups_and_ball, lifted
from simkit.scenes.wrop.params import Choice, Uniform


class BallRollsToOtherCup(Task):
    family, name = "OP-3", "ball_rolls_to_other_cup"
    summary = "a ball rolls from under one raised cup to under another, both are lowered, then lifted in turn"
    description = (
        "Two cups hang above the floor and a ball rests under the first. The ball rolls across to the place "
        "under the second cup, which is lowered over it; then the first cup is lowered over the now empty "
        "place. After the cut the first cup is lifted, then the second. The ball was last seen entering the "
        "second cup, so lifting the first must reveal an empty floor and the ball must appear only under the "
        "second: the container that holds an object is the one it was last seen going into, not the one it "
        "started under. Spacing, ball size, roll direction and the lift timing vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "spacing": Uniform(1.2, 1.8),
        "direction": Choice([1, -1]),
        "first_lift": Uniform(0.0, 0.4),
    }
    colour_slots = ("target", "cup_a", "cup_b")

    def compose(self, s, clip, look):
        T, fps, cut, r, d = clip.frames, clip.fps, clip.cut, s["radius"], s["direction"]
        xa, xb = -d * s["spacing"] / 2, d * s["spacing"] / 2
        roll0, roll1 = max(1, cut // 6), max(3, cut // 2)
        low_b, low_a = (roll1 + 1, roll1 + max(2, cut // 5)), (roll1 + max(3, cut // 4), cut - 2)
        a = Motion(T, fps, (xa, 0, lifted()))
        b = Motion(T, fps, (xb, 0, lifted()))
        b.move(*low_b, (xb, 0, CUP_H / 2), "smooth")
        a.move(*low_a, (xa, 0, CUP_H / 2), "smooth")
        rem = T - 3 - cut
        lift_a0 = cut + int(round(s["first_lift"] * rem / 3))
        lift_a1 = lift_a0 + max(2, rem // 5)
        lift_b0, lift_b1 = max(lift_a1 + 2, T - 3 - max(2, rem // 5)), T - 3
        a.move(lift_a0, lift_a1, (xa, 0, lifted()), "smooth")
        b.move(lift_b0, lift_b1, (xb, 0, lifted()), "smooth")
        ball = Motion(T, fps, (xa, 0, r)).move(roll0, roll1, (xb, 0, r), "smooth").roll(r)
        objs, exps, hid = cups_and_ball(clip, look, r, {"cup_a": a, "cup_b": b}, "cup_b", ball)
        bot_a = a.pos[:, 2] - CUP_H / 2
        bot_b = b.pos[:, 2] - CUP_H / 2
        empty = [f for f in range(cut, T) if bot_a[f] >= 2 * r + 0.5 and bot_b[f] <= 0.01]
        exps += [X.same_place("target", list(range(roll1, T))), X.hidden("target", empty)]
        ca, cb = look.colour("cup_a"), look.colour("cup_b")
        return Composition(
            [look.ground(T), *objs],
            {"covered": hid[0], "first_lift": lift_a0, "second_lift": lift_b0},
            "first_lift",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised {ca} cup; a raised {cb} "
            "cup hangs nearby. Continue the video.",
            outcome=f"the {ca} cup is lifted over an empty place; the ball is revealed under the {cb} cup",
            derived={"ball_end_x": round(xb, 4)},
        )
