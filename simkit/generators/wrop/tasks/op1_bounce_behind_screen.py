"""OP-1/bounce_behind_screen."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH, SCREEN_T
from simkit.generators.wrop.kit_op1 import (
    ball_on_path,
    hop_z,
    occlusion_composition,
    panel,
    side_frames,
    steady_x,
)
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class BounceBehindScreen(Task):
    family, name = "OP-1", "bounce_behind_screen"
    summary = "a bouncing ball hops behind a tall screen and must come out still hopping in rhythm"
    description = (
        "A ball bounces elastically across the floor in equal parabolic hops and passes behind a screen tall "
        "enough to hide its highest hop. While it is hidden it keeps bouncing, so it must reappear beyond "
        "the screen at the time its horizontal speed implies and at the height the hop rhythm implies (its "
        "phase carried through the occlusion), not rolling, not at rest and not restarted. Ball size, hop "
        "height and phase, screen width, direction and timing vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "apex": Uniform(0.25, 0.55),
        "phase": Uniform(0.0, 1.0),
        "screen_width": Uniform(1.2, 1.6),
        "direction": Choice([1, -1]),
        "centre_at": Uniform(0.72, 0.76),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, d, r, w = clip.frames, s["direction"], s["radius"], s["screen_width"]
        x = steady_x(clip, 0.0, s["centre_at"], d, span=6.5)
        z = r + hop_z(np.arange(T) / clip.fps, s["apex"], s["phase"])
        ball = ball_on_path("target", look, "target", clip, r, np.stack([x, np.full(T, DEPTH), z], 1))
        top = 2 * r + s["apex"] + 0.5
        scr = panel("screen", look, "screen", T, (-w / 2, -SCREEN_T / 2, 0), (w / 2, SCREEN_T / 2, top))
        c, sg = occlusion_composition(clip, [look.ground(T), ball, scr], ball, [scr], self.view)
        end = c.events["occlusion_end"]
        c.expectations += [
            X.side("target", "screen", side_frames(sg, x, 0.0, d, end), d),
            X.side("target", "screen", side_frames(sg, x, 0.0, -d), -d),
            X.no_penetration("target", "ground"),
        ]
        tau = 2 * np.sqrt(2 * s["apex"] / 9.81)
        c.derived.update({"hop_period_s": round(float(tau), 4), "screen_height": round(top, 4)})
        c.prompt = (
            f"A {look.colour('target')} ball bounces across the floor toward a tall {look.colour('screen')} "
            f"screen. Continue the video."
        )
        c.outcome = "the ball bounces on behind the screen and hops out beyond it in the same rhythm"
        return c
