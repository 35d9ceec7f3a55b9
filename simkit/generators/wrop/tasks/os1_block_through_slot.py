"""OS-1/block_through_slot."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T, Motion, SceneObject, barrier_run
from simkit.generators.wrop.kit_os1 import wall_with_opening
from simkit.scenes.wrop.params import Choice, Uniform


class BlockThroughSlot(Task):
    family, name = "OS-1", "block_through_slot"
    summary = "a sliding block meets a vertical slot between two walls; it passes only if narrower"
    description = (
        "A block slides toward a narrow vertical slot between two wall panels. If the block is narrower than "
        "the slot it slides through; if it is wider it is stopped flat against the panels at the declared "
        "frame and bounces back a little. A solid block can neither squeeze through a smaller gap nor pass "
        "through the panels. Block width, slot width (fit or no fit), speed and restitution vary."
    )
    structural = {
        "half_size": Uniform(0.14, 0.24),
        "fits": Choice([True, False]),
        "clearance": Uniform(0.06, 0.2),
        "speed": Uniform(1.2, 2.2),
        "restitution": Uniform(0.15, 0.4),
        "contact_at": Uniform(0.55, 0.68),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, b = clip.frames, s["half_size"]
        a = 2 * b + s["clearance"] if s["fits"] else 2 * b - s["clearance"]
        H, t = 2 * b + 0.8, WALL_T / 2
        parts = wall_with_opening(look, T, a, H)
        block = SceneObject("target", "target", "box", (2 * b, 2 * b, 2 * b), look.mat("target"), None)
        c = barrier_run(
            clip,
            look,
            block,
            Motion(T, clip.fps, (0, 0, b)),
            b,
            parts,
            s["fits"],
            -t - b,
            s["speed"],
            s["restitution"],
            s["contact_at"],
            "wall_left",
        )
        c.prompt = (
            f"A {look.colour('target')} block slides toward a slot between two {look.colour('wall')} "
            f"panels. Continue the video."
        )
        c.outcome = "the block slides through the slot" if s["fits"] else "the block is stopped by the panels"
        c.derived["slot_width"] = round(a, 4)
        return c
