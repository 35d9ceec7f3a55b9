"""OP-3/crate_swap_lanes (several legal outcomes)."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X, cup_timeline
from simkit.generators.wrop.kit_op3 import CRATE_ROT, cover_expectations, crate
from simkit.scenes.wrop.params import Choice, IntRange, Uniform

CRATE = (0.7, 0.6, 0.5)
LANE = 0.5  # m: depth offset of the passing lanes


class CrateSwapLanes(Task):
    family, name = "OP-3", "crate_swap_lanes"
    summary = (
        "two upturned crates, one over a block, trade places 0-2 times, one passing in front of the other"
    )
    description = (
        "Two upturned crates of different colours stand side by side, one covering a block. After the cut the "
        "crates may trade places zero, one or two times: each swap moves one crate forward and the other "
        "back, slides them past each other (the front crate passing between the other and the camera) and returns them to "
        "the row; then both crates are lifted. The input never shows how many swaps follow, so the block may "
        "legally end up on either side; it must come out under the crate that covered it, as the same block, "
        "even though that crate was itself out of sight for a moment. Which crate holds the block, block size, "
        "spacing, which crate takes the front lane and the number of swaps vary."
    )
    structural = {
        "half_size": Uniform(0.12, 0.18),
        "spacing": Uniform(1.2, 1.6),
        "block_under": Choice(["left", "right"]),
        "front": Choice(["holder", "other"]),
        "swaps": IntRange(0, 2),
    }
    colour_slots = ("target", "crate_a", "crate_b")

    def compose(self, s, clip, look):
        T, fps, hs, h = clip.frames, clip.fps, s["half_size"], s["spacing"] / 2
        t = cup_timeline(clip)
        xa = -h if s["block_under"] == "left" else h
        zc, zup = CRATE[2] / 2, CRATE[2] / 2 + 2 * hs + 0.6
        a = Motion(T, fps, (xa, 0, zup), rotation=CRATE_ROT)
        b = Motion(T, fps, (-xa, 0, zc), rotation=CRATE_ROT)
        a.move(t["lower0"], t["lower1"], (xa, 0, zc), "smooth")
        n = s["swaps"]
        lane_a = -LANE if s["front"] == "holder" else LANE
        if n:
            span = (t["move1"] - t["move0"] + 1) // n
            for k in range(n):
                f0 = t["move0"] + k * span
                q = max(1, span // 4)
                for m, lane in ((a, lane_a), (b, -lane_a)):
                    x = m.at(f0)[0]
                    m.move(f0, f0 + q - 1, (x, lane, zc), "smooth")
                    m.move(f0 + q, f0 + span - q - 1, (-x, lane, zc), "smooth")
                    m.move(f0 + span - q, f0 + span - 1, (-x, 0, zc), "smooth")
        for m in (a, b):
            end = m.at(t["lift0"])
            m.move(t["lift0"], t["lift1"], (end[0], 0, zup), "smooth")
        block = Motion(T, fps, (xa, 0, hs)).follow(a, t["move0"], t["lift0"])
        rims = {"crate_a": a.pos[:, 2] - zc, "crate_b": b.pos[:, 2] - zc}
        exps, hid, vis = cover_expectations(T, "target", 2 * hs, rims, "crate_a", clear=0.45)
        end_x = float(a.at(T - 1)[0])
        exps.append(X.side("target", "crate_b", vis, 1 if end_x > 0 else -1, space="world"))
        side = "right" if end_x > 0 else "left"
        ca = look.colour("crate_a")
        objs = [
            crate("crate_a", look, "crate_a", a.track(), CRATE),
            crate("crate_b", look, "crate_b", b.track(), CRATE),
            SceneObject("target", "target", "box", (2 * hs,) * 3, look.mat("target"), block.track()),
        ]
        return Composition(
            [look.ground(T), *objs],
            {"covered": hid[0], "manipulation_start": t["move0"], "lift": t["lift0"]},
            "manipulation_start",
            exps,
            prompt=f"A {look.colour('target')} block stands on the floor under a raised {ca} crate; an "
            f"upturned {look.colour('crate_b')} crate stands next to it. Continue the video.",
            outcome=f"the block is revealed under the {ca} crate, now on the {side}",
            legal_outcomes=[
                f"the block is revealed under the {ca} crate, now on the {p}" for p in ("left", "right")
            ],
            derived={"block_end_side": side},
        )
