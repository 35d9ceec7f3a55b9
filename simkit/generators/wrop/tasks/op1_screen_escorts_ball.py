"""OP-1/screen_escorts_ball."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH, Motion, screen
from simkit.generators.wrop.kit_op1 import ball_on_path, line_xyz, occlusion_composition, side_frames
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class ScreenEscortsBall(Task):
    family, name = "OP-1", "screen_escorts_ball"
    summary = "a sliding screen catches up with a rolling ball, travels along in front of it, then stops"
    description = (
        "A screen slides faster than a ball rolls and catches up with it, hiding it, then slows to the "
        "ball's speed and travels along in front of it for a while before it stops. How long the ball stays "
        "hidden has nothing to do with the screen's width: while the screen escorts it the ball stays "
        "covered, and once the screen stops the ball must roll out ahead of it at its own speed, not stay "
        "with the stopped screen and not come out behind it. Ball size, screen width, the escort's length, "
        "speeds, direction and timing vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "screen_width": Uniform(1.0, 1.3),
        "ball_span": Uniform(4.6, 5.4),
        "catch_up": Uniform(2.2, 2.6),
        "escort_for": Uniform(0.08, 0.12),
        "direction": Choice([1, -1]),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, fps, d, r, w = clip.frames, clip.fps, s["direction"], s["radius"], s["screen_width"]
        vb = s["ball_span"] / (T - 1)  # m per frame
        f_j = clip.at(0.64)  # the screen is centred on the ball from here ...
        f_k = min(f_j + max(2, clip.at(s["escort_for"])), T - 5)  # ... to here, then stops
        x = d * vb * (np.arange(T) - (f_j + f_k) / 2)
        ball = ball_on_path("target", look, "target", clip, r, line_xyz(x, DEPTH, r))
        vs = s["catch_up"] * vb
        sh = 2 * r + 0.45
        m = Motion(T, fps, (x[f_j] - d * vs * f_j, 0, sh / 2))
        m.velocity(0, (d * vs * fps, 0, 0), f_j)
        m.velocity(f_j, (d * vb * fps, 0, 0), f_k)
        scr = screen("screen", look, "screen", m.track(), w, sh)
        c, sg = occlusion_composition(clip, [look.ground(T), ball, scr], ball, [scr], self.view)
        c.expectations += [
            X.side("target", "screen", side_frames(sg, x - m.pos[:, 0], 0.0, d, f_k), d),
            X.same_place("screen", list(range(f_k, T))),
        ]
        c.events.update({"escort_start": f_j, "screen_stops": f_k})
        c.derived.update(
            {"ball_speed_m_per_s": round(vb * fps, 4), "screen_speed_m_per_s": round(vs * fps, 4)}
        )
        c.prompt = (
            f"A {look.colour('target')} ball rolls along the floor; a {look.colour('screen')} screen slides "
            f"the same way behind it, faster. Continue the video."
        )
        c.outcome = (
            "the screen catches up, covers the ball for a while, stops, and the ball rolls out ahead of it"
        )
        return c
