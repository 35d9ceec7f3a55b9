"""OP-2/window_screen."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import NOUN, SCREEN_T, half_height
from simkit.generators.wrop.kit_op2 import key_frames, static_body, static_scene
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, Uniform
from simkit.scenes.wrop.spec import SceneObject


class WindowScreen(Task):
    family, name = "OP-2", "window_screen"
    summary = "a screen with a window in it slides past an object, which shows through the window on the way"
    description = (
        "An object rests on the floor. After the cut a wide screen with a rectangular window in its middle "
        "slides past in front of it: the object is hidden by the first panel, seen through the window, hidden "
        "by the second panel and finally in the open again. The occluder is one rigid body with a hole, so "
        "what shows through the window must be the same object at the same place, moving relative to the "
        "window exactly as the screen moves; it must not travel along with the window. Shape, size, the "
        "widths of the panels and of the window, the direction and the speed vary."
    )
    structural = {
        "shape": Choice(["sphere", "box", "cylinder"]),
        "size": Uniform(0.12, 0.18),
        "panel": Uniform(0.7, 1.0),
        "window": Uniform(0.75, 1.0),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.0, 1.6),
    }
    colour_slots = ("screen", "object1")

    def compose(self, s, clip, look):
        T, fps, d, sz = clip.frames, clip.fps, s["direction"], s["size"]
        target = static_body("object1", s["shape"], sz, look, "object1", T, 0.0, 0.5)
        pw, gw = s["panel"], s["window"]
        hw = 2 * half_height(s["shape"], sz) + 0.3  # window height: the object shows whole through it
        h = hw + 0.25
        full = 2 * pw + gw
        x0 = -d * (full / 2 + sz + 0.3)  # frame centre at the start: the lead panel's edge 0.3 m away
        travel = 2 * abs(x0)
        f0 = clip.cut
        v = max(s["speed"] / fps, travel / max(T - 3 - f0, 1))  # m per frame
        frame = Motion(T, fps, (x0, 0.0, 0.0))
        frame.velocity(f0, (d * v * fps, 0.0, 0.0))
        parts = []
        for nm, dx, dims, z in (
            ("panel1", -(gw + pw) / 2, (pw, SCREEN_T, h), h / 2),
            ("panel2", (gw + pw) / 2, (pw, SCREEN_T, h), h / 2),
            ("lintel", 0.0, (gw, SCREEN_T, h - hw), (h + hw) / 2),
        ):
            m = Motion(T, fps, (x0 + dx, 0.0, z))
            m.follow(frame, 0, offset=(dx, 0.0, z))
            parts.append(SceneObject(nm, "occluder", "box", dims, look.mat("screen"), m.track()))
        objs, exps, hidden = static_scene(clip, look, self.view, [target], parts)
        hid = hidden["object1"]
        clear = next(e.frames for e in exps if isinstance(e, X.Visible))
        seen = [f for f in clear if hid and hid[0] < f < hid[-1]]
        if not seen:
            raise ValueError("the object never shows through the window")
        events = key_frames(hidden, clip)
        return Composition(
            objs,
            {**events, "through_window": seen[0]},
            "covered",
            exps,
            prompt=f"A {look.colour('object1')} {NOUN[s['shape']]} rests on the floor. To the "
            f"{'left' if d > 0 else 'right'} stands a wide {look.colour('screen')} screen with a window in it. "
            f"Continue the video.",
            outcome="the screen slides past; the object shows through the window and is there unchanged after",
            derived={
                "window_height": round(hw, 4),
                "speed_m_per_s": round(v * fps, 4),
                "window_frames": len(seen),
            },
        )
