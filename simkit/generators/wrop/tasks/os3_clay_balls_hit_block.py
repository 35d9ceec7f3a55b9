"""OS-3/clay_balls_hit_block."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os3 import ball_mass, box_mass, floor_ball, floor_block, path
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Uniform

LEFT = "the balls stick to the block and the three slide off to the left together"
RIGHT = "the balls stick to the block and the three slide off to the right together"
STOP = "the balls stick to the block and the three stay where they are"


class ClayBallsHitBlock(Task):
    family, name = "OS-3", "clay_balls_hit_block"
    summary = "two clay balls hit a block from opposite sides at once and stick; the three move with the net momentum"
    description = (
        "Two balls of soft clay roll at a resting block from opposite sides and hit it at the same declared "
        "frame, sticking to it (a perfectly inelastic collision of three bodies). Afterwards block and balls "
        "move as one at the net momentum divided by the total mass, (m1 v1 - m2 v2) / (m1 + m2 + M), then "
        "slow down by friction: to the side of the larger momentum, or not at all when the momenta cancel. "
        "A model must weigh both impacts together rather than let the faster or the bigger ball win. Ball "
        "sizes, block size and both speeds vary."
    )
    structural = {
        "r_left": Uniform(0.08, 0.16),
        "r_right": Uniform(0.08, 0.16),
        "h_block": Uniform(0.14, 0.22),
        "v_left": Uniform(0.8, 2.2),
        "v_right": Uniform(0.8, 2.2),
        "contact_at": Uniform(0.55, 0.64),
    }
    colour_slots = ("target", "other", "block")

    def compose(self, s, clip, look):
        T, fps = clip.frames, clip.fps
        r1, r2, h = s["r_left"], s["r_right"], s["h_block"]
        m1, m2, M = ball_mass(r1), ball_mass(r2), box_mass((2 * h,) * 3)
        vc = (m1 * s["v_left"] - m2 * s["v_right"]) / (m1 + m2 + M)
        f_c = clip.at(s["contact_at"], lo=clip.cut)
        dec = 0.8
        x1 = path(T, fps, [(0, (s["v_left"], 0)), (f_c, (vc, 0))], f_c, (-h - r1, 0), decel=dec)
        x2 = path(T, fps, [(0, (-s["v_right"], 0)), (f_c, (vc, 0))], f_c, (h + r2, 0), decel=dec)
        xb = path(T, fps, [(0, (0.0,)), (f_c, (vc,))], f_c, (0.0,), decel=dec)[:, 0]
        objs = [
            look.ground(T),
            floor_ball("target", r1, look, "target", x1, fps),
            floor_ball("other", r2, look, "other", x2, fps),
            floor_block("block", (2 * h,) * 3, look, "block", xb, fps),
        ]
        names, masses = ["target", "other", "block"], [m1, m2, M]
        exps = [X.contact("target", "block", f_c), X.contact("other", "block", f_c)]
        exps += [X.momentum(names, masses, f_c)] if abs(vc) > 0.05 else []
        exps += [X.velocity("block", f_c, vc), X.touching("target", "block", list(range(f_c, T)))]
        exps += [X.touching("other", "block", list(range(f_c, T)))]
        exps += [X.no_penetration(a, "block") for a in ("target", "other")]
        outcome = STOP if abs(vc) < 0.05 else (RIGHT if vc > 0 else LEFT)
        return Composition(
            objs,
            {"impact": f_c},
            "impact",
            exps,
            prompt=f"A {look.colour('target')} clay ball and a {look.colour('other')} clay ball roll at a "
            f"{look.colour('block')} block from opposite sides. Continue the video.",
            outcome=outcome,
            legal_outcomes=[LEFT, STOP, RIGHT],
            derived={"v_common": round(vc, 4), "masses": [round(m, 6) for m in masses]},
        )
