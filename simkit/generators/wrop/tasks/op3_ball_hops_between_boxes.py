"""OP-3/ball_hops_between_boxes."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, X
from simkit.generators.wrop.kit_op3 import (
    BOX_VIEW,
    box_height,
    box_pair,
    box_pair_objects,
    lid_closed,
    lid_open,
    lids_ride_then_lift,
)
from simkit.scenes.wrop.params import Choice, Uniform

HALF = 0.4  # box half-width (m)


class BallHopsBetweenBoxes(Task):
    family, name = "OP-3", "ball_hops_between_boxes"
    summary = "a ball hops from one open box into another, both are closed and slide apart, then open"
    description = (
        "Seen from above, two open boxes stand side by side with a ball in one. The ball hops in a visible arc "
        "out of its box and into the other one; then both boxes get lids. After the cut the closed boxes "
        "slide apart in opposite directions by different distances and finally both lids are lifted. The ball "
        "started in one container but was seen moving into the other, so it must be found in the second box, "
        "at that box's new place, while the first box is empty. Spacing, ball size, which box it starts in, "
        "hop height and the two slide distances vary."
    )
    structural = {
        "radius": Uniform(0.1, 0.15),
        "spacing": Uniform(1.1, 1.5),
        "start_in": Choice(["left", "right"]),
        "hop": Uniform(0.4, 0.8),
        "slide_a": Uniform(0.3, 1.0),
        "slide_b": Uniform(0.3, 1.0),
    }
    colour_slots = ("target", "a_box", "a_lid", "b_box", "b_lid")
    view = BOX_VIEW

    def compose(self, s, clip, look):
        T, fps, cut, r = clip.frames, clip.fps, clip.cut, s["radius"]
        w, h = 2 * HALF, box_height(2 * r)
        sa = -1 if s["start_in"] == "left" else 1
        xa, xb = sa * s["spacing"] / 2, -sa * s["spacing"] / 2
        hop0, hop1 = max(1, cut // 8), max(3, cut // 2)
        boxes, lids = box_pair(clip, xa, xb, w, h, hop1 + 1)
        ball = Motion(T, fps, (xa, 0, r)).arc(hop0, hop1, (xb, 0, r), h + s["hop"])
        rem = T - 3 - cut
        move1 = cut + max(3, int(0.5 * rem))
        boxes["a_"].move(cut, move1, (xa + sa * s["slide_a"], 0, h / 2), "smooth")
        boxes["b_"].move(cut, move1, (xb - sa * s["slide_b"], 0, h / 2), "smooth")
        ball.follow(boxes["b_"], cut, move1)
        lids_ride_then_lift(clip, boxes, lids, move1, w, h)
        closed = lid_closed(boxes["b_"], lids["b_"], h)
        opened = lid_open(boxes["b_"], lids["b_"], h, w) & lid_open(boxes["a_"], lids["a_"], h, w)
        hid = [f for f in range(T) if closed[f]]
        exps = [
            X.hidden("target", hid),
            X.visible("target", [f for f in range(T) if opened[f]]),
            X.bound("target", "b_box", list(range(hop1, T))),
            X.side("target", "a_box", list(range(hop1, T)), -sa, space="world"),
        ]
        objs = box_pair_objects(look, boxes, lids, w, h, r, ball)
        cb = look.colour("b_box")
        return Composition(
            [look.ground(T), *objs],
            {"hop": hop0, "closed": hid[0], "slide_start": cut, "open": move1 + 1},
            "slide_start",
            exps,
            prompt=f"A {look.colour('target')} ball lies in an open {look.colour('a_box')} box next to an open "
            f"{cb} box; lids are held above both. Continue the video.",
            outcome=f"the closed boxes slide apart; the ball is found in the {cb} box, the other box is empty",
            derived={"ball_end_x": round(float(ball.at(T - 1)[0]), 4)},
        )
