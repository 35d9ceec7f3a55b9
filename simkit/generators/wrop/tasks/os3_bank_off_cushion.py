"""OS-3/bank_off_cushion."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import slab
from simkit.generators.wrop.kit_os3 import FLOOR_VIEW, floor_ball, path
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class BankOffCushion(Task):
    family, name = "OS-3", "bank_off_cushion"
    summary = (
        "a ball hits a cushion at an angle; it keeps its speed along the cushion and bounces off across it"
    )
    description = (
        "Seen from above at an angle, a ball rolls obliquely into a long straight cushion, like a bank shot "
        "on a billiard table. The impulse of the impact is perpendicular to the cushion, so the ball keeps its "
        "velocity component along the cushion while the component across it is reversed and scaled by the "
        "restitution e: it leaves at a flatter angle than it came in (tan out = e tan in) and never passes "
        "into the cushion. A model must split the motion into the two directions rather than mirror it or "
        "stop it. Approach angle, speed, restitution, ball size and which way it travels along the cushion "
        "vary."
    )
    structural = {
        "radius": Uniform(0.1, 0.16),
        "angle_deg": Uniform(25.0, 65.0),
        "speed": Uniform(1.2, 2.2),
        "restitution": Uniform(0.5, 0.9),
        "along": Choice([1, -1]),
        "contact_at": Uniform(0.52, 0.6),
    }
    colour_slots = ("target", "cushion")
    view = FLOOR_VIEW

    def compose(self, s, clip, look):
        T, fps, r, e = clip.frames, clip.fps, s["radius"], s["restitution"]
        f_c = clip.at(s["contact_at"], lo=clip.cut)
        th = np.radians(s["angle_deg"])  # between the path and the cushion's normal
        vx, vy = s["along"] * s["speed"] * np.sin(th), s["speed"] * np.cos(th)  # toward the cushion: +y
        y_face = 0.9
        p_c = np.array([0.0, y_face - r])
        f_go = max(0, f_c - round(1.6 / s["speed"] * fps))  # struck at most 1.6 m before the cushion
        phases = [(0, (0.0, 0.0)), (f_go, (vx, vy))] if f_go > 0 else [(0, (vx, vy))]
        xy = path(T, fps, [*phases, (f_c, (vx, -e * vy))], f_c, p_c, decel=0.4)
        objs = [
            look.ground(T),
            slab("cushion", "wall", "cushion", look, T, (-3.0, y_face, 0.0), (3.0, y_face + 0.15, 0.25)),
            floor_ball("target", r, look, "target", xy, fps),
        ]
        exps = [
            X.contact("target", "cushion", f_c),
            X.no_penetration("target", "cushion"),
            X.velocity("target", f_c, vx, axis=0),
            X.velocity("target", f_c, -e * vy, axis=1),
            X.velocity("target", f_c, vx, axis=0, side="before"),
        ]
        out = float(np.degrees(np.arctan2(abs(vx), e * vy)))
        return Composition(
            objs,
            {"impact": f_c},
            "impact",
            exps,
            prompt=f"A {look.colour('target')} ball rolls at an angle toward a long {look.colour('cushion')} "
            f"cushion. Continue the video.",
            outcome=f"the ball bounces off the cushion at {out:.0f} degrees from its normal, keeping its speed "
            "along it",
            derived={"angle_in_deg": s["angle_deg"], "angle_out_deg": round(out, 2)},
        )
