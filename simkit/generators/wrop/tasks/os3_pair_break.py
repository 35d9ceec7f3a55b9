"""OS-3/pair_break."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os3 import FLOOR_VIEW, floor_ball, path
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Uniform

COS30, SIN30 = float(np.cos(np.pi / 6)), 0.5


class PairBreak(Task):
    family, name = "OS-3", "pair_break"
    summary = "a ball hits the middle of two touching balls; they split at +-30 deg and the striker rebounds"
    description = (
        "Seen from above at an angle, a ball rolls straight at the point where two touching balls of the same "
        "size meet, like the tip of a tiny pool break. It strikes both at the same declared frame, along lines "
        "of centres 30 degrees to either side, so the two are driven apart symmetrically at +-30 degrees with "
        "equal speeds, and the striker slows down or bounces back: for restitution e each struck ball leaves "
        "at (1 + e) v cos30 / 2.5 and the striker keeps v (1 - 0.6 (1 + e)). Momentum is conserved along both "
        "floor axes and the count stays three. Ball size, speed and restitution vary."
    )
    structural = {
        "radius": Uniform(0.1, 0.15),
        "speed": Uniform(1.2, 2.2),
        "restitution": Uniform(0.7, 1.0),
        "contact_at": Uniform(0.55, 0.62),
    }
    colour_slots = ("target", "left", "right")
    view = FLOOR_VIEW

    def compose(self, s, clip, look):
        T, fps, r, v, e = clip.frames, clip.fps, s["radius"], s["speed"], s["restitution"]
        f_c = clip.at(s["contact_at"], lo=clip.cut)
        j = (1 + e) * v * COS30 / 2.5  # impulse per struck ball (unit masses)
        v_s = v - 2 * j * COS30
        p0 = np.array([-0.4, 0.3])
        objs, exps = [look.ground(T)], []
        xs = path(T, fps, [(0, (v, 0.0)), (f_c, (v_s, 0.0))], f_c, p0, decel=0.4)
        objs.append(floor_ball("target", r, look, "target", xs, fps))
        for nm, sgn in (("left", 1), ("right", -1)):
            n = np.array([COS30, sgn * SIN30])
            xy = path(T, fps, [(0, (0.0, 0.0)), (f_c, tuple(j * n))], f_c, p0 + 2 * r * n, decel=0.4)
            objs.append(floor_ball(nm, r, look, nm, xy, fps))
            exps += [X.contact("target", nm, f_c), X.no_penetration("target", nm)]
            exps += [X.velocity(nm, f_c, float(j * n[1]), axis=1), X.visible(nm, [f_c - 1, f_c + 1], 0.3)]
        exps += [
            X.momentum(["target", "left", "right"], [1.0, 1.0, 1.0], f_c),
            X.velocity("target", f_c, v_s),
            X.no_penetration("left", "right"),
            X.touching("left", "right", list(range(f_c + 1))),
        ]
        return Composition(
            objs,
            {"impact": f_c},
            "impact",
            exps,
            prompt=f"A {look.colour('target')} ball rolls straight at the meeting point of two touching "
            f"balls, {look.colour('left')} and {look.colour('right')}. Continue the video.",
            outcome="the two balls split apart at equal angles and speeds; the striker slows down or rolls back",
            derived={"v_struck": round(j, 4), "v_striker_after": round(v_s, 4)},
        )
