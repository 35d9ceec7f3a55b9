"""OP-3/marked_cups_swap (several legal outcomes)."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, CUP_R, Motion, X, cup_timeline, cups_and_ball, lifted
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class MarkedCupsSwap(Task):
    family, name = "OP-3", "marked_cups_swap"
    summary = "two differently coloured cups, one hiding a ball, swap places 0-2 times before reopening"
    description = (
        "Two upturned cups of different colours stand apart; the ball is covered by one of them. After the cut "
        "the cups may swap places (zero, one or two times, along curved paths so they do not collide) before "
        "both are lifted. The input never says how often they will swap, so several final layouts are "
        "physically legal; what is invariant is identity: the ball is under the cup that covered it, whatever "
        "its final position. A model that binds the ball to a place instead of to its container fails half "
        "the time. Which cup holds the ball, the spacing, ball size and number of swaps vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "spacing": Uniform(1.0, 1.5),
        "ball_under": Choice(["left", "right"]),
        "swaps": IntRange(0, 2),
    }
    colour_slots = ("target", "cup_a", "cup_b")

    def compose(self, s, clip, look):
        T, fps, r, h = clip.frames, clip.fps, s["radius"], s["spacing"] / 2
        t = cup_timeline(clip)
        xa = -h if s["ball_under"] == "left" else h
        a = Motion(T, fps, (xa, 0, lifted()))
        b = Motion(T, fps, (-xa, 0, CUP_H / 2))
        a.move(t["lower0"], t["lower1"], (xa, 0, CUP_H / 2), "smooth")
        n = s["swaps"]
        pos = xa
        if n:
            span = (t["move1"] - t["move0"]) // n
            for k in range(n):
                f0, f1 = t["move0"] + k * span, t["move0"] + (k + 1) * span - 1
                a.arc(f0, f1, (-pos, 0, CUP_H / 2), 2.2 * CUP_R, direction=(0, -1, 0))
                b.arc(f0, f1, (pos, 0, CUP_H / 2), 2.2 * CUP_R, direction=(0, 1, 0))
                pos = -pos
        for c in (a, b):
            end = c.at(t["lift0"])
            c.move(t["lift0"], t["lift1"], (end[0], 0, lifted()), "smooth")
        ball = Motion(T, fps, (xa, 0, r)).follow(a, t["move0"], t["lift0"])
        objs, exps, hid = cups_and_ball(clip, look, r, {"cup_a": a, "cup_b": b}, "cup_a", ball)
        vis = next(e.frames for e in exps if isinstance(e, X.Visible))
        exps.append(X.side("target", "cup_b", vis, 1 if pos > 0 else -1, space="world"))
        ca = look.colour("cup_a")
        side = "right" if pos > 0 else "left"
        legal = [f"the ball is revealed under the {ca} cup, now on the {p}" for p in ("left", "right")]
        return Composition(
            [look.ground(T), *objs],
            {"manipulation_start": t["move0"], "lift": t["lift0"]},
            "manipulation_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised {ca} cup; a "
            f"{look.colour('cup_b')} cup stands next to it. Continue the video.",
            outcome=f"the ball is revealed under the {ca} cup, now on the {side}",
            legal_outcomes=legal,
            derived={"ball_end_side": side},
        )
