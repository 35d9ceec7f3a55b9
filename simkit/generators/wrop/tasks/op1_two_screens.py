"""OP-1/two_screens."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import cross_behind
from simkit.scenes.wrop.params import Choice, Uniform


class TwoScreens(Task):
    family, name = "OP-1", "two_screens"
    summary = "a ball passes behind two screens in turn and must show in the gap between them"
    description = (
        "Two screens stand apart with a gap between them. The ball rolls behind the first screen, appears in "
        "the gap, and passes behind the second screen after the cut. Spatiotemporal continuity demands one "
        "ball on one path: it must be visible in the gap, stay hidden behind the second screen for as long "
        "as its speed implies and emerge beyond it. Gap width, screen widths, ball size and timing vary."
    )
    structural = {
        "radius": Uniform(0.14, 0.24),
        "screen_width": Uniform(1.0, 1.3),
        "gap": Uniform(0.9, 1.4),
        "direction": Choice([1, -1]),
        "hide_at": Uniform(0.56, 0.64),
        "hide_for": Uniform(0.1, 0.16),
    }
    colour_slots = ("target", "screen1", "screen2")

    def compose(self, s, clip, look):
        d, w = s["direction"], s["screen_width"]
        off = (w + s["gap"]) / 2
        screens = [(-d * off, w), (d * off, w)]
        c = cross_behind(s, clip, look, "sphere", s["radius"], screens, key=1, view=self.view)
        c.prompt = (
            f"A {look.colour('target')} ball rolls across the floor toward a {look.colour('screen1')} "
            f"screen; a {look.colour('screen2')} screen stands further along. Continue the video."
        )
        c.outcome = "the ball passes behind the second screen and reappears beyond it"
        return c
