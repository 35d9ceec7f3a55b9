"""OP-1/ball_behind_screen."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import cross_behind
from simkit.scenes.wrop.params import Choice, Uniform


class BallBehindScreen(Task):
    family, name = "OP-1", "ball_behind_screen"
    summary = "a ball rolls behind a screen and must reappear on the far side, same size and speed"
    description = (
        "The classic Baillargeon tunnel: a ball rolls at constant speed toward an opaque screen and disappears "
        "behind it after the cut. A model that represents the hidden ball keeps it moving while it cannot be "
        "seen and lets it reappear on the far side of the screen at the time its speed implies, with the same "
        "size, colour and heading. Ball size, screen width, direction and the timing of the occlusion are "
        "structural, so neither the reappearance time nor the side can be memorised."
    )
    structural = {
        "radius": Uniform(0.15, 0.3),
        "screen_width": Uniform(1.1, 1.8),
        "direction": Choice([1, -1]),
        "hide_at": Uniform(0.52, 0.6),
        "hide_for": Uniform(0.1, 0.2),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        c = cross_behind(s, clip, look, "sphere", s["radius"], [(0.0, s["screen_width"])], view=self.view)
        way = "left to right" if s["direction"] > 0 else "right to left"
        c.prompt = (
            f"A {look.colour('target')} ball rolls from {way} across the floor toward a "
            f"{look.colour('screen')} screen. Continue the video."
        )
        c.outcome = f"the ball passes behind the screen and reappears on its {'right' if s['direction'] > 0 else 'left'} side, unchanged"
        return c
