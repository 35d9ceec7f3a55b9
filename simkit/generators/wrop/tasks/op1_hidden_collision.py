"""OP-1/hidden_collision."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH, SCREEN_T, Motion, collide_1d
from simkit.generators.wrop.kit_op1 import (
    ball_on_path,
    occlusion_composition,
    panel,
    side_frames,
    sight,
    sight_expectations,
)
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class HiddenCollision(Task):
    family, name = "OP-1", "hidden_collision"
    summary = "a ball rolls to rest behind a screen; a second ball follows and knocks it out the far side"
    description = (
        "In the input a first ball rolls behind a screen, slowing down, and does not come out: it has come "
        "to rest out of sight. After the cut a second ball of the same size but another colour rolls behind "
        "the screen, strikes the hidden first ball and almost stops (equal masses, nearly elastic), while "
        "the first ball is knocked out of the far side. The object that emerges is the one that was hidden "
        "all along, not the one just seen going in: a model must keep the resting ball in mind, let the "
        "collision happen unseen and track identity by colour. Ball size, where the first ball rests, "
        "speeds, restitution, direction and timing vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.16),
        "screen_width": Uniform(1.2, 1.5),
        "rest_offset": Uniform(-0.15, 0.1),
        "run_in": Uniform(2.2, 2.8),
        "restitution": Uniform(0.85, 1.0),
        "span": Uniform(5.5, 6.5),
        "direction": Choice([1, -1]),
        "contact_at": Uniform(0.7, 0.74),
    }
    colour_slots = ("first", "second", "screen")

    def compose(self, s, clip, look):
        T, fps, d, r, w = clip.frames, clip.fps, s["direction"], s["radius"], s["screen_width"]
        x_b = d * s["rest_offset"]
        f_s, f_c = clip.at(0.4), clip.at(s["contact_at"])
        tau = f_s / fps
        vb = 2 * s["run_in"] / tau  # starts at x_b - run_in and decelerates uniformly to rest on f_s
        mb = Motion(T, fps, (x_b - d * s["run_in"], DEPTH, r))
        mb.decelerate(0, (d * vb, 0, 0), vb / tau, f_c)
        va = s["span"] / (T - 1) * fps  # m/s
        ma = Motion(T, fps, (x_b - d * 2 * r - d * va * f_c / fps, DEPTH, r))
        ma.velocity(0, (d * va, 0, 0), f_c)
        wa, wb = collide_1d(1.0, va, 1.0, 0.0, s["restitution"])
        ma.decelerate(f_c, (d * wa, 0, 0), 0.3)
        mb.decelerate(f_c, (d * wb, 0, 0), 0.3)
        first = ball_on_path("first", look, "first", clip, r, mb.pos)
        second = ball_on_path("second", look, "second", clip, r, ma.pos)
        top = 2 * r + 0.45
        scr = panel("screen", look, "screen", T, (-w / 2, -SCREEN_T / 2, 0), (w / 2, SCREEN_T / 2, top))
        c, _ = occlusion_composition(
            clip, [look.ground(T), first, second, scr], second, [scr], self.view, need_clear=False
        )
        sb = sight(first, [scr], self.view)
        c.expectations += sight_expectations("first", sb, f_c)
        c.expectations += [
            X.contact("second", "first", f_c),
            X.momentum(["second", "first"], [1.0, 1.0], f_c),
            X.no_penetration("second", "first"),
            X.same_place("first", list(range(f_s, f_c + 1))),
            X.side("first", "screen", side_frames(sb, mb.pos[:, 0], 0.0, d, f_c), d),
        ]
        c.events.update({"first_at_rest": f_s, "hidden_impact": f_c})
        c.derived.update({"speed_m_per_s": round(va, 4), "first_out_speed_m_per_s": round(float(wb), 4)})
        c.prompt = (
            f"A {look.colour('first')} ball rolls behind a {look.colour('screen')} screen, slowing down; a "
            f"{look.colour('second')} ball rolls after it. Continue the video."
        )
        c.outcome = (
            f"the {look.colour('second')} ball hits the hidden {look.colour('first')} ball behind the screen and "
            f"stops; the {look.colour('first')} ball rolls out beyond the screen"
        )
        return c
