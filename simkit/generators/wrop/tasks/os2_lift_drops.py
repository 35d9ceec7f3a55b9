"""OS-2/lift_drops."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import block, drop_time
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import G, Motion
from simkit.scenes.wrop.params import Choice, Uniform
from simkit.scenes.wrop.spec import SceneObject

RIDES = "the lift goes down more gently than a free fall and the block rides down on it, never leaving it"
SEPARATES = (
    "the lift drops faster than a free fall; the block lifts off it, falls freely and lands on it again"
)


class LiftDrops(Task):
    family, name = "OS-2", "lift_drops"
    summary = (
        "a lift platform under a block drops; faster than g the block floats off it, slower it rides along"
    )
    description = (
        "A block stands on a lift platform held up by a piston. After the cut the piston retracts and the "
        "platform accelerates downward at a constant rate. Support is not all or nothing: if the platform "
        "accelerates at less than g the block presses on it and rides down in contact; if it drops faster than "
        "g, nothing can pull the block down faster than gravity, so a gap opens, the block falls freely and "
        "lands on the platform again at the declared frame after the platform has stopped at the bottom. Both "
        "outcomes are legal; the ratio of the platform's acceleration to g decides. Acceleration, drop "
        "height, lowest height and block size vary."
    )
    structural = {
        "half_size": Uniform(0.12, 0.2),
        "faster_than_g": Choice([True, False]),
        "ratio_margin": Uniform(0.3, 0.9),
        "drop": Uniform(0.4, 0.8),
        "low": Uniform(0.15, 0.3),
        "drop_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "platform", "piston")

    def compose(self, s, clip, look):
        T, fps, b, low = clip.frames, clip.fps, s["half_size"], s["low"]
        f_d = clip.at(s["drop_at"], lo=clip.cut)
        k, D = drop_time(clip, f_d, s["drop"])
        ratio = 1 + s["ratio_margin"] if s["faster_than_g"] else 1 - 0.75 * s["ratio_margin"]
        a_p, top = ratio * G, low + D
        t = np.clip((np.arange(T) - f_d) / fps, 0.0, None)
        z_top = np.maximum(top - 0.5 * a_p * t * t, low)  # platform top; it stops at ``low``
        th = 0.06
        pm = Motion(T, fps, (0.0, 0.0, 0.0))
        pm.pos[:, 2] = z_top - th / 2
        piston = Motion(T, fps, (0.0, 0.0, 0.0))
        h0 = top - th
        piston.pos[:, 2] = (z_top - th) / 2
        piston.scl[:, 2] = (z_top - th) / h0
        m = Motion(T, fps, (0.0, 0.0, top + b))
        events = {"lift_drops": f_d}
        if s["faster_than_g"]:
            m.fall(f_d, f_d + k, low + b)
            gap = m.pos[:, 2] - b - z_top
            exps = [
                X.touching("target", "platform", list(range(f_d + 1))),
                X.apart("target", "platform", [f for f in range(T) if gap[f] > 0.03]),
                X.contact("target", "platform", f_d + k),
                X.touching("target", "platform", list(range(f_d + k, T))),
            ]
            events["landing"] = f_d + k
        else:
            m.pos[:, 2] = z_top + b
            exps = [X.touching("target", "platform", list(range(T)))]
        exps.append(X.no_penetration("target", "platform"))
        objs = [
            look.ground(T),
            SceneObject("piston", "support", "cylinder", (0.08, h0), look.mat("piston"), piston.track()),
            block("platform", (0.8, 0.8, th), look, "platform", pm.track(), role="platform"),
            block("target", (2 * b,) * 3, look, "target", m.track()),
        ]
        return Composition(
            objs,
            events,
            "lift_drops",
            exps,
            prompt=f"A {look.colour('target')} block stands on a {look.colour('platform')} lift platform held "
            f"up by a {look.colour('piston')} piston. Continue the video.",
            outcome=SEPARATES if s["faster_than_g"] else RIDES,
            legal_outcomes=[RIDES, SEPARATES],
            derived={"accel_over_g": round(ratio, 4), "drop": round(D, 4), "fall_frames": k},
        )
