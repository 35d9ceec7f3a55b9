"""OP-2/two_screens_meet."""

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


class TwoScreensMeet(Task):
    family, name = "OP-2", "two_screens_meet"
    summary = "two screens close in from both sides, meet in front of a row of objects and part again"
    description = (
        "One to three objects stand in a row. After the cut two screens slide in from opposite sides, one "
        "slightly in front of the other, until they overlap in the middle and together hide the whole row; "
        "they stay closed for a while and then part, each returning to its own side. No single occluder "
        "ever covers everything, so the model must keep each object bound to its place while two occluders "
        "move independently, and the row must be restored in number, order, shape and colour. Object count, "
        "shapes, sizes, spacing, the screens' speed and how long they stay closed vary."
    )
    structural = {
        "n_objects": IntRange(1, 3),
        "shapes": Choice(["sphere", "box", "cylinder", "mixed"]),
        "size": Uniform(0.12, 0.19),
        "spacing": Uniform(0.65, 0.9),
        "close_for": Uniform(0.08, 0.16),
        "closed_for": Uniform(0.06, 0.16),
        "front_side": Choice([1, -1]),
    }
    colour_slots = ("screen1", "screen2", "object1", "object2", "object3")

    def compose(self, s, clip, look):
        T, fps, n, d = clip.frames, clip.fps, s["n_objects"], s["front_side"]
        kinds = shape_kinds(s["shapes"], n, ("sphere", "box", "cylinder"))
        xs = row_positions(n, s["spacing"])
        targets = object_row(look, T, kinds, s["size"], xs, 0.5)
        reach = max(abs(x) for x in xs) + s["size"] + 0.45  # each screen reaches past the outermost object
        overlap = s["size"] + 0.3  # each screen's inner edge passes the centre line by this much
        w = reach + overlap
        h = 2 * max(half_height(k, s["size"]) for k in kinds) + 0.45
        f0 = clip.cut
        k = max(2, clip.at(s["close_for"]))
        f1 = f0 + k
        f2 = min(f1 + max(2, clip.at(s["closed_for"])), T - 3 - k)
        if f2 <= f1:
            raise ValueError("clip too short for closing and opening")
        screens = []
        for i, (side, y) in enumerate(((d, -0.12), (-d, 0.0))):  # screen1 in front, coming from side d
            x_closed = side * (w / 2 - overlap)
            x_open = side * (reach + w / 2 + 0.3)
            m = Motion(T, fps, (x_open, y, h / 2))
            m.move(f0, f1, (x_closed, y, h / 2), "smooth").move(f2, f2 + k, (x_open, y, h / 2), "smooth")
            screens.append(moving_screen(f"screen{i + 1}", look, f"screen{i + 1}", m, w, h))
        objs, exps, hidden = hide_every_target(
            "the closed screens leave an object uncovered", clip, look, self.view, targets, screens
        )
        events = key_frames(hidden, clip)
        nouns = object_nouns(look, kinds)
        return Composition(
            objs,
            {**events, "closed": f1, "opening": f2},
            "covered",
            exps,
            prompt=f"On the floor {'stands' if n == 1 else 'stand'} {nouns}, with a "
            f"{look.colour('screen1')} screen to one side and a {look.colour('screen2')} screen to the other. "
            f"Continue the video.",
            outcome=f"the two screens meet in front of the objects and part again; "
            f"{the_objects(n)} {'is' if n == 1 else 'are'} unchanged",
            derived={
                "screen_width": round(w, 4),
                "screen_height": round(h, 4),
                "overlap": round(2 * overlap, 4),
            },
        )
