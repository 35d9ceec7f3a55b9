"""OP-2/touching_pair."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import NOUN, half_height
from simkit.generators.wrop.kit_op2 import key_frames, moving_screen, static_body, static_scene, sweep_motion
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class TouchingPair(Task):
    family, name = "OP-2", "touching_pair"
    summary = "a screen slides past a ball resting against a block; afterwards they must still touch"
    description = (
        "A ball rests against the side of a block (or of a cylinder), touching it. After the cut a screen "
        "slides past in front of the pair and moves on. Besides the two objects themselves the scene holds a "
        "relation, contact, that must also survive the occlusion: afterwards the ball must still touch the "
        "block, neither rolled away from it nor pressed into it, on the same side. The pair's kinds and "
        "sizes, which side the ball is on, and the screen's width, direction and speed vary."
    )
    structural = {
        "block_kind": Choice(["box", "cylinder"]),
        "block_size": Uniform(0.18, 0.26),
        "radius": Uniform(0.1, 0.16),
        "ball_side": Choice([1, -1]),
        "screen_extra": Uniform(0.4, 0.8),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.4, 2.4),
        "cover_at": Uniform(0.5, 0.56),
    }
    colour_slots = ("screen", "block", "ball")

    def compose(self, s, clip, look):
        T, d, b, r, side = clip.frames, s["direction"], s["block_size"], s["radius"], s["ball_side"]
        x_block = -side * r
        x_ball = x_block + side * (b + r)  # touching: centre distance = block half-width + radius
        targets = [
            static_body("block", s["block_kind"], b, look, "block", T, x_block, 0.5),
            static_body("ball", "sphere", r, look, "ball", T, x_ball, 0.5),
        ]
        lo, hi = min(x_block - b, x_ball - r), max(x_block + b, x_ball + r)
        w = hi - lo + s["screen_extra"]
        h = 2 * half_height(s["block_kind"], b) + 0.45
        m, v = sweep_motion(clip, lo, hi, w, h / 2, d, s["speed"], s["cover_at"])
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = static_scene(clip, look, self.view, targets, [scr])
        if not hidden["ball"] or not hidden["block"]:
            raise ValueError("the screen never hides the pair")
        exps += [X.touching("ball", "block", list(range(T))), X.no_penetration("ball", "block")]
        events = key_frames(hidden, clip)
        return Composition(
            objs,
            events,
            "covered",
            exps,
            prompt=f"A {look.colour('ball')} ball rests against the {'right' if side > 0 else 'left'} side of a "
            f"{look.colour('block')} {NOUN[s['block_kind']]}. A {look.colour('screen')} screen stands to the "
            f"{'left' if d > 0 else 'right'}. Continue the video.",
            outcome="the screen slides past; the ball still touches the same side of the other object",
            derived={"contact_x": round(x_block + side * b, 4), "screen_speed_m_per_s": round(v, 4)},
        )
