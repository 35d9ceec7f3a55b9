"""OS-1/two_walls_in_series."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T, wall_part
from simkit.generators.wrop.kit_os1 import back_off, roll_ball_at_barrier
from simkit.scenes.wrop.params import Choice, Uniform


class TwoWallsInSeries(Task):
    family, name = "OS-1", "two_walls_in_series"
    summary = "a ball rolls through a wide opening in a first wall, then meets a second wall's opening, wide or narrow"
    description = (
        "Two walls stand one behind the other, each with an opening at floor level. In the input the ball "
        "rolls through the first, wide opening; after the cut it reaches the second. Having passed one "
        "opening says nothing about the next: the ball passes the second wall only if it is smaller than "
        "that opening too, and otherwise strikes its rim at the declared frame and rolls back toward the "
        "first wall. Ball size, both openings, the distance between the walls, speed and restitution vary."
    )
    structural = {
        "radius": Uniform(0.14, 0.2),
        "fits": Choice([True, False]),
        "clearance": Uniform(0.05, 0.18),
        "first_clearance": Uniform(0.15, 0.3),
        "spacing": Uniform(0.9, 1.3),
        "speed": Uniform(1.3, 2.2),
        "restitution": Uniform(0.2, 0.4),
        "contact_at": Uniform(0.56, 0.64),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, r, t = clip.frames, s["radius"], WALL_T / 2
        a2 = 2 * r + s["clearance"] if s["fits"] else 2 * r - s["clearance"]
        a1, H, x1 = 2 * r + s["first_clearance"], 2 * r + 0.6, -s["spacing"]
        parts = []
        for tag, x, a in (("first", x1, a1), ("second", 0.0, a2)):
            parts += [
                wall_part(f"{tag}_left", look, T, (x - t, -a / 2 - 0.8, 0), (x + t, -a / 2, H)),
                wall_part(f"{tag}_right", look, T, (x - t, a / 2, 0), (x + t, a / 2 + 0.8, H)),
                wall_part(f"{tag}_top", look, T, (x - t, -a / 2, 2 * r + 0.25), (x + t, a / 2, H)),
            ]
        # in short clips the ball must still start before the first wall: at least spacing + r + 0.3 m out
        f_c = clip.at(s["contact_at"], lo=clip.cut)
        speed = max(s["speed"], (s["spacing"] + r + t + 0.3) * clip.fps / f_c)
        x_c = -t - np.sqrt(max(r * r - a2 * a2 / 4, 0.0))
        c = roll_ball_at_barrier(clip, look, s, parts, s["fits"], x_c, "second_left", speed=speed)
        x = c.objects[1].pose.position[:, 0]  # the ball (objects[0] is the ground)
        if not (x[0] < x1 - t - r):
            raise ValueError("the ball starts past the first wall")
        c.events["first_crossing"] = int(np.nonzero(x >= x1)[0].min())
        c.prompt = (
            f"A {look.colour('target')} ball rolls through an opening in a {look.colour('wall')} wall toward a "
            f"second wall with another opening. Continue the video."
        )
        c.outcome = (
            "the ball rolls through the second opening as well"
            if s["fits"]
            else f"the ball hits the rim of the second, narrower opening and {back_off(c)}"
        )
        c.derived.update({"first_opening": round(a1, 4), "second_opening": round(a2, 4)})
        return c
