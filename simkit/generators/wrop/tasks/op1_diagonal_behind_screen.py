"""OP-1/diagonal_behind_screen."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import SCREEN_T
from simkit.generators.wrop.kit_op1 import ball_on_path, occlusion_composition, panel, side_frames, steady_x
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class DiagonalBehindScreen(Task):
    family, name = "OP-1", "diagonal_behind_screen"
    summary = "a ball rolls diagonally behind a screen, away from or toward the camera; it must come out at its new depth"
    description = (
        "A ball rolls on a straight diagonal path behind a wide screen, moving sideways and at the same time "
        "away from the camera (or toward it). Because its depth changes while it is hidden, it must "
        "reappear on the far side at the depth its path implies: smaller and higher in the image when it "
        "went away, larger and lower when it came closer, never at its entry depth and never resized in a "
        "way its path does not predict (size constancy through occlusion). Ball size, the path's slope and "
        "sense, screen width, direction and timing vary."
    )
    structural = {
        "radius": Uniform(0.13, 0.18),
        "depth_change": Uniform(0.6, 1.0),
        "away": Choice([True, False]),
        "screen_width": Uniform(1.2, 1.5),
        "direction": Choice([1, -1]),
        "centre_at": Uniform(0.72, 0.76),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, d, r, w = clip.frames, s["direction"], s["radius"], s["screen_width"]
        x = steady_x(clip, 0.0, s["centre_at"], d, span=6.0)
        slope = (1 if s["away"] else -1) * s["depth_change"] / 1.5  # m of depth per m sideways
        y = 0.9 + slope * d * x
        ball = ball_on_path(
            "target", look, "target", clip, r, np.stack([x, np.clip(y, 0.25, None), np.full(T, r)], 1)
        )
        y = ball.pose.position[:, 1]
        top = 2 * r + 0.5
        scr = panel("screen", look, "screen", T, (-w / 2, -SCREEN_T / 2, 0), (w / 2, SCREEN_T / 2, top))
        c, sg = occlusion_composition(clip, [look.ground(T), ball, scr], ball, [scr], self.view)
        end = c.events["occlusion_end"]
        after = side_frames(sg, x, 0.0, d, end)
        before = [f for f in range(c.events["occlusion_onset"]) if sg.clear[f]]
        c.expectations.append(X.side("target", "screen", after, d))
        sign = 1 if s["away"] else -1
        c.derived.update(
            {
                "y_before": round(float(y[before[-1]]), 4) if before else None,
                "y_after": round(float(y[after[0]]), 4),
                "depth_sign": sign,
            }
        )
        way = "away from the camera" if s["away"] else "toward the camera"
        c.prompt = (
            f"A {look.colour('target')} ball rolls diagonally across the floor, {way}, toward a "
            f"{look.colour('screen')} screen. Continue the video."
        )
        c.outcome = f"the ball passes behind the screen and comes out beyond it, {'farther away' if s['away'] else 'closer'} than it went in"
        return c
