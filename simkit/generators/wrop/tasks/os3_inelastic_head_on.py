"""OS-3/inelastic_head_on."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import SceneObject, collide_1d, collision_line
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Uniform

LEFT = "the blocks stick together and slide on to the left"
RIGHT = "the blocks stick together and slide on to the right"
STOP = "the blocks stick together and stop where they meet"


class InelasticHeadOn(Task):
    family, name = "OS-3", "inelastic_head_on"
    summary = (
        "two blocks slide into each other head-on and stick; the pair moves the way the larger momentum went"
    )
    description = (
        "Two blocks with sticky faces slide toward each other and meet after the cut. The collision is "
        "perfectly inelastic: from the declared frame they move as one body at the common velocity "
        "(m1 v1 + m2 v2) / (m1 + m2), then slow down by friction. Which way the pair goes, or whether it "
        "stops dead, is decided by the momenta, not by the speeds or sizes alone: a small fast block can push "
        "a big slow one back. The blocks must not bounce apart, pass through each other or merge into one "
        "shape. Block sizes and both speeds vary."
    )
    structural = {
        "h_left": Uniform(0.12, 0.26),
        "h_right": Uniform(0.12, 0.26),
        "v_left": Uniform(0.6, 2.0),
        "v_right": Uniform(0.6, 2.0),
        "contact_at": Uniform(0.55, 0.64),
    }
    colour_slots = ("target", "other")

    def compose(self, s, clip, look):
        a_, b_ = s["h_left"], s["h_right"]
        ma, mb = (2 * a_) ** 3, (2 * b_) ** 3
        vc, _ = collide_1d(ma, s["v_left"], mb, -s["v_right"], 0.0)
        a = SceneObject("target", "target", "box", (2 * a_,) * 3, look.mat("target"), None)
        b = SceneObject("other", "target", "box", (2 * b_,) * 3, look.mat("other"), None)
        exps, ev = collision_line(
            clip,
            look,
            [a, b],
            [ma, mb],
            [-a_, b_],
            [s["v_left"], -s["v_right"]],
            [vc, vc],
            s["contact_at"],
            ("target", "other"),
            decel=0.8,
        )
        exps.append(X.touching("target", "other", list(range(ev["impact"], clip.frames))))
        outcome = STOP if abs(vc) < 0.05 else (RIGHT if vc > 0 else LEFT)
        return Composition(
            [look.ground(clip.frames), a, b],
            ev,
            "impact",
            exps,
            prompt=f"A {look.colour('target')} block and a {look.colour('other')} block with sticky faces "
            f"slide toward each other. Continue the video.",
            outcome=outcome,
            legal_outcomes=[LEFT, STOP, RIGHT],
            derived={
                "v_common": round(vc, 4),
                "momentum_left": round(ma * s["v_left"], 5),
                "momentum_right": round(mb * s["v_right"], 5),
            },
        )
