"""OS-1/tunnel_too_low."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, Motion, SceneObject, barrier_run, wall_part
from simkit.generators.wrop.kit_os1 import back_off
from simkit.scenes.wrop.params import Choice, Uniform

WALL = 0.1


class TunnelTooLow(Task):
    family, name = "OS-1", "tunnel_too_low"
    summary = "an upright cylinder glides at a tunnel; it goes through only if it is lower than the roof"
    description = (
        "An upright cylinder glides toward a short tunnel, a roof slab on two side walls. The tunnel is wide "
        "enough, so height decides: a cylinder lower than the roof glides in, is partly hidden inside and "
        "comes out of the far end; a taller one strikes the front face of the roof with its upper side at "
        "the declared frame and slides back. Solidity of a long enclosure rather than a thin bar: the "
        "cylinder must not shrink to fit or poke through the roof. Cylinder radius and height, roof height "
        "(fit or not, by a varying margin), tunnel length, speed and restitution vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "roof": Uniform(0.5, 0.8),
        "fits": Choice([True, False]),
        "clearance": Uniform(0.06, 0.2),
        "length": Uniform(0.6, 1.0),
        "speed": Uniform(1.2, 2.2),
        "restitution": Uniform(0.1, 0.3),
        "contact_at": Uniform(0.56, 0.66),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, r, hr, half = clip.frames, s["radius"], s["roof"], s["length"] / 2
        h = hr - s["clearance"] if s["fits"] else hr + s["clearance"]
        w = r + 0.2
        parts = [
            wall_part("roof", look, T, (-half, -w - WALL, hr), (half, w + WALL, hr + 0.08)),
            wall_part("wall_left", look, T, (-half, -w - WALL, 0), (half, -w, hr)),
            wall_part("wall_right", look, T, (-half, w, 0), (half, w + WALL, hr)),
        ]
        cyl = SceneObject("target", "target", "cylinder", (r, h), look.mat("target"), None)
        c = barrier_run(
            clip,
            look,
            cyl,
            Motion(T, clip.fps, (0, 0, h / 2)),
            r + half,
            parts,
            s["fits"],
            -half - r,
            s["speed"],
            s["restitution"],
            s["contact_at"],
            "roof",
        )
        c.prompt = (
            f"A {look.colour('target')} upright cylinder glides toward a low {look.colour('wall')} tunnel. "
            f"Continue the video."
        )
        c.outcome = (
            "the cylinder glides through the tunnel and out of the far end"
            if s["fits"]
            else f"the cylinder hits the front of the roof and {back_off(c, 'slides')}"
        )
        c.derived["cylinder_height"] = round(h, 4)
        return c
