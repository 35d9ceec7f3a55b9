"""OS-2/conveyor_end_drop."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import block, slab
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import G, Motion, fall_frames, fall_height
from simkit.scenes.wrop.params import Choice, Uniform


class ConveyorEndDrop(Task):
    family, name = "OS-2", "conveyor_end_drop"
    summary = "a block carried by a conveyor belt reaches the belt's end and drops off it in an arc"
    description = (
        "A block rides on a running conveyor belt, carried at the belt's speed without sliding. After the cut "
        "it reaches the end of the belt. Once it has moved past the end it has no support; it keeps the "
        "belt's horizontal speed (inertia) while gravity pulls it down, so it flies off in a parabola and "
        "lands on the floor at the declared frame, ahead of the belt's end. The belt itself stays in place. "
        "The speed is high enough (v^2 > g b) that the block leaves the end cleanly instead of tipping over "
        "it. Belt speed and height, block size and direction vary."
    )
    structural = {
        "half_size": Uniform(0.08, 0.13),
        "speed": Uniform(1.3, 2.2),
        "height": Uniform(0.4, 0.8),
        "direction": Choice([1, -1]),
        "edge_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "belt", "frame")

    def compose(self, s, clip, look):
        T, fps, b, d, v = clip.frames, clip.fps, s["half_size"], s["direction"], s["speed"]
        if v * v <= G * b:
            raise ValueError("too slow to leave the belt cleanly")
        f_e = clip.at(s["edge_at"], lo=clip.cut)  # the block's rear edge passes the belt's end
        k = min(fall_frames(s["height"], fps), T - 3 - f_e)
        if k < 2:
            raise ValueError("clip too short for the fall")
        H = fall_height(k, fps)
        x_end = d * 0.5
        run = (
            v * f_e / fps
        )  # the belt is long enough to carry the block from frame 0 (it may enter from off screen)
        m = Motion(T, fps, (x_end + d * b - d * run, 0.0, H + b))
        m.velocity(0, (d * v, 0.0, 0.0), f_e + k)
        m.fall(f_e, f_e + k, b)
        lo, hi = sorted((x_end, x_end - d * (run + 2 * b + 0.5)))
        belt_t = 0.05
        objs = [
            look.ground(T),
            slab(
                "frame", "support", "frame", look, T, (lo + 0.05, -0.25, 0.0), (hi - 0.05, 0.25, H - belt_t)
            ),
            slab("belt", "support", "belt", look, T, (lo, -0.3, H - belt_t), (hi, 0.3, H)),
            block("target", (2 * b,) * 3, look, "target", m.track()),
        ]
        exps = [
            X.touching("target", "belt", list(range(f_e + 1))),
            X.contact("target", "ground", f_e + k),
            X.no_penetration("target", "belt"),
            X.no_penetration("target", "ground"),
            X.velocity("target", f_e - 2, d * v, side="before"),
        ]
        return Composition(
            objs,
            {"leaves_belt": f_e, "landing": f_e + k},
            "leaves_belt",
            exps,
            prompt=f"A {look.colour('target')} block rides on a {look.colour('belt')} conveyor belt toward "
            f"its end. Continue the video.",
            outcome="the block is carried off the end of the belt and falls in an arc to the floor",
            derived={
                "belt_height": round(H, 4),
                "fall_frames": k,
                "landing_x": round(float(x_end + d * (b + v * k / fps)), 4),
            },
        )
