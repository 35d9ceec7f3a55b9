"""OP-2/one_hidden_longer."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import half_height, row_positions
from simkit.generators.wrop.kit_op2 import (
    key_frames,
    moving_screen,
    object_nouns,
    object_row,
    shape_kinds,
    static_scene,
)
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class OneHiddenLonger(Task):
    family, name = "OP-2", "one_hidden_longer"
    summary = "a narrow screen crosses a row, stopping in front of one object: that one is hidden far longer"
    description = (
        "Three objects stand well apart in a row. After the cut a narrow screen, just wide enough to hide one "
        "object, slides along the row; it stops in front of one of them for a while and then slides on. The "
        "objects are hidden for very different times, the one the screen stops at much longer than the "
        "others; permanence must not depend on how long an object was out of sight, so that object must "
        "come back exactly like the briefly hidden ones. Shapes, sizes, spacing, which object the screen "
        "stops at, the pause and the direction vary."
    )
    structural = {
        "shapes": Choice(["sphere", "box", "cylinder", "mixed"]),
        "size": Uniform(0.11, 0.15),
        "spacing": Uniform(0.95, 1.15),
        "stop_at": IntRange(0, 2),
        "pause": Uniform(0.12, 0.22),
        "direction": Choice([1, -1]),
    }
    colour_slots = ("screen", "object1", "object2", "object3")

    def compose(self, s, clip, look):
        T, fps, d, sp = clip.frames, clip.fps, s["direction"], s["spacing"]
        kinds = shape_kinds(s["shapes"], 3, ("sphere", "box", "cylinder"))
        xs = row_positions(3, sp)
        targets = object_row(look, T, kinds, s["size"], xs, 0.5)
        w = 2 * s["size"] + 0.45
        h = 2 * max(half_height(k, s["size"]) for k in kinds) + 0.45
        x_start, x_end = -d * (sp + w / 2 + 0.5), d * (sp + w / 2 + 0.5)
        x_stop = xs[s["stop_at"]]
        f0 = clip.cut
        pause = max(3, clip.at(s["pause"]))
        move = T - 3 - f0 - pause
        if move < 4:
            raise ValueError("clip too short for the pause")
        k1 = max(1, round(move * abs(x_stop - x_start) / abs(x_end - x_start)))
        m = Motion(T, fps, (x_start, 0.0, h / 2))
        m.move(f0, f0 + k1, (x_stop, 0.0, h / 2)).move(f0 + k1 + pause, T - 3, (x_end, 0.0, h / 2))
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = static_scene(clip, look, self.view, targets, [scr])
        long_one = f"object{s['stop_at'] + 1}"
        if not hidden[long_one] or any(
            len(hidden[t.name]) >= len(hidden[long_one]) for t in targets if t.name != long_one
        ):
            raise ValueError("the stop does not hide one object longer than the others")
        events = key_frames(hidden, clip)
        nouns = object_nouns(look, kinds)
        return Composition(
            objs,
            {**events, "stop": f0 + k1, "resume": f0 + k1 + pause},
            "covered",
            exps,
            prompt=f"{nouns[0].upper()}{nouns[1:]} stand well apart in a row. A narrow "
            f"{look.colour('screen')} screen stands to the {'left' if d > 0 else 'right'}. Continue the video.",
            outcome="the screen crosses the row with a long stop; all three objects are unchanged",
            derived={"hidden_frames": {t.name: len(hidden[t.name]) for t in targets}, "longest": long_one},
        )
