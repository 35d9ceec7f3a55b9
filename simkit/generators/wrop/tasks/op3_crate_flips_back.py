"""OP-3/crate_flips_back."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X, cup_timeline
from simkit.generators.wrop.kit_op3 import CRATE_ROT, crate, hinge
from simkit.scenes.wrop.params import Uniform

CRATE = (0.8, 0.7, 0.55)


class CrateFlipsBack(Task):
    family, name = "OP-3", "crate_flips_back"
    summary = "an upturned crate over a turned block slides, then flips over backwards onto its bottom"
    description = (
        "An upturned crate is lowered over a block that stands turned at an angle. After the cut the crate "
        "slides a short way, pushing the block along inside it, and then flips over backwards, rolling over its back edges "
        "in two quarter turns, landing upright behind the block with its open side up. The flip uncovers the block "
        "from the front: it must stand where the crate was just before flipping, still turned at the same "
        "angle and of the same size, not carried away with the crate. Block size and angle, start place and "
        "slide distance vary."
    )
    structural = {
        "half_size": Uniform(0.12, 0.18),
        "yaw_deg": Uniform(-40.0, 40.0),
        "x": Uniform(-1.0, 0.0),
        "slide": Uniform(0.3, 1.0),
    }
    colour_slots = ("target", "crate")

    def compose(self, s, clip, look):
        T, fps, cut, hs, x = clip.frames, clip.fps, clip.cut, s["half_size"], s["x"]
        x1 = x + s["slide"]
        zc, zup = CRATE[2] / 2, CRATE[2] / 2 + 2 * hs + 0.6
        t = cup_timeline(clip)
        rem = T - 3 - cut
        slide1 = cut + max(2, int(0.4 * rem))
        c = Motion(T, fps, (x, 0, zup), rotation=CRATE_ROT)
        c.move(t["lower0"], t["lower1"], (x, 0, zc), "smooth").move(cut, slide1, (x1, 0, zc), "smooth")
        # two quarter turns: onto its back face about the back bottom edge, then upright about the edge that
        # was its top back edge
        mid = (slide1 + 1 + T - 3) // 2
        hinge(c, slide1 + 1, mid, (x1, CRATE[1] / 2, 0), -np.pi / 2, axis=0, easing="linear")
        hinge(c, mid + 1, T - 3, (x1, CRATE[1] / 2 + CRATE[2], 0), -np.pi / 2, axis=0, easing="linear")
        yaw = np.radians(s["yaw_deg"])
        block = Motion(T, fps, (x, 0, hs), rotation=(0, 0, yaw)).follow(c, cut, slide1)
        rim = c.pos[:, 2] - zc
        upturned = np.abs(c.rot[:, 0] - np.pi) < 1e-9
        flipped = np.abs(c.rot[:, 0]) <= 0.35 * np.pi  # the crate has turned more than 0.65 pi
        hid = [f for f in range(T) if upturned[f] and rim[f] <= 0.01]
        exps = [
            X.hidden("target", hid),
            X.visible(
                "target", [f for f in range(T) if (upturned[f] and rim[f] >= 2 * hs + 0.45) or flipped[f]]
            ),
            X.bound("target", "crate", [f for f in hid if rim[f] < 1e-6]),
            X.same_place("target", list(range(slide1, T))),
            X.side("crate", "target", [T - 1], 1, space="world", axis=1),
        ]
        return Composition(
            [
                look.ground(T),
                crate("crate", look, "crate", c.track(), CRATE),
                SceneObject("target", "target", "box", (2 * hs,) * 3, look.mat("target"), block.track()),
            ],
            {"covered": hid[0], "slide_start": cut, "flip_start": slide1 + 1},
            "slide_start",
            exps,
            prompt=f"A {look.colour('target')} block stands turned on the floor under a raised "
            f"{look.colour('crate')} crate. Continue the video.",
            outcome="the crate slides and flips over backwards; the block stands where the crate stopped, "
            "turned as before",
            derived={"block_end_x": round(x1, 4)},
        )
