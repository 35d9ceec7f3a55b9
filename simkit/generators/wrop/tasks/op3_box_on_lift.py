"""OP-3/box_on_lift."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X
from simkit.generators.wrop.kit_op3 import (
    BOX_VIEW,
    LID_T,
    box_height,
    column_top,
    lid_closed,
    lid_open,
    lidded_box,
    rising_column,
)
from simkit.scenes.wrop.params import Uniform

BASE = 0.12  # lift column height before it rises (m)


class BoxOnLift(Task):
    family, name = "OP-3", "box_on_lift"
    summary = "a closed box holding a ball stands on a lift that rises, then the lid comes off up high"
    description = (
        "Seen from above, a ball lies in an open box standing on a low lift column, and a lid closes the box. "
        "After the cut the column extends upward and raises the closed box, then the lid is lifted off. The "
        "ball went up inside the box without being seen: it must be revealed in the box at the raised height, "
        "not left behind on the floor or at the old height, and it must not drop out. Vertical transport "
        "checks that the hidden object's height, not only its floor position, is bound to the container. Ball "
        "size, box size, column width, lift height and place vary."
    )
    structural = {
        "radius": Uniform(0.11, 0.16),
        "margin": Uniform(0.25, 0.4),
        "rise": Uniform(0.5, 1.0),
        "x": Uniform(-0.8, 0.8),
        "column": Uniform(0.5, 0.8),
    }
    colour_slots = ("target", "box", "lid", "column")
    view = BOX_VIEW

    def compose(self, s, clip, look):
        T, fps, cut, r, x = clip.frames, clip.fps, clip.cut, s["radius"], s["x"]
        w, h = 2 * (r + s["margin"]), box_height(2 * r)
        rem = T - 3 - cut
        up1 = cut + max(3, int(0.55 * rem))
        col = rising_column(T, fps, (x, 0), BASE, BASE + s["rise"], cut, up1)
        top = column_top(col)
        box = Motion(T, fps, (x, 0, BASE + h / 2))
        box.pos[:, 2] = top + h / 2
        lid_z = BASE + h + LID_T / 2
        held = BASE + h + 0.9
        lid = Motion(T, fps, (x, w + 0.3, held)).arc(max(1, cut // 4), cut - 2, (x, 0, lid_z), 0.2)
        lid.follow(box, cut, up1)
        lid.arc(up1 + 1, T - 3, (x, w + 0.3, held + s["rise"]), 0.2)
        ball = Motion(T, fps, (x, 0, BASE + r)).follow(box, cut, up1)
        closed = lid_closed(box, lid, h)
        opened = lid_open(box, lid, h, w)
        hid = [f for f in range(T) if closed[f]]
        exps = [
            X.hidden("target", hid),
            X.visible("target", [f for f in range(T) if opened[f]]),
            X.bound("target", "box", list(range(T))),
            X.touching("box", "column", list(range(T))),
            X.no_penetration("box", "column"),
        ]
        objs = lidded_box(look, box, lid, (w, w, h))
        cw = s["column"]
        objs += [
            SceneObject("column", "support", "box", (cw, cw, 1.0), look.mat("column"), col.track()),
            SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()),
        ]
        return Composition(
            [look.ground(T), *objs],
            {"closed": hid[0], "rise_start": cut, "open": up1 + 1},
            "rise_start",
            exps,
            prompt=f"A {look.colour('target')} ball lies in an open {look.colour('box')} box on a low "
            f"{look.colour('column')} lift; a {look.colour('lid')} lid is held nearby. Continue the video.",
            outcome="the lift raises the closed box; when the lid comes off, the ball is inside it up high",
            derived={"ball_end_z": round(BASE + s["rise"] + r, 4)},
        )
