"""OP-2/screen_lowers."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import half_height, row_positions, sweep_over
from simkit.generators.wrop.kit_op2 import object_nouns
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class ScreenLowers(Task):
    family, name = "OP-2", "screen_lowers"
    summary = "a screen is lowered in front of objects and raised again; nothing may vanish or change"
    description = (
        "A wide screen hangs above the floor in front of one or two resting objects. After the cut it is "
        "lowered to the floor, hiding them completely, rests there, and is raised again. Occlusion from above "
        "rather than from the side checks that permanence does not depend on the direction of the occluder; "
        "after the screen is raised the objects must reappear in place, same number, shape and colour. "
        "Object count, shapes, sizes, the screen's height of travel and the time it stays down vary."
    )
    structural = {
        "n_objects": IntRange(1, 2),
        "shape": Choice(["sphere", "box", "cylinder"]),
        "size": Uniform(0.13, 0.2),
        "spacing": Uniform(0.6, 0.8),
        "down_for": Uniform(0.08, 0.2),
    }
    colour_slots = ("screen", "object1", "object2")

    def compose(self, s, clip, look):
        T, fps, n = clip.frames, clip.fps, s["n_objects"]
        xs = row_positions(n, s["spacing"])
        hh = half_height(s["shape"], s["size"])
        h = 2 * hh + 0.4
        w = (n - 1) * s["spacing"] + 2 * s["size"] + 0.7
        top = 2 * hh + 0.5
        f0 = clip.cut
        f1 = f0 + max(2, (T - f0) // 5)
        f2 = min(f1 + max(2, clip.at(s["down_for"])), T - 5)
        f3 = min(f2 + (f1 - f0), T - 2)
        m = Motion(T, fps, (0, 0, top))
        m.move(f0, f1, (0, 0, 0), "smooth").move(f2, f3, (0, 0, top), "smooth")
        objs, exps, hid = sweep_over(
            clip, look, [(s["shape"], s["size"], x) for x in xs], np.zeros(T), m.pos[:, 2], w, h
        )
        if not hid:
            raise ValueError("the screen never hides the objects")
        nouns = object_nouns(look, [s["shape"]] * n)
        return Composition(
            objs,
            {"covered": hid[0], "raised": hid[-1] + 1},
            "covered",
            exps,
            prompt=f"{nouns[0].upper()}{nouns[1:]} {'rests' if n == 1 else 'rest'} on the floor below a "
            f"{look.colour('screen')} screen hanging in the air. Continue the video.",
            outcome=f"the screen is lowered and raised; the same {n} object(s) are still there",
            derived={"screen_width": round(w, 4), "screen_height": round(h, 4)},
        )
