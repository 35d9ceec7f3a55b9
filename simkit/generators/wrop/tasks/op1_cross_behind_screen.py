"""OP-1/cross_behind_screen."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import SCREEN_T
from simkit.generators.wrop.kit_op1 import (
    ball_on_path,
    line_xyz,
    occlusion_composition,
    panel,
    side_frames,
    sight,
    sight_expectations,
)
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Uniform


class CrossBehindScreen(Task):
    family, name = "OP-1", "cross_behind_screen"
    summary = (
        "two balls roll toward each other and pass behind one screen; each must come out on the far side"
    )
    description = (
        "Two balls of different colours roll toward each other in two lanes, one from each side, and meet "
        "behind a screen. Because the lanes differ they pass without touching. Identity through occlusion "
        "is the test: each ball must reappear on the side opposite to where it entered, with its own colour, "
        "size and speed, rather than the two bouncing back, swapping colours or one of them vanishing. Ball "
        "sizes, speeds, lane order, screen width and timing vary."
    )
    structural = {
        "r_left": Uniform(0.12, 0.18),
        "r_right": Uniform(0.12, 0.18),
        "speed_ratio": Uniform(0.7, 1.0),
        "screen_width": Uniform(1.0, 1.3),
        "meet_at": Uniform(0.7, 0.76),
    }
    colour_slots = ("left", "right", "screen")

    def compose(self, s, clip, look):
        T, w = clip.frames, s["screen_width"]
        f_m = clip.at(s["meet_at"])
        v_fast = (w / 2 + max(s["r_left"], s["r_right"]) + 0.2) / (f_m - clip.cut) / s["speed_ratio"]
        v_slow = v_fast * s["speed_ratio"]
        n = np.arange(T) - f_m
        left = ball_on_path("left", look, "left", clip, s["r_left"], line_xyz(v_fast * n, 0.35, s["r_left"]))
        right = ball_on_path(
            "right", look, "right", clip, s["r_right"], line_xyz(-v_slow * n, 0.85, s["r_right"])
        )
        top = 2 * max(s["r_left"], s["r_right"]) + 0.5
        scr = panel("screen", look, "screen", T, (-w / 2, -SCREEN_T / 2, 0), (w / 2, SCREEN_T / 2, top))
        c, _ = occlusion_composition(clip, [look.ground(T), left, right, scr], left, [scr], self.view)
        sr = sight(right, [scr], self.view)
        c.expectations += sight_expectations("right", sr, f_m)
        xl, xr = left.pose.position[:, 0], right.pose.position[:, 0]
        c.expectations += [
            X.side("left", "screen", side_frames(sight(left, [scr], self.view), xl, 0.0, 1, f_m), 1),
            X.side("right", "screen", side_frames(sr, xr, 0.0, -1, f_m), -1),
            X.side("left", "right", list(range(f_m)), -1, space="world"),
            X.side("left", "right", list(range(f_m + 1, T)), 1, space="world"),
        ]
        c.events["meeting"] = f_m
        c.derived["speeds_m_per_s"] = [round(v_fast * clip.fps, 4), round(-v_slow * clip.fps, 4)]
        c.prompt = (
            f"A {look.colour('left')} ball rolls in from the left and a {look.colour('right')} ball from the "
            f"right, toward the same {look.colour('screen')} screen. Continue the video."
        )
        c.outcome = (
            f"the balls pass each other behind the screen: the {look.colour('left')} one comes out on the "
            f"right, the {look.colour('right')} one on the left"
        )
        return c
