"""OP-2/screen_rises."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import half_height, row_positions
from simkit.generators.wrop.kit_op2 import (
    hide_every_target,
    key_frames,
    moving_screen,
    object_nouns,
    object_row,
    the_objects,
)
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class ScreenRises(Task):
    family, name = "OP-2", "screen_rises"
    summary = "a screen rises out of a slot in the floor in front of objects and sinks back"
    description = (
        "One to three objects rest on the floor behind a slot in it. After the cut an opaque screen rises "
        "vertically out of the slot until it hides them completely, stays up for a while and sinks back into "
        "the floor. The occluder comes from below, not from the side or from above, so nothing in the input "
        "half shows where it will be; once it has sunk the same objects must stand in the same places with "
        "their shapes and colours. Object count, shape, size, spacing, how fast the screen rises and how long "
        "it stays up vary."
    )
    structural = {
        "n_objects": IntRange(1, 3),
        "shape": Choice(["sphere", "box", "cylinder"]),
        "size": Uniform(0.12, 0.2),
        "spacing": Uniform(0.6, 0.85),
        "rise_for": Uniform(0.08, 0.16),
        "up_for": Uniform(0.06, 0.18),
        "rise_at": Uniform(0.5, 0.56),
    }
    colour_slots = ("screen", "object1", "object2", "object3")

    def compose(self, s, clip, look):
        T, fps, n = clip.frames, clip.fps, s["n_objects"]
        xs = row_positions(n, s["spacing"])
        targets = object_row(look, T, s["shape"], s["size"], xs, 0.5)
        h = 2 * half_height(s["shape"], s["size"]) + 0.45
        w = (n - 1) * s["spacing"] + 2 * s["size"] + 0.8
        f0 = clip.at(s["rise_at"], lo=clip.cut)
        k = max(2, clip.at(s["rise_for"]))
        f1 = f0 + k
        f2 = min(f1 + max(2, clip.at(s["up_for"])), T - 3 - k)
        if f2 <= f1:
            raise ValueError("clip too short for the rise and the sinking")
        m = Motion(T, fps, (0.0, 0.0, -h / 2 - 0.02))
        m.move(f0, f1, (0.0, 0.0, h / 2), "smooth").move(f2, f2 + k, (0.0, 0.0, -h / 2 - 0.02), "smooth")
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = hide_every_target(
            "the raised screen leaves an object uncovered", clip, look, self.view, targets, [scr]
        )
        events = key_frames(hidden, clip)
        nouns = object_nouns(look, [s["shape"]] * n)
        return Composition(
            objs,
            {"rise_start": f0, **events},
            "covered",
            exps,
            prompt=f"{nouns[0].upper()}{nouns[1:]} {'rests' if n == 1 else 'rest'} on the floor behind a "
            f"narrow slot in the floor. Continue the video.",
            outcome=f"a screen rises out of the slot, hides {the_objects(n)} and sinks back; "
            f"nothing has changed",
            derived={"screen_width": round(w, 4), "screen_height": round(h, 4), "up_frames": f2 - f1},
        )
