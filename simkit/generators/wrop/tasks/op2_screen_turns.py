"""OP-2/screen_turns."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import NOUN, half_height
from simkit.generators.wrop.kit_op2 import (
    hide_every_target,
    key_frames,
    moving_screen,
    object_row,
)
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, Uniform


class ScreenTurns(Task):
    family, name = "OP-2", "screen_turns"
    summary = (
        "an edge-on screen turns about its vertical axis to face the camera, hiding two objects, and turns on"
    )
    description = (
        "A screen stands edge-on to the camera between the viewer and two objects that flank it, so both "
        "objects are in plain view beside its thin edge. After the cut the screen turns about its vertical "
        "axis until it faces the camera and hides both, then keeps turning (or turns back) until it is "
        "edge-on again. Nothing translates: the occlusion comes from rotation alone, and the objects must "
        "reappear on the same sides of the screen. Object shapes, sizes, their distance from the screen, "
        "the turning speed, direction and whether the screen turns on or back vary."
    )
    structural = {
        "shapes": Choice(["sphere-sphere", "box-cylinder", "cylinder-sphere", "box-box"]),
        "size": Uniform(0.1, 0.16),
        "offset": Uniform(0.5, 0.7),
        "turn_for": Uniform(0.1, 0.18),
        "face_for": Uniform(0.04, 0.12),
        "spin": Choice([1, -1]),
        "turn_back": Choice([True, False]),
    }
    colour_slots = ("screen", "object1", "object2")

    def compose(self, s, clip, look):
        T, fps = clip.frames, clip.fps
        kinds = s["shapes"].split("-")
        a = s["offset"]
        targets = object_row(look, T, kinds, s["size"], (-a, a), 0.5)
        w = 2 * (a + s["size"]) + 0.5
        h = 2 * max(half_height(k, s["size"]) for k in kinds) + 0.9  # it stands far in front: taller
        y = -(w / 2 + 0.1)  # edge-on, the screen's face runs along y and must stay clear of the objects
        f0 = clip.cut
        k = max(2, clip.at(s["turn_for"]))
        f2 = min(f0 + k + max(2, clip.at(s["face_for"])), T - 3 - k)
        if f2 <= f0 + k:
            raise ValueError("clip too short for turning and back")
        spin = s["spin"] * np.pi / 2
        end = spin if s["turn_back"] else -spin
        m = Motion(T, fps, (0.0, y, h / 2), (0.0, 0.0, spin))
        m.turn(f0, f0 + k, (0.0, 0.0, 0.0)).turn(f2, f2 + k, (0.0, 0.0, end))
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = hide_every_target(
            "the turned screen leaves an object uncovered", clip, look, self.view, targets, [scr]
        )
        events = key_frames(hidden, clip)
        o1, o2 = (f"{look.colour(f'object{i + 1}')} {NOUN[k]}" for i, k in enumerate(kinds))
        return Composition(
            objs,
            {"turn_start": f0, **events},
            "covered",
            exps,
            prompt=f"A {look.colour('screen')} screen stands edge-on in front of the camera, with a {o1} "
            f"behind it on the left and a {o2} on the right. Continue the video.",
            outcome="the screen turns to face the camera and turns edge-on again; both objects are still there",
            derived={
                "screen_width": round(w, 4),
                "screen_y": round(y, 4),
                "final_angle": round(float(end), 4),
            },
        )
