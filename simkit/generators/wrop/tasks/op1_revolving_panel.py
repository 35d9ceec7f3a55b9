"""OP-1/revolving_panel."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import Motion, screen
from simkit.generators.wrop.kit_op1 import (
    ball_on_path,
    line_xyz,
    occlusion_composition,
    side_frames,
    steady_x,
)
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class RevolvingPanel(Task):
    family, name = "OP-1", "revolving_panel"
    summary = "a ball rolls behind a panel spinning like a revolving door; it is hidden only while the panel faces us"
    description = (
        "A wide panel spins at a steady rate about a vertical axis, like a revolving door, in front of a "
        "ball's path: edge-on it hides almost nothing, face-on it hides the ball. The ball rolls past behind "
        "it after the cut and is covered only around the moments when the panel turns its face to the "
        "camera. The occluder's own motion decides when the ball vanishes, so a model must keep the ball "
        "moving at its speed while it is hidden and let it show again as the panel turns away or as it "
        "leaves the panel's sweep. Panel width, spin rate and sense, ball size, direction and timing vary."
    )
    structural = {
        "panel_width": Uniform(1.4, 1.8),
        "radius": Uniform(0.12, 0.17),
        "half_turn": Uniform(0.3, 0.4),
        "spin": Choice([1, -1]),
        "direction": Choice([1, -1]),
        "face_at": Uniform(0.72, 0.76),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, d, r, w = clip.frames, s["direction"], s["radius"], s["panel_width"]
        lane = w / 2 + r + 0.2
        x = steady_x(clip, 0.0, s["face_at"], d, span=5.0)
        ball = ball_on_path("target", look, "target", clip, r, line_xyz(x, lane, r))
        sh = 2 * r + 0.45
        rate = s["spin"] * np.pi / max(clip.at(s["half_turn"]), 2)  # rad per frame
        m = Motion(T, clip.fps, (0, 0, sh / 2))
        m.rot[:, 2] = rate * (np.arange(T) - clip.at(s["face_at"]))  # face-on (angle 0) at face_at
        pan = screen("panel", look, "screen", m.track(), w, sh)
        c, sg = occlusion_composition(clip, [look.ground(T), ball, pan], ball, [pan], self.view)
        c.expectations.append(
            X.side("target", "panel", side_frames(sg, x, 0.0, d, c.events["occlusion_end"]), d)
        )
        c.events["face_on"] = clip.at(s["face_at"])
        c.derived.update({"spin_rad_per_s": round(rate * clip.fps, 4), "lane_y": round(lane, 4)})
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward a spinning {look.colour('screen')} panel and "
            f"will pass behind it. Continue the video."
        )
        c.outcome = (
            "the ball is hidden while the panel faces the camera and reappears beyond it, still rolling"
        )
        return c
