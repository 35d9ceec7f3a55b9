"""OP-2/objects_on_table."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import half_height, row_positions
from simkit.generators.wrop.kit_op2 import (
    hide_every_target,
    key_frames,
    moving_screen,
    object_nouns,
    object_row,
    shape_kinds,
    sweep_motion,
    the_objects,
)
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, IntRange, Uniform
from simkit.scenes.wrop.spec import SceneObject, Track

TOP_T, LEG = 0.06, 0.06


def table(look, T: int, width: float, depth: float, height: float, y: float) -> list[SceneObject]:
    """A table: top slab (``width`` x ``depth`` x ``TOP_T`` m, top face at ``height``) on four square legs."""
    parts = [
        SceneObject(
            "tabletop",
            "platform",
            "box",
            (width, depth, TOP_T),
            look.mat("table"),
            Track.static(T, (0.0, y, height - TOP_T / 2)),
        )
    ]
    leg_h = height - TOP_T
    for i, (sx, sy) in enumerate(((-1, -1), (1, -1), (-1, 1), (1, 1))):
        c = (sx * (width / 2 - LEG), y + sy * (depth / 2 - LEG), leg_h / 2)
        parts.append(
            SceneObject(
                f"leg{i + 1}", "support", "box", (LEG, LEG, leg_h), look.mat("table"), Track.static(T, c)
            )
        )
    return parts


class ObjectsOnTable(Task):
    family, name = "OP-2", "objects_on_table"
    summary = "a tall screen slides past objects standing on a table; they must still stand on the tabletop"
    description = (
        "One to three objects stand on a table. After the cut a tall screen slides past in front of the "
        "table, hiding the objects and the table top, and moves on. The objects are supported above the "
        "floor, so restoring them means restoring their height as well as their place: they must neither "
        "drop to the floor, float above the top nor sink into it while out of sight. Object count, shapes, "
        "sizes, spacing, the table's height and width, and the screen's direction and speed vary."
    )
    structural = {
        "n_objects": IntRange(1, 3),
        "shapes": Choice(["sphere", "box", "cylinder", "mixed"]),
        "size": Uniform(0.1, 0.15),
        "spacing": Uniform(0.45, 0.6),
        "table_height": Uniform(0.35, 0.6),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.4, 2.4),
        "cover_at": Uniform(0.5, 0.56),
    }
    colour_slots = ("screen", "table", "object1", "object2", "object3")

    def compose(self, s, clip, look):
        T, n, d, th = clip.frames, s["n_objects"], s["direction"], s["table_height"]
        kinds = shape_kinds(s["shapes"], n, ("box", "sphere", "cylinder"))
        xs = row_positions(n, s["spacing"])
        targets = object_row(look, T, kinds, s["size"], xs, 0.5, th)
        tw = (n - 1) * s["spacing"] + 2 * s["size"] + 0.5
        props = table(look, T, tw, 0.6, th, 0.5)
        w = tw + 0.6
        h = th + 2 * max(half_height(k, s["size"]) for k in kinds) + 0.45
        m, v = sweep_motion(clip, -tw / 2, tw / 2, w, h / 2, d, s["speed"], s["cover_at"])
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = hide_every_target(
            "the screen never hides every object", clip, look, self.view, targets, [scr], props
        )
        exps += [X.touching(t.name, "tabletop", list(range(T))) for t in targets]
        exps += [X.no_penetration(t.name, "tabletop") for t in targets]
        events = key_frames(hidden, clip)
        nouns = object_nouns(look, kinds)
        return Composition(
            objs,
            events,
            "covered",
            exps,
            prompt=f"On a {look.colour('table')} table {'stands' if n == 1 else 'stand'} {nouns}. "
            f"A tall {look.colour('screen')} screen stands to the {'left' if d > 0 else 'right'}. "
            f"Continue the video.",
            outcome=f"the screen slides past; {the_objects(n)} still {'stands' if n == 1 else 'stand'} on "
            f"the table",
            derived={"table_top_z": round(th, 4), "screen_speed_m_per_s": round(v, 4)},
        )
