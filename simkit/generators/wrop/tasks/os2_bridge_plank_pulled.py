"""OS-2/bridge_plank_pulled."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import ball, block, rest_between, slab, yank
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion, fall_frames, fall_height
from simkit.scenes.wrop.params import Choice, IntRange, Uniform

THROUGH = "the plank is pulled away and the ball drops through the gap to the floor"
WEDGED = "the plank is pulled away and the ball drops a little and rests wedged between the pillars"


class BridgePlankPulled(Task):
    family, name = "OS-2", "bridge_plank_pulled"
    summary = (
        "a plank bridging two pillars is pulled from under a ball; it drops through the gap only if it fits"
    )
    description = (
        "A ball rests on a plank that bridges the gap between two pillars. After the cut the plank is pulled "
        "backward out from under it. What happens next depends on the gap: a ball narrower than the gap "
        "falls through it to the floor without touching the pillars; a ball wider than the gap drops only a "
        "little and comes to rest wedged on the two inner edges, its centre sqrt(r^2 - (gap/2)^2) above "
        "them. A model must compare the ball with the gap it falls into rather than drop it to the floor or "
        "leave it hovering where the plank was. Ball size, fit or no fit, clearance, pillar height and pull "
        "speed vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "fits": Choice([True, False]),
        "clearance": Uniform(0.06, 0.16),
        "height": Uniform(0.5, 1.0),
        "pull_frames": IntRange(1, 3),
        "move_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "plank", "pillars")

    def compose(self, s, clip, look):
        T, fps, r = clip.frames, clip.fps, s["radius"]
        f_m = clip.at(s["move_at"], lo=clip.cut)
        f_rel = f_m + s["pull_frames"]
        budget = T - 3 - f_rel
        gap = 2 * r + s["clearance"] if s["fits"] else 2 * r - s["clearance"]
        if s["fits"]:
            t, k = 0.05, min(fall_frames(s["height"], fps), budget)
            H = fall_height(k, fps) - t  # pillar height: the ball's bottom falls H + t to the floor
            z_end = r
        else:
            sink = r - rest_between(r, gap)  # how far the ball's centre ends below plank level + r
            k = next(k for k in range(2, 40) if fall_height(k, fps) - sink >= 0.04)
            t = fall_height(k, fps) - sink  # plank thickness that makes the drop last k whole frames
            H = s["height"]
            z_end = H + rest_between(r, gap)
        if k < 2 or k > budget:
            raise ValueError("clip too short for the drop")
        plank = yank(clip, (0.0, 0.0, H + t / 2), f_m, 1, 1, 0.3 + 0.01, s["pull_frames"])
        objs = [look.ground(T), block("plank", (gap + 0.5, 0.6, t), look, "plank", plank.track(), "support")]
        for nm, sgn in (("pillar_left", -1), ("pillar_right", 1)):
            x_in = sgn * gap / 2
            objs.append(
                slab(
                    nm,
                    "support",
                    "pillars",
                    look,
                    T,
                    (min(x_in, x_in + sgn * 0.4), -0.3, 0.0),
                    (max(x_in, x_in + sgn * 0.4), 0.3, H),
                )
            )
        m = Motion(T, fps, (0.0, 0.0, H + t + r))
        m.fall(f_rel, f_rel + k, z_end)
        objs.append(ball("target", r, look, "target", m.track()))
        exps = [X.touching("target", "plank", list(range(f_rel + 1))), X.no_penetration("target", "plank")]
        exps += [X.no_penetration("target", p) for p in ("pillar_left", "pillar_right", "ground")]
        if s["fits"]:
            exps.append(X.contact("target", "ground", f_rel + k))
            outcome = THROUGH
        else:
            exps += [X.contact("target", p, f_rel + k) for p in ("pillar_left", "pillar_right")]
            exps.append(X.touching("target", "pillar_left", list(range(f_rel + k, T))))
            outcome = (
                "the plank is pulled away and the ball drops a little and rests wedged between the pillars"
            )
        return Composition(
            objs,
            {"support_lost": f_rel, "landing": f_rel + k},
            "support_lost",
            exps,
            prompt=f"A {look.colour('target')} ball rests on a {look.colour('plank')} plank that bridges the "
            f"gap between two {look.colour('pillars')} pillars. Continue the video.",
            outcome=outcome,
            legal_outcomes=[THROUGH, WEDGED],
            derived={
                "gap": round(gap, 4),
                "pillar_height": round(H, 4),
                "plank_thickness": round(t, 4),
                "fall_frames": k,
                "rest_height": round(z_end, 4),
            },
        )
