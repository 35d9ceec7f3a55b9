"""OS-1/block_under_bar."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T, Motion, SceneObject, barrier_run, wall_part
from simkit.generators.wrop.kit_os1 import back_off
from simkit.scenes.wrop.params import Choice, Uniform


class BlockUnderBar(Task):
    family, name = "OS-1", "block_under_bar"
    summary = (
        "a tall block slides at a low bar on two posts; it passes under only if it is lower than the bar"
    )
    description = (
        "A box slides toward a horizontal bar held up by two posts. Whether it passes is decided by height: "
        "a box lower than the bar glides underneath; a taller box strikes the bar with its top edge at the "
        "declared frame and is pushed back. The test is the vertical analogue of the aperture task and checks "
        "that solidity is applied to every dimension of the object. Box height (below or above the bar), bar "
        "height, speed and restitution vary."
    )
    structural = {
        "bar_height": Uniform(0.5, 0.9),
        "fits": Choice([True, False]),
        "clearance": Uniform(0.08, 0.25),
        "speed": Uniform(1.2, 2.2),
        "restitution": Uniform(0.15, 0.4),
        "contact_at": Uniform(0.55, 0.68),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, t, hb = clip.frames, WALL_T / 2, s["bar_height"]
        h = hb - s["clearance"] if s["fits"] else hb + s["clearance"]
        parts = [
            wall_part("bar", look, T, (-t, -0.9, hb), (t, 0.9, hb + 0.12)),
            wall_part("post_left", look, T, (-t, -1.0, 0), (t, -0.9, hb + 0.12)),
            wall_part("post_right", look, T, (-t, 0.9, 0), (t, 1.0, hb + 0.12)),
        ]
        block = SceneObject("target", "target", "box", (0.4, 0.5, h), look.mat("target"), None)
        c = barrier_run(
            clip,
            look,
            block,
            Motion(T, clip.fps, (0, 0, h / 2)),
            0.2,
            parts,
            s["fits"],
            -t - 0.2,
            s["speed"],
            s["restitution"],
            s["contact_at"],
            "bar",
        )
        c.prompt = (
            f"A {look.colour('target')} box slides toward a {look.colour('wall')} bar on two posts. "
            f"Continue the video."
        )
        c.outcome = (
            "the box slides under the bar"
            if s["fits"]
            else f"the box hits the bar and {back_off(c, 'is pushed')}"
        )
        c.derived["box_height"] = round(h, 4)
        return c
