"""OP-3/cup_traps_rolling_ball."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, CUP_R, Motion, SceneObject, X, cup
from simkit.scenes.wrop.params import Choice, Uniform


class CupTrapsRollingBall(Task):
    family, name = "OP-3", "cup_traps_rolling_ball"
    summary = (
        "a cup drops over a rolling ball; the trapped ball rolls on to the cup's far wall and stops there"
    )
    description = (
        "A ball rolls along the floor toward a cup hanging low above the floor. After the cut, as the ball "
        "passes under it, the cup drops and traps it. Inside, the ball keeps rolling until it meets the cup's "
        "far wall and stops against it; later the cup is lifted. The ball must be revealed at rest against "
        "the side of the cup's footprint it was heading for, not at the cup's centre where it was trapped and "
        "not outside the cup: a hidden object keeps its motion until a container wall stops it. Ball size, "
        "speed, direction, trap place and the hover height vary."
    )
    structural = {
        "radius": Uniform(0.1, 0.17),
        "speed": Uniform(0.6, 1.4),
        "direction": Choice([1, -1]),
        "x": Uniform(-0.5, 0.5),
        "trap_at": Uniform(0.52, 0.6),
    }
    colour_slots = ("target", "cup")

    def compose(self, s, clip, look):
        T, fps, cut, r, v, d, xc = (
            clip.frames,
            clip.fps,
            clip.cut,
            s["radius"],
            s["speed"],
            s["direction"],
            s["x"],
        )
        inside = CUP_R - r  # centre travel from the cup axis to the far wall (m)
        budget = T - 7 - cut  # frames for the drop and the roll to the wall (short clips: a faster ball)
        v = max(v, 1.9 * inside * fps / budget)
        n = int(np.ceil(inside / v * fps))  # frames from the trap to the wall
        k = max(2, int(0.9 * inside / v * fps))  # drop frames: the ball is under the cup the whole drop
        f_land = min(clip.at(s["trap_at"], lo=cut + k), T - 7 - n)
        f_stop = f_land + n
        lift0 = max(f_stop + 1, T - 3 - max(2, (T - cut) // 6))
        hover = 2 * r + 0.25  # rim height while hanging
        c = Motion(T, fps, (xc, 0, hover + CUP_H / 2))
        c.move(f_land - k, f_land, (xc, 0, CUP_H / 2)).move(
            lift0, T - 3, (xc, 0, hover + 0.6 + CUP_H / 2), "smooth"
        )
        ball = Motion(T, fps, (xc - d * v * f_land / fps, 0, r)).velocity(0, (d * v, 0, 0), f_land)
        ball.velocity(f_land, (d * inside / n * fps, 0, 0), f_stop).roll(r)
        rim = c.pos[:, 2] - CUP_H / 2
        hid = [f for f in range(T) if rim[f] <= 0.01]
        exps = [
            X.hidden("target", hid),
            X.visible("target", [f for f in range(T) if rim[f] >= 2 * r + 0.5 and f > lift0]),
            X.same_place("target", list(range(f_stop, T))),
            X.side("target", "cup", [T - 1], d, space="world"),
            X.same_place("cup", list(range(f_land, lift0 + 1))),
        ]
        return Composition(
            [
                look.ground(T),
                cup("cup", look, "cup", c.track()),
                SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()),
            ],
            {"trap": f_land, "stop": f_stop, "lift": lift0},
            "trap",
            exps,
            prompt=f"A {look.colour('target')} ball rolls toward a {look.colour('cup')} cup hanging low above "
            "the floor. Continue the video.",
            outcome="the cup drops over the ball; the ball rolls on to the far wall inside and is revealed resting "
            "there when the cup lifts",
            derived={"ball_end_x": round(xc + d * inside, 4), "speed_m_per_s": round(v, 4), "drop_frames": k},
        )
