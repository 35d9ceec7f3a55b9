"""OS-1/two_holes."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T, wall_part
from simkit.generators.wrop.kit_os1 import back_off, roll_ball_at_barrier
from simkit.scenes.wrop.params import Choice, Uniform


class TwoHoles(Task):
    family, name = "OS-1", "two_holes"
    summary = (
        "a wall has a small and a large hole; a ball rolls at one of them and passes only if it fits that one"
    )
    description = (
        "A wall has two openings side by side at floor level, one narrower than the ball and one wider. The "
        "ball rolls straight at one of them. Solidity has to be applied to the opening actually in the "
        "ball's path, not to the wall in general: rolling at the wide hole it passes through, rolling at "
        "the narrow one it strikes the rim at the declared frame and rolls back, even though a hole it "
        "would fit through is right next to it. Ball size, both hole widths, which hole it aims at, which "
        "side the wide hole is on, speed and restitution vary."
    )
    structural = {
        "radius": Uniform(0.14, 0.2),
        "at_wide": Choice([True, False]),
        "wide_on_left": Choice([True, False]),
        "wide_clearance": Uniform(0.08, 0.22),
        "narrow_clearance": Uniform(0.06, 0.16),
        "speed": Uniform(1.3, 2.4),
        "restitution": Uniform(0.3, 0.6),
        "contact_at": Uniform(0.55, 0.68),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, r, t = clip.frames, s["radius"], WALL_T / 2
        wide, narrow = 2 * r + s["wide_clearance"], 2 * r - s["narrow_clearance"]
        sgn = -1 if s["wide_on_left"] else 1  # y side of the wide hole
        hole_h, H, pier = 2 * r + 0.25, 2 * r + 0.7, 0.35
        holes = {
            "wide": (sgn * (pier / 2 + wide / 2), wide),
            "narrow": (-sgn * (pier / 2 + narrow / 2), narrow),
        }
        parts = [wall_part("pier", look, T, (-t, -pier / 2, 0), (t, pier / 2, H))]
        for tag, (yc, w) in holes.items():
            out = yc + np.sign(yc) * (w / 2 + 0.8)
            edge = yc + np.sign(yc) * w / 2
            lo, hi = sorted((edge, out))
            parts.append(wall_part(f"wall_{tag}", look, T, (-t, lo, 0), (t, hi, H)))
            lo, hi = sorted((yc - w / 2, yc + w / 2))
            parts.append(wall_part(f"lintel_{tag}", look, T, (-t, lo, hole_h), (t, hi, H)))
        aim = "wide" if s["at_wide"] else "narrow"
        y_lane, a = holes[aim]
        x_c = -t - np.sqrt(max(r * r - a * a / 4, 0.0))
        c = roll_ball_at_barrier(clip, look, s, parts, s["at_wide"], x_c, "pier", lane_y=y_lane)
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward a {look.colour('wall')} wall with two openings of "
            f"different widths. Continue the video."
        )
        c.outcome = (
            "the ball rolls through the wide opening it is aimed at"
            if s["at_wide"]
            else f"the ball hits the rim of the narrow opening and {back_off(c)}"
        )
        c.derived.update(
            {"wide_width": round(wide, 4), "narrow_width": round(narrow, 4), "lane_y": round(y_lane, 4)}
        )
        return c
