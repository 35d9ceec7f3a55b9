"""OP-2/low_screen_tall_object."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import NOUN
from simkit.generators.wrop.kit_op2 import key_frames, moving_screen, static_body, static_scene, sweep_motion
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform
from simkit.scenes.wrop.spec import SceneObject, Track


class LowScreenTallObject(Task):
    family, name = "OP-2", "low_screen_tall_object"
    summary = "a low screen slides past a short object and a tall pole: the short one vanishes, the pole's top never"
    description = (
        "A short object and a tall thin pole stand side by side. After the cut a low screen slides past in "
        "front of both: it hides the short object completely but only the lower part of the pole, whose "
        "top stays in view above the screen's edge the whole time. Occlusion here is partial for one object "
        "and total for the other; the model must keep the pole in one piece (its hidden lower part does not "
        "vanish or shift) and bring the short object back. The short object's shape and size, the pole's "
        "height and thickness, the screen's height, direction and speed vary."
    )
    structural = {
        "shape": Choice(["sphere", "box", "cylinder"]),
        "size": Uniform(0.11, 0.16),
        "pole_radius": Uniform(0.07, 0.1),
        "pole_height": Uniform(1.3, 1.7),
        "screen_over": Uniform(0.25, 0.35),
        "gap": Uniform(0.4, 0.6),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.4, 2.2),
        "cover_at": Uniform(0.5, 0.56),
    }
    colour_slots = ("screen", "object1", "pole")

    def compose(self, s, clip, look):
        T, d, sz, pr, ph = clip.frames, s["direction"], s["size"], s["pole_radius"], s["pole_height"]
        x_obj = -(s["gap"] + sz + pr) / 2
        x_pole = x_obj + s["gap"] + sz + pr
        short = static_body("object1", s["shape"], sz, look, "object1", T, x_obj, 0.5)
        pole = SceneObject(
            "pole", "target", "cylinder", (pr, ph), look.mat("pole"), Track.static(T, (x_pole, 0.5, ph / 2))
        )
        h = 2 * sz * (1.2 if s["shape"] == "cylinder" else 1.0) + s["screen_over"]
        w = s["gap"] + 2 * sz + 2 * pr + 0.7
        m, v = sweep_motion(clip, x_obj - sz, x_pole + pr, w, h / 2, d, s["speed"], s["cover_at"])
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = static_scene(clip, look, self.view, [short], [scr], [pole])
        if not hidden["object1"]:
            raise ValueError("the low screen never hides the short object")
        exps += [X.visible("pole", list(range(T)), 0.25), X.same_place("pole", list(range(T)))]
        events = key_frames(hidden, clip)
        return Composition(
            objs,
            events,
            "covered",
            exps,
            prompt=f"A {look.colour('object1')} {NOUN[s['shape']]} stands next to a tall thin "
            f"{look.colour('pole')} pole. A low {look.colour('screen')} screen stands to the "
            f"{'left' if d > 0 else 'right'}. Continue the video.",
            outcome="the low screen slides past; the short object is back and the pole stood throughout",
            derived={"screen_height": round(h, 4), "pole_share_above_screen": round(1 - h / ph, 4)},
        )
