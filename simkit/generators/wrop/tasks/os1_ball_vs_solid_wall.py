"""OS-1/ball_vs_solid_wall."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T, wall_part
from simkit.generators.wrop.kit_os1 import back_off, roll_ball_at_barrier
from simkit.scenes.wrop.params import Uniform


class BallVsSolidWall(Task):
    family, name = "OS-1", "ball_vs_solid_wall"
    summary = "a ball rolls into a solid wall and must bounce back, never pass through"
    description = (
        "A ball rolls quickly toward a solid wall without any opening. Video models often let fast objects "
        "tunnel through thin obstacles; solidity requires the ball to stop at the wall's surface at the "
        "declared contact frame and roll back with a speed reduced by the restitution, never penetrating "
        "or appearing behind the wall. Ball size, wall height, approach speed and restitution vary."
    )
    structural = {
        "radius": Uniform(0.14, 0.28),
        "wall_height": Uniform(0.7, 1.3),
        "speed": Uniform(1.5, 3.0),
        "restitution": Uniform(0.3, 0.7),
        "contact_at": Uniform(0.55, 0.68),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, r, t = clip.frames, s["radius"], WALL_T / 2
        parts = [wall_part("wall", look, T, (-t, -1.3, 0), (t, 1.3, s["wall_height"]))]
        c = roll_ball_at_barrier(clip, look, s, parts, False, -t - r, "wall")
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward a {look.colour('wall')} wall. Continue the video."
        )
        c.outcome = f"the ball hits the wall and {back_off(c)}"
        return c
