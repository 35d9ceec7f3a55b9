"""OP-3/size_matched_cups (several legal outcomes)."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X, cup_timeline
from simkit.generators.wrop.kit_op3 import cover_expectations, swap_arc
from simkit.scenes.wrop.params import Choice, IntRange, Uniform

CUPS = {"small": (0.26, 0.46), "big": (0.44, 0.76)}  # radius, height (m)


class SizeMatchedCups(Task):
    family, name = "OP-3", "size_matched_cups"
    summary = "a small and a big ball under a small and a big cup; the cups swap 0-2 times before lifting"
    description = (
        "A small ball and a big ball lie apart, each covered by an upturned cup of matching size: the big "
        "ball would not fit under the small cup. After the cut the cups may swap places zero, one or two "
        "times along curved paths, then both are lifted. Either final layout is legal, but each ball must "
        "come out under its own cup: the big ball under the big cup, the small one under the small cup, with "
        "sizes unchanged. Sizes are a second cue to identity besides colour, and swapping the balls' sizes or "
        "places is a violation. Ball sizes, spacing, which side the big one starts on and the swap count vary."
    )
    structural = {
        "r_small": Uniform(0.1, 0.14),
        "r_big": Uniform(0.22, 0.3),
        "spacing": Uniform(1.3, 1.7),
        "big_on": Choice(["left", "right"]),
        "swaps": IntRange(0, 2),
    }
    colour_slots = ("small_ball", "big_ball", "small", "big")

    def compose(self, s, clip, look):
        T, fps, h = clip.frames, clip.fps, s["spacing"] / 2
        t = cup_timeline(clip)
        xb = -h if s["big_on"] == "left" else h
        xs = {"big": xb, "small": -xb}
        rad = {"big": s["r_big"], "small": s["r_small"]}
        cups = {k: Motion(T, fps, (xs[k], 0, 1.0 + CUPS[k][1] / 2)) for k in CUPS}
        for k, m in cups.items():
            m.move(t["lower0"], t["lower1"], (xs[k], 0, CUPS[k][1] / 2), "smooth")
        n = s["swaps"]
        if n:
            span = (t["move1"] - t["move0"] + 1) // n
            for i in range(n):
                f0 = t["move0"] + i * span
                swap_arc(cups["big"], cups["small"], f0, f0 + span - 1, 0.8)
        for k, m in cups.items():
            end = m.at(t["lift0"])
            m.move(t["lift0"], t["lift1"], (end[0], 0, 1.0 + CUPS[k][1] / 2), "smooth")
        rims = {k: m.pos[:, 2] - CUPS[k][1] / 2 for k, m in cups.items()}
        objs, exps = [look.ground(T)], []
        for k, m in cups.items():
            objs.append(SceneObject(k, "container", "cup", CUPS[k], look.mat(k), m.track()))
        for k in CUPS:
            ball = Motion(T, fps, (xs[k], 0, rad[k])).follow(cups[k], t["move0"], t["lift0"])
            objs.append(
                SceneObject(f"{k}_ball", "target", "sphere", (rad[k],), look.mat(f"{k}_ball"), ball.track())
            )
            e, hid, vis = cover_expectations(T, f"{k}_ball", 2 * rad[k], rims, k, clear=0.4)
            exps += e
        x_end = float(cups["big"].at(T - 1)[0])
        exps.append(
            X.side(
                "big_ball",
                "small_ball",
                [f for f in vis if f > t["move1"]],
                1 if x_end > 0 else -1,
                space="world",
            )
        )
        side = "right" if x_end > 0 else "left"
        legal = [
            f"the big ball is revealed under the big cup on the {p}, the small ball under the small cup"
            for p in ("left", "right")
        ]
        return Composition(
            objs,
            {"covered": hid[0], "manipulation_start": t["move0"], "lift": t["lift0"]},
            "manipulation_start",
            exps,
            prompt=f"A small {look.colour('small_ball')} ball and a big {look.colour('big_ball')} ball lie on the "
            f"floor under a raised small {look.colour('small')} cup and a raised big {look.colour('big')} cup. "
            "Continue the video.",
            outcome=legal[1 if x_end > 0 else 0],
            legal_outcomes=legal,
            derived={"big_end_side": side},
        )
