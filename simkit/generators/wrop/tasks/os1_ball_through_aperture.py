"""OS-1/ball_through_aperture."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T
from simkit.generators.wrop.kit_os1 import back_off, roll_ball_at_barrier, wall_with_opening
from simkit.scenes.wrop.params import Choice, Uniform


class BallThroughAperture(Task):
    family, name = "OS-1", "ball_through_aperture"
    summary = "a ball rolls at a wall with a hole; it passes only if it is smaller than the hole"
    description = (
        "A ball rolls toward a wall with a rectangular opening. Solidity says two objects cannot occupy the "
        "same space: the ball passes through only if its diameter is smaller than the opening; otherwise it "
        "strikes the rim at the declared frame and bounces back, only a few centimetres when it came slowly. "
        "Half of the samples fit and half do not, with "
        "size differences down to a few centimetres, so the outcome must be read from the geometry, not "
        "guessed. Ball size, opening width, speed and restitution vary."
    )
    structural = {
        "radius": Uniform(0.15, 0.26),
        "fits": Choice([True, False]),
        "clearance": Uniform(0.06, 0.22),
        "speed": Uniform(1.4, 2.6),
        "restitution": Uniform(0.3, 0.6),
        "contact_at": Uniform(0.55, 0.68),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, r = clip.frames, s["radius"]
        a = 2 * r + s["clearance"] if s["fits"] else 2 * r - s["clearance"]
        hole_h, H = 2 * r + 0.25, 2 * r + 0.7
        t = WALL_T / 2
        parts = wall_with_opening(look, T, a, H, top=hole_h)
        x_c = -t - np.sqrt(max(r * r - a * a / 4, 0.0))
        c = roll_ball_at_barrier(clip, look, s, parts, s["fits"], x_c, "wall_left")
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward a {look.colour('wall')} wall with an opening. "
            f"Continue the video."
        )
        c.outcome = (
            "the ball rolls through the opening" if s["fits"] else f"the ball hits the rim and {back_off(c)}"
        )
        c.derived["aperture_width"] = round(a, 4)
        return c
