"""OS-2/trapdoor_opens."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import ball, block, drop_time, slab
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class TrapdoorOpens(Task):
    family, name = "OS-2", "trapdoor_opens"
    summary = (
        "a trapdoor under a ball swings open on its hinge; the ball drops through the opening to the floor"
    )
    description = (
        "A ball rests on a trapdoor that closes the gap between two table halves. After the cut the door's "
        "latch lets go and the door swings down about its hinge on one side, faster than the ball can fall "
        "(its edge accelerates at more than g), so the ball loses its support at once, drops straight through "
        "the opening, past the hanging door, and lands on the floor at the declared frame. The support is "
        "removed by a rotation rather than a slide: a model must see that the ball falls and does not swing "
        "down with the door or stay above the open hole. Ball size, door width, table height, hinge side "
        "and opening speed vary."
    )
    structural = {
        "radius": Uniform(0.08, 0.12),
        "door_width": Uniform(0.4, 0.8),
        "height": Uniform(0.7, 1.2),
        "hinge_side": Choice([1, -1]),
        "open_frames": IntRange(2, 4),
        "open_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "door", "table")

    def compose(self, s, clip, look):
        T, fps, r, w, side = clip.frames, clip.fps, s["radius"], s["door_width"], s["hinge_side"]
        f_o = clip.at(s["open_at"], lo=clip.cut)
        k, H = drop_time(clip, f_o, s["height"])
        w = min(w, H - 0.1)  # the hanging door must clear the floor (short clips: lower table, narrower door)
        if w < 2 * r + 0.12:  # ... and the ball must fall past it
            raise ValueError("clip too short for the trapdoor")
        t = 0.04
        x_h = side * w / 2  # the hinge line, on the side of table half ``side``
        door = Motion(T, fps, (0.0, 0.0, H - t / 2))
        door.hinge(
            f_o, f_o + s["open_frames"], (x_h, 0.0, H - t / 2), -side * np.pi / 2, axis=1
        )  # swings down
        objs = [look.ground(T), block("door", (w, 0.6, t), look, "door", door.track(), role="support")]
        for nm, sgn in (("table_left", -1), ("table_right", 1)):
            lo, hi = sorted((sgn * w / 2, sgn * (w / 2 + 1.0)))
            objs.append(slab(nm, "support", "table", look, T, (lo, -0.3, 0.0), (hi, 0.3, H)))
        m = Motion(T, fps, (0.0, 0.0, H + r))
        m.fall(f_o, f_o + k, r)
        objs.append(ball("target", r, look, "target", m.track()))
        exps = [
            X.touching("target", "door", list(range(f_o + 1)), exact=True),
            X.no_penetration("target", "door", exact=True),
            X.apart("target", "door", list(range(f_o + 2, f_o + k + 1)), exact=True),
            X.contact("target", "ground", f_o + k),
        ]
        exps += [X.no_penetration("target", n) for n in ("table_left", "table_right", "ground")]
        return Composition(
            objs,
            {"door_opens": f_o, "landing": f_o + k},
            "door_opens",
            exps,
            prompt=f"A {look.colour('target')} ball rests on a {look.colour('door')} trapdoor between two "
            f"{look.colour('table')} table halves. Continue the video.",
            outcome="the trapdoor swings down and the ball drops through the opening to the floor",
            derived={
                "table_height": round(H, 4),
                "fall_frames": k,
                "door_edge_accel_over_g": round(float(np.pi * w * fps**2 / s["open_frames"] ** 2 / 9.81), 2),
            },
        )
