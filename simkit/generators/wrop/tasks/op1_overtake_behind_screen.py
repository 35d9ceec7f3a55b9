"""OP-1/overtake_behind_screen."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import SCREEN_T
from simkit.generators.wrop.kit_op1 import (
    ball_on_path,
    line_xyz,
    occlusion_composition,
    panel,
    sight,
    sight_expectations,
)
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class OvertakeBehindScreen(Task):
    family, name = "OP-1", "overtake_behind_screen"
    summary = "a fast ball catches up with a slow one behind a screen; the fast one must come out first"
    description = (
        "Two balls of different colours roll the same way in two lanes, a slow one ahead and a fast one "
        "behind it. The fast ball draws level with the slow one while both are behind a screen, so the "
        "overtaking is never seen. Tracking two hidden objects with their own speeds, a model must let the "
        "fast ball reappear first and ahead of the slow one, the reverse of the order in which they went in, "
        "without swapping colours or merging them. Ball sizes, the speed ratio, screen width, direction and "
        "timing vary."
    )
    structural = {
        "r_slow": Uniform(0.12, 0.17),
        "r_fast": Uniform(0.12, 0.17),
        "speed_ratio": Uniform(0.45, 0.6),
        "screen_width": Uniform(0.9, 1.1),
        "direction": Choice([1, -1]),
        "level_at": Uniform(0.72, 0.76),
    }
    colour_slots = ("slow", "fast", "screen")

    def compose(self, s, clip, look):
        T, d, w = clip.frames, s["direction"], s["screen_width"]
        f_o = clip.at(s["level_at"])
        v_s = (w / 2 + max(s["r_slow"], s["r_fast"]) + 0.25) / (f_o - clip.cut)  # m per frame
        v_f = v_s / s["speed_ratio"]
        n = np.arange(T) - f_o
        slow = ball_on_path("slow", look, "slow", clip, s["r_slow"], line_xyz(d * v_s * n, 0.35, s["r_slow"]))
        fast = ball_on_path("fast", look, "fast", clip, s["r_fast"], line_xyz(d * v_f * n, 0.85, s["r_fast"]))
        top = 2 * max(s["r_slow"], s["r_fast"]) + 0.5
        scr = panel("screen", look, "screen", T, (-w / 2, -SCREEN_T / 2, 0), (w / 2, SCREEN_T / 2, top))
        c, _ = occlusion_composition(clip, [look.ground(T), slow, fast, scr], slow, [scr], self.view)
        sf = sight(fast, [scr], self.view)
        c.expectations += sight_expectations("fast", sf, f_o)
        c.expectations += [
            X.side("fast", "slow", list(range(f_o)), -d, space="world"),
            X.side("fast", "slow", list(range(f_o + 1, T)), d, space="world"),
            X.side("fast", "screen", [f for f in range(f_o, T) if sf.clear[f]], d),
        ]
        c.events["level"] = f_o
        c.derived.update(
            {"speed_slow_m_per_s": round(v_s * clip.fps, 4), "speed_fast_m_per_s": round(v_f * clip.fps, 4)}
        )
        c.prompt = (
            f"A {look.colour('slow')} ball and a {look.colour('fast')} ball roll the same way toward a "
            f"{look.colour('screen')} screen, the {look.colour('slow')} one ahead. Continue the video."
        )
        c.outcome = f"the {look.colour('fast')} ball overtakes behind the screen and comes out first, ahead of the other"
        return c
