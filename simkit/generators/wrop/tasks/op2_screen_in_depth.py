"""OP-2/screen_in_depth."""

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


class ScreenInDepth(Task):
    family, name = "OP-2", "screen_in_depth"
    summary = "a screen travels diagonally from near the camera toward the objects, passing in front of them"
    description = (
        "One to three objects stand in a row. After the cut a screen enters from one side close to the "
        "camera and travels diagonally, away from the camera and across, to the other side just in front "
        "of the row. Its image shrinks as it recedes, so how long and how much of the row it hides changes "
        "along the way; the model must separate the occluder's motion in depth from the objects, which do "
        "not move. Object count, shapes, sizes, spacing, the screen's start depth, direction and duration of "
        "travel vary."
    )
    structural = {
        "n_objects": IntRange(1, 3),
        "shapes": Choice(["sphere", "box", "cylinder", "mixed"]),
        "size": Uniform(0.12, 0.17),
        "spacing": Uniform(0.6, 0.8),
        "start_depth": Uniform(1.2, 2.2),
        "direction": Choice([1, -1]),
        "travel_for": Uniform(0.3, 0.42),
    }
    colour_slots = ("screen", "object1", "object2", "object3")

    def compose(self, s, clip, look):
        T, fps, n, d = clip.frames, clip.fps, s["n_objects"], s["direction"]
        kinds = shape_kinds(s["shapes"], n, ("box", "cylinder", "sphere"))
        xs = row_positions(n, s["spacing"])
        targets = object_row(look, T, kinds, s["size"], xs, 0.5)
        h = 2 * max(half_height(k, s["size"]) for k in kinds) + 0.5
        w = 0.9
        reach = max(abs(x) for x in xs) + s["size"]
        start = (-d * (reach + 1.2 + s["start_depth"] * 0.4), -s["start_depth"], h / 2)
        end = (d * (reach + w / 2 + 0.6), 0.0, h / 2)
        f0 = clip.cut
        f1 = min(f0 + clip.at(s["travel_for"]), T - 3)
        m = Motion(T, fps, start)
        m.move(f0, f1, end)
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = hide_every_target(
            "the screen never hides every object", clip, look, self.view, targets, [scr]
        )
        events = key_frames(hidden, clip)
        nouns = object_nouns(look, kinds)
        return Composition(
            objs,
            events,
            "covered",
            exps,
            prompt=f"{nouns[0].upper()}{nouns[1:]} {'stands' if n == 1 else 'stand'} on the floor. Near the "
            f"camera, to the {'left' if d > 0 else 'right'}, stands a {look.colour('screen')} screen. "
            f"Continue the video.",
            outcome=f"the screen travels diagonally past the row; {the_objects(n)} "
            f"{'is' if n == 1 else 'are'} unchanged",
            derived={"start": [round(c, 4) for c in start], "end": [round(c, 4) for c in end]},
        )
