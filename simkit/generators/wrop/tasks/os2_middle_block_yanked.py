"""OS-2/middle_block_yanked."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import block, drop_time, fall_checks, slab, yank
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class MiddleBlockYanked(Task):
    family, name = "OS-2", "middle_block_yanked"
    summary = (
        "the middle layer of a three-layer stack is yanked out; the top block drops onto the table below"
    )
    description = (
        "A block rests on a thinner middle block, which lies on a long low table: a three-layer stack. After "
        "the cut the middle block is yanked out sideways along the table so fast that the top block has no "
        "time to be dragged along. Losing its support, the top block falls straight down through the height "
        "of the removed layer and lands on the table (not the floor) at the declared frame; the table stays "
        "where it is. A model must propagate support through the stack: the top block neither hovers where "
        "the middle one was nor sinks into the table. Block size, middle-layer thickness (hence fall time), "
        "pull direction and pull speed vary."
    )
    structural = {
        "half_size": Uniform(0.14, 0.22),
        "layer_height": Uniform(0.15, 0.45),
        "table_height": Uniform(0.3, 0.6),
        "direction": Choice([1, -1]),
        "pull_frames": IntRange(1, 3),
        "move_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "middle", "table")

    def compose(self, s, clip, look):
        T, b, d = clip.frames, s["half_size"], s["direction"]
        f_m = clip.at(s["move_at"], lo=clip.cut)
        f_rel = f_m + s["pull_frames"]
        k, H = drop_time(clip, f_rel, s["layer_height"])
        th, w = s["table_height"], 2 * b + 0.12
        table = slab("table", "support", "table", look, T, (-1.6, -0.45, 0.0), (1.6, 0.45, th))
        mid = yank(clip, (0.0, 0.0, th + H / 2), f_m, 0, d, w / 2 + b + 0.01, s["pull_frames"])
        mid.velocity(f_rel, (0.0, 0.0, 0.0))  # the pull stops once the layer is out
        middle = block("middle", (w, w, H), look, "middle", mid.track(), role="support")
        m = Motion(T, clip.fps, (0.0, 0.0, th + H + b))
        m.fall(f_rel, f_rel + k, th + b)
        top = block("target", (2 * b,) * 3, look, "target", m.track())
        exps = fall_checks("target", "middle", f_rel, f_rel + k, floor="table")
        exps += [X.no_penetration("middle", "table"), X.same_place("table", list(range(T)))]
        return Composition(
            [look.ground(T), table, middle, top],
            {"support_lost": f_rel, "landing": f_rel + k},
            "support_lost",
            exps,
            prompt=f"A {look.colour('target')} block sits on a {look.colour('middle')} block that lies on a "
            f"long {look.colour('table')} table. Continue the video.",
            outcome="the middle block is pulled out and the top block drops onto the table",
            derived={"layer_height": round(H, 4), "fall_frames": k},
        )
