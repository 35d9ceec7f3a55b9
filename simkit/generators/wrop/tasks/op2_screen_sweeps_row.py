"""OP-2/screen_sweeps_row."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import (
    CLEAR_MARGIN,
    COVER_MARGIN,
    NOUN,
    half_height,
    listing,
    row_positions,
    sweep_over,
)
from simkit.generators.wrop.kit_op2 import shape_kinds
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class ScreenSweepsRow(Task):
    family, name = "OP-2", "screen_sweeps_row"
    summary = (
        "a screen slides past a row of resting objects; afterwards the count and layout must be unchanged"
    )
    description = (
        "One to three objects rest in a row. After the cut an opaque screen slides across in front of them, "
        "hiding each in turn, and moves on. Object permanence for static objects means nothing is lost, "
        "added, moved or changed while it is covered: once the screen has passed, the same number of objects "
        "must stand in the same places with the same shapes and colours. Object count, shapes, spacing, "
        "screen width, direction and speed vary."
        " The surface draw may show an everyday object (a toy duck, a mug, ...) of the same bounding box "
        "in place of the primitive."
    )
    structural = {
        "n_objects": IntRange(1, 3),
        "shapes": Choice(["sphere", "box", "mixed"]),
        "size": Uniform(0.13, 0.2),
        "spacing": Uniform(0.65, 0.9),
        "screen_width": Uniform(1.0, 1.4),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.4, 2.6),
        "cover_at": Uniform(0.54, 0.62),
    }
    colour_slots = ("screen", "object1", "object2", "object3")
    mesh_slots = ("object1", "object2", "object3")

    def compose(self, s, clip, look):
        T, fps, d, w, n = clip.frames, clip.fps, s["direction"], s["screen_width"], s["n_objects"]
        kinds = shape_kinds(s["shapes"], n, ("sphere", "box"))
        xs = row_positions(n, s["spacing"])
        items = [(k, s["size"], x) for k, x in zip(kinds, xs)]
        first, last = (xs[0], xs[-1]) if d > 0 else (xs[-1], xs[0])
        f_in = clip.at(s["cover_at"], lo=clip.cut)
        x_in = first - d * (w / 2 - s["size"] - COVER_MARGIN)
        x_end = last + d * (w / 2 + s["size"] + CLEAR_MARGIN + 0.05)
        v_min = abs(x_end - x_in) / max(T - 3 - f_in, 1) * fps
        v = max(s["speed"], v_min)
        sx = x_in + d * v * (np.arange(T) - f_in) / fps
        h = 2 * max(half_height(k, s["size"]) for k in kinds) + 0.4
        objs, exps, hid = sweep_over(clip, look, items, sx, np.zeros(T), w, h)
        if not hid or hid[0] < clip.cut:
            raise ValueError("screen sweep hides nothing in the target half")
        nouns = listing(
            [
                f"a {look.colour(f'object{i + 1}')} {look.noun(f'object{i + 1}', NOUN[k])}"
                for i, k in enumerate(kinds)
            ]
        )
        from simkit.generators.wrop.base import Composition

        return Composition(
            objs,
            {"first_covered": hid[0], "last_covered": hid[-1]},
            "first_covered",
            exps,
            prompt=f"On the floor {'rests' if n == 1 else 'rest'} {nouns}. A {look.colour('screen')} "
            f"screen stands to the {'left' if d > 0 else 'right'}. Continue the video.",
            outcome=f"the screen slides past; afterwards the same {n} object(s) stand unchanged "
            f"in the same places",
            derived={"screen_speed_m_per_s": round(v, 4), "screen_height": round(h, 4)},
        )
