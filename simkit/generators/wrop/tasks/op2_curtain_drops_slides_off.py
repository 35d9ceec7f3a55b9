"""OP-2/curtain_drops_slides_off."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import half_height, row_positions
from simkit.generators.wrop.kit_op2 import (
    hide_every_target,
    key_frames,
    moving_screen,
    object_nouns,
    object_row,
    shape_kinds,
    the_objects,
)
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class CurtainDropsSlidesOff(Task):
    family, name = "OP-2", "curtain_drops_slides_off"
    summary = "a tall curtain drops from above in front of objects, rests, then slides off sideways"
    description = (
        "One or two objects rest on the floor below a tall, thin curtain hanging high above them. After the "
        "cut the curtain drops to the floor in front of the objects, hiding them, rests there and then "
        "slides off sideways instead of rising the way it came. The occluder enters and leaves along "
        "different paths, so the reveal sweeps across the row from one side; the objects must reappear one "
        "after the other in the same places, shapes and colours. Object count, shapes, sizes, spacing, the "
        "drop time, the rest and the exit side vary."
    )
    structural = {
        "n_objects": IntRange(1, 2),
        "shapes": Choice(["sphere", "box", "cylinder", "mixed"]),
        "size": Uniform(0.12, 0.18),
        "spacing": Uniform(0.6, 0.85),
        "drop_for": Uniform(0.06, 0.12),
        "rest_for": Uniform(0.06, 0.14),
        "exit_side": Choice([1, -1]),
    }
    colour_slots = ("curtain", "object1", "object2")

    def compose(self, s, clip, look):
        T, fps, n, d = clip.frames, clip.fps, s["n_objects"], s["exit_side"]
        kinds = shape_kinds(s["shapes"], n, ("cylinder", "box"))
        xs = row_positions(n, s["spacing"])
        targets = object_row(look, T, kinds, s["size"], xs, 0.5)
        w = (n - 1) * s["spacing"] + 2 * s["size"] + 0.8
        h = 2 * max(half_height(k, s["size"]) for k in kinds) + 1.0
        top = 2 * max(half_height(k, s["size"]) for k in kinds) + 0.9  # curtain bottom while hanging
        f0 = clip.cut
        k = max(2, clip.at(s["drop_for"]))
        f2 = f0 + k + max(2, clip.at(s["rest_for"]))
        if f2 + 3 > T - 3:
            raise ValueError("clip too short for the drop, the rest and the exit")
        m = Motion(T, fps, (0.0, 0.0, top + h / 2))
        m.move(f0, f0 + k, (0.0, 0.0, h / 2), "smooth")
        m.move(f2, T - 3, (d * (w + 2.2), 0.0, h / 2), "smooth")
        scr = moving_screen("curtain", look, "curtain", m, w, h)
        objs, exps, hidden = hide_every_target(
            "the curtain leaves an object uncovered", clip, look, self.view, targets, [scr]
        )
        events = key_frames(hidden, clip)
        nouns = object_nouns(look, kinds)
        return Composition(
            objs,
            {"drop_start": f0, **events, "exit_start": f2},
            "covered",
            exps,
            prompt=f"{nouns[0].upper()}{nouns[1:]} {'rests' if n == 1 else 'rest'} on the floor below a tall "
            f"{look.colour('curtain')} curtain hanging in the air. Continue the video.",
            outcome=f"the curtain drops, rests and slides off sideways; {the_objects(n)} "
            f"{'is' if n == 1 else 'are'} unchanged",
            derived={"curtain_height": round(h, 4), "hanging_bottom_z": round(top, 4)},
        )
