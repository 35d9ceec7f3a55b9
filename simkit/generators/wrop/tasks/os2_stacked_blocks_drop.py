"""OS-2/stacked_blocks_drop."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import SceneObject, drop_run
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class StackedBlocksDrop(Task):
    family, name = "OS-2", "stacked_blocks_drop"
    summary = "two stacked blocks lose their support and must fall together, staying stacked"
    description = (
        "Two blocks are stacked on a pillar. When the pillar is yanked away after the cut, both fall together "
        "(in free fall they accelerate alike), the lower one lands at the declared frame and the upper one "
        "stays resting on it. Support has to be propagated through the stack: the upper block must neither "
        "hang in the air, nor sink into the lower one, nor fall at a different rate. Block sizes, pillar "
        "height, pull direction and speed vary."
    )
    structural = {
        "lower_half": Uniform(0.18, 0.26),
        "upper_half": Uniform(0.12, 0.18),
        "height": Uniform(0.5, 1.0),
        "direction": Choice([1, -1]),
        "pull_frames": IntRange(1, 3),
        "move_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "upper", "support")

    def compose(self, s, clip, look):
        a, b = s["lower_half"], s["upper_half"]
        low = SceneObject("target", "target", "box", (2 * a, 2 * a, 2 * a), look.mat("target"), None)
        up = SceneObject("upper", "target", "box", (2 * b, 2 * b, 2 * b), look.mat("upper"), None)
        objs, exps, ev, der = drop_run(
            clip,
            look,
            [low, up],
            [a, 2 * a + b],
            (0.3, 0.3),
            1,
            s["direction"],
            s["pull_frames"],
            a + 0.01,
            s["move_at"],
            s["height"],
        )
        return Composition(
            objs,
            ev,
            "support_lost",
            exps,
            prompt=f"A {look.colour('upper')} block sits on a {look.colour('target')} block on top "
            f"of a {look.colour('support')} pillar. Continue the video.",
            outcome="the pillar is pulled away and both blocks fall together, still stacked",
            derived=der,
        )
