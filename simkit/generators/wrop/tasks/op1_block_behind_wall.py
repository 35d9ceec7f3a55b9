"""OP-1/block_behind_wall."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import cross_behind
from simkit.scenes.wrop.params import Choice, Uniform


class BlockBehindWall(Task):
    family, name = "OP-1", "block_behind_wall"
    summary = "a sliding block passes behind a wall and must come out the other side without changing shape"
    description = (
        "A cube slides without turning along the floor and passes behind a wide, low wall. Unlike a ball, a "
        "block has a visible orientation, so the test covers identity of shape and heading as well as "
        "existence: the block must emerge on the far side at the right time with the same size, colour and "
        "orientation, not as a ball, not rotated and not from the near side. Block size, wall width, "
        "direction and occlusion timing vary."
        " The surface draw may show an everyday object (a toy duck, a mug, ...) of the same bounding box "
        "in place of the primitive."
    )
    structural = {
        "half_size": Uniform(0.14, 0.26),
        "screen_width": Uniform(1.2, 2.0),
        "direction": Choice([1, -1]),
        "hide_at": Uniform(0.52, 0.6),
        "hide_for": Uniform(0.12, 0.22),
    }
    colour_slots = ("target", "screen")
    mesh_slots = ("target",)

    def compose(self, s, clip, look):
        c = cross_behind(
            s,
            clip,
            look,
            "box",
            s["half_size"],
            [(0.0, s["screen_width"])],
            screen_margin=0.35,
            view=self.view,
        )
        c.prompt = (
            f"A {look.colour('target')} {look.noun('target', 'block')} slides across the floor toward a "
            f"{look.colour('screen')} "
            f"wall. Continue the video."
        )
        c.outcome = (
            f"the {look.noun('target', 'block')} slides behind the wall and comes out on the far side with the "
            "same size and heading"
        )
        return c
