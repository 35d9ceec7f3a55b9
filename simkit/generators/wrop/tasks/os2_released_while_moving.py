"""OS-2/released_while_moving."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import block, clamp_jaws, drop_time
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class ReleasedWhileMoving(Task):
    family, name = "OS-2", "released_while_moving"
    summary = "a moving clamp lets go of a block; it keeps its sideways speed and falls in a parabola"
    description = (
        "A clamp carries a block through the air at a steady sideways speed. After the cut its jaws open while "
        "the clamp keeps moving. The released block is no longer held, but it keeps the horizontal velocity "
        "it had (inertia): it falls along a parabola, x growing linearly and the drop with the square of "
        "time, and lands on the floor at the declared frame ahead of the release point, neither dropping "
        "straight down nor staying with the clamp. Carrying speed, direction, height, block size and how "
        "fast the jaws open vary."
    )
    structural = {
        "half_size": Uniform(0.12, 0.2),
        "speed": Uniform(0.6, 1.6),
        "direction": Choice([1, -1]),
        "height": Uniform(0.6, 1.2),
        "open_frames": IntRange(1, 3),
        "open_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "jaws")

    def compose(self, s, clip, look):
        T, fps, b, d, v = clip.frames, clip.fps, s["half_size"], s["direction"], s["speed"]
        f_o = clip.at(s["open_at"], lo=clip.cut)
        f_rel = f_o + 1
        k, H = drop_time(clip, f_rel, s["height"])
        x_rel = -d * 0.4  # x of the release
        carrier = Motion(T, fps, (x_rel - d * v * f_rel / fps, 0.0, H + b))
        carrier.velocity(0, (d * v, 0.0, 0.0))
        jaws, exps = clamp_jaws(clip, look, "target", b, carrier, f_o, s["open_frames"], 0.25)
        m = Motion(T, fps, (x_rel - d * v * f_rel / fps, 0.0, H + b))
        m.velocity(0, (d * v, 0.0, 0.0), f_rel + k)
        m.fall(f_rel, f_rel + k, b)
        m.velocity(f_rel + k, (0.0, 0.0, 0.0))  # friction stops the block where it lands
        objs = [look.ground(T), *jaws, block("target", (2 * b,) * 3, look, "target", m.track())]
        x_land = x_rel + d * v * k / fps
        exps += [
            X.contact("target", "ground", f_rel + k),
            X.no_penetration("target", "ground"),
            X.same_place("target", list(range(f_rel + k, T))),
        ]
        return Composition(
            objs,
            {"release": f_rel, "landing": f_rel + k},
            "release",
            exps,
            prompt=f"A {look.colour('jaws')} clamp carries a {look.colour('target')} block sideways through "
            f"the air. Continue the video.",
            outcome="the jaws open; the block flies on sideways while falling and lands ahead of the release point",
            derived={
                "drop_height": round(H, 4),
                "fall_frames": k,
                "x_release": x_rel,
                "x_landing": round(x_land, 4),
            },
        )
