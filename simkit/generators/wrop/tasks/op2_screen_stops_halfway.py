"""OP-2/screen_stops_halfway."""

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
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class ScreenStopsHalfway(Task):
    family, name = "OP-2", "screen_stops_halfway"
    summary = "a screen slides over part of a row and stops there: some objects hidden, the rest in view"
    description = (
        "Three or four objects stand in a row. After the cut a screen slides in from one end and stops "
        "part-way, hiding only the first one or two objects while the rest of the row stays in plain view; "
        "after a pause it withdraws the way it came. The model must keep the hidden part of the row alive "
        "while it sees the other part, and must neither let the visible objects vanish nor bring back a "
        "different number of hidden ones. Row length, how many objects the screen covers, shapes, sizes, "
        "spacing, side of approach and the pause vary."
    )
    structural = {
        "n_objects": IntRange(3, 4),
        "n_covered": IntRange(1, 2),
        "shapes": Choice(["sphere", "box", "cylinder", "mixed"]),
        "size": Uniform(0.12, 0.17),
        "spacing": Uniform(0.75, 0.95),
        "side": Choice([1, -1]),
        "pause": Uniform(0.08, 0.2),
    }
    colour_slots = ("screen", "object1", "object2", "object3", "object4")

    def compose(self, s, clip, look):
        T, fps, n, d, sp = clip.frames, clip.fps, s["n_objects"], s["side"], s["spacing"]
        kinds = shape_kinds(s["shapes"], n, ("sphere", "box", "cylinder"))
        xs = row_positions(n, sp)
        order = xs[::-1] if d > 0 else xs  # the screen comes from side d: the first covered is the nearest
        targets = object_row(look, T, kinds, s["size"], xs, 0.5)
        w = 2.2
        edge = order[s["n_covered"] - 1] - d * sp / 2  # the screen's inner edge stops between two objects
        x_stop = edge + d * w / 2
        x_off = d * (max(abs(x) for x in xs) + w / 2 + s["size"] + 0.6)
        f0 = clip.cut
        k = max(3, (T - f0) // 5)
        f1 = f0 + k
        f2 = min(f1 + max(2, clip.at(s["pause"])), T - 3 - k)
        if f2 <= f1:
            raise ValueError("clip too short for the pause")
        m = Motion(T, fps, (x_off, 0.0, 0.0))
        h = 2 * max(half_height(kk, s["size"]) for kk in kinds) + 0.4
        m.pos[:, 2] = h / 2
        m.move(f0, f1, (x_stop, 0.0, h / 2), "smooth").move(f2, f2 + k, (x_off, 0.0, h / 2), "smooth")
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = static_scene(clip, look, self.view, targets, [scr])
        covered = [t.name for t in targets if hidden[t.name]]
        in_view = [t.name for t in targets if not hidden[t.name]]
        if len(covered) != s["n_covered"]:
            raise ValueError("the screen does not cover exactly the planned objects")
        for e in exps:  # the uncovered objects stay in view on every frame
            if isinstance(e, X.Visible) and e.object in in_view and len(e.frames) != T:
                raise ValueError("an uncovered object is partly hidden")
        events = key_frames(hidden, clip)
        nouns = object_nouns(look, kinds)
        return Composition(
            objs,
            {**events, "stop": f1},
            "covered",
            exps,
            prompt=f"In a row stand {nouns}. A {look.colour('screen')} screen waits to the "
            f"{'right' if d > 0 else 'left'}. Continue the video.",
            outcome=f"the screen stops over {len(covered)} of the {n} objects, the others stay in view; "
            f"when it withdraws all {n} are unchanged",
            derived={"covered": covered, "uncovered": in_view, "screen_stop_x": round(x_stop, 4)},
        )
