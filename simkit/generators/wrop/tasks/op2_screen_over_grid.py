"""OP-2/screen_over_grid."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import NOUN, half_height
from simkit.generators.wrop.kit_op2 import (
    hide_every_target,
    key_frames,
    moving_screen,
    static_body,
    sweep_motion,
)
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class ScreenOverGrid(Task):
    family, name = "OP-2", "screen_over_grid"
    summary = "a tall screen sweeps past objects laid out in two staggered rows; the 2-D layout must return"
    description = (
        "Four to six objects stand in two staggered rows, a front row and a back row shifted by half a "
        "spacing so that every object is in view. After the cut a tall screen sweeps past in front of the "
        "whole arrangement and moves on. The layout is two-dimensional: objects must come back in the "
        "same row and column, with depth preserved (a back object must not come forward into the front "
        "row) and the same count. Columns, shapes, sizes, spacing, row depth, the screen's direction and "
        "speed vary."
    )
    structural = {
        "columns": IntRange(2, 3),
        "shapes": Choice(["sphere", "box", "cylinder", "mixed"]),
        "size": Uniform(0.1, 0.14),
        "spacing": Uniform(0.6, 0.8),
        "row_gap": Uniform(0.5, 0.8),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.4, 2.2),
        "cover_at": Uniform(0.5, 0.55),
    }
    colour_slots = ("screen", "object1", "object2", "object3", "object4", "object5", "object6")

    def compose(self, s, clip, look):
        T, d, nc, sp, sz = clip.frames, s["direction"], s["columns"], s["spacing"], s["size"]
        front_x = [(c - (nc - 1) / 2) * sp - sp / 4 for c in range(nc)]
        cells = [(x, 0.35) for x in front_x] + [(x + sp / 2, 0.35 + s["row_gap"]) for x in front_x]
        kinds = ["sphere", "box", "cylinder"]
        targets = []
        for i, (x, y) in enumerate(cells):
            k = s["shapes"] if s["shapes"] != "mixed" else kinds[i % 3]
            targets.append(static_body(f"object{i + 1}", k, sz, look, f"object{i + 1}", T, x, y))
        lo = min(x for x, _ in cells) - sz
        hi = max(x for x, _ in cells) + sz
        w = hi - lo + 0.6
        h = 2 * half_height("cylinder", sz) + 0.75  # the back row is farther: a taller screen
        m, v = sweep_motion(clip, lo, hi, w, h / 2, d, s["speed"], s["cover_at"])
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = hide_every_target(
            "the screen never hides every object", clip, look, self.view, targets, [scr], visible_min=0.5
        )
        events = key_frames(hidden, clip)
        front = ", ".join(f"{look.colour(t.name)} {NOUN[t.kind]}" for t in targets[:nc])
        back = ", ".join(f"{look.colour(t.name)} {NOUN[t.kind]}" for t in targets[nc:])
        return Composition(
            objs,
            events,
            "covered",
            exps,
            prompt=f"Objects stand in two staggered rows: in front, from the left, {front}; behind, {back}. "
            f"A tall {look.colour('screen')} screen stands to the {'left' if d > 0 else 'right'}. "
            f"Continue the video.",
            outcome=f"the screen sweeps past; all {2 * nc} objects stand in the same two rows",
            derived={
                "cells": [[round(x, 4), round(y, 4)] for x, y in cells],
                "screen_speed_m_per_s": round(v, 4),
            },
        )
