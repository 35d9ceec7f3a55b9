"""OP-3/nested_box_lifted_out."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X
from simkit.generators.wrop.kit_op3 import BOX_VIEW, LID_T, lid_closed, lid_open
from simkit.scenes.wrop.params import Choice, Uniform

OUTER = (1.3, 1.1, 0.5)  # open box (m)
INNER_H = 0.36  # inner box wall height (m)
#: a steeper view than BOX_VIEW, so the ball shows over two walls
VIEW = {**BOX_VIEW, "elevation_deg": 60.0}


class NestedBoxLiftedOut(Task):
    family, name = "OP-3", "nested_box_lifted_out"
    summary = "a small box with a ball sits inside a big box; the big box is closed, opened, and the small box lifted out"
    description = (
        "Seen from above, a small open box holding a ball stands inside a big open box, and a lid closes the "
        "big box. After the cut the lid comes off again and the small box is lifted out of the big one, "
        "carried through the air and set down elsewhere on the floor. The ball was inside the small box, so "
        "it travels with it and must be seen in the small box at its new place, while the big box is left "
        "empty. Nested containers pass their contents upward: what moves with the inner container is "
        "decided by which container directly holds the ball. Ball size, inner box size, where the small box "
        "is set down and the carry height vary."
    )
    structural = {
        "radius": Uniform(0.1, 0.14),
        "inner": Uniform(0.5, 0.7),
        "direction": Choice([1, -1]),
        "distance": Uniform(1.4, 2.0),
        "carry": Uniform(0.3, 0.6),
    }
    colour_slots = ("target", "box", "inner", "lid")
    view = VIEW

    def compose(self, s, clip, look):
        T, fps, cut, r, wi = clip.frames, clip.fps, clip.cut, s["radius"], s["inner"]
        x1 = s["direction"] * s["distance"]
        oh, lid_z, top = OUTER[2], OUTER[2] + LID_T / 2, OUTER[2] + 0.9
        outer = Motion(T, fps, (0, 0, oh / 2))
        lid = Motion(T, fps, (0, OUTER[1] + 0.3, top)).arc(max(1, cut // 4), cut - 2, (0, 0, lid_z), 0.2)
        rem = T - 3 - cut
        open1 = cut + max(2, rem // 4)
        lid.arc(cut, open1, (0, OUTER[1] + 0.3, top), 0.2)
        up = oh + s["carry"]  # inner bottom height while carried
        inner = Motion(T, fps, (0, 0, INNER_H / 2))
        a, b = open1 + 1, open1 + max(2, rem // 4)
        c = b + max(2, rem // 4)
        inner.move(a, b, (0, 0, up + INNER_H / 2), "smooth").move(
            b + 1, c, (x1, 0, up + INNER_H / 2), "smooth"
        )
        inner.move(c + 1, T - 3, (x1, 0, INNER_H / 2), "smooth")
        ball = Motion(T, fps, (0, 0, r)).follow(inner, a, T - 3)
        closed = lid_closed(outer, lid, oh)
        opened = lid_open(outer, lid, oh, OUTER[1])
        hid = [f for f in range(T) if closed[f]]
        exps = [
            X.hidden("target", hid),
            X.visible("target", [f for f in range(T) if opened[f]]),
            X.bound("target", "inner", list(range(T))),
            X.touching("inner", "ground", [T - 1]),
            X.side("target", "box", [T - 1], s["direction"], space="world"),
        ]
        objs = [
            SceneObject("box", "container", "open_box", OUTER, look.mat("box"), outer.track()),
            SceneObject(
                "inner", "container", "open_box", (wi, wi, INNER_H), look.mat("inner"), inner.track()
            ),
            SceneObject(
                "lid", "lid", "box", (OUTER[0] + 0.04, OUTER[1] + 0.04, LID_T), look.mat("lid"), lid.track()
            ),
            SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()),
        ]
        return Composition(
            [look.ground(T), *objs],
            {"closed": hid[0], "open": cut, "inner_lift": a, "set_down": c + 1},
            "open",
            exps,
            prompt=f"A {look.colour('target')} ball lies in a small {look.colour('inner')} box that stands "
            f"inside a big open {look.colour('box')} box; a {look.colour('lid')} lid is held nearby. "
            "Continue the video.",
            outcome="the small box is lifted out and set down elsewhere; the ball is in it, the big box is empty",
            derived={"end_x": round(x1, 4)},
        )
