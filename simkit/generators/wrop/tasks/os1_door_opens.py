"""OS-1/door_opens."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import (
    OS1_APPROACH,
    OS1_VIEW,
    WALL_T,
    Motion,
    SceneObject,
)
from simkit.generators.wrop.kit_os1 import back_off, roll_ball_at_barrier, wall_with_opening
from simkit.scenes.wrop.params import Choice, Uniform

DOOR_T = 0.05


class DoorOpens(Task):
    family, name = "OS-1", "door_opens"
    summary = (
        "a ball rolls at a doorway whose door swings open, or stays shut; it passes only through an open door"
    )
    description = (
        "A ball rolls toward a doorway in a wall. In some samples the door swings open on its hinge, away "
        "from the ball, before the ball arrives; in others it stays shut. The opening has the ball's size, "
        "the door is a solid panel: the ball passes only through the open doorway, rolling past the opened "
        "door without touching it; against the shut door it strikes at the declared frame and rolls back, "
        "and a door opening afterwards does not let it through retroactively. Ball size, doorway width, "
        "hinge side, when the door opens, speed and restitution vary."
    )
    structural = {
        "radius": Uniform(0.14, 0.2),
        "opens": Choice([True, False]),
        "hinge_left": Choice([True, False]),
        "open_frames": Uniform(0.12, 0.2),
        "clearance": Uniform(0.15, 0.3),
        "speed": Uniform(1.3, 2.2),
        "restitution": Uniform(0.3, 0.6),
        "contact_at": Uniform(0.56, 0.66),
    }
    colour_slots = ("target", "wall", "door")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, fps, r, t = clip.frames, clip.fps, s["radius"], WALL_T / 2
        a = 2 * r + s["clearance"]
        hole_h, H = 2 * r + 0.3, 2 * r + 0.75
        f_c = clip.at(s["contact_at"], lo=clip.cut)
        n_o = max(2, clip.at(s["open_frames"]))
        if s["opens"]:  # fully open before the ball's front reaches the wall's plane
            v = min(s["speed"], OS1_APPROACH * fps / f_c) / fps
            o1 = f_c - int(np.ceil((r + t + 0.02) / v)) - 1
            o0 = max(1, o1 - n_o)
        else:  # opens only after the ball has bounced off it
            o0 = f_c + 2
            o1 = min(o0 + n_o, T - 1)
        if o1 <= o0:
            raise ValueError("the door's swing does not fit the clip")
        hs = -1 if s["hinge_left"] else 1  # hinge at y = hs a/2; the free edge swings toward +x
        th = np.zeros(T)
        u = np.clip((np.arange(T) - o0) / (o1 - o0), 0.0, 1.0)
        th[:] = (np.pi / 2) * u * u * (3 - 2 * u)  # smoothstep swing to 90 deg
        dm = Motion(T, fps, (0, 0, hole_h / 2))
        dm.pos[:, 0] = (a / 2) * np.sin(th)
        dm.pos[:, 1] = hs * (a / 2) - hs * (a / 2) * np.cos(th)
        dm.rot[:, 2] = hs * th
        door = SceneObject("door", "wall", "box", (DOOR_T, a, hole_h), look.mat("door"), dm.track())
        parts = [*wall_with_opening(look, T, a, H, top=hole_h, top_name="lintel"), door]
        c = roll_ball_at_barrier(
            clip, look, s, parts, s["opens"], -DOOR_T / 2 - r, "wall_left" if s["opens"] else "door"
        )
        c.events.update({"door_starts": o0, "door_open": o1})
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward a doorway in a {look.colour('wall')} wall closed by "
            f"a {look.colour('door')} door. Continue the video."
        )
        c.outcome = (
            "the door swings open and the ball rolls through the doorway"
            if s["opens"]
            else f"the ball hits the shut door and {back_off(c)}"
        )
        c.derived["doorway_width"] = round(a, 4)
        return c
