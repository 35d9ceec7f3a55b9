"""OP-1/tunnel_roll."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH
from simkit.generators.wrop.kit_op1 import (
    ball_on_path,
    line_xyz,
    occlusion_composition,
    panel,
    side_frames,
    steady_x,
)
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform

WALL = 0.06


class TunnelRoll(Task):
    family, name = "OP-1", "tunnel_roll"
    summary = (
        "a ball rolls into a roofed tunnel and must come out of its far end at the time its speed implies"
    )
    description = (
        "A tunnel, two side walls under a roof, lies along a ball's path with its open ends left and right. "
        "The ball rolls into one end after the cut and is hidden by the near wall and the roof for the "
        "tunnel's whole length. The enclosure hides the object from every side the camera sees, yet the ball "
        "must keep rolling inside and come out of the far end (never the end it entered, never through a "
        "wall) at the time the tunnel's length and its speed imply. Ball size, tunnel length and height, "
        "direction and timing vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.17),
        "length": Uniform(1.1, 1.6),
        "headroom": Uniform(0.12, 0.25),
        "direction": Choice([1, -1]),
        "centre_at": Uniform(0.72, 0.76),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, d, r, L = clip.frames, s["direction"], s["radius"], s["length"]
        x = steady_x(clip, 0.0, s["centre_at"], d, span=6.5)
        ball = ball_on_path("target", look, "target", clip, r, line_xyz(x, DEPTH, r))
        h, inner = 2 * r + s["headroom"] + 0.2, r + 0.1
        y0, y1 = DEPTH - inner, DEPTH + inner
        near = panel("wall_near", look, "screen", T, (-L / 2, y0 - WALL, 0), (L / 2, y0, h))
        far = panel("wall_far", look, "screen", T, (-L / 2, y1, 0), (L / 2, y1 + WALL, h))
        roof = panel("roof", look, "screen", T, (-L / 2, y0 - WALL, h), (L / 2, y1 + WALL, h + WALL))
        c, sg = occlusion_composition(
            clip, [look.ground(T), ball, near, far, roof], ball, [near, roof], self.view
        )
        c.expectations += [
            X.side("target", "wall_near", side_frames(sg, x, 0.0, d, c.events["occlusion_end"]), d),
            X.no_penetration("target", "wall_near"),
            X.no_penetration("target", "wall_far"),
            X.no_penetration("target", "roof"),
        ]
        c.derived.update(
            {"speed_m_per_s": round(float(x[1] - x[0]) * d * clip.fps, 4), "tunnel_height": round(h, 4)}
        )
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward the open end of a {look.colour('screen')} tunnel. "
            f"Continue the video."
        )
        c.outcome = "the ball rolls through the tunnel and comes out of its far end"
        return c
