"""OP-2/tray_covered."""

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
from simkit.scenes.wrop.spec import SceneObject, Track


class TrayCovered(Task):
    family, name = "OP-2", "tray_covered"
    summary = "objects lie in an open tray; a screen slides over the tray, rests and withdraws"
    description = (
        "One to three objects lie in a shallow open tray whose low rim hides their lower part. After the "
        "cut a screen slides in front of the tray, rests there hiding its contents, and withdraws the way it "
        "came. The objects belong to a container that is hidden with them: they must come back inside the "
        "tray, at their places, with shape and colour unchanged, and "
        "none may have left it. Object count, shapes, sizes, spacing, the rim height, side of approach and "
        "the time the screen rests vary."
    )
    structural = {
        "n_objects": IntRange(1, 3),
        "shapes": Choice(["sphere", "box", "cylinder", "mixed"]),
        "size": Uniform(0.12, 0.17),
        "spacing": Uniform(0.45, 0.6),
        "rim": Uniform(0.06, 0.1),
        "side": Choice([1, -1]),
        "rest_for": Uniform(0.06, 0.16),
    }
    colour_slots = ("screen", "tray", "object1", "object2", "object3")

    def compose(self, s, clip, look):
        T, fps, n, d = clip.frames, clip.fps, s["n_objects"], s["side"]
        kinds = shape_kinds(s["shapes"], n, ("sphere", "cylinder", "box"))
        xs = row_positions(n, s["spacing"])
        targets = object_row(look, T, kinds, s["size"], xs, 0.5)
        tw = (n - 1) * s["spacing"] + 2 * s["size"] + 0.35
        tray = SceneObject(
            "tray",
            "container",
            "open_box",
            (tw, 0.6, s["rim"]),
            look.mat("tray"),
            Track.static(T, (0.0, 0.5, s["rim"] / 2)),
        )
        w = tw + 0.6
        h = 2 * max(half_height(k, s["size"]) for k in kinds) + 0.45
        x_off = d * (tw / 2 + w / 2 + 0.4)
        f0 = clip.cut
        k = max(3, (T - f0) // 5)
        f2 = min(f0 + k + max(2, clip.at(s["rest_for"])), T - 3 - k)
        if f2 <= f0 + k:
            raise ValueError("clip too short for the rest")
        m = Motion(T, fps, (x_off, 0.0, h / 2))
        m.move(f0, f0 + k, (0.0, 0.0, h / 2), "smooth").move(f2, f2 + k, (x_off, 0.0, h / 2), "smooth")
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = hide_every_target(
            "the screen never hides every object",
            clip,
            look,
            self.view,
            targets,
            [scr],
            [tray],
            visible_min=0.45,
        )
        events = key_frames(hidden, clip)
        nouns = object_nouns(look, kinds)
        return Composition(
            objs,
            {**events, "rest_start": f0 + k},
            "covered",
            exps,
            prompt=f"In a shallow {look.colour('tray')} tray {'lies' if n == 1 else 'lie'} {nouns}. "
            f"A {look.colour('screen')} screen stands to the {'right' if d > 0 else 'left'}. Continue the video.",
            outcome=f"the screen covers the tray and withdraws; {the_objects(n)} "
            f"{'is' if n == 1 else 'are'} still in the tray",
            derived={"tray_width": round(tw, 4), "rim_height": s["rim"]},
        )
