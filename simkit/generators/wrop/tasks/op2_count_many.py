"""OP-2/count_many."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import NOUN, half_height, row_positions
from simkit.generators.wrop.kit_op2 import (
    key_frames,
    moving_screen,
    object_row,
    shape_kinds,
    static_scene,
)
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform

NUMBER = {4: "four", 5: "five", 6: "six"}


class CountMany(Task):
    family, name = "OP-2", "count_many"
    summary = "a long screen covers a row of four to six small objects at once; the count must be kept"
    description = (
        "Four to six small objects stand close together in a row. After the cut a long screen slides in, "
        "hides the whole row at once, stays for a while and slides back out. With more objects than can be "
        "taken in at a glance, the model must keep the exact number through the occlusion: no object may be "
        "lost or duplicated, and the spacing and the order of shapes and colours must be restored. Count, "
        "shapes, sizes, spacing, the side the screen comes from and the time it stays vary."
    )
    structural = {
        "n_objects": IntRange(4, 6),
        "shapes": Choice(["sphere", "box", "cylinder", "mixed"]),
        "size": Uniform(0.07, 0.1),
        "spacing": Uniform(0.3, 0.4),
        "side": Choice([1, -1]),
        "stay": Uniform(0.08, 0.18),
    }
    colour_slots = ("screen", "object1", "object2", "object3", "object4", "object5", "object6")

    def compose(self, s, clip, look):
        T, fps, n, d, sz = clip.frames, clip.fps, s["n_objects"], s["side"], s["size"]
        kinds = shape_kinds(s["shapes"], n, ("sphere", "box", "cylinder"))
        xs = row_positions(n, s["spacing"])
        targets = object_row(look, T, kinds, sz, xs, 0.5)
        w = (n - 1) * s["spacing"] + 2 * sz + 0.6
        h = 2 * max(half_height(k, sz) for k in kinds) + 0.4
        x_off = d * (w + 0.4)
        f0 = clip.cut
        k = max(3, (T - f0) // 5)
        f2 = min(f0 + k + max(2, clip.at(s["stay"])), T - 3 - k)
        if f2 <= f0 + k:
            raise ValueError("clip too short for the stay")
        m = Motion(T, fps, (x_off, 0.0, h / 2))
        m.move(f0, f0 + k, (0.0, 0.0, h / 2), "smooth").move(f2, f2 + k, (x_off, 0.0, h / 2), "smooth")
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = static_scene(clip, look, self.view, targets, [scr])
        common = set.intersection(*(set(hidden[t.name]) for t in targets))
        if not common:
            raise ValueError("the screen never hides the whole row at once")
        events = key_frames(hidden, clip)
        row = ", ".join(f"{look.colour(f'object{i + 1}')} {NOUN[kk]}" for i, kk in enumerate(kinds))
        return Composition(
            objs,
            {**events, "all_hidden": min(common)},
            "covered",
            exps,
            prompt=f"{NUMBER[n].capitalize()} small objects stand in a row, from the left: {row}. "
            f"A long {look.colour('screen')} screen stands to the {'right' if d > 0 else 'left'}. "
            f"Continue the video.",
            outcome=f"the screen covers the row and withdraws; still {NUMBER[n]} objects in the same order",
            derived={"count": n, "all_hidden_frames": len(common)},
        )
