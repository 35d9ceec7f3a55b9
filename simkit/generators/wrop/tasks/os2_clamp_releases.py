"""OS-2/clamp_releases."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import block, clamp_jaws, drop_time, slab
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import IntRange, Uniform


class ClampReleases(Task):
    family, name = "OS-2", "clamp_releases"
    summary = "a block held in mid-air between two jaws drops when the jaws open"
    description = (
        "A block is held in the air by friction between the two jaws of a clamp hanging from a bar; nothing "
        "is under it. After the cut both jaws open outward. Once neither jaw touches the block it is "
        "unsupported and falls straight down, accelerating under gravity, and lands flat on the floor at the "
        "declared frame, while the open jaws stay up. A model must see that the jaws were the support: the "
        "block must not stay hanging between open jaws, follow one of them, or pass through the floor. Block "
        "size, holding height, and how fast the jaws open vary."
    )
    structural = {
        "half_size": Uniform(0.14, 0.24),
        "height": Uniform(0.5, 1.1),
        "open_frames": IntRange(1, 3),
        "open_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "jaws", "bar")

    def compose(self, s, clip, look):
        T, fps, b = clip.frames, clip.fps, s["half_size"]
        f_o = clip.at(s["open_at"], lo=clip.cut)
        f_rel = f_o + 1  # the jaws lose contact one frame into the opening
        k, H = drop_time(clip, f_rel, s["height"])
        zc = H + b
        gap, jaw_t, jaw_h = 0.25, 0.08, 2 * b + 0.3
        m = Motion(T, fps, (0.0, 0.0, zc))
        jaws, exps = clamp_jaws(clip, look, "target", b, m, f_o, s["open_frames"], gap)
        top = zc + 0.1 + jaw_h / 2
        half_bar = b + jaw_t + gap + 0.15
        bar = slab("bar", "support", "bar", look, T, (-half_bar, -0.1, top), (half_bar, 0.1, top + 0.1))
        objs = [look.ground(T), *jaws, bar]
        m.fall(f_rel, f_rel + k, b)
        objs.append(block("target", (2 * b,) * 3, look, "target", m.track()))
        exps += [X.contact("target", "ground", f_rel + k), X.no_penetration("target", "ground")]
        speed = float(np.round(gap / s["open_frames"] * fps, 4))
        return Composition(
            objs,
            {"release": f_rel, "landing": f_rel + k},
            "release",
            exps,
            prompt=f"A {look.colour('target')} block is held in the air between the two "
            f"{look.colour('jaws')} jaws of a clamp. Continue the video.",
            outcome="the jaws open and the block falls straight down to the floor",
            derived={"drop_height": round(H, 4), "fall_frames": k, "jaw_speed_m_per_s": speed},
        )
