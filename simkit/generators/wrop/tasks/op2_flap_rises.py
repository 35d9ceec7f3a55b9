"""OP-2/flap_rises."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import SCREEN_T, half_height, row_positions
from simkit.generators.wrop.kit_op2 import (
    hide_every_target,
    key_frames,
    moving_screen,
    object_nouns,
    object_row,
    pivot_turn,
    the_objects,
)
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class FlapRises(Task):
    family, name = "OP-2", "flap_rises"
    summary = "a flap lying flat on the floor swings up on its hinge in front of objects and falls back"
    description = (
        "A wide flap lies flat on the floor in front of one to three objects, hinged along its far edge. "
        "After the cut it swings up about the hinge until it stands upright and hides the objects, stays up "
        "for a while and falls back flat toward the camera. The occluder grows out of the floor plane by "
        "rotation, covering the objects from the bottom up; when it lies flat again the objects must be "
        "there, unchanged. Object count, shape, size, spacing, the flap's extra height, how fast it swings "
        "and how long it stays up vary."
    )
    structural = {
        "n_objects": IntRange(1, 3),
        "shape": Choice(["sphere", "box", "cylinder"]),
        "size": Uniform(0.12, 0.19),
        "spacing": Uniform(0.6, 0.8),
        "extra_height": Uniform(0.4, 0.65),
        "swing_for": Uniform(0.08, 0.16),
        "up_for": Uniform(0.05, 0.15),
    }
    colour_slots = ("flap", "object1", "object2", "object3")

    def compose(self, s, clip, look):
        T, fps, n = clip.frames, clip.fps, s["n_objects"]
        xs = row_positions(n, s["spacing"])
        targets = object_row(look, T, s["shape"], s["size"], xs, 0.5)
        w = (n - 1) * s["spacing"] + 2 * s["size"] + 0.8
        h = 2 * half_height(s["shape"], s["size"]) + s["extra_height"]
        f0 = clip.cut
        k = max(2, clip.at(s["swing_for"]))
        f2 = min(f0 + k + max(2, clip.at(s["up_for"])), T - 3 - k)
        if f2 <= f0 + k:
            raise ValueError("clip too short for the swing")
        hinge = (0.0, -0.3, SCREEN_T / 2)  # the flap's far bottom edge; flat, its underside touches the floor
        flat = np.pi / 2  # R_x(+90 deg) lays the upright flap down toward the camera (-y)
        m = Motion(T, fps, (0.0, 0.0, 0.0))
        pivot_turn(m, 0, 0, hinge, (0.0, 0.0, h / 2), 0, flat, flat)
        pivot_turn(m, f0, f0 + k, hinge, (0.0, 0.0, h / 2), 0, flat, 0.0)
        pivot_turn(m, f2, f2 + k, hinge, (0.0, 0.0, h / 2), 0, 0.0, flat)
        scr = moving_screen("flap", look, "flap", m, w, h)
        objs, exps, hidden = hide_every_target(
            "the raised flap leaves an object uncovered", clip, look, self.view, targets, [scr]
        )
        events = key_frames(hidden, clip)
        nouns = object_nouns(look, [s["shape"]] * n)
        return Composition(
            objs,
            {"swing_start": f0, **events, "falling": f2},
            "covered",
            exps,
            prompt=f"{nouns[0].upper()}{nouns[1:]} {'rests' if n == 1 else 'rest'} on the floor behind a "
            f"{look.colour('flap')} flap lying flat in front of {'it' if n == 1 else 'them'}. Continue the video.",
            outcome=f"the flap swings up and falls back; {the_objects(n)} {'is' if n == 1 else 'are'} unchanged",
            derived={"flap_height": round(h, 4), "flap_width": round(w, 4)},
        )
