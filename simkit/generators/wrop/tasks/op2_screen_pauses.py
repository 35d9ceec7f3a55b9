"""OP-2/screen_pauses."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CLEAR_MARGIN, NOUN, half_height, sweep_over
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, Uniform


class ScreenPauses(Task):
    family, name = "OP-2", "screen_pauses"
    summary = "a screen slides in front of one object, waits, and slides back; the object must still be there"
    description = (
        "A single object rests on the floor. After the cut a screen slides in front of it, stays for a while "
        "and then withdraws the way it came. The longer the object stays out of sight, the more a model "
        "without a persistent object representation tends to forget it; the object must be exactly where it "
        "was, with its shape and colour, when the screen withdraws. Object shape and size, screen width, "
        "side of approach and the duration of the pause vary."
        " The surface draw may show an everyday object (a toy duck, a mug, ...) of the same bounding box "
        "in place of the primitive."
    )
    structural = {
        "shape": Choice(["sphere", "box", "cylinder"]),
        "size": Uniform(0.13, 0.22),
        "screen_width": Uniform(0.9, 1.3),
        "side": Choice([1, -1]),
        "pause": Uniform(0.1, 0.22),
    }
    colour_slots = ("screen", "object1")
    mesh_slots = ("object1",)

    def compose(self, s, clip, look):
        T, fps, w, d = clip.frames, clip.fps, s["screen_width"], s["side"]
        x_off = d * (w / 2 + s["size"] + CLEAR_MARGIN + 0.5)
        f0 = clip.cut
        f1 = f0 + max(3, (T - f0) // 5)
        f2 = min(f1 + max(2, clip.at(s["pause"])), T - 6)
        f3 = min(f2 + (f1 - f0), T - 2)
        m = Motion(T, fps, (x_off, 0, 0))
        m.move(f0, f1, (0, 0, 0), "smooth").move(f2, f3, (x_off, 0, 0), "smooth")
        h = 2 * half_height(s["shape"], s["size"]) + 0.4
        objs, exps, hid = sweep_over(
            clip, look, [(s["shape"], s["size"], 0.0)], m.pos[:, 0], np.zeros(T), w, h
        )
        if not hid:
            raise ValueError("the screen never hides the object")
        return Composition(
            objs,
            {"covered": hid[0], "uncovered": hid[-1] + 1},
            "covered",
            exps,
            prompt=f"A {look.colour('object1')} {look.noun('object1', NOUN[s['shape']])} rests on the floor; a "
            f"{look.colour('screen')} screen stands beside it. Continue the video.",
            outcome="the screen covers the object, waits and withdraws; the object is still there",
            derived={"screen_height": round(h, 4)},
        )
