"""OP-2/screen_convoy."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import NOUN, half_height
from simkit.generators.wrop.kit_op2 import key_frames, moving_screen, static_body, static_scene
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, Uniform


class ScreenConvoy(Task):
    family, name = "OP-2", "screen_convoy"
    summary = "two screens pass one after the other; the object shows in the gap between them and again after"
    description = (
        "One object rests on the floor. After the cut two screens travel past it one behind the other at the "
        "same speed with a gap between them: the object is hidden, shows through the gap, is hidden again and "
        "finally stays in view. Two occlusions in quick succession with a brief glimpse in between test "
        "that the glimpse is consistent with the object's permanence (same place, shape and colour every "
        "time) rather than a new object appearing. Shape, size, the widths of the screens, the gap, the "
        "direction and the speed vary."
    )
    structural = {
        "shape": Choice(["sphere", "box", "cylinder"]),
        "size": Uniform(0.12, 0.2),
        "width1": Uniform(0.7, 1.0),
        "width2": Uniform(0.7, 1.0),
        "gap": Uniform(0.75, 1.1),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.2, 1.8),
    }
    colour_slots = ("screen1", "screen2", "object1")

    def compose(self, s, clip, look):
        T, fps, d, sz = clip.frames, clip.fps, s["direction"], s["size"]
        target = static_body("object1", s["shape"], sz, look, "object1", T, 0.0, 0.5)
        h = 2 * half_height(s["shape"], sz) + 0.45
        w1, w2, gap = s["width1"], s["width2"], s["gap"]
        x1 = -d * (w1 / 2 + sz + 0.3)  # lead screen's centre: its near edge 0.3 m before the object
        x2 = x1 - d * ((w1 + w2) / 2 + gap)
        travel = abs(x2) + w2 / 2 + sz + 0.3  # the trailing screen has passed the object
        f0 = clip.cut
        v = max(s["speed"] / fps, travel / max(T - 3 - f0, 1))  # m per frame
        screens = []
        for i, (x, w) in enumerate(((x1, w1), (x2, w2))):
            m = Motion(T, fps, (x, 0.0, h / 2))
            m.velocity(f0, (d * v * fps, 0.0, 0.0))
            screens.append(moving_screen(f"screen{i + 1}", look, f"screen{i + 1}", m, w, h))
        objs, exps, hidden = static_scene(clip, look, self.view, [target], screens)
        hid = hidden["object1"]
        clear = next(e.frames for e in exps if isinstance(e, X.Visible))
        glimpse = [f for f in clear if hid and hid[0] < f < hid[-1]]
        if not glimpse:
            raise ValueError("the object never shows between the screens")
        events = key_frames(hidden, clip)
        return Composition(
            objs,
            {**events, "glimpse": glimpse[0]},
            "covered",
            exps,
            prompt=f"A {look.colour('object1')} {NOUN[s['shape']]} rests on the floor. To the "
            f"{'left' if d > 0 else 'right'} stand a {look.colour('screen1')} screen and, behind it in line, a "
            f"{look.colour('screen2')} screen. Continue the video.",
            outcome="both screens pass; the object shows between them and is there unchanged at the end",
            derived={"speed_m_per_s": round(v * fps, 4), "glimpse_frames": len(glimpse)},
        )
