"""OP-3/hinged_lid_box."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X
from simkit.generators.wrop.kit_op3 import BOX_VIEW, LID_T, box_height, hinge, lid_closed, lidded_box
from simkit.scenes.wrop.params import Choice, Uniform

OPEN = 0.8 * np.pi  # lid angle when open (rad, about the back edge)


class HingedLidBox(Task):
    family, name = "OP-3", "hinged_lid_box"
    summary = "a box with a hinged lid swings shut over a ball, is pushed along (or not) and swings open"
    description = (
        "Seen from above, a ball lies in an open box whose lid is hinged along its back edge. The lid swings "
        "shut, and after the cut the closed box may be pushed sideways by some distance (sometimes not at "
        "all) before the lid swings open again about its hinge. The lid turns instead of lifting off, so the "
        "contents are uncovered gradually from the front edge; the ball must be found inside the box, moved "
        "by exactly as much as the box, and never appear while the lid is shut. Ball size, box size, push "
        "direction and distance (including none) vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "margin": Uniform(0.3, 0.45),
        "direction": Choice([1, -1]),
        "distance": Uniform(0.0, 1.4),
    }
    colour_slots = ("target", "box", "lid")
    view = BOX_VIEW

    def compose(self, s, clip, look):
        T, fps, cut, r = clip.frames, clip.fps, clip.cut, s["radius"]
        x0 = -0.4 * s["direction"]
        x1 = x0 + s["direction"] * s["distance"]
        w, h = 2 * (r + s["margin"]), box_height(2 * r)
        box = Motion(T, fps, (x0, 0, h / 2))
        lid = Motion(T, fps, (x0, 0, h + LID_T / 2))
        hinge(lid, 0, 0, (x0, w / 2 + 0.02, h), -OPEN, axis=0)
        hinge(lid, max(1, cut // 4), cut - 2, (x0, w / 2 + 0.02, h), OPEN, axis=0)
        rem = T - 3 - cut
        move1 = cut + max(3, int(0.5 * rem))
        box.move(cut, move1, (x1, 0, h / 2), "smooth")
        lid.follow(box, cut, move1)
        hinge(lid, move1 + 1, T - 3, (x1, w / 2 + 0.02, h), -OPEN, axis=0)
        ball = Motion(T, fps, (x0, 0, r)).follow(box, cut, move1).roll(r)
        closed = lid_closed(box, lid, h) & (np.abs(lid.rot[:, 0]) < 1e-9)
        hid = [f for f in range(T) if closed[f]]
        vis = [f for f in range(T) if abs(lid.rot[f, 0]) >= 0.6 * np.pi]
        exps = [
            X.hidden("target", hid),
            X.visible("target", vis),
            X.bound("target", "box", list(range(T))),
        ]
        objs = lidded_box(look, box, lid, (w, w, h))
        objs.append(SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()))
        return Composition(
            [look.ground(T), *objs],
            {"closed": hid[0], "push_start": cut, "open": move1 + 1},
            "push_start",
            exps,
            prompt=f"A {look.colour('target')} ball lies in an open {look.colour('box')} box with a "
            f"{look.colour('lid')} lid hinged at the back. Continue the video.",
            outcome="the box is pushed with its lid shut; when the lid swings open the ball is inside, moved "
            "with the box",
            derived={"end_x": round(x1, 4)},
        )
