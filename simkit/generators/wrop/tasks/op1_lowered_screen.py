"""OP-1/lowered_screen."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH, Motion, screen
from simkit.generators.wrop.kit_op1 import ball_on_path, line_xyz, occlusion_composition
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class LoweredScreen(Task):
    family, name = "OP-1", "lowered_screen"
    summary = (
        "a screen is lowered in front of a rolling ball and raised again; the ball must be further along"
    )
    description = (
        "A screen hangs above the floor while a ball rolls beneath it. After the cut the screen is lowered "
        "to the floor in front of the moving ball, hiding it, stays down for a while and is raised again. "
        "The occluder, not the target, moves: the hidden ball keeps rolling, so when the screen lifts it must "
        "be revealed where its constant speed has carried it, further along than where it was covered, not "
        "frozen at the place it vanished and not gone. Ball size, screen width, how long the screen stays "
        "down, direction and timing vary."
    )
    structural = {
        "radius": Uniform(0.13, 0.2),
        "screen_width": Uniform(1.7, 2.2),
        "down_at": Uniform(0.52, 0.56),
        "down_for": Uniform(0.16, 0.22),
        "direction": Choice([1, -1]),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, fps, d, r, w = clip.frames, clip.fps, s["direction"], s["radius"], s["screen_width"]
        sh = 2 * r + 0.45
        f0 = clip.at(s["down_at"], lo=clip.cut)
        f1 = f0 + max(2, clip.at(0.06))
        f2 = f1 + max(3, clip.at(s["down_for"]))
        f3 = min(f2 + max(2, clip.at(0.06)), T - 3)
        # the ball is just inside the near edge when the screen lands and short of the far edge when it lifts
        inner = w / 2 - r - 0.25
        x = -d * inner + d * 2 * inner * (np.arange(T) - f1) / (f2 - f1)
        ball = ball_on_path("target", look, "target", clip, r, line_xyz(x, DEPTH, r))
        up = 2 * r + 0.5 + sh / 2
        m = Motion(T, fps, (0, 0, up))
        m.move(f0, f1, (0, 0, sh / 2), "smooth")
        m.move(f2, f3, (0, 0, up), "smooth")
        scr = screen("screen", look, "screen", m.track(), w, sh)
        c, sg = occlusion_composition(clip, [look.ground(T), ball, scr], ball, [scr], self.view)
        seen_after = [f for f in range(f3, T) if sg.clear[f]]
        if not seen_after:
            raise ValueError("the ball is not revealed after the screen lifts")
        c.events.update({"screen_down": f1, "screen_lifts": f2})
        c.expectations.append(X.side("target", "screen", seen_after, d, space="world"))
        c.derived.update({"speed_m_per_s": round(float(x[1] - x[0]) * d * fps, 4), "screen_down": [f1, f2]})
        c.prompt = (
            f"A {look.colour('target')} ball rolls along the floor under a {look.colour('screen')} screen "
            f"hanging above it. Continue the video."
        )
        c.outcome = (
            "the screen comes down over the rolling ball; when it lifts the ball has rolled further on"
        )
        return c
