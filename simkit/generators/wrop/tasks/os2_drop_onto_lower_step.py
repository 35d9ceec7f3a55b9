"""OS-2/drop_onto_lower_step."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import ball, slab
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import G, Motion, fall_frames, fall_height
from simkit.scenes.wrop.params import Choice, Uniform

ON_STEP = "the ball rolls off the upper step and lands on the lower step"
PAST_STEP = "the ball rolls off the upper step, flies over the lower step and lands on the floor"


class DropOntoLowerStep(Task):
    family, name = "OS-2", "drop_onto_lower_step"
    summary = "a ball rolls off a high step; it lands on the lower step, or flies over it to the floor if fast enough"
    description = (
        "A flicked ball rolls along the top of a high step toward its edge; beyond it lies a lower step and then the "
        "floor. Past the edge the ball follows a parabola (horizontal speed kept, drop growing with t^2). "
        "Where it lands depends on speed and geometry: a slow ball comes down on the lower step after the "
        "time the step height allows and rolls on there; a fast one travels farther than the lower step is "
        "long, clears its far corner and lands on the floor at the declared frame. Both outcomes are "
        "physically legal; the structure decides. A model must not let the ball pass through the lower step "
        "or ignore it. Ball size, speed, both step heights, the lower step's length and direction vary."
    )
    structural = {
        "radius": Uniform(0.08, 0.12),
        "speed": Uniform(1.5, 2.5),
        "over": Choice([True, False]),
        "step_drop": Uniform(0.2, 0.4),
        "low_height": Uniform(0.2, 0.4),
        "margin": Uniform(0.1, 0.3),
        "direction": Choice([1, -1]),
        "edge_at": Uniform(0.52, 0.56),
    }
    colour_slots = ("target", "upper", "lower")

    def compose(self, s, clip, look):
        T, fps, r, d, v = clip.frames, clip.fps, s["radius"], s["direction"], s["speed"]
        f_e = clip.at(s["edge_at"], lo=clip.cut)
        k1 = fall_frames(s["step_drop"], fps)  # frames to fall onto the lower step
        if s["over"]:
            k = min(fall_frames(s["step_drop"] + s["low_height"], fps), T - 3 - f_e)
            H = fall_height(k, fps)  # the upper step: the ball's bottom falls H to the floor
            drop1 = min(s["step_drop"], H - 0.12)
            t_c = np.sqrt(2 * max(drop1 - r - s["margin"] * 0.3, 0.01) / G)  # time to reach the lower corner
            L2 = v * t_c - r  # the lower step ends before the ball has dropped to its corner height
            if L2 < 0.15 or k < 2:
                raise ValueError("clip too short to fly over the lower step")
            z_end, land_on = r, "ground"
        else:
            k = min(k1, T - 3 - f_e)
            drop1 = fall_height(k, fps)
            H = drop1 + s["low_height"]
            L2 = v * k / fps + r + s["margin"]
            z_end, land_on = s["low_height"] + r, "lower"
        if k < 2:
            raise ValueError("clip too short for the fall")
        low = H - drop1
        f_go = max(0, f_e - round(2.0 / v * fps))  # flicked at most 2 m before the edge
        m = Motion(T, fps, (-d * v * (f_e - f_go) / fps, 0.0, H + r))
        m.velocity(f_go, (d * v, 0.0, 0.0), f_e + k)
        m.fall(f_e, f_e + k, z_end)
        m.velocity(f_e + k, (d * v * 0.7, 0.0, 0.0))  # rolls on after the landing, slower
        m.roll(r)
        up = sorted((0.0, -d * 3.0))
        lw = sorted((0.0, d * L2))
        objs = [
            look.ground(T),
            slab("upper", "support", "upper", look, T, (up[0], -0.5, 0.0), (up[1], 0.5, H)),
            slab("lower", "support", "lower", look, T, (lw[0], -0.5, 0.0), (lw[1], 0.5, low)),
            ball("target", r, look, "target", m.track()),
        ]
        exps = [
            X.touching("target", "upper", list(range(f_e + 1))),
            X.contact("target", land_on, f_e + k),
        ]
        exps += [X.no_penetration("target", n) for n in ("upper", "lower", "ground")]
        if not s["over"]:
            x_end = m.pos[:, 0]
            exps.append(X.touching("target", "lower", [f for f in range(f_e + k, T) if d * x_end[f] < L2]))
        return Composition(
            objs,
            {"leaves_edge": f_e, "landing": f_e + k},
            "leaves_edge",
            exps,
            prompt=f"A {look.colour('target')} ball rolls along a high {look.colour('upper')} step toward its "
            f"edge; a lower {look.colour('lower')} step lies beyond it. Continue the video.",
            outcome=PAST_STEP if s["over"] else ON_STEP,
            legal_outcomes=[ON_STEP, PAST_STEP],
            derived={
                "upper_height": round(H, 4),
                "lower_height": round(low, 4),
                "lower_length": round(L2, 4),
                "fall_frames": k,
            },
        )
