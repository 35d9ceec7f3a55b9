"""OS-1/block_into_channel."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, Motion, SceneObject, barrier_run, wall_part
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform

SIDE_T = 0.1


class BlockIntoChannel(Task):
    family, name = "OS-1", "block_into_channel"
    summary = "a block slides at a dead-end channel; it enters and stops at the end wall only if narrower than the channel"
    description = (
        "A short channel with two side walls and a closed end stands in a block's path, its mouth facing "
        "the block. A narrower block slides into the channel between the side walls, never touching them, "
        "and is stopped by the end wall at the declared frame; a wider block cannot enter and is stopped at "
        "the mouth by the front ends of the side walls, earlier and farther out. Both outcomes are contacts; "
        "where and when the block stops depends on its width against the channel's. Block size, channel "
        "width (fit or not, by a varying margin), channel length, speed and restitution vary."
    )
    structural = {
        "half_size": Uniform(0.13, 0.2),
        "fits": Choice([True, False]),
        "clearance": Uniform(0.06, 0.18),
        "length": Uniform(0.6, 0.9),
        "speed": Uniform(1.2, 2.2),
        "restitution": Uniform(0.1, 0.3),
        "contact_at": Uniform(0.56, 0.66),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, b, ln = clip.frames, s["half_size"], s["length"]
        a = 2 * b + s["clearance"] if s["fits"] else 2 * b - s["clearance"]
        H = 2 * b + 0.35
        # the channel's mouth at x = 0, its end wall's inner face at x = ln
        parts = [
            wall_part("side_left", look, T, (0, -a / 2 - SIDE_T, 0), (ln, -a / 2, H)),
            wall_part("side_right", look, T, (0, a / 2, 0), (ln, a / 2 + SIDE_T, H)),
            wall_part("end_wall", look, T, (ln, -a / 2 - SIDE_T, 0), (ln + SIDE_T, a / 2 + SIDE_T, H)),
        ]
        block = SceneObject("target", "target", "box", (2 * b, 2 * b, 2 * b), look.mat("target"), None)
        x_c, blocker = (ln - b, "end_wall") if s["fits"] else (-b, "side_left")
        c = barrier_run(
            clip,
            look,
            block,
            Motion(T, clip.fps, (0, 0, b)),
            b,
            parts,
            False,
            x_c,
            s["speed"],
            s["restitution"],
            s["contact_at"],
            blocker,
        )
        if s["fits"]:  # it enters without touching the side walls
            c.expectations += [X.apart("target", n, list(range(T))) for n in ("side_left", "side_right")]
        c.prompt = (
            f"A {look.colour('target')} block slides toward the open end of a {look.colour('wall')} channel "
            f"closed at the far end. Continue the video."
        )
        c.outcome = (
            "the block slides into the channel and stops against its end wall"
            if s["fits"]
            else "the block is too wide for the channel and stops at its mouth"
        )
        c.derived.update({"channel_width": round(a, 4), "stop_x": round(x_c, 4)})
        return c
