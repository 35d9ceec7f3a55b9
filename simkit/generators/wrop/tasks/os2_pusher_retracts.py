"""OS-2/pusher_retracts."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import block, drop_time, slab
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class PusherRetracts(Task):
    family, name = "OS-2", "pusher_retracts"
    summary = (
        "a block pinned to a wall by a pusher slides down the wall to the floor when the pusher retracts"
    )
    description = (
        "A block is pinned high up against a vertical wall by a horizontal pusher rod; friction from the "
        "pusher's pressure is all that holds it up. After the cut the pusher retracts. Without the pressing "
        "force there is no friction, so the block falls freely, grazing the wall face the whole way down, and "
        "lands on the floor at the declared frame. It must neither stay stuck to the wall, nor follow the "
        "pusher back, nor pass into the wall. Block size, holding height, the side of the wall and how fast "
        "the pusher retracts vary."
    )
    structural = {
        "half_size": Uniform(0.12, 0.2),
        "height": Uniform(0.6, 1.2),
        "wall_side": Choice([1, -1]),
        "retract_frames": IntRange(1, 3),
        "retract_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "pusher", "wall")

    def compose(self, s, clip, look):
        T, fps, b, w = clip.frames, clip.fps, s["half_size"], s["wall_side"]
        f_r = clip.at(s["retract_at"], lo=clip.cut)
        f_rel = f_r + 1  # the rod leaves the block one frame into the retraction
        k, H = drop_time(clip, f_rel, s["height"])
        lo, hi = sorted((w * b, w * (b + 0.15)))
        wall = slab("wall", "wall", "wall", look, T, (lo, -0.6, 0.0), (hi, 0.6, H + 2 * b + 0.5))
        rod_len = 0.9
        pm = Motion(T, fps, (-w * (b + rod_len / 2), 0.0, H + b))
        pm.move(f_r, f_r + s["retract_frames"], (-w * (b + rod_len / 2 + 0.35), 0.0, H + b))
        pusher = block("pusher", (rod_len, 0.1, 0.1), look, "pusher", pm.track(), role="support")
        m = Motion(T, fps, (0.0, 0.0, H + b))
        m.fall(f_rel, f_rel + k, b)
        objs = [look.ground(T), wall, pusher, block("target", (2 * b,) * 3, look, "target", m.track())]
        exps = [
            X.touching("target", "pusher", list(range(f_r + 1))),
            X.apart("target", "pusher", list(range(f_rel + 1, T))),
            X.touching("target", "wall", list(range(T))),
            X.contact("target", "ground", f_rel + k),
            X.no_penetration("target", "wall"),
            X.no_penetration("target", "ground"),
        ]
        return Composition(
            objs,
            {"release": f_rel, "landing": f_rel + k},
            "release",
            exps,
            prompt=f"A {look.colour('target')} block is pinned high against a {look.colour('wall')} wall by "
            f"a {look.colour('pusher')} pusher rod. Continue the video.",
            outcome="the pusher retracts and the block slides straight down the wall to the floor",
            derived={"drop_height": round(H, 4), "fall_frames": k},
        )
