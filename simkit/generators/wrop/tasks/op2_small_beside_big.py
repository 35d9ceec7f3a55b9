"""OP-2/small_beside_big."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import NOUN, half_height
from simkit.generators.wrop.kit_op2 import key_frames, moving_screen, static_body, static_scene
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, Uniform


class SmallBesideBig(Task):
    family, name = "OP-2", "small_beside_big"
    summary = "a screen passes over a small ball next to a big object; the small one must still be there"
    description = (
        "A small ball rests next to a much larger block or cylinder. After the cut a tall screen slides "
        "past in front of both and moves on. Salient large objects tend to survive occlusion in a weak "
        "model while small ones are dropped or merged into their big neighbour; the small ball must come "
        "back as a separate object, with its size and colour, at the same distance from the big one. The "
        "big object's kind and size, the ball's size, the gap between them, which side the ball is on and "
        "the screen's direction and speed vary."
    )
    structural = {
        "big_kind": Choice(["box", "cylinder"]),
        "big_size": Uniform(0.3, 0.42),
        "small_size": Uniform(0.06, 0.1),
        "gap": Uniform(0.12, 0.4),
        "small_side": Choice([1, -1]),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.4, 2.4),
        "cover_at": Uniform(0.54, 0.6),
    }
    colour_slots = ("screen", "big", "small")

    def compose(self, s, clip, look):
        T, fps, d = clip.frames, clip.fps, s["direction"]
        big, small = s["big_size"], s["small_size"]
        x_small = s["small_side"] * (big + s["gap"] + small) / 2
        x_big = x_small - s["small_side"] * (big + s["gap"] + small)
        targets = [
            static_body("big", s["big_kind"], big, look, "big", T, x_big, 0.5),
            static_body("small", "sphere", small, look, "small", T, x_small, 0.5),
        ]
        lo, hi = min(x_big - big, x_small - small), max(x_big + big, x_small + small)
        w = hi - lo + 1.0
        h = 2 * half_height(s["big_kind"], big) + 0.45
        f_in = clip.at(s["cover_at"], lo=clip.cut)
        x_start = (lo if d > 0 else hi) - d * (w / 2 + 0.2)
        x_end = (hi if d > 0 else lo) + d * (w / 2 + 0.2)
        v = max(s["speed"], abs(x_end - x_start) / max(T - 3 - f_in, 1) * fps)
        m = Motion(T, fps, (x_start, 0.0, h / 2))
        m.velocity(f_in, (d * v, 0.0, 0.0))
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = static_scene(clip, look, self.view, targets, [scr])
        if not hidden["small"] or not hidden["big"]:
            raise ValueError("the screen never hides both objects")
        events = key_frames(hidden, clip)
        side = "right" if s["small_side"] > 0 else "left"
        return Composition(
            objs,
            {**events, "small_covered": hidden["small"][0]},
            "covered",
            exps,
            prompt=f"A small {look.colour('small')} ball rests to the {side} of a big {look.colour('big')} "
            f"{NOUN[s['big_kind']]}. A {look.colour('screen')} screen stands to the "
            f"{'left' if d > 0 else 'right'}. Continue the video.",
            outcome="the screen slides past; the small ball is still beside the big object",
            derived={
                "size_ratio": round(big / small, 3),
                "centre_distance": round(float(np.abs(x_small - x_big)), 4),
                "screen_speed_m_per_s": round(v, 4),
            },
        )
