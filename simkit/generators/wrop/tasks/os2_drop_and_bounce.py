"""OS-2/drop_and_bounce."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import ball, block, drop_time, fall_checks, yank
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import G, Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class DropAndBounce(Task):
    family, name = "OS-2", "drop_and_bounce"
    summary = "a ball loses its pillar, falls and bounces on the floor, each hop lower than the last"
    description = (
        "A ball rests on a pillar that is yanked away after the cut. The ball falls freely, hits the floor at "
        "the declared frame and bounces: it leaves the floor at the restitution coefficient times its impact "
        "speed, so each hop reaches e^2 times the previous height and lasts e times as long, until it comes "
        "to rest. The floor is solid, so the ball never sinks below it, and it bounces straight up because "
        "it fell straight down. Ball size, pillar height (hence impact speed), restitution (a clay-like to a "
        "lively ball) and pull direction vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.22),
        "height": Uniform(0.6, 1.2),
        "restitution": Uniform(0.35, 0.75),
        "direction": Choice([1, -1]),
        "pull_frames": IntRange(1, 3),
        "move_at": Uniform(0.52, 0.56),
    }
    colour_slots = ("target", "support")

    def compose(self, s, clip, look):
        T, fps, r, e = clip.frames, clip.fps, s["radius"], s["restitution"]
        f_m = clip.at(s["move_at"], lo=clip.cut)
        f_rel = f_m + s["pull_frames"]
        k, H = drop_time(clip, f_rel, s["height"], reserve=4)
        f_land = f_rel + k
        sup = yank(clip, (0.0, 0.0, H / 2), f_m, 1, s["direction"], 0.2 + 0.01, s["pull_frames"])
        m = Motion(T, fps, (0.0, 0.0, H + r))
        m.fall(f_rel, f_land, r)
        v_impact = G * k / fps
        m.bounce(f_land, v_impact, e, r)
        hop = 2 * e * v_impact / G * fps  # frames of the first hop
        airborne = [f for f in range(f_land + 1, T) if f - f_land < hop and m.pos[f, 2] - r > 0.02]
        exps = fall_checks("target", "support", f_rel, f_land)
        if airborne:
            exps.append(X.apart("target", "ground", airborne))
        objs = [look.ground(T), block("support", (0.4, 0.4, H), look, "support", sup.track(), "support")]
        objs.append(ball("target", r, look, "target", m.track()))
        return Composition(
            objs,
            {"support_lost": f_rel, "landing": f_land},
            "support_lost",
            exps,
            prompt=f"A {look.colour('target')} ball rests on top of a {look.colour('support')} pillar. "
            f"Continue the video.",
            outcome="the pillar is pulled away; the ball falls, bounces on the floor in ever lower hops and rests",
            derived={
                "support_height": round(H, 4),
                "fall_frames": k,
                "impact_speed": round(v_impact, 4),
                "first_hop_height": round(float(np.square(e * v_impact) / (2 * G)), 4),
            },
        )
