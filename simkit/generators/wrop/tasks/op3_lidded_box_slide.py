"""OP-3/lidded_box_slide."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X
from simkit.generators.wrop.kit_op3 import BOX_VIEW, LID_T, box_height, lid_closed, lidded_box
from simkit.scenes.wrop.params import Choice, Uniform


class LiddedBoxSlide(Task):
    family, name = "OP-3", "lidded_box_slide"
    summary = "a lid is put on a box holding a ball, the closed box slides away and the lid is taken off"
    description = (
        "Seen from above, a ball lies in a wide open box. A lid is lowered onto the box, closing it, and after "
        "the cut the closed box slides along the floor with the lid riding on it. Finally the lid is lifted "
        "off and set aside. The ball must be inside the box at its new place: it travels with the box it is "
        "shut in, cannot slip out of a closed box, and must be neither missing nor left at the starting "
        "point. Ball size, box size, start place, slide direction and distance vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "margin": Uniform(0.3, 0.45),
        "x": Uniform(-0.6, 0.6),
        "direction": Choice([1, -1]),
        "distance": Uniform(1.0, 1.8),
    }
    colour_slots = ("target", "box", "lid")
    view = BOX_VIEW

    def compose(self, s, clip, look):
        T, fps, cut, r, x = clip.frames, clip.fps, clip.cut, s["radius"], s["x"]
        x1 = x + s["direction"] * s["distance"]
        w, h = 2 * (r + s["margin"]), box_height(2 * r)
        lid_z, top = h + LID_T / 2, h + 0.9
        box = Motion(T, fps, (x, 0, h / 2))
        lid = Motion(T, fps, (x, w + 0.3, top))
        lid.arc(max(1, cut // 4), cut - 2, (x, 0, lid_z), 0.2)
        rem = T - 3 - cut
        move1 = cut + max(3, int(0.6 * rem))
        box.move(cut, move1, (x1, 0, h / 2), "smooth")
        lid.follow(box, cut, move1)
        lid.arc(move1 + 1, T - 3, (x1, w + 0.3, top), 0.2)
        ball = Motion(T, fps, (x, 0, r)).follow(box, cut, move1)
        ball.roll(r)
        closed = lid_closed(box, lid, h)
        hid = [f for f in range(T) if closed[f]]
        lid_rim = lid.pos[:, 2] - lid_z
        vis = [f for f in range(T) if lid_rim[f] >= 0.5 or abs(lid.pos[f, 1]) >= w]
        exps = [
            X.hidden("target", hid),
            X.visible("target", vis),
            X.bound("target", "box", list(range(T))),
            X.same_place("target", list(range(move1, T))),
        ]
        objs = lidded_box(look, box, lid, (w, w, h))
        objs.append(SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()))
        return Composition(
            [look.ground(T), *objs],
            {"closed": hid[0], "slide_start": cut, "open": move1 + 1},
            "slide_start",
            exps,
            prompt=f"A {look.colour('target')} ball lies in an open {look.colour('box')} box; a "
            f"{look.colour('lid')} lid is held next to it. Continue the video.",
            outcome="the closed box slides to a new place; when the lid comes off, the ball is inside it there",
            derived={"end_x": round(x1, 4), "box_height": round(h, 4)},
        )
