"""OS-3/block_pushes_block."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import SceneObject, collide_1d, collision_line
from simkit.scenes.wrop.params import Uniform


class BlockPushesBlock(Task):
    family, name = "OS-3", "block_pushes_block"
    summary = "a sliding block runs into a resting block and the two slide on together"
    description = (
        "A block slides into a resting block and sticks to it (a perfectly inelastic collision): from the "
        "declared contact frame the pair slides on together at the common velocity m1 v / (m1 + m2) and slows "
        "down by friction. The test checks momentum transfer between rigid bodies that stay in contact: the "
        "struck block must start moving exactly at contact, the two must neither separate nor interpenetrate, "
        "and the heavier the struck block the slower the pair. Block sizes and speed vary."
    )
    structural = {
        "h_pusher": Uniform(0.14, 0.24),
        "h_pushed": Uniform(0.14, 0.3),
        "speed": Uniform(1.2, 2.4),
        "contact_at": Uniform(0.55, 0.64),
    }
    colour_slots = ("target", "pushed")

    def compose(self, s, clip, look):
        a_, b_ = s["h_pusher"], s["h_pushed"]
        ma, mb = (2 * a_) ** 3, (2 * b_) ** 3
        va, vb = collide_1d(ma, s["speed"], mb, 0.0, 0.0)
        a = SceneObject("target", "target", "box", (2 * a_,) * 3, look.mat("target"), None)
        b = SceneObject("pushed", "target", "box", (2 * b_,) * 3, look.mat("pushed"), None)
        exps, ev = collision_line(
            clip,
            look,
            [a, b],
            [ma, mb],
            [-a_ - 0.3, b_ - 0.3],
            [s["speed"], 0.0],
            [va, vb],
            s["contact_at"],
            ("target", "pushed"),
            decel=0.8,
        )
        T = clip.frames
        from simkit.scenes.wrop import expect as X

        exps.append(X.touching("target", "pushed", list(range(ev["impact"], T))))
        return Composition(
            [look.ground(T), a, b],
            ev,
            "impact",
            exps,
            prompt=f"A {look.colour('target')} block slides toward a {look.colour('pushed')} block. "
            f"Continue the video.",
            outcome=f"the blocks meet and slide on together at {va:.2f} m/s, slowing down",
            derived={"v_common": round(va, 4)},
        )
