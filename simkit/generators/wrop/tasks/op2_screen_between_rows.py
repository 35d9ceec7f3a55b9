"""OP-2/screen_between_rows."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import NOUN, half_height, listing
from simkit.generators.wrop.kit_op2 import key_frames, moving_screen, static_body, static_scene, sweep_motion
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class ScreenBetweenRows(Task):
    family, name = "OP-2", "screen_between_rows"
    summary = "a screen slides between a front and a back row: the back row is hidden, the front row never"
    description = (
        "Objects stand in two rows, one or two near the camera and two farther back, placed so that no "
        "object hides another. After the cut a screen slides across between the rows: it hides the back "
        "objects but passes behind the front ones, which stay in full view in front of it. Depth order "
        "decides what is hidden; the model must neither let the screen cover the front objects nor lose the "
        "back ones, and both rows must be intact afterwards. Numbers, shapes, sizes, spacing, the screen's "
        "direction and speed vary."
    )
    structural = {
        "n_front": IntRange(1, 2),
        "shapes": Choice(["sphere", "box", "cylinder", "mixed"]),
        "size": Uniform(0.1, 0.14),
        "spacing": Uniform(0.8, 1.0),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.4, 2.2),
        "cover_at": Uniform(0.5, 0.56),
    }
    colour_slots = ("screen", "front1", "front2", "back1", "back2")

    def compose(self, s, clip, look):
        T, d, sp, sz = clip.frames, s["direction"], s["spacing"], s["size"]
        kinds = ["sphere", "box", "cylinder", "sphere"] if s["shapes"] == "mixed" else [s["shapes"]] * 4
        back = [(f"back{i + 1}", kinds[i], (i - 0.5) * sp) for i in range(2)]
        front_x = [0.0] if s["n_front"] == 1 else [-sp, sp]
        front = [(f"front{i + 1}", kinds[2 + i], x) for i, x in enumerate(front_x)]
        targets = [static_body(nm, k, sz, look, nm, T, x, 0.5) for nm, k, x in back]
        targets += [static_body(nm, k, sz, look, nm, T, x, -0.6) for nm, k, x in front]
        w = 2 * sz + 0.6
        h = 2 * max(half_height(k, sz) for k in kinds) + 0.45
        lo, hi = -sp - sz, sp + sz
        m, v = sweep_motion(clip, lo, hi, w, h / 2, d, s["speed"], s["cover_at"])
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = static_scene(clip, look, self.view, targets, [scr])
        if any(not hidden[nm] for nm, _, _ in back) or any(hidden[nm] for nm, _, _ in front):
            raise ValueError("the screen must hide every back object and no front object")
        if any(len(e.frames) != T for e in exps if isinstance(e, X.Visible) and e.object.startswith("front")):
            raise ValueError("a front object is not in full view throughout")
        events = key_frames(hidden, clip)
        fr = listing([f"a {look.colour(nm)} {NOUN[k]}" for nm, k, _ in front])
        bk = listing([f"a {look.colour(nm)} {NOUN[k]}" for nm, k, _ in back])
        return Composition(
            objs,
            events,
            "covered",
            exps,
            prompt=f"In front {'stands' if len(front) == 1 else 'stand'} {fr}; farther back stand {bk}. "
            f"A {look.colour('screen')} screen stands between the rows, to the {'left' if d > 0 else 'right'}. "
            f"Continue the video.",
            outcome="the screen passes between the rows, hiding only the back objects; both rows are intact",
            derived={"front_y": -0.6, "back_y": 0.5, "screen_speed_m_per_s": round(v, 4)},
        )
