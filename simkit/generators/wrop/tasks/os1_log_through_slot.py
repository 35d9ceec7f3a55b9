"""OS-1/log_through_slot."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T, Motion, SceneObject, barrier_run
from simkit.generators.wrop.kit_os1 import back_off, wall_with_opening
from simkit.scenes.wrop.params import Choice, Uniform


class LogThroughSlot(Task):
    family, name = "OS-1", "log_through_slot"
    summary = (
        "a cylinder rolling on its side meets a slot; it passes only if it is shorter than the slot is wide"
    )
    description = (
        "A cylinder lies on its side, its axis across its path, and rolls like a log toward a vertical slot "
        "between two wall panels. Its thin profile would fit easily, but its length lies across the slot: "
        "solidity has to use the object's extent along its axis, so the log passes only if it is shorter "
        "than the slot is wide; otherwise both of its ends strike the panels at the declared frame and it "
        "rolls back. The test separates the object's longest dimension from the one it presents in motion. "
        "Log radius and length, slot width (fit or not, by a varying margin), speed and restitution vary."
    )
    structural = {
        "radius": Uniform(0.1, 0.15),
        "length": Uniform(0.5, 0.8),
        "fits": Choice([True, False]),
        "clearance": Uniform(0.06, 0.2),
        "speed": Uniform(1.2, 2.2),
        "restitution": Uniform(0.2, 0.5),
        "contact_at": Uniform(0.55, 0.68),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, r, ln, t = clip.frames, s["radius"], s["length"], WALL_T / 2
        a = ln + s["clearance"] if s["fits"] else ln - s["clearance"]
        H = 2 * r + 0.8
        parts = wall_with_opening(look, T, a, H, side=0.9)
        log = SceneObject("target", "target", "cylinder", (r, ln), look.mat("target"), None)
        c = barrier_run(
            clip,
            look,
            log,
            Motion(T, clip.fps, (0, 0, r)),
            r,
            parts,
            s["fits"],
            -t - r,
            s["speed"],
            s["restitution"],
            s["contact_at"],
            "wall_left",
        )
        # lying across the path (pi/2 about x), rolling without slipping about y: angle = distance / radius
        x = log.pose.position[:, 0]
        log.pose.rotation[:, 0] = np.pi / 2
        log.pose.rotation[:, 1] = (x - x[0]) / r
        c.prompt = (
            f"A {look.colour('target')} cylinder lying on its side rolls toward a slot between two "
            f"{look.colour('wall')} panels. Continue the video."
        )
        c.outcome = (
            "the cylinder rolls through the slot"
            if s["fits"]
            else f"both ends of the cylinder hit the panels and it {back_off(c)}"
        )
        c.derived["slot_width"] = round(a, 4)
        return c
