"""OP-3/lids_swap_boxes_stay."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, X
from simkit.generators.wrop.kit_op3 import (
    BOX_VIEW,
    LID_T,
    box_height,
    box_pair,
    box_pair_objects,
    lid_closed,
    lid_open,
)
from simkit.scenes.wrop.params import Choice, Uniform

HALF = 0.4  # box half-width (m)


class LidsSwapBoxesStay(Task):
    family, name = "OP-3", "lids_swap_boxes_stay"
    summary = "two closed boxes stay put while their differently coloured lids are swapped, then both open"
    description = (
        "Seen from above, a ball lies in one of two open boxes and both boxes are closed with lids of "
        "different colours. After the cut the two lids are lifted together, crossed over in the air without "
        "uncovering the contents for long, and put down on the other box; then both lids are taken off. The "
        "lids moved, the boxes did not: the ball must be in the box it was put in, now under the other lid. "
        "A model that binds the ball to the coloured lid that covered it instead of to its container fails. "
        "Which box holds the ball, spacing, ball size and lift height vary."
    )
    structural = {
        "radius": Uniform(0.1, 0.15),
        "spacing": Uniform(1.1, 1.5),
        "ball_in": Choice(["left", "right"]),
        "lift": Uniform(0.5, 0.9),
    }
    colour_slots = ("target", "a_box", "a_lid", "b_box", "b_lid")
    view = BOX_VIEW

    def compose(self, s, clip, look):
        T, fps, cut, r = clip.frames, clip.fps, clip.cut, s["radius"]
        w, h = 2 * HALF, box_height(2 * r)
        xa = -s["spacing"] / 2 if s["ball_in"] == "left" else s["spacing"] / 2
        lid_z, top = h + LID_T / 2, h + 0.9
        boxes, lids = box_pair(clip, xa, -xa, w, h, max(1, cut // 4))
        rem = T - 3 - cut
        swap1 = cut + max(3, int(0.5 * rem))
        lids["a_"].arc(cut, swap1, (-xa, 0, lid_z), s["lift"], direction=(0, 0.6, 0.8))
        lids["b_"].arc(cut, swap1, (xa, 0, lid_z), s["lift"], direction=(0, -0.6, 0.8))
        for lid in lids.values():
            x = float(lid.at(swap1)[0])
            lid.arc(swap1 + 1, T - 3, (x, w + 0.3, top), 0.2)
        ball = Motion(T, fps, (xa, 0, r))
        # the ball's box is closed first by lid a (input), after the swap by lid b
        under_a = lid_closed(boxes["a_"], lids["a_"], h)
        under_b = lid_closed(boxes["a_"], lids["b_"], h)
        opened = lid_open(boxes["a_"], lids["a_"], h, w) & lid_open(boxes["a_"], lids["b_"], h, w)
        exps = [
            X.hidden("target", [f for f in range(T) if under_a[f] or under_b[f]]),
            X.visible("target", [f for f in range(T) if opened[f] and f > swap1]),
            X.same_place("target", list(range(T))),
            X.touching("b_lid", "a_box", [f for f in range(T) if under_b[f]]),
        ]
        objs = box_pair_objects(look, boxes, lids, w, h, r, ball)
        ca, la, lb = look.colour("a_box"), look.colour("a_lid"), look.colour("b_lid")
        return Composition(
            [look.ground(T), *objs],
            {"closed": next(f for f in range(T) if under_a[f]), "lid_swap_start": cut, "open": swap1 + 1},
            "lid_swap_start",
            exps,
            prompt=f"A {look.colour('target')} ball lies in an open {ca} box next to an open "
            f"{look.colour('b_box')} box; a {la} lid and a {lb} lid are held above them. Continue the video.",
            outcome=f"the lids change places; the ball is still in the {ca} box, now under the {lb} lid",
            derived={"ball_box_x": round(xa, 4)},
        )
