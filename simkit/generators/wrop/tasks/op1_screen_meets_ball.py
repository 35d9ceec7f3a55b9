"""OP-1/screen_meets_ball."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH, Motion, screen
from simkit.generators.wrop.kit_op1 import ball_on_path, line_xyz, occlusion_composition
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class ScreenMeetsBall(Task):
    family, name = "OP-1", "screen_meets_ball"
    summary = (
        "a screen slides one way while a ball rolls the other; the ball must emerge behind the screen's trail"
    )
    description = (
        "Both the occluder and the target move: a screen slides across the floor in one direction while a "
        "ball rolls the other way behind it, so they close at the sum of their speeds and the occlusion is "
        "short. Where the ball reappears depends on its own speed only, not on the screen's: after the "
        "screen has passed it the ball must be on the side the screen came from, still rolling at its "
        "speed, not carried along with the screen and not stopped. Ball size, screen width, the two speeds, "
        "direction and timing vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "screen_width": Uniform(1.0, 1.4),
        "ball_span": Uniform(2.4, 3.4),
        "screen_span": Uniform(2.4, 3.4),
        "direction": Choice([1, -1]),
        "meet_at": Uniform(0.7, 0.74),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, fps, d, r, w = clip.frames, clip.fps, s["direction"], s["radius"], s["screen_width"]
        n = np.arange(T) - clip.at(s["meet_at"])
        vb, vs = s["ball_span"] / (T - 1), s["screen_span"] / (T - 1)  # m per frame
        x = d * vb * n
        ball = ball_on_path("target", look, "target", clip, r, line_xyz(x, DEPTH, r))
        sh = 2 * r + 0.45
        m = Motion(T, fps, (0, 0, sh / 2))
        m.pos[:, 0] = -d * vs * n
        scr = screen("screen", look, "screen", m.track(), w, sh)
        c, sg = occlusion_composition(clip, [look.ground(T), ball, scr], ball, [scr], self.view)
        end = c.events["occlusion_end"]
        after = [f for f in range(end + 1, T) if sg.clear[f]]
        before = [f for f in range(c.events["occlusion_onset"]) if sg.clear[f]]
        if not after or not before:
            raise ValueError("the ball is not clear before and after the screen passes")
        c.expectations += [X.side("target", "screen", after, d), X.side("target", "screen", before, -d)]
        c.derived.update(
            {"ball_speed_m_per_s": round(vb * fps, 4), "screen_speed_m_per_s": round(vs * fps, 4)}
        )
        c.prompt = (
            f"A {look.colour('target')} ball rolls one way while a {look.colour('screen')} screen slides the "
            f"other way in front of its path. Continue the video."
        )
        c.outcome = (
            "the screen passes in front of the ball, which comes out behind the screen still rolling on"
        )
        return c
