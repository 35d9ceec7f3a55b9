"""OP-1/log_behind_screen."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import SCREEN_T, Motion
from simkit.generators.wrop.kit_op1 import occlusion_composition, panel, side_frames, steady_x
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform
from simkit.scenes.wrop.spec import SceneObject


class LogBehindScreen(Task):
    family, name = "OP-1", "log_behind_screen"
    summary = (
        "a cylinder lying on its side rolls behind a screen and must come out still rolling, same length"
    )
    description = (
        "A cylinder lies on its side, its axis pointing away from the camera, and rolls across the floor "
        "like a log, turning about its own axis by distance / radius. It passes behind a screen after the "
        "cut. Unlike a ball, a lying cylinder has a length and an axis: it must reappear beyond the screen "
        "still lying with the same axis, the same length and radius, and rolling at the same speed, not "
        "upright, turned sideways or shortened. Cylinder radius and length, screen width, direction and "
        "timing vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "length": Uniform(0.4, 0.7),
        "screen_width": Uniform(1.1, 1.5),
        "direction": Choice([1, -1]),
        "centre_at": Uniform(0.72, 0.76),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, d, r, ln, w = clip.frames, s["direction"], s["radius"], s["length"], s["screen_width"]
        lane = ln / 2 + 0.15
        m = Motion(T, clip.fps, (0, lane, r))
        m.pos[:, 0] = steady_x(clip, 0.0, s["centre_at"], d, span=6.0)
        x = m.pos[:, 0]
        # lying along y (rotation pi/2 about x), rolling without slipping about y: angle = distance / radius
        m.rot[:, 0] = np.pi / 2
        m.rot[:, 1] = (x - x[0]) / r
        log = SceneObject("target", "target", "cylinder", (r, ln), look.mat("target"), m.track())
        top = 2 * r + 0.45
        scr = panel("screen", look, "screen", T, (-w / 2, -SCREEN_T / 2, 0), (w / 2, SCREEN_T / 2, top))
        c, sg = occlusion_composition(clip, [look.ground(T), log, scr], log, [scr], self.view)
        c.expectations += [
            X.side("target", "screen", side_frames(sg, x, 0.0, d, c.events["occlusion_end"]), d),
            X.touching("target", "ground", list(range(T))),
        ]
        c.derived.update(
            {"speed_m_per_s": round(float(x[1] - x[0]) * d * clip.fps, 4), "lane_y": round(lane, 4)}
        )
        c.prompt = (
            f"A {look.colour('target')} cylinder lying on its side rolls across the floor toward a "
            f"{look.colour('screen')} screen. Continue the video."
        )
        c.outcome = "the cylinder rolls behind the screen and comes out beyond it, still lying and rolling"
        return c
