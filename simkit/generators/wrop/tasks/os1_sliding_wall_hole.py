"""OS-1/sliding_wall_hole."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_APPROACH, OS1_VIEW, WALL_T, Motion, SceneObject
from simkit.generators.wrop.kit_os1 import back_off, roll_ball_at_barrier
from simkit.scenes.wrop.params import Choice, Uniform

SIDE = 2.2  # m of wall on either side of the hole


class SlidingWallHole(Task):
    family, name = "OS-1", "sliding_wall_hole"
    summary = "a wall with a hole slides sideways across a ball's path; the ball passes only if the hole is there in time"
    description = (
        "A wall with an opening wider than the ball slides sideways across the ball's path while the ball "
        "rolls at it. Whether the ball passes depends on where the opening is when it arrives, which the "
        "input shows (the wall's speed, the ball's speed and the distances): if the opening is in front of "
        "the ball while it crosses the wall's thickness, it rolls through without touching the rims; if the "
        "solid part is there, it strikes the wall face at the declared frame and rolls back. Ball size, "
        "opening width, the wall's speed and direction, the timing offset (aligned or missed), speed and "
        "restitution vary."
    )
    structural = {
        "radius": Uniform(0.14, 0.2),
        "aligned": Choice([True, False]),
        "clearance": Uniform(0.2, 0.35),
        "wall_speed_share": Uniform(0.4, 0.85),
        "miss_by": Uniform(0.05, 0.25),
        "sense": Choice([1, -1]),
        "speed": Uniform(1.2, 2.0),
        "restitution": Uniform(0.3, 0.6),
        "contact_at": Uniform(0.56, 0.66),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, fps, r, t = clip.frames, clip.fps, s["radius"], WALL_T / 2
        a, hole_h = 2 * r + s["clearance"], 2 * r + 0.25
        H = hole_h + 0.45
        f_c = clip.at(s["contact_at"], lo=clip.cut)
        v = min(s["speed"], OS1_APPROACH * fps / f_c)  # the ball's speed (m/s, barrier_run's)
        # the hole may drift by at most (clearance / 2 - 1 cm) while the ball crosses the wall's thickness
        vw = s["wall_speed_share"] * (s["clearance"] / 2 - 0.01) * v / (t + r)  # m/s
        y0 = 0.0 if s["aligned"] else -s["sense"] * (a / 2 + r + s["miss_by"])  # hole centre at f_c
        yh = y0 + s["sense"] * vw * (np.arange(T) - f_c) / fps
        spans = {
            "wall_left": (-a / 2 - SIDE, -a / 2, 0.0, H),
            "wall_right": (a / 2, a / 2 + SIDE, 0.0, H),
            "lintel": (-a / 2, a / 2, hole_h, H),
        }
        parts = []
        for name, (y_lo, y_hi, z_lo, z_hi) in spans.items():
            m = Motion(T, fps, (0, 0, (z_lo + z_hi) / 2))
            m.pos[:, 1] = yh + (y_lo + y_hi) / 2
            parts.append(
                SceneObject(
                    name, "wall", "box", (WALL_T, y_hi - y_lo, z_hi - z_lo), look.mat("wall"), m.track()
                )
            )
        struck = "wall_left" if y0 > 0 else "wall_right"
        c = roll_ball_at_barrier(
            clip, look, s, parts, s["aligned"], -t - r, "lintel" if s["aligned"] else struck
        )
        c.derived.update(
            {"wall_speed_m_per_s": round(s["sense"] * vw, 4), "hole_offset_at_event": round(y0, 4)}
        )
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward a {look.colour('wall')} wall with an opening that "
            f"slides sideways across its path. Continue the video."
        )
        c.outcome = (
            "the opening is in front of the ball when it arrives and the ball rolls through"
            if s["aligned"]
            else f"the opening has not reached the ball's path in time; the ball hits the wall and {back_off(c)}"
        )
        return c
