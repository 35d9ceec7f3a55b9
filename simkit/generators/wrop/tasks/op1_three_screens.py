"""OP-1/three_screens."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH, SCREEN_T
from simkit.generators.wrop.kit_op1 import ball_on_path, line_xyz, occlusion_composition, panel
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class ThreeScreens(Task):
    family, name = "OP-1", "three_screens"
    summary = "a ball passes behind three screens with uneven gaps; it must show in each gap for as long as the gap implies"
    description = (
        "Three screens stand in a row with gaps of different widths between them. A ball rolls behind the "
        "first screen in the input, crosses the first gap at the cut, and after the cut passes behind the "
        "second and the third screen. One object on one path: it must show in the second gap for a time "
        "proportional to that gap's width (short in a narrow gap, longer in a wide one), never appear "
        "behind a screen, and come out beyond the last screen. Screen widths, both gaps, ball size, "
        "direction and speed vary."
    )
    structural = {
        "radius": Uniform(0.1, 0.13),
        "widths": Uniform(0.55, 0.7),
        "gap1": Uniform(0.6, 0.8),
        "gap2": Uniform(0.8, 1.2),
        "direction": Choice([1, -1]),
        "speed_span": Uniform(8.0, 9.0),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, d, r, w = clip.frames, s["direction"], s["radius"], s["widths"]
        g1, g2 = s["gap1"], s["gap2"]
        total = 3 * w + g1 + g2
        lefts = [-total / 2, -total / 2 + w + g1, -total / 2 + 2 * w + g1 + g2]
        centres = [d * (lo + w / 2) for lo in lefts]  # first screen on the entry side
        gap1_mid = d * (lefts[0] + w + g1 / 2)
        v = s["speed_span"] / (T - 1)
        x = gap1_mid + d * v * (np.arange(T) - clip.cut)  # in the middle of the first gap at the cut
        ball = ball_on_path("target", look, "target", clip, r, line_xyz(x, DEPTH, r))
        top = 2 * r + 0.45
        scr = [
            panel(
                f"screen{i + 1}",
                look,
                "screen",
                T,
                (c - w / 2, -SCREEN_T / 2, 0),
                (c + w / 2, SCREEN_T / 2, top),
            )
            for i, c in enumerate(centres)
        ]
        c, sg = occlusion_composition(clip, [look.ground(T), ball, *scr], ball, scr, self.view)
        gap2_mid = d * (lefts[1] + w + g2 / 2)
        in_gap2 = [f for f in range(T) if sg.clear[f] and abs(x[f] - gap2_mid) < g2 / 2]
        beyond = [f for f in range(T) if sg.clear[f] and d * (x[f] - centres[2]) > 0]
        if not in_gap2 or not beyond:
            raise ValueError("the ball is not seen in the second gap and beyond the last screen")
        c.expectations += [
            X.side("target", "screen2", in_gap2, d),
            X.side("target", "screen3", in_gap2, -d),
            X.side("target", "screen3", beyond, d),
        ]
        c.events["second_gap"] = in_gap2[0]
        c.derived.update({"speed_m_per_s": round(v * clip.fps, 4), "gaps": [round(g1, 4), round(g2, 4)]})
        c.prompt = (
            f"A {look.colour('target')} ball rolls along a row of three {look.colour('screen')} screens "
            f"standing with gaps between them. Continue the video."
        )
        c.outcome = "the ball shows in the next gap, passes behind the remaining screens and comes out beyond the last"
        return c
