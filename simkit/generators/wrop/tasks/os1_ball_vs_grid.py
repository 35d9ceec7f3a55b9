"""OS-1/ball_vs_grid."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T, wall_part
from simkit.generators.wrop.kit_os1 import back_off, roll_ball_at_barrier
from simkit.scenes.wrop.params import Choice, Uniform

BAR = 0.06


class BallVsGrid(Task):
    family, name = "OS-1", "ball_vs_grid"
    summary = (
        "a ball rolls at a grid of bars; it passes through a cell only if it fits both its width and height"
    )
    description = (
        "A grid of vertical and horizontal bars stands across the floor, like a net, and a ball rolls at the "
        "lowest cell in its path. The cell is bounded on the sides by two vertical bars and on top by a "
        "horizontal one, so solidity is tested in two dimensions at once: the ball passes only if it is "
        "narrower than the cell and lower than its top bar; if either is too small it strikes that bar (the "
        "side bars or the top bar, whichever it reaches first) at the declared frame and rolls back. Ball "
        "size, cell width and height (each fit or not), speed and restitution vary."
    )
    structural = {
        "radius": Uniform(0.14, 0.22),
        "limit": Choice(["none", "width", "height"]),
        "clearance": Uniform(0.05, 0.18),
        "slack": Uniform(0.08, 0.2),
        "speed": Uniform(1.3, 2.4),
        "restitution": Uniform(0.3, 0.6),
        "contact_at": Uniform(0.55, 0.68),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, r, t, lim = clip.frames, s["radius"], WALL_T / 2, s["limit"]
        a = 2 * r + (-s["clearance"] if lim == "width" else s["slack"])  # cell width
        hc = 2 * r + (-s["clearance"] if lim == "height" else s["slack"])  # height of the cell's top bar
        H, W = hc + 2 * (a + BAR), a / 2 + 2 * (a + BAR)
        parts = []
        for i, y in enumerate((a / 2, a / 2 + a + BAR)):  # vertical bars on either side
            for side, tag in ((1, "r"), (-1, "l")):
                lo, hi = sorted((side * y, side * (y + BAR)))
                parts.append(wall_part(f"bar_{tag}{i + 1}", look, T, (-t, lo, 0), (t, hi, H)))
        for j, z in enumerate((hc, hc + a + BAR)):  # horizontal bars across
            parts.append(wall_part(f"rail{j + 1}", look, T, (-t, -W, z), (t, W, z + BAR)))
        # first contact: the side bars' edges (width) or the top bar's lower edge (height)
        reach = {
            "width": np.sqrt(max(r * r - a * a / 4, 0.0)),
            "height": np.sqrt(max(r * r - (hc - r) ** 2, 0.0)),
        }
        fits = lim == "none"
        blocker = {"none": "bar_l1", "width": "bar_l1", "height": "rail1"}[lim]
        x_c = -t - reach.get(lim, 0.0)
        c = roll_ball_at_barrier(clip, look, s, parts, fits, x_c, blocker)
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward a grid of {look.colour('wall')} bars. "
            f"Continue the video."
        )
        c.outcome = {
            "none": "the ball rolls through the grid's lowest cell",
            "width": "the ball hits the side bars of the cell and {back}",
            "height": "the ball hits the cell's top bar and {back}",
        }[lim]
        if not fits:
            c.outcome = c.outcome.format(back=back_off(c))
        c.derived.update({"cell_width": round(a, 4), "cell_height": round(hc, 4)})
        return c
