"""OS-2/unequal_balls_fall_together."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import ball, block, drop_time, fall_checks, yank
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class UnequalBallsFallTogether(Task):
    family, name = "OS-2", "unequal_balls_fall_together"
    summary = (
        "a big and a small ball lose their shared shelf at once; they fall side by side and land together"
    )
    description = (
        "A large ball and a small ball rest side by side on one wide block. After the cut the block is "
        "yanked backward out from under both at the same instant. In free fall every body accelerates at g "
        "whatever its mass (Galileo), so the two balls drop side by side, their bottoms level, and both land "
        "on the floor on the same declared frame. A model that lets the heavier ball fall faster, or one ball "
        "stay behind, violates support and gravity. Ball sizes (a volume ratio of up to about 20), their "
        "spacing, the block height and the pull speed vary."
    )
    structural = {
        "r_big": Uniform(0.2, 0.3),
        "r_small": Uniform(0.08, 0.14),
        "spacing": Uniform(0.7, 1.2),
        "height": Uniform(0.5, 1.0),
        "big_side": Choice([1, -1]),
        "pull_frames": IntRange(1, 3),
        "move_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "small", "support")

    def compose(self, s, clip, look):
        T, fps = clip.frames, clip.fps
        rb, rs, side = s["r_big"], s["r_small"], s["big_side"]
        f_m = clip.at(s["move_at"], lo=clip.cut)
        f_rel = f_m + s["pull_frames"]
        k, H = drop_time(clip, f_rel, s["height"])
        depth = 0.7
        sup = yank(clip, (0.0, 0.0, H / 2), f_m, 1, 1, depth / 2 + 0.01, s["pull_frames"])
        width = s["spacing"] + 2 * rb + 0.4
        objs = [look.ground(T), block("support", (width, depth, H), look, "support", sup.track(), "support")]
        exps = []
        for nm, r, x in (("target", rb, side * s["spacing"] / 2), ("small", rs, -side * s["spacing"] / 2)):
            m = Motion(T, fps, (x, 0.0, H + r))
            m.fall(f_rel, f_rel + k, r)
            objs.append(ball(nm, r, look, nm, m.track()))
            exps += fall_checks(nm, "support", f_rel, f_rel + k)
        return Composition(
            objs,
            {"support_lost": f_rel, "landing": f_rel + k},
            "support_lost",
            exps,
            prompt=f"A big {look.colour('target')} ball and a small {look.colour('small')} ball rest side by "
            f"side on a {look.colour('support')} block. Continue the video.",
            outcome="the block is pulled away; both balls fall side by side and land at the same moment",
            derived={"support_height": round(H, 4), "fall_frames": k, "mass_ratio": round((rb / rs) ** 3, 3)},
        )
