"""OS-1/ball_under_table."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, wall_part
from simkit.generators.wrop.kit_os1 import back_off, roll_ball_at_barrier
from simkit.scenes.wrop.params import Choice, Uniform

TOP_T, LEG = 0.06, 0.07


class BallUnderTable(Task):
    family, name = "OS-1", "ball_under_table"
    summary = "a ball rolls at a low table; it passes underneath only if it is lower than the table top"
    description = (
        "A ball rolls toward a low table standing on four legs, aimed between the legs. The opening is "
        "wide enough; what matters is the height under the table top: a ball smaller than that clearance "
        "rolls under the table and out the far side, a larger one strikes the front edge of the table top "
        "at the declared frame (the contact point on its upper front, not its equator) and rolls back. "
        "Ball size, the clearance under the top (fit or not, by a varying margin), the table's depth, "
        "speed and restitution vary."
    )
    structural = {
        "radius": Uniform(0.15, 0.24),
        "fits": Choice([True, False]),
        "clearance": Uniform(0.05, 0.16),
        "table_depth": Uniform(0.5, 0.8),
        "speed": Uniform(1.3, 2.4),
        "restitution": Uniform(0.3, 0.6),
        "contact_at": Uniform(0.55, 0.68),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, r, dx = clip.frames, s["radius"], s["table_depth"] / 2
        hu = 2 * r + s["clearance"] if s["fits"] else 2 * r - s["clearance"]  # underside height
        half_w = r + 0.45
        parts = [wall_part("table_top", look, T, (-dx, -half_w, hu), (dx, half_w, hu + TOP_T))]
        for i, (sx, sy) in enumerate(((-1, -1), (-1, 1), (1, -1), (1, 1))):
            x0, y0 = sx * dx - (LEG if sx > 0 else 0), sy * half_w - (LEG if sy > 0 else 0)
            parts.append(wall_part(f"leg{i + 1}", look, T, (x0, y0, 0), (x0 + LEG, y0 + LEG, hu)))
        x_c = -dx - np.sqrt(max(r * r - (hu - r) ** 2, 0.0))
        c = roll_ball_at_barrier(clip, look, s, parts, s["fits"], x_c, "table_top")
        c.prompt = f"A {look.colour('target')} ball rolls toward a low {look.colour('wall')} table. Continue the video."
        c.outcome = (
            "the ball rolls under the table and out the other side"
            if s["fits"]
            else f"the ball hits the edge of the table top and {back_off(c)}"
        )
        c.derived["clearance_height"] = round(hu, 4)
        return c
