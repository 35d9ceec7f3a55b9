"""OP-2/door_swings."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import half_height, row_positions
from simkit.generators.wrop.kit_op2 import (
    hide_every_target,
    key_frames,
    moving_screen,
    object_nouns,
    object_row,
    pivot_turn,
    the_objects,
)
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class DoorSwings(Task):
    family, name = "OP-2", "door_swings"
    summary = "a screen hinged at one side swings shut like a door in front of objects and swings open"
    description = (
        "A screen is hinged at one vertical edge beside a row of one to three objects and stands open, "
        "pointing toward the camera. After the cut it swings shut about its hinge like a door, hiding the "
        "row, stays shut for a while and swings open again. The occluder sweeps an arc in depth rather than "
        "sliding across, and its far edge moves fastest; the objects must be where they were once the door "
        "is open again, in number, shape and colour. Object count, shapes, sizes, spacing, the hinge side, "
        "the swing time and how long the door stays shut vary."
    )
    structural = {
        "n_objects": IntRange(1, 3),
        "shape": Choice(["sphere", "box", "cylinder"]),
        "size": Uniform(0.12, 0.18),
        "spacing": Uniform(0.55, 0.75),
        "hinge_side": Choice([1, -1]),
        "swing_for": Uniform(0.1, 0.18),
        "shut_for": Uniform(0.05, 0.15),
    }
    colour_slots = ("screen", "object1", "object2", "object3")

    def compose(self, s, clip, look):
        T, fps, n, side = clip.frames, clip.fps, s["n_objects"], s["hinge_side"]
        xs = row_positions(n, s["spacing"])
        targets = object_row(look, T, s["shape"], s["size"], xs, 0.5)
        reach = max(abs(x) for x in xs) + s["size"]
        x_hinge = side * (reach + 0.35)
        w = 2 * (reach + 0.35) + 0.35
        h = 2 * half_height(s["shape"], s["size"]) + 0.45
        f0 = clip.cut
        k = max(2, clip.at(s["swing_for"]))
        f2 = min(f0 + k + max(2, clip.at(s["shut_for"])), T - 3 - k)
        if f2 <= f0 + k:
            raise ValueError("clip too short for the swing")
        # angle 0: shut, the screen runs along -side x from the hinge; open: turned 90 deg toward the camera
        offset = (-side * w / 2, 0.0, h / 2)
        a_open = side * np.pi / 2
        m = Motion(T, fps, (0.0, 0.0, 0.0))
        pivot_turn(m, 0, 0, (x_hinge, 0.0, 0.0), offset, 2, a_open, a_open)
        pivot_turn(m, f0, f0 + k, (x_hinge, 0.0, 0.0), offset, 2, a_open, 0.0)
        pivot_turn(m, f2, f2 + k, (x_hinge, 0.0, 0.0), offset, 2, 0.0, a_open)
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = hide_every_target(
            "the shut door leaves an object uncovered", clip, look, self.view, targets, [scr]
        )
        events = key_frames(hidden, clip)
        nouns = object_nouns(look, [s["shape"]] * n)
        return Composition(
            objs,
            {"swing_start": f0, **events, "opening": f2},
            "covered",
            exps,
            prompt=f"{nouns[0].upper()}{nouns[1:]} {'rests' if n == 1 else 'rest'} on the floor. To the "
            f"{'right' if side > 0 else 'left'} a {look.colour('screen')} screen stands open on a hinge, "
            f"pointing toward the camera. Continue the video.",
            outcome=f"the screen swings shut and open again; {the_objects(n)} {'is' if n == 1 else 'are'} unchanged",
            derived={"hinge_x": round(x_hinge, 4), "screen_width": round(w, 4)},
        )
