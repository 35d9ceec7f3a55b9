"""OS-2/ramp_roll_off_shelf."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import ROLL_FACTOR, ball, ramp, ramp_descent, slab
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import G, Motion, fall_frames, fall_height
from simkit.scenes.wrop.params import Choice, Uniform


class RampRollOffShelf(Task):
    family, name = "OS-2", "ramp_roll_off_shelf"
    summary = (
        "a ball rolls down a ramp on a shelf, across the shelf and off its edge, then falls to the floor"
    )
    description = (
        "A ball is released on a ramp standing on a high shelf. It rolls down, accelerating at (5/7) g "
        "sin(theta) (rolling without slipping), reaches the shelf top with the speed the ramp gave it, rolls "
        "to the shelf's edge and, with no support past the edge, follows a parabola to the floor, landing at "
        "the declared frame. The horizontal speed of the fall, and so where the ball lands, is set by the "
        "ramp, which a model has to read from the input. The ball must stay on the ramp's surface, neither "
        "sinking into it nor floating, and must not hover past the edge (its speed at the edge is kept above sqrt(1.5 g r), so it leaves the edge instead of rolling around it). Ramp height and slope, ball size, the "
        "run on the shelf, shelf height and direction vary."
    )
    structural = {
        "radius": Uniform(0.08, 0.13),
        "ramp_height": Uniform(0.3, 0.6),
        "angle_deg": Uniform(22.0, 38.0),
        "shelf_run": Uniform(0.2, 0.6),
        "height": Uniform(0.4, 0.8),
        "direction": Choice([1, -1]),
        "edge_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "ramp", "shelf")

    def compose(self, s, clip, look):
        T, fps, r, d = clip.frames, clip.fps, s["radius"], s["direction"]
        th = np.radians(s["angle_deg"])
        a = ROLL_FACTOR * G * np.sin(th)
        f_e = clip.at(s["edge_at"], lo=clip.cut)
        u_full = s["ramp_height"] / np.sin(th) - r * np.tan(th / 2) - 0.05
        m_full = int(np.sqrt(2 * u_full / a) * fps)
        # the ball must leave the edge fast enough not to roll around it: v^2 >= 1.5 g r at the foot
        m_need = int(np.ceil(np.sqrt(1.5 * G * r) / a * fps))
        n = max(2, min(round(s["shelf_run"] / (a * m_full / fps) * fps), f_e - m_need))
        f_b = f_e - n
        m = min(m_full, f_b)  # short clips: the ball is released part way down
        k = min(fall_frames(s["height"], fps), T - 3 - f_e)
        if m < m_need or k < 2:
            raise ValueError("clip too short for the ramp and the fall")
        Hs = fall_height(k, fps)
        v_b = a * m / fps
        run = v_b * n / fps
        x_e = d * 0.7
        x_low = x_e - d * run - d * r * np.tan(th / 2)
        pos, v_b, k_x = ramp_descent(T, fps, r, th, x_low, Hs, d, f_b, m)
        mo = Motion(T, fps, pos[0])
        mo.pos[:] = pos
        mo.velocity(f_b, (d * v_b, 0.0, 0.0))
        mo.fall(f_e, f_e + k, r)
        mo.roll(r)
        L = s["ramp_height"] / np.tan(th)
        lo, hi = sorted((x_e, x_low - d * (L + 0.3)))
        objs = [
            look.ground(T),
            slab("shelf", "support", "shelf", look, T, (lo, -0.5, 0.0), (hi, 0.5, Hs)),
            ramp("ramp", look, "ramp", T, x_low, Hs, d, s["ramp_height"], th),
            ball("target", r, look, "target", mo.track()),
        ]
        exps = [
            X.touching("target", "ramp", list(range(f_b + 1)), exact=True),
            X.no_penetration("target", "ramp", exact=True),
            X.touching("target", "shelf", list(range(f_b, f_e + 1))),
            X.contact("target", "ground", f_e + k),
            X.no_penetration("target", "shelf"),
            X.no_penetration("target", "ground"),
        ]
        return Composition(
            objs,
            {"reaches_shelf": f_b, "leaves_edge": f_e, "landing": f_e + k},
            "leaves_edge",
            exps,
            prompt=f"A {look.colour('target')} ball is released on a {look.colour('ramp')} ramp standing on a "
            f"{look.colour('shelf')} shelf. Continue the video.",
            outcome="the ball rolls down the ramp, across the shelf and off its edge, and lands on the floor",
            derived={
                "speed_at_foot": round(v_b, 4),
                "shelf_height": round(Hs, 4),
                "fall_frames": k,
                "landing_x": round(float(x_e + d * v_b * k / fps), 4),
            },
        )
