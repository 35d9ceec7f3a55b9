"""OP-2/cups_beside_objects."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import listing
from simkit.generators.wrop.kit_op2 import key_frames, moving_screen, static_body, static_scene, sweep_motion
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, IntRange, Uniform
from simkit.scenes.wrop.spec import SceneObject, Track

CUP_R, CUP_H = 0.2, 0.36


class CupsBesideObjects(Task):
    family, name = "OP-2", "cups_beside_objects"
    summary = "a screen slides past a row of upturned cups with balls beside them; the balls stay outside"
    description = (
        "Two or three upturned cups stand in a row and a small ball lies in the open beside each of one or "
        "two of them. After the cut a wide screen slides past in front of the whole row and moves on. The "
        "cups are containers that could hide a ball, which invites a model to put the balls under them while "
        "they are out of sight; object permanence says the balls stay in the open, beside the same cups, and "
        "the cups stay where they were. Number of cups, which cups have a ball and on which side, sizes, "
        "spacing, and the screen's direction and speed vary."
    )
    structural = {
        "n_cups": IntRange(2, 3),
        "n_balls": IntRange(1, 2),
        "ball_side": Choice([1, -1]),
        "radius": Uniform(0.07, 0.11),
        "spacing": Uniform(0.8, 1.0),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.4, 2.4),
        "cover_at": Uniform(0.5, 0.56),
    }
    colour_slots = ("screen", "cups", "ball1", "ball2")

    def compose(self, s, clip, look):
        T, d, nc, nb = clip.frames, s["direction"], s["n_cups"], s["n_balls"]
        r, sp = s["radius"], s["spacing"]
        cx = [(i - (nc - 1) / 2) * sp for i in range(nc)]
        cups = [
            SceneObject(
                f"cup{i + 1}",
                "container",
                "cup",
                (CUP_R, CUP_H),
                look.mat("cups"),
                Track.static(T, (x, 0.5, CUP_H / 2)),
            )
            for i, x in enumerate(cx)
        ]
        off = s["ball_side"] * (CUP_R + r + 0.12)
        balls = [
            static_body(f"ball{i + 1}", "sphere", r, look, f"ball{i + 1}", T, cx[i] + off, 0.5)
            for i in range(nb)
        ]
        lo, hi = min(cx) - CUP_R - 0.3, max(cx) + CUP_R + 0.3
        w = hi - lo + 0.5
        h = CUP_H + 0.5
        m, v = sweep_motion(clip, lo, hi, w, h / 2, d, s["speed"], s["cover_at"])
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = static_scene(clip, look, self.view, balls + cups, [scr])
        if any(not hidden[b.name] for b in balls):
            raise ValueError("the screen never hides every ball")
        exps += [X.apart(b.name, c.name, list(range(T))) for b in balls for c in cups]
        events = key_frames(hidden, clip, [b.name for b in balls])
        which = listing([f"a {look.colour(f'ball{i + 1}')} ball" for i in range(nb)])
        return Composition(
            objs,
            events,
            "covered",
            exps,
            prompt=f"{('Two', 'Three')[nc - 2]} upturned {look.colour('cups')} cups stand in a row; {which} "
            f"{'lies' if nb == 1 else 'lie'} on the floor to the {'right' if off > 0 else 'left'} of the "
            f"{'leftmost cup' if nb == 1 else 'two leftmost cups'}. A {look.colour('screen')} screen stands to the "
            f"{'left' if d > 0 else 'right'}. Continue the video.",
            outcome="the screen slides past; the balls still lie beside the cups, not under them",
            derived={"ball_offset": round(off, 4), "screen_speed_m_per_s": round(v, 4)},
        )
