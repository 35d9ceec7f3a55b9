"""OS-2/two_heights_fall_times."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import ball, block, drop_time, fall_checks, yank
from simkit.scenes.wrop.motion import Motion, fall_frames, fall_height
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class TwoHeightsFallTimes(Task):
    family, name = "OS-2", "two_heights_fall_times"
    summary = "two equal balls on a low and a high pillar lose support together; the lower one lands first"
    description = (
        "Two equal balls rest on two pillars of different heights. After the cut both pillars are yanked "
        "backward at the same instant. Each ball falls freely from its own height, and the fall time grows "
        "with the square root of the height (t = sqrt(2h/g)): the ball on the low pillar lands first, the one "
        "on the high pillar lands later, at the declared frames. A model must time each fall separately "
        "rather than drop both alike or let the higher ball keep up. Pillar heights, their order left and "
        "right, ball size and pull speed vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "low_height": Uniform(0.2, 0.45),
        "high_height": Uniform(0.8, 1.3),
        "high_side": Choice([1, -1]),
        "pull_frames": IntRange(1, 2),
        "move_at": Uniform(0.52, 0.56),
    }
    colour_slots = ("target", "other", "support", "support2")

    def compose(self, s, clip, look):
        T, fps, r = clip.frames, clip.fps, s["radius"]
        f_m = clip.at(s["move_at"], lo=clip.cut)
        f_rel = f_m + s["pull_frames"]
        k_hi, H_hi = drop_time(clip, f_rel, s["high_height"])
        k_lo = min(fall_frames(s["low_height"], fps), k_hi - 1)  # short clips shrink both drops
        if k_lo < 2:
            raise ValueError("clip too short to separate the two landings")
        H_lo = fall_height(k_lo, fps)
        objs, exps, events = [look.ground(T)], [], {"support_lost": f_rel}
        side = s["high_side"]
        for nm, sup, H, k, x in (
            ("target", "support", H_hi, k_hi, 0.7 * side),
            ("other", "support2", H_lo, k_lo, -0.7 * side),
        ):
            pm = yank(clip, (x, 0.0, H / 2), f_m, 1, 1, 0.2 + 0.01, s["pull_frames"])
            objs.append(block(sup, (0.4, 0.4, H), look, sup, pm.track(), "support"))
            m = Motion(T, fps, (x, 0.0, H + r))
            m.fall(f_rel, f_rel + k, r)
            objs.append(ball(nm, r, look, nm, m.track()))
            exps += fall_checks(nm, sup, f_rel, f_rel + k)
        events.update({"landing_low": f_rel + k_lo, "landing_high": f_rel + k_hi})
        return Composition(
            objs,
            events,
            "support_lost",
            exps,
            prompt=f"A {look.colour('target')} ball rests on a tall {look.colour('support')} pillar and a "
            f"{look.colour('other')} ball on a short {look.colour('support2')} pillar. Continue the video.",
            outcome="both pillars are pulled away; the ball on the short pillar lands first, the other later",
            derived={"high": round(H_hi, 4), "low": round(H_lo, 4), "fall_frames": [k_lo, k_hi]},
        )
