"""OS-1/raised_hole."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T, wall_part
from simkit.generators.wrop.kit_os1 import back_off, roll_ball_at_barrier, wall_with_opening
from simkit.scenes.wrop.params import Choice, Uniform


class RaisedHole(Task):
    family, name = "OS-1", "raised_hole"
    summary = "a ball rolls at a wall whose hole is big enough but may start above the floor; a raised sill stops it"
    description = (
        "A wall has an opening wider and taller than the ball, but the opening may begin some way above "
        "the floor, leaving a sill of wall below it. Size alone does not decide: a ball rolling on the floor "
        "passes only if the opening reaches down to the floor; with a raised sill it strikes the sill at the "
        "declared frame (its edge when the sill is lower than the ball's centre, its face otherwise) and "
        "rolls back, although it would fit through the opening. Ball size, opening size, sill height (none "
        "or raised), speed and restitution vary."
    )
    structural = {
        "radius": Uniform(0.14, 0.22),
        "raised": Choice([True, False]),
        "sill": Uniform(0.06, 0.3),
        "clearance": Uniform(0.1, 0.25),
        "speed": Uniform(1.3, 2.4),
        "restitution": Uniform(0.3, 0.6),
        "contact_at": Uniform(0.55, 0.68),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, r, t = clip.frames, s["radius"], WALL_T / 2
        a = 2 * r + s["clearance"]
        z0 = s["sill"] if s["raised"] else 0.0
        top, H = z0 + a, z0 + a + 0.45
        parts = wall_with_opening(look, T, a, H, top=top)
        if s["raised"]:
            parts.append(wall_part("sill", look, T, (-t, -a / 2, 0), (t, a / 2, z0)))
        reach = r if z0 >= r else np.sqrt(max(r * r - (r - z0) ** 2, 0.0))
        c = roll_ball_at_barrier(
            clip, look, s, parts, not s["raised"], -t - reach, "sill" if s["raised"] else "wall_left"
        )
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward an opening in a {look.colour('wall')} wall. "
            f"Continue the video."
        )
        c.outcome = (
            f"the ball hits the wall below the raised opening and {back_off(c)}"
            if s["raised"]
            else "the ball rolls through the opening"
        )
        c.derived.update({"sill_height": round(z0, 4), "opening": round(a, 4)})
        return c
