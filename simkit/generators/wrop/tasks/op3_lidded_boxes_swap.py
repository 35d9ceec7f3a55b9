"""OP-3/lidded_boxes_swap (several legal outcomes)."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X
from simkit.generators.wrop.kit_op3 import BOX_VIEW, LID_T, box_height, lid_closed, lidded_box, swap_arc
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
        lid_z, top = h + LID_T / 2, h + 0.9
        boxes = {"a_": Motion(T, fps, (xa, 0, h / 2)), "b_": Motion(T, fps, (-xa, 0, h / 2))}
        lids = {k: Motion(T, fps, (m.at(0)[0], w + 0.3, top)) for k, m in boxes.items()}
        for k, lid in lids.items():
            lid.arc(max(1, cut // 4), cut - 2, (boxes[k].at(0)[0], 0, lid_z), 0.2)
        rem = T - 3 - cut
        move1 = cut + max(3, int(0.65 * rem))
        n = s["swaps"]
        for i in range(n):
            span = (move1 - cut + 1) // n
            swap_arc(boxes["a_"], boxes["b_"], cut + i * span, cut + (i + 1) * span - 1, 2.3 * HALF)
        for k, lid in lids.items():
            lid.follow(boxes[k], cut, move1)
            lid.arc(move1 + 1, T - 3, (boxes[k].at(move1)[0], w + 0.3, top), 0.2)
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
        objs = lidded_box(look, boxes["a_"], lids["a_"], (w, w, h), "a_")
        objs += lidded_box(look, boxes["b_"], lids["b_"], (w, w, h), "b_")
        objs.append(SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()))
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
