"""OP-2/crossing_screens."""

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


class CrossingScreens(Task):
    family, name = "OP-2", "crossing_screens"
    summary = "two screens slide in opposite directions at different depths and cross in front of the objects"
    description = (
        "Two or three objects stand in a row. After the cut two screens of different colours slide toward "
        "each other, one a little nearer the camera than the other, cross in front of the row and slide on "
        "out the far sides. Each object is hidden by one screen, then by the other, or by both at once "
        "where they overlap; the model must keep the objects independent of which occluder currently hides "
        "them and restore the whole row afterwards. Object count, shapes, sizes, spacing, the screens' "
        "widths and speeds, and where they cross vary."
    )
    structural = {
        "n_objects": IntRange(2, 3),
        "shapes": Choice(["sphere", "box", "cylinder", "mixed"]),
        "size": Uniform(0.12, 0.17),
        "spacing": Uniform(0.6, 0.8),
        "width1": Uniform(0.8, 1.1),
        "width2": Uniform(0.8, 1.1),
        "cross_x": Uniform(-0.3, 0.3),
        "cross_at": Uniform(0.62, 0.68),
        "front_from": Choice([1, -1]),
    }
    colour_slots = ("screen1", "screen2", "object1", "object2", "object3")

    def compose(self, s, clip, look):
        T, fps, n, d = clip.frames, clip.fps, s["n_objects"], s["front_from"]
        kinds = shape_kinds(s["shapes"], n, ("cylinder", "sphere", "box"))
        xs = row_positions(n, s["spacing"])
        targets = object_row(look, T, kinds, s["size"], xs, 0.5)
        h = 2 * max(half_height(k, s["size"]) for k in kinds) + 0.5
        reach = max(abs(x) for x in xs) + s["size"] + 0.2
        f0 = clip.cut
        fc = min(clip.at(s["cross_at"], lo=f0 + 2), (T - 3 + f0) // 2)  # time to cross the far side too
        screens = []
        for i, (side, y, w) in enumerate(((d, -0.15, s["width1"]), (-d, 0.0, s["width2"]))):
            x_start = side * (reach + w / 2)
            v = (s["cross_x"] - x_start) / (fc - f0)  # m per frame: the centres meet at cross_x on frame fc
            m = Motion(T, fps, (x_start, y, h / 2))
            m.velocity(f0, (v * fps, 0.0, 0.0))
            screens.append(moving_screen(f"screen{i + 1}", look, f"screen{i + 1}", m, w, h))
        objs, exps, hidden = hide_every_target(
            "the crossing screens leave an object never hidden", clip, look, self.view, targets, screens
        )
        events = key_frames(hidden, clip)
        nouns = object_nouns(look, kinds)
        return Composition(
            objs,
            {**events, "crossing": fc},
            "covered",
            exps,
            prompt=f"{nouns[0].upper()}{nouns[1:]} stand in a row between a {look.colour('screen1')} screen on "
            f"the {'right' if d > 0 else 'left'} and a {look.colour('screen2')} screen on the other side. "
            f"Continue the video.",
            outcome=f"the screens cross in front of the row and slide away; {the_objects(n)} are unchanged",
            derived={"crossing_frame": fc, "cross_x": s["cross_x"]},
        )
