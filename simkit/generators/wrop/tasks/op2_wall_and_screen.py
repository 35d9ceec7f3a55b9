"""OP-2/wall_and_screen."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import WALL_T, half_height, row_positions
from simkit.generators.wrop.kit_op2 import (
    hide_every_target,
    key_frames,
    moving_screen,
    object_nouns,
    object_row,
    shape_kinds,
    sweep_motion,
)
from simkit.scenes.wrop.params import Choice, IntRange, Uniform
from simkit.scenes.wrop.spec import SceneObject, Track


class WallAndScreen(Task):
    family, name = "OP-2", "wall_and_screen"
    summary = "objects half hidden behind a low wall; a tall screen passes in front and hides them fully"
    description = (
        "One to three objects stand behind a low wall that hides their lower part, so only their tops show. "
        "After the cut a tall screen slides past in front of the wall and hides them completely, then moves "
        "on. Two occluders are layered: a permanent partial one and a passing total one. When the screen "
        "has passed the objects must again show exactly as much above the wall as before, in the same "
        "places, shapes and colours; the hidden parts behind the wall must not change either. Object count, "
        "shapes, sizes, the wall's height relative to the objects, the screen's direction and speed vary."
    )
    structural = {
        "n_objects": IntRange(1, 3),
        "shapes": Choice(["sphere", "box", "cylinder", "mixed"]),
        "size": Uniform(0.14, 0.2),
        "spacing": Uniform(0.6, 0.8),
        "wall_share": Uniform(0.25, 0.45),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.4, 2.2),
        "cover_at": Uniform(0.5, 0.56),
    }
    colour_slots = ("screen", "wall", "object1", "object2", "object3")

    def compose(self, s, clip, look):
        T, d, n, sz = clip.frames, s["direction"], s["n_objects"], s["size"]
        kinds = shape_kinds(s["shapes"], n, ("box", "cylinder", "sphere"))
        xs = row_positions(n, s["spacing"])
        targets = object_row(look, T, kinds, sz, xs, 0.6)
        tall = 2 * max(half_height(k, sz) for k in kinds)
        wall_h = s["wall_share"] * 2 * sz
        lo, hi = min(xs) - sz - 0.4, max(xs) + sz + 0.4
        wall = SceneObject(
            "wall",
            "wall",
            "box",
            (hi - lo, WALL_T, wall_h),
            look.mat("wall"),
            Track.static(T, (0.0, 0.2, wall_h / 2)),
        )
        w = hi - lo + 0.4
        h = tall + 0.5
        m, v = sweep_motion(clip, lo, hi, w, h / 2, d, s["speed"], s["cover_at"], y=-0.3)
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = hide_every_target(
            "the screen never hides every object",
            clip,
            look,
            self.view,
            targets,
            [scr],
            [wall],
            visible_min=0.25,
        )
        events = key_frames(hidden, clip)
        nouns = object_nouns(look, kinds)
        return Composition(
            objs,
            events,
            "covered",
            exps,
            prompt=f"Behind a low {look.colour('wall')} wall {'stands' if n == 1 else 'stand'} {nouns}, "
            f"{'its top' if n == 1 else 'their tops'} showing. A tall {look.colour('screen')} screen stands to the {'left' if d > 0 else 'right'}. "
            f"Continue the video.",
            outcome="the screen passes in front of the wall; the objects show above the wall as before",
            derived={"wall_height": round(wall_h, 4), "screen_speed_m_per_s": round(v, 4)},
        )
