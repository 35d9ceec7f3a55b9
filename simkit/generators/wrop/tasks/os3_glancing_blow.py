"""OS-3/glancing_blow."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os3 import FLOOR_VIEW, floor_ball, impulse, path
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class GlancingBlow(Task):
    family, name = "OS-3", "glancing_blow"
    summary = (
        "a ball clips a resting ball off-centre; the two roll apart at an angle, momentum conserved in 2-D"
    )
    description = (
        "Seen from above at an angle, a ball rolls past a resting ball of the same size and clips it off "
        "centre. The impulse acts along the line of centres at the moment of contact, so the struck ball "
        "moves off along that line and the striker is deflected to the other side; for an elastic impact "
        "between equal masses the two paths are at right angles. Momentum is conserved along both floor axes, "
        "and both balls keep their size and identity. Impact angle (how thin the hit is), side, speed, "
        "restitution and ball size vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "angle_deg": Uniform(20.0, 55.0),
        "side": Choice([1, -1]),
        "speed": Uniform(1.2, 2.0),
        "restitution": Uniform(0.85, 1.0),
        "contact_at": Uniform(0.55, 0.62),
    }
    colour_slots = ("target", "struck")
    view = FLOOR_VIEW

    def compose(self, s, clip, look):
        T, fps, r = clip.frames, clip.fps, s["radius"]
        f_c = clip.at(s["contact_at"], lo=clip.cut)
        phi = np.radians(s["angle_deg"])
        n = np.array([np.cos(phi), s["side"] * np.sin(phi)])
        v0 = np.array([s["speed"], 0.0])
        va, vb = impulse(1.0, v0, 1.0, np.zeros(2), n, s["restitution"])
        pa = np.array([-0.6, -s["side"] * 0.3])
        pb = pa + 2 * r * n
        xa = path(T, fps, [(0, tuple(v0)), (f_c, tuple(va))], f_c, pa, decel=0.4)
        xb = path(T, fps, [(0, (0.0, 0.0)), (f_c, tuple(vb))], f_c, pb, decel=0.4)
        objs = [look.ground(T), floor_ball("target", r, look, "target", xa, fps)]
        objs.append(floor_ball("struck", r, look, "struck", xb, fps))
        exps = [
            X.contact("target", "struck", f_c),
            X.momentum(["target", "struck"], [1.0, 1.0], f_c, axis=0),
            X.no_penetration("target", "struck"),
            # along y the momentum is 0 before, so it is checked through the two velocities after
            X.velocity("struck", f_c, float(vb[1]), axis=1),
            X.velocity("target", f_c, float(va[1]), axis=1),
            X.visible("target", [f_c - 1, f_c + 1], 0.3),
            X.visible("struck", [f_c - 1, f_c + 1], 0.3),
        ]
        deflection = float(np.degrees(np.arctan2(va[1], va[0]))) if np.linalg.norm(va) > 1e-9 else 0.0
        return Composition(
            objs,
            {"impact": f_c},
            "impact",
            exps,
            prompt=f"A {look.colour('target')} ball rolls past a resting {look.colour('struck')} ball, not "
            f"quite head-on. Continue the video.",
            outcome="the balls touch off-centre; the struck ball moves off along the line of centres and the "
            "striker is deflected to the other side",
            derived={
                "v_striker_after": [round(float(c), 4) for c in va],
                "v_struck_after": [round(float(c), 4) for c in vb],
                "striker_deflection_deg": round(deflection, 2),
            },
        )
