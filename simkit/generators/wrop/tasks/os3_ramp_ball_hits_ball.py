"""OS-3/ramp_ball_hits_ball."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import ROLL_FACTOR, ball, ramp, ramp_descent
from simkit.generators.wrop.kit_os3 import floor_ball, path, touching_dx
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import G, Motion, collide_1d
from simkit.scenes.wrop.params import Choice, Uniform


class RampBallHitsBall(Task):
    family, name = "OS-3", "ramp_ball_hits_ball"
    summary = (
        "a ball rolls down a ramp and strikes a smaller resting ball; the ramp height sets the impact speed"
    )
    description = (
        "A ball is released on a ramp and rolls down it, gaining the speed sqrt((10/7) g h) of a solid ball "
        "rolling without slipping down a height h, then rolls across the floor into a smaller resting ball. "
        "At the declared frame momentum passes on as in a 1-D collision: the struck ball shoots off faster "
        "than the striker arrived and the heavier striker rolls on more slowly. The impact speed is not shown "
        "before the ramp ends, so a model has to infer it from the ramp. The striker stays on the ramp's "
        "surface on the way down and no ball passes through the other. Ramp height and slope, ball sizes, "
        "restitution, the distance to the resting ball and direction vary."
    )
    structural = {
        "r_striker": Uniform(0.12, 0.16),
        "r_struck": Uniform(0.08, 0.12),
        "ramp_height": Uniform(0.3, 0.6),
        "angle_deg": Uniform(18.0, 35.0),
        "run": Uniform(0.2, 0.7),
        "restitution": Uniform(0.7, 1.0),
        "direction": Choice([1, -1]),
        "contact_at": Uniform(0.52, 0.6),
    }
    colour_slots = ("target", "struck", "ramp")

    def compose(self, s, clip, look):
        T, fps, ra, rb, d = clip.frames, clip.fps, s["r_striker"], s["r_struck"], s["direction"]
        th = np.radians(s["angle_deg"])
        a = ROLL_FACTOR * G * np.sin(th)
        f_i = clip.at(s["contact_at"], lo=clip.cut)
        u_full = s["ramp_height"] / np.sin(th) - ra * np.tan(th / 2) - 0.05
        m_full = int(np.sqrt(2 * u_full / a) * fps)
        n = max(2, min(round(s["run"] / (a * m_full / fps) * fps), f_i - 2))
        f_b = f_i - n
        m = min(m_full, f_b)  # short clips: the ball is released part way down
        if m < 2:
            raise ValueError("clip too short for the ramp")
        x_low = -0.8 * d
        pos, v_b, k_x = ramp_descent(T, fps, ra, th, x_low, 0.0, d, f_b, m)
        va, vb = collide_1d(ra**3, d * v_b, rb**3, 0.0, s["restitution"])
        x_hit = k_x + d * v_b * n / fps
        mo = Motion(T, fps, pos[0])
        mo.pos[:] = pos
        mo.velocity(f_b, (d * v_b, 0.0, 0.0), f_i)
        tail = path(T, fps, [(0, (d * v_b,)), (f_i, (va,))], f_i, (x_hit,), decel=0.3)[:, 0]
        mo.pos[f_i:, 0] = tail[f_i:]
        mo.roll(ra)
        xb = path(
            T,
            fps,
            [(0, (0.0, 0.0)), (f_i, (vb, 0.0))],
            f_i,
            (x_hit + d * touching_dx(ra, rb), 0.0),
            decel=0.3,
        )
        objs = [
            look.ground(T),
            ramp("ramp", look, "ramp", T, x_low, 0.0, d, s["ramp_height"], th),
            ball("target", ra, look, "target", mo.track()),
            floor_ball("struck", rb, look, "struck", xb, fps),
        ]
        exps = [
            X.touching("target", "ramp", list(range(f_b + 1)), exact=True),
            X.no_penetration("target", "ramp", exact=True),
            X.contact("target", "struck", f_i),
            X.momentum(["target", "struck"], [ra**3, rb**3], f_i),
            X.no_penetration("target", "struck"),
            X.no_penetration("target", "ground"),
        ]
        return Composition(
            objs,
            {"reaches_floor": f_b, "impact": f_i},
            "impact",
            exps,
            prompt=f"A {look.colour('target')} ball is released on a {look.colour('ramp')} ramp; a smaller "
            f"{look.colour('struck')} ball rests on the floor ahead of it. Continue the video.",
            outcome=f"the ball rolls down and strikes the small ball, which shoots off at {abs(vb):.2f} m/s",
            derived={
                "speed_at_foot": round(v_b, 4),
                "v_striker_after": round(va, 4),
                "v_struck": round(vb, 4),
            },
        )
