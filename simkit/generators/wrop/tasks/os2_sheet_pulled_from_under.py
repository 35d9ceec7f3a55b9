"""OS-2/sheet_pulled_from_under."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import block, drop_time, fall_checks, slab, yank
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion, fall_height
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class SheetPulledFromUnder(Task):
    family, name = "OS-2", "sheet_pulled_from_under"
    summary = "a mat under a block is whipped off a table; the block drops only the mat's thickness and stays"
    description = (
        "A block stands on a mat that lies on a table (the tablecloth trick). After the cut the mat is "
        "whipped out sideways so fast that it cannot drag the block along. The block loses the mat's support "
        "but the table is still under it, so it drops only by the mat's thickness, lands on the table top at "
        "the declared frame and stays where it was, neither following the mat nor falling to the floor. The "
        "task separates removing a support from removing all support. Mat thickness (hence the short fall "
        "time), block size, table height, pull direction and speed vary."
    )
    structural = {
        "half_size": Uniform(0.14, 0.22),
        "mat_frames": IntRange(2, 3),
        "table_height": Uniform(0.4, 0.8),
        "direction": Choice([1, -1]),
        "pull_frames": IntRange(1, 2),
        "move_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "mat", "table")

    def compose(self, s, clip, look):
        T, fps, b, th = clip.frames, clip.fps, s["half_size"], s["table_height"]
        f_m = clip.at(s["move_at"], lo=clip.cut)
        f_rel = f_m + s["pull_frames"]
        k, H = drop_time(clip, f_rel, fall_height(s["mat_frames"], fps))
        table = slab("table", "support", "table", look, T, (-1.5, -0.5, 0.0), (1.5, 0.5, th))
        length = 2.2
        mat = yank(
            clip, (0.0, 0.0, th + H / 2), f_m, 0, s["direction"], length / 2 + b + 0.01, s["pull_frames"]
        )
        objs = [look.ground(T), table, block("mat", (length, 0.8, H), look, "mat", mat.track(), "support")]
        m = Motion(T, fps, (0.0, 0.0, th + H + b))
        m.fall(f_rel, f_rel + k, th + b)
        objs.append(block("target", (2 * b,) * 3, look, "target", m.track()))
        exps = fall_checks("target", "mat", f_rel, f_rel + k, floor="table")
        exps.append(X.same_place("target", list(range(f_rel + k, T))))
        return Composition(
            objs,
            {"support_lost": f_rel, "landing": f_rel + k},
            "support_lost",
            exps,
            prompt=f"A {look.colour('target')} block stands on a {look.colour('mat')} mat lying on a "
            f"{look.colour('table')} table. Continue the video.",
            outcome="the mat is whipped away and the block drops onto the table top and stays there",
            derived={"mat_thickness": round(H, 4), "fall_frames": k},
        )
