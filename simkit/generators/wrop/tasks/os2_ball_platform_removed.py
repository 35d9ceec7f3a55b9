"""OS-2/ball_platform_removed."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import SceneObject, drop_run
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class BallPlatformRemoved(Task):
    family, name = "OS-2", "ball_platform_removed"
    summary = "a ball sits on a block that slides away; it must fall straight down once unsupported"
    description = (
        "A ball rests on top of a block. After the cut the block slides out from under it. Support is a "
        "solidity relation: as long as the block is under the ball's centre the ball stays up; once the "
        "support edge passes its centre the ball falls, accelerating under gravity, and lands on the floor at "
        "the declared frame, never hovering in mid-air and never sinking into the floor. Ball size, block "
        "height, pull direction and pull speed vary."
    )
    structural = {
        "radius": Uniform(0.14, 0.24),
        "height": Uniform(0.5, 1.1),
        "direction": Choice([1, -1]),
        "pull_frames": IntRange(2, 5),
        "move_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "support")

    def compose(self, s, clip, look):
        r = s["radius"]
        ball = SceneObject("target", "target", "sphere", (r,), look.mat("target"), None)
        objs, exps, ev, der = drop_run(
            clip,
            look,
            [ball],
            [r],
            (0.7, 0.7),
            0,
            s["direction"],
            s["pull_frames"],
            0.0,
            s["move_at"],
            s["height"],
        )
        return Composition(
            objs,
            ev,
            "support_lost",
            exps,
            prompt=f"A {look.colour('target')} ball rests on top of a {look.colour('support')} block. "
            f"Continue the video.",
            outcome="the block slides away and the ball falls to the floor",
            derived=der,
        )
