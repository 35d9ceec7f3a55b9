"""OP-1/orbit_behind_column."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import Motion
from simkit.generators.wrop.kit_op1 import ball_on_path, occlusion_composition, panel, side_frames
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class OrbitBehindColumn(Task):
    family, name = "OP-1", "orbit_behind_column"
    summary = (
        "a ball circles a wide column, passing in front of it and then behind it; it must come round again"
    )
    description = (
        "A ball rolls at constant speed on a circle around a wide square column. In the input it passes in "
        "front of the column, so its path is seen to wrap around; after the cut it goes round the far side "
        "and is hidden by the column itself. Permanence on a curved path: the ball must come out on the "
        "other side of the column at the time its angular speed implies, moving in the same sense of "
        "rotation, not reversed, not straight on and not stopped. Column width, orbit radius, ball size, "
        "angular speed, sense of rotation and timing vary."
    )
    structural = {
        "column_width": Uniform(0.9, 1.1),
        "radius": Uniform(0.1, 0.15),
        "orbit_gap": Uniform(0.12, 0.3),
        "laps": Uniform(0.8, 1.0),
        "sense": Choice([1, -1]),
        "behind_at": Uniform(0.68, 0.74),
    }
    colour_slots = ("target", "column")

    def compose(self, s, clip, look):
        T, r, cw, sense = clip.frames, s["radius"], s["column_width"], s["sense"]
        R = cw / np.sqrt(2) + r + s["orbit_gap"]
        omega = sense * 2 * np.pi * s["laps"] / (T - 1)  # rad per frame
        f_b = clip.at(s["behind_at"])
        th0 = np.pi / 2 - omega * f_b
        m = Motion(T, clip.fps, (R * np.cos(th0), R * np.sin(th0), r))
        m.orbit(0, T - 1, (0.0, 0.0, 0.0), omega * (T - 1), easing="linear")
        ball = ball_on_path("target", look, "target", clip, r, m.pos)
        col = panel("column", look, "column", T, (-cw / 2, -cw / 2, 0), (cw / 2, cw / 2, 1.3))
        c, sg = occlusion_composition(clip, [look.ground(T), ball, col], ball, [col], self.view)
        quarter = int(np.pi / 2 / abs(omega))
        x = m.pos[:, 0]
        after = [f for f in side_frames(sg, x, 0.0, -sense, c.events["occlusion_end"]) if f < f_b + quarter]
        c.expectations += [
            X.side("target", "column", after, -sense, space="world"),
            X.no_penetration("target", "column"),
        ]
        c.events["far_side"] = f_b
        c.derived.update(
            {"orbit_radius": round(float(R), 4), "angular_speed_rad_per_s": round(omega * clip.fps, 4)}
        )
        way = "counter-clockwise" if sense > 0 else "clockwise"
        c.prompt = (
            f"A {look.colour('target')} ball rolls {way} (seen from above) on a circle around a wide "
            f"{look.colour('column')} column. Continue the video."
        )
        c.outcome = "the ball goes round behind the column and comes out on the other side, still circling"
        return c
