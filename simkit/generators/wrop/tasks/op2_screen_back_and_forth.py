"""OP-2/screen_back_and_forth."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CLEAR_MARGIN, NOUN, half_height, row_positions, sweep_over
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class ScreenBackAndForth(Task):
    family, name = "OP-2", "screen_back_and_forth"
    summary = "a screen passes over two objects and back again; both passes must leave them untouched"
    description = (
        "Two objects of different shapes rest side by side. After the cut a screen glides across in front of "
        "them and then returns over them to where it started, so each object is hidden twice. Repeated "
        "occlusion tests whether the scene is restored after every disappearance, not just once: the objects "
        "must not swap places, change shape, drift or multiply between the passes. Shapes, order, sizes, "
        "spacing, screen width and the screen's travel time vary."
    )
    structural = {
        "order": Choice(["sphere-box", "box-sphere", "sphere-cylinder", "cylinder-box"]),
        "size": Uniform(0.13, 0.2),
        "spacing": Uniform(0.7, 0.95),
        "screen_extra": Uniform(0.0, 0.3),
        "start_side": Choice([1, -1]),
        "travel": IntRange(0, 2),
    }
    colour_slots = ("screen", "object1", "object2")

    def compose(self, s, clip, look):
        T, fps, d = clip.frames, clip.fps, s["start_side"]
        kinds = s["order"].split("-")
        w = s["spacing"] + 2 * s["size"] + 0.5 + s["screen_extra"]  # wide enough to cover both at once
        xs = row_positions(2, s["spacing"])
        x_off = d * (max(abs(x) for x in xs) + w / 2 + s["size"] + CLEAR_MARGIN + 0.2)
        f0 = clip.cut
        half = (T - 2 - f0) // 2
        f1 = f0 + max(3, half - s["travel"])
        m = Motion(T, fps, (x_off, 0, 0))
        m.move(f0, f1, (-x_off, 0, 0), "smooth").move(
            f1 + 1, min(f1 + 1 + (f1 - f0), T - 1), (x_off, 0, 0), "smooth"
        )
        h = 2 * max(half_height(k, s["size"]) for k in kinds) + 0.4
        objs, exps, hid = sweep_over(
            clip, look, [(k, s["size"], x) for k, x in zip(kinds, xs)], m.pos[:, 0], np.zeros(T), w, h
        )
        if not hid:
            raise ValueError("the screen never hides the objects")
        nouns = " and ".join(f"a {look.colour(f'object{i + 1}')} {NOUN[k]}" for i, k in enumerate(kinds))
        return Composition(
            objs,
            {"first_covered": hid[0], "turnaround": f1},
            "first_covered",
            exps,
            prompt=f"{nouns[0].upper()}{nouns[1:]} rest side by side; a {look.colour('screen')} "
            f"screen stands to one side. Continue the video.",
            outcome="the screen passes over both objects and back; both stay where they were",
            derived={"screen_height": round(h, 4)},
        )
