"""OS-1/fence_of_posts."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T, wall_part
from simkit.generators.wrop.kit_os1 import back_off, roll_ball_at_barrier
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, IntRange, Uniform

POST_W = 0.1


class FenceOfPosts(Task):
    family, name = "OS-1", "fence_of_posts"
    summary = "a ball rolls at a gap in a fence of posts; it passes only if the gap is wider than the ball"
    description = (
        "A fence of upright posts stands across the floor with gaps of different widths between them, and a "
        "ball rolls straight at one of the gaps. Solidity against a row of separate obstacles: the ball "
        "passes between the two posts only if its diameter is smaller than that gap, whatever the other "
        "gaps are; otherwise it strikes both posts' edges at the declared frame and rolls back. Ball size, "
        "the gap it meets (fit or not, by a varying margin), the number of posts, the other gaps, speed and "
        "restitution vary."
    )
    structural = {
        "radius": Uniform(0.14, 0.22),
        "fits": Choice([True, False]),
        "clearance": Uniform(0.05, 0.2),
        "posts_per_side": IntRange(2, 3),
        "other_gap": Uniform(0.2, 0.6),
        "speed": Uniform(1.3, 2.4),
        "restitution": Uniform(0.3, 0.6),
        "contact_at": Uniform(0.55, 0.68),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, r, t = clip.frames, s["radius"], WALL_T / 2
        a = 2 * r + s["clearance"] if s["fits"] else 2 * r - s["clearance"]
        h = 2 * r + 0.5
        parts = []
        for side in (-1, 1):
            y = a / 2
            for i in range(s["posts_per_side"]):
                lo, hi = sorted((side * y, side * (y + POST_W)))
                parts.append(wall_part(f"post_{'lr'[side > 0]}{i + 1}", look, T, (-t, lo, 0), (t, hi, h)))
                y += POST_W + s["other_gap"]
        x_c = -t - np.sqrt(max(r * r - a * a / 4, 0.0))
        c = roll_ball_at_barrier(clip, look, s, parts, s["fits"], x_c, "post_l1")
        if not s["fits"]:
            c.expectations.append(X.contact("target", "post_r1", c.events["contact"]))
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward a gap in a fence of {look.colour('wall')} posts. "
            f"Continue the video."
        )
        c.outcome = (
            "the ball rolls through the gap"
            if s["fits"]
            else f"the ball hits the two posts and {back_off(c)}"
        )
        c.legal_outcomes = [c.outcome]
        c.derived["gap_width"] = round(a, 4)
        return c
