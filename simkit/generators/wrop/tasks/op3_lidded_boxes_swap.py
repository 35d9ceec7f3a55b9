"""OP-3/lidded_boxes_swap (several legal outcomes)."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, X
from simkit.generators.wrop.kit_op3 import (
    BOX_VIEW,
    LID_T,
    box_height,
    box_pair,
    box_pair_objects,
    lid_closed,
    lids_ride_then_lift,
    swap_arc,
)
from simkit.scenes.wrop.params import Choice, IntRange, Uniform

HALF = 0.4  # box half-width (m)


class LiddedBoxesSwap(Task):
    family, name = "OP-3", "lidded_boxes_swap"
    summary = "two closed boxes of different colours, one holding a ball, swap places 0-2 times, then open"
    description = (
        "The paper's marked-boxes swap. Seen from above, two open boxes of different colours stand apart, a "
        "ball in one of them; both get their lids. After the cut the closed boxes may exchange places zero, "
        "one or two times along curved paths, lids riding on them, and then both lids are lifted off. Either "
        "final layout is legal; what must hold is that the ball is inside the box it was shut in, wherever "
        "that box now stands, and the other box is empty. Which box holds the ball, spacing, ball size and the "
        "number of swaps vary."
    )
    structural = {
        "radius": Uniform(0.1, 0.15),
        "spacing": Uniform(1.3, 1.7),
        "ball_in": Choice(["left", "right"]),
        "swaps": IntRange(0, 2),
    }
    colour_slots = ("target", "a_box", "a_lid", "b_box", "b_lid")
    view = BOX_VIEW

    def compose(self, s, clip, look):
        T, fps, cut, r, sp = clip.frames, clip.fps, clip.cut, s["radius"], s["spacing"] / 2
        w, h = 2 * HALF, box_height(2 * r)
        xa = -sp if s["ball_in"] == "left" else sp
        lid_z = h + LID_T / 2
        boxes, lids = box_pair(clip, xa, -xa, w, h, max(1, cut // 4))
        rem = T - 3 - cut
        move1 = cut + max(3, int(0.65 * rem))
        n = s["swaps"]
        for i in range(n):
            span = (move1 - cut + 1) // n
            swap_arc(boxes["a_"], boxes["b_"], cut + i * span, cut + (i + 1) * span - 1, 2.3 * HALF)
        lids_ride_then_lift(clip, boxes, lids, move1, w, h)
        ball = Motion(T, fps, (xa, 0, r)).follow(boxes["a_"], cut, move1)
        closed = lid_closed(boxes["a_"], lids["a_"], h)
        hid = [f for f in range(T) if closed[f]]
        vis = [f for f in range(T) if all(lid.pos[f, 2] - lid_z >= 0.5 for lid in lids.values())]
        end = float(boxes["a_"].at(T - 1)[0])
        exps = [
            X.hidden("target", hid),
            X.visible("target", vis),
            X.bound("target", "a_box", list(range(T))),
            X.side("target", "b_box", [f for f in vis if f > move1], 1 if end > 0 else -1, space="world"),
        ]
        objs = box_pair_objects(look, boxes, lids, w, h, r, ball)
        ca = look.colour("a_box")
        legal = [f"the ball is found in the {ca} box, now on the {p}" for p in ("left", "right")]
        return Composition(
            [look.ground(T), *objs],
            {"closed": hid[0], "manipulation_start": cut, "open": move1 + 1},
            "manipulation_start",
            exps,
            prompt=f"A {look.colour('target')} ball lies in an open {ca} box; an open {look.colour('b_box')} "
            f"box stands next to it, and lids are held above both. Continue the video.",
            outcome=legal[1 if end > 0 else 0],
            legal_outcomes=legal,
            derived={"ball_end_side": "right" if end > 0 else "left"},
        )
