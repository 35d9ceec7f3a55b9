"""OS-2/block_support_yanked."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import SceneObject, drop_run
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class BlockSupportYanked(Task):
    family, name = "OS-2", "block_support_yanked"
    summary = "a pillar under a block is yanked out sideways; the block must drop onto the floor"
    description = (
        "A block rests on a narrow pillar. After the cut the pillar is yanked backward out from under it, so "
        "fast that the block has no time to tip; the block then drops straight down and lands flat on the "
        "floor at the declared frame. The block must neither stay floating where the pillar was nor pass "
        "through the pillar or the floor. Block size, pillar height, pull direction and speed vary."
    )
    structural = {
        "half_size": Uniform(0.16, 0.26),
        "height": Uniform(0.5, 1.1),
        "direction": Choice([1, -1]),
        "pull_frames": IntRange(1, 3),
        "move_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "support")

    def compose(self, s, clip, look):
        b = s["half_size"]
        block = SceneObject("target", "target", "box", (2 * b, 2 * b, 2 * b), look.mat("target"), None)
        objs, exps, ev, der = drop_run(
            clip,
            look,
            [block],
            [b],
            (0.3, 0.3),
            1,
            s["direction"],
            s["pull_frames"],
            b + 0.01,
            s["move_at"],
            s["height"],
        )
        return Composition(
            objs,
            ev,
            "support_lost",
            exps,
            prompt=f"A {look.colour('target')} block rests on a {look.colour('support')} pillar. "
            f"Continue the video.",
            outcome="the pillar is pulled away and the block drops to the floor",
            derived=der,
        )
