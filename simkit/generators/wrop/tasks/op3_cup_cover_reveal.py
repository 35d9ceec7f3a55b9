"""OP-3/cup_cover_reveal."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, Motion, X, cup_timeline, cups_and_ball, lifted
from simkit.scenes.wrop.params import Uniform


class CupCoverReveal(Task):
    family, name = "OP-3", "cup_cover_reveal"
    summary = "a cup is put over a ball and lifted again; the ball must still be under it"
    description = (
        "A ball rests on the floor; an upturned cup is lowered over it, stays, and is lifted after the cut. "
        "This is the simplest container-permanence test: an object inside a closed container continues to "
        "exist and stays where it was put, so when the cup rises the ball must be revealed in the same place, "
        "with the same size and colour, not missing and not duplicated. Ball size, cup position and how long "
        "the ball stays covered vary."
    )
    structural = {"radius": Uniform(0.12, 0.22), "x": Uniform(-1.0, 1.0), "wait": Uniform(0.0, 1.0)}
    colour_slots = ("target", "cup")

    def compose(self, s, clip, look):
        T, fps, x, r = clip.frames, clip.fps, s["x"], s["radius"]
        t = cup_timeline(clip)
        lift0 = t["move0"] + int(round(s["wait"] * (t["lift0"] - t["move0"])))
        lift1 = min(lift0 + (t["lift1"] - t["lift0"]), T - 3)
        c = Motion(T, fps, (x, 0, lifted()))
        c.move(t["lower0"], t["lower1"], (x, 0, CUP_H / 2), "smooth").move(
            lift0, lift1, (x, 0, lifted()), "smooth"
        )
        ball = Motion(T, fps, (x, 0, r))
        objs, exps, hid = cups_and_ball(clip, look, r, {"cup": c}, "cup", ball)
        exps.append(X.same_place("target", list(range(T))))
        return Composition(
            [look.ground(T), *objs],
            {"covered": hid[0], "lift": lift0},
            "lift",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised "
            f"{look.colour('cup')} cup. Continue the video.",
            outcome="the cup is lifted and the ball is still there, unchanged",
        )
