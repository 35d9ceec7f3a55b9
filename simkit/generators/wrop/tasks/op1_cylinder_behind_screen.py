"""OP-1/cylinder_behind_screen."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import cross_behind
from simkit.scenes.wrop.params import Choice, Uniform


class CylinderBehindScreen(Task):
    family, name = "OP-1", "cylinder_behind_screen"
    summary = "an upright cylinder glides behind a tall screen and must reappear with its height unchanged"
    description = (
        "An upright cylinder glides behind a screen 0.30 m taller than itself (about 1.6 to 2 times its "
        "height). Baillargeon's tall-and-short objects showed that infants expect a hidden object to keep its height: here the cylinder must "
        "stay hidden for the whole crossing (it is never tall enough to show above the screen) and must "
        "reappear with the same height and width rather than shrunken, stretched or swapped. Cylinder radius "
        "(and with it height), screen width, direction and occlusion timing vary."
        " The surface draw may show an everyday object (a toy duck, a mug, ...) of the same bounding box "
        "in place of the primitive."
    )
    structural = {
        "radius": Uniform(0.12, 0.22),
        "screen_width": Uniform(1.0, 1.6),
        "direction": Choice([1, -1]),
        "hide_at": Uniform(0.52, 0.6),
        "hide_for": Uniform(0.1, 0.2),
    }
    colour_slots = ("target", "screen")
    mesh_slots = ("target",)

    def compose(self, s, clip, look):
        c = cross_behind(
            s,
            clip,
            look,
            "cylinder",
            s["radius"],
            [(0.0, s["screen_width"])],
            screen_margin=0.3,
            view=self.view,
        )
        c.prompt = (
            f"A {look.colour('target')} {look.noun('target', 'upright cylinder')} glides along the floor "
            f"toward a {look.colour('screen')} screen. Continue the video."
        )
        c.outcome = (
            f"the {look.noun('target', 'cylinder')} passes behind the screen and reappears on the far side "
            "with the same height"
        )
        return c
