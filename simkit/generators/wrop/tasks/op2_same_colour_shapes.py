"""OP-2/same_colour_shapes."""

import itertools

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import NOUN, half_height, listing, row_positions
from simkit.generators.wrop.kit_op2 import (
    hide_every_target,
    key_frames,
    moving_screen,
    static_body,
)
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, Uniform

ORDERS = ["-".join(p) for p in itertools.permutations(("sphere", "box", "cylinder"))]


class SameColourShapes(Task):
    family, name = "OP-2", "same_colour_shapes"
    summary = (
        "a ball, a block and a cylinder of one colour are covered together; shapes must keep their places"
    )
    description = (
        "A ball, a block and a cylinder of the same colour stand in a row in some order. After the cut a "
        "wide screen slides in, stops in front of all three so that they are hidden at once, and then slides "
        "on out the other side. Colour gives no clue to identity here: only shape does, so the model must "
        "remember which shape stood where and restore the same order, not three copies of one shape or a "
        "shuffled row. The order of the shapes, their size, spacing, the screen's approach side and the time "
        "it rests in front of them vary."
    )
    structural = {
        "order": Choice(ORDERS),
        "size": Uniform(0.13, 0.19),
        "spacing": Uniform(0.6, 0.8),
        "side": Choice([1, -1]),
        "rest_for": Uniform(0.06, 0.16),
    }
    colour_slots = ("screen", "objects")

    def compose(self, s, clip, look):
        T, fps, d = clip.frames, clip.fps, s["side"]
        kinds = s["order"].split("-")
        xs = row_positions(3, s["spacing"])
        targets = [
            static_body(f"object{i + 1}", k, s["size"], look, "objects", T, x, 0.5)
            for i, (k, x) in enumerate(zip(kinds, xs))
        ]
        w = 2 * s["spacing"] + 2 * s["size"] + 0.8
        h = 2 * max(half_height(k, s["size"]) for k in kinds) + 0.45
        x_off = w / 2 + s["spacing"] + s["size"] + 0.45
        f0 = clip.cut
        k = max(2, (T - f0) // 5)
        f2 = min(f0 + k + max(2, clip.at(s["rest_for"])), T - 3 - k)
        if f2 <= f0 + k:
            raise ValueError("clip too short for the rest")
        m = Motion(T, fps, (d * x_off, 0.0, h / 2))
        m.move(f0, f0 + k, (0.0, 0.0, h / 2), "smooth").move(f2, f2 + k, (-d * x_off, 0.0, h / 2), "smooth")
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = hide_every_target(
            "the screen never hides all three at once", clip, look, self.view, targets, [scr]
        )
        events = key_frames(hidden, clip)
        nouns = listing([f"a {NOUN[k]}" for k in kinds])
        return Composition(
            objs,
            {**events, "rest_start": f0 + k, "leave": f2},
            "covered",
            exps,
            prompt=f"From left to right {nouns}, all {look.colour('objects')}, stand in a row. "
            f"A {look.colour('screen')} screen stands to the {'right' if d > 0 else 'left'}. Continue the video.",
            outcome=f"the screen rests in front of the row and moves on; the order stays {s['order']}",
            derived={"order_left_to_right": kinds, "screen_width": round(w, 4)},
        )
