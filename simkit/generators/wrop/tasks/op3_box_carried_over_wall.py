"""OP-3/box_carried_over_wall."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import WALL_T, Motion, SceneObject, X
from simkit.generators.wrop.kit_op3 import BOX_VIEW, LID_T, box_height, lid_closed, lid_open, lidded_box
from simkit.scenes.wrop.params import Choice, Uniform


class BoxCarriedOverWall(Task):
    family, name = "OP-3", "box_carried_over_wall"
    summary = "a closed box holding a ball is lifted over a low wall, set down beyond it and opened"
    description = (
        "Seen from above, a ball lies in an open box beside a low wall. The lid is put on, and after the cut "
        "the closed box is lifted straight up, carried through the air over the wall and lowered on the "
        "other side; then the lid is taken off. The ball leaves the floor with its container: it must be "
        "inside the box beyond the wall, not left on the floor where the box stood, not dropped at the wall "
        "and not passed through it. Ball size, box size, wall height, carry direction and landing distance "
        "vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "margin": Uniform(0.25, 0.4),
        "wall_height": Uniform(0.3, 0.6),
        "direction": Choice([1, -1]),
        "beyond": Uniform(0.2, 0.6),
    }
    colour_slots = ("target", "box", "lid", "wall")
    view = BOX_VIEW

    def compose(self, s, clip, look):
        T, fps, cut, r, d = clip.frames, clip.fps, clip.cut, s["radius"], s["direction"]
        w, h, wh = 2 * (r + s["margin"]), box_height(2 * r), s["wall_height"]
        x0, x1 = -d * (w / 2 + 0.35), d * (w / 2 + WALL_T / 2 + s["beyond"])
        lid_z, top = h + LID_T / 2, h + 0.9
        box = Motion(T, fps, (x0, 0, h / 2))
        lid = Motion(T, fps, (x0, w + 0.3, top))
        lid.arc(max(1, cut // 4), cut - 2, (x0, 0, lid_z), 0.2)
        rem = T - 3 - cut
        move1 = cut + max(3, int(0.6 * rem))
        up, across = cut + (move1 - cut) // 3, cut + 2 * (move1 - cut) // 3
        lift = wh + 0.2  # bottom clearance over the wall top: 0.2 m
        box.move(cut, up, (x0, 0, h / 2 + lift), "smooth").move(
            up + 1, across, (x1, 0, h / 2 + lift), "smooth"
        )
        box.move(across + 1, move1, (x1, 0, h / 2), "smooth")
        lid.follow(box, cut, move1)
        lid.arc(move1 + 1, T - 3, (x1, w + 0.3, top), 0.2)
        ball = Motion(T, fps, (x0, 0, r)).follow(box, cut, move1)
        closed = lid_closed(box, lid, h)
        hid = [f for f in range(T) if closed[f]]
        vis = [f for f in range(T) if lid_open(box, lid, h, w)[f]]
        exps = [
            X.hidden("target", hid),
            X.visible("target", vis),
            X.bound("target", "box", list(range(T))),
            X.no_penetration("box", "wall"),
            X.side("target", "wall", [f for f in vis if f > move1], d, space="world"),
        ]
        objs = lidded_box(look, box, lid, (w, w, h))
        wall = SceneObject("wall", "wall", "box", (WALL_T, w + 0.6, wh), look.mat("wall"), None)
        wall.track = Motion(T, fps, (0, 0, wh / 2)).track()
        objs += [wall, SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track())]
        return Composition(
            [look.ground(T), *objs],
            {"closed": hid[0], "carry_start": cut, "open": move1 + 1},
            "carry_start",
            exps,
            prompt=f"A {look.colour('target')} ball lies in an open {look.colour('box')} box next to a low "
            f"{look.colour('wall')} wall; a {look.colour('lid')} lid is held nearby. Continue the video.",
            outcome="the closed box is carried over the wall; when the lid comes off, the ball is inside it "
            "beyond the wall",
            derived={"end_x": round(x1, 4), "carry_height": round(lift, 4)},
        )
