"""OP-3/nested_cups."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X
from simkit.generators.wrop.kit_op3 import cover_expectations
from simkit.scenes.wrop.params import Choice, Uniform

INNER_R, INNER_H = 0.28, 0.48
OUTER_R, OUTER_H = 0.42, 0.72


class NestedCups(Task):
    family, name = "OP-3", "nested_cups"
    summary = "a small cup hides a ball, a big cup covers the small one, and the big cup slides away"
    description = (
        "A small upturned cup is lowered over a ball and a bigger cup is then lowered over the small one, "
        "so the ball is hidden inside two containers. After the cut the big cup slides along the floor; its "
        "wall pushes the small cup, which carries the ball. Then the big cup is lifted, revealing the small "
        "cup at the new place, and the small cup is lifted, revealing the ball there. Containment is "
        "transitive: the ball must follow the outer container through the inner one and must not stay "
        "behind, vanish or appear before its own cup is lifted. Ball size, start place, slide direction and "
        "distance vary."
    )
    structural = {
        "radius": Uniform(0.11, 0.17),
        "x": Uniform(-0.6, 0.6),
        "direction": Choice([1, -1]),
        "distance": Uniform(1.0, 1.8),
    }
    colour_slots = ("target", "inner", "outer")

    def compose(self, s, clip, look):
        T, fps, cut, r, x = clip.frames, clip.fps, clip.cut, s["radius"], s["x"]
        x1 = x + s["direction"] * s["distance"]
        lower0, mid, lower1 = max(1, cut // 6), cut // 2 - 1, cut - 2
        rem = T - 3 - cut
        move1 = cut + max(3, int(0.45 * rem))
        lift_outer = (move1 + 1, move1 + max(2, int(0.25 * rem)))
        lift_inner = (lift_outer[1] + 1, T - 3)
        up_in, up_out = 0.75, 0.75 + INNER_H + 0.15  # rim heights before lowering
        inner = Motion(T, fps, (x, 0, up_in + INNER_H / 2))
        outer = Motion(T, fps, (x, 0, up_out + OUTER_H / 2))
        inner.move(lower0, mid, (x, 0, INNER_H / 2), "smooth")
        outer.move(mid + 1, lower1, (x, 0, OUTER_H / 2), "smooth")
        outer.move(cut, move1, (x1, 0, OUTER_H / 2), "smooth")
        inner.follow(outer, cut, move1)
        outer.move(lift_outer[0], lift_outer[1], (x1, 0, 1.3 + OUTER_H / 2), "smooth")
        inner.move(lift_inner[0], lift_inner[1], (x1, 0, 0.75 + INNER_H / 2), "smooth")
        ball = Motion(T, fps, (x, 0, r)).follow(outer, cut, move1)
        rim_in, rim_out = inner.pos[:, 2] - INNER_H / 2, outer.pos[:, 2] - OUTER_H / 2
        exps, hid, _vis = cover_expectations(
            T, "target", 2 * r, {"inner": rim_in, "outer": rim_out}, "inner", clear=0.3
        )
        out_rest = [f for f in range(T) if rim_out[f] <= 1e-6]
        out_up = [f for f in range(T) if rim_out[f] >= INNER_H + 0.35]
        exps += [
            X.hidden("inner", out_rest),
            X.visible("inner", [f for f in out_up if f > cut]),
            X.bound("inner", "outer", out_rest),
            X.same_place("target", [move1, T - 1]),
        ]
        objs = [
            SceneObject("inner", "container", "cup", (INNER_R, INNER_H), look.mat("inner"), inner.track()),
            SceneObject("outer", "container", "cup", (OUTER_R, OUTER_H), look.mat("outer"), outer.track()),
            SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()),
        ]
        return Composition(
            [look.ground(T), *objs],
            {"covered": hid[0], "slide_start": cut, "outer_lift": lift_outer[0], "inner_lift": lift_inner[0]},
            "slide_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a small raised "
            f"{look.colour('inner')} cup, with a bigger {look.colour('outer')} cup held above both. "
            "Continue the video.",
            outcome="the big cup slides away carrying the small cup and the ball; lifting both cups reveals "
            "the ball at the new place",
            derived={"end_x": round(x1, 4)},
        )
