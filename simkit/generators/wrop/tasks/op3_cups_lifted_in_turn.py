"""OP-3/cups_lifted_in_turn."""

import itertools

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, Motion, X, cups_and_ball, lifted
from simkit.scenes.wrop.params import Choice, IntRange, Uniform

ORDERS = list(itertools.permutations(range(3)))


class CupsLiftedInTurn(Task):
    family, name = "OP-3", "cups_lifted_in_turn"
    summary = "three cups stand still, one over a ball; they are lifted one at a time in a varying order"
    description = (
        "Three upturned cups stand in a row; the ball is seen going under one of them. Nothing moves after "
        "that until the cut, when the cups are lifted one at a time, in one of the six possible orders, each "
        "staying up. The ball must appear exactly when its own cup rises, not earlier and not under another "
        "cup: the empty cups must reveal empty floor, and the ball must still be there after waiting. Which "
        "cup covers the ball, the lifting order, spacing, ball size and the pause between lifts vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "spacing": Uniform(1.0, 1.3),
        "ball_under": Choice([0, 1, 2]),
        "order": IntRange(0, 5),
        "pause": Uniform(0.0, 1.0),
    }
    colour_slots = ("target", "cup_a", "cup_b", "cup_c")

    def compose(self, s, clip, look):
        T, fps, cut, r, sp = clip.frames, clip.fps, clip.cut, s["radius"], s["spacing"]
        names = ["cup_a", "cup_b", "cup_c"]
        h = s["ball_under"]
        cups = {
            n: Motion(T, fps, ((i - 1) * sp, 0, lifted() if i == h else CUP_H / 2))
            for i, n in enumerate(names)
        }
        xh = (h - 1) * sp
        cups[names[h]].move(max(1, cut // 4), max(2, cut // 2), (xh, 0, CUP_H / 2), "smooth")
        rem = T - 3 - cut
        lift = max(2, rem // 6)
        gap = int(round(s["pause"] * (rem - 3 * lift) / 3))
        starts = []
        for k, i in enumerate(ORDERS[s["order"]]):
            f0 = cut + k * (lift + gap)
            cups[names[i]].move(f0, f0 + lift - 1, ((i - 1) * sp, 0, lifted()), "smooth")
            starts.append(f0)
        ball = Motion(T, fps, (xh, 0, r))
        objs, exps, hid = cups_and_ball(clip, look, r, cups, names[h], ball)
        f_own = starts[ORDERS[s["order"]].index(h)]
        up = [f for f in range(f_own, T) if cups[names[h]].pos[f, 2] - CUP_H / 2 >= 2 * r + 0.5]
        exps += [X.visible("target", up), X.same_place("target", list(range(T)))]
        events = {f"lift{k + 1}": f for k, f in enumerate(starts)}
        return Composition(
            [look.ground(T), *objs],
            {"covered": hid[0], **events, "ball_revealed": up[0]},
            "lift1",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised {look.colour(names[h])} "
            "cup in a row of three cups. Continue the video.",
            outcome=f"the cups are lifted one by one; the ball appears only when the {look.colour(names[h])} "
            "cup rises",
            derived={"order": [names[i] for i in ORDERS[s["order"]]], "ball_lift_frame": f_own},
        )
