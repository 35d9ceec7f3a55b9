"""OP-3/ball_rolls_into_cup."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X, in_view
from simkit.scenes.wrop.params import Choice, Uniform

TUBE_R, TUBE_L = 0.4, 0.95  # cup lying on its side: radius, length (m)


class BallRollsIntoCup(Task):
    family, name = "OP-3", "ball_rolls_into_cup"
    summary = "a ball rolls in from off screen into a cup lying on its side and stops; the cup is lifted away"
    description = (
        "A big cup lies on its side with its open end facing the edge of the picture. A ball rolls in from off "
        "screen, slowing down under rolling friction, and after the cut it rolls into the cup and comes to rest "
        "inside, out of sight. Then the cup is lifted straight up. The ball's stopping point follows from its "
        "deceleration, which can be read from the visible approach (it enters the picture fast and slows "
        "uniformly); the ball must be revealed at rest inside "
        "the cup's footprint, neither gone nor still rolling nor back at the mouth. Ball size, approach "
        "direction, approach distance and the stopping point vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "direction": Choice([1, -1]),
        "depth_in": Uniform(0.0, 1.0),
        "lead": Uniform(0.2, 0.5),
        "settle": Uniform(0.2, 0.3),
    }
    colour_slots = ("target", "cup")

    def compose(self, s, clip, look):
        T, fps, cut, r, d = clip.frames, clip.fps, clip.cut, s["radius"], s["direction"]
        mouth = -d * TUBE_L / 2  # cup centred at x = 0, open end toward the incoming ball
        lo, hi = mouth + d * (r + 0.2), d * (TUBE_L / 2 - r - 0.03)  # resting range of the centre inside
        x_stop = lo + (hi - lo) * s["depth_in"]
        f_stop = min(cut + clip.at(s["settle"]), T - 6)  # leaves 3 frames for the lift
        # uniform deceleration a to rest at x_stop on f_stop; at the cut the ball is still ``lead`` m short of
        # being fully inside (centre r + 0.1 m past the mouth): remaining distance a (t_stop - t)^2 / 2
        left_in = abs(x_stop - (mouth + d * (r + 0.1))) + s["lead"]
        a = 2 * left_in / ((f_stop - cut) / fps) ** 2
        t_s = f_stop / fps
        ball = Motion(T, fps, (x_stop - d * a * t_s**2 / 2, 0, r)).decelerate(0, (d * a * t_s, 0, 0), a)
        ball.roll(r)
        lift0 = f_stop + 1
        rot = (0.0, -d * np.pi / 2, 0.0)
        c = Motion(T, fps, (0, 0, TUBE_R), rotation=rot).move(lift0, T - 3, (0, 0, TUBE_R + 1.1), "smooth")
        x = ball.pos[:, 0]
        inside = d * (x - mouth) >= r + 0.1 - 1e-6
        hid = [f for f in range(T) if inside[f] and c.pos[f, 2] <= TUBE_R + 1e-6]
        if not hid or hid[0] < cut:
            raise ValueError("the ball enters the cup before the cut")
        outside = [f for f in range(T) if d * (mouth - x[f]) >= r + 0.2 and in_view(x[f] - d * r)]
        up = [f for f in range(T) if c.pos[f, 2] - TUBE_R >= 2 * r + 0.45]
        exps = [
            X.hidden("target", hid),
            X.visible("target", outside + up),
            X.same_place("target", list(range(f_stop, T))),
        ]
        return Composition(
            [
                look.ground(T),
                SceneObject("cup", "container", "cup", (TUBE_R, TUBE_L), look.mat("cup"), c.track()),
                SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()),
            ],
            {"enters": hid[0], "rest": f_stop, "lift": lift0},
            "enters",
            exps,
            prompt=f"A {look.colour('target')} ball rolls toward a {look.colour('cup')} cup lying on its side. "
            "Continue the video.",
            outcome="the ball rolls into the cup and stops inside; lifting the cup reveals it resting there",
            derived={"stop_x": round(x_stop, 4), "decel_m_per_s2": round(a, 4)},
        )
