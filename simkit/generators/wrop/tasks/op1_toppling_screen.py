"""OP-1/toppling_screen."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH, SCREEN_T, Motion, screen
from simkit.generators.wrop.kit_op1 import ball_on_path, line_xyz, occlusion_composition
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class TopplingScreen(Task):
    family, name = "OP-1", "toppling_screen"
    summary = "a screen hiding a rolling ball topples over forward; the ball must be revealed further along"
    description = (
        "A ball rolls behind a standing screen. While it is hidden the screen tips over forward, toward the "
        "camera, about its bottom edge and falls flat on the floor, uncovering the path behind it. The "
        "occluder is removed by falling, not by sliding away: the ball must be revealed where its constant "
        "speed has carried it in the meantime, past the point where it vanished and still rolling, not "
        "frozen, gone or flattened with the screen. Ball size, screen width and height, when the screen "
        "falls and how fast, direction and timing vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.17),
        "screen_width": Uniform(1.4, 1.9),
        "fall_frames": Uniform(0.06, 0.1),
        "fall_at": Uniform(0.0, 0.4),
        "direction": Choice([1, -1]),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, fps, d, r, w = clip.frames, clip.fps, s["direction"], s["radius"], s["screen_width"]
        sh = 2 * r + 0.45
        inner = w / 2 - r - 0.2
        f_flat = clip.at(0.78)  # the ball is past the middle when the screen lies flat ...
        f_in = clip.at(0.62, lo=clip.cut + 2)  # ... and just inside the near edge here,
        while (
            f_in < f_flat - 3
            and inner + (inner + r + 0.25) * (f_in - clip.cut) / (f_flat - f_in) < w / 2 + r + 0.12
        ):
            f_in += 1  # clear of the screen on the cut frame
        x = -d * inner + d * (inner + r + 0.25) * (np.arange(T) - f_in) / (f_flat - f_in)
        ball = ball_on_path("target", look, "target", clip, r, line_xyz(x, DEPTH, r))
        n = max(2, clip.at(s["fall_frames"]))
        f0 = f_in + 1 + int(round(s["fall_at"] * max(f_flat - n - f_in - 1, 0)))
        f1 = min(f0 + n, f_flat)
        u = np.clip((np.arange(T) - f0) / max(f1 - f0, 1), 0.0, 1.0)
        th = (np.pi / 2) * u * u  # tipping about the bottom front edge, accelerating as it falls
        m = Motion(T, fps, (0, 0, sh / 2))
        m.pos[:, 1] = -SCREEN_T / 2 + (SCREEN_T / 2) * np.cos(th) - (sh / 2) * np.sin(th)
        m.pos[:, 2] = (SCREEN_T / 2) * np.sin(th) + (sh / 2) * np.cos(th)
        m.rot[:, 0] = th
        scr = screen("screen", look, "screen", m.track(), w, sh)
        c, sg = occlusion_composition(clip, [look.ground(T), ball, scr], ball, [scr], self.view)
        seen = [f for f in range(f1, T) if sg.clear[f]]
        if not seen:
            raise ValueError("the ball is not revealed after the screen falls")
        c.expectations += [
            X.side("target", "screen", seen, d, space="world"),
            X.no_penetration("screen", "ground"),
        ]
        c.events.update({"topple_start": f0, "screen_flat": f1})
        c.derived.update({"speed_m_per_s": round(float(x[1] - x[0]) * d * fps, 4), "fall": [f0, f1]})
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward a {look.colour('screen')} screen standing on the "
            f"floor. Continue the video."
        )
        c.outcome = "the screen topples over forward while the ball is behind it, revealing the ball rolled further on"
        return c
