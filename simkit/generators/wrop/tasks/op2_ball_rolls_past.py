"""OP-2/ball_rolls_past."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import NOUN, listing
from simkit.generators.wrop.kit_op2 import (
    hide_every_target,
    key_frames,
    object_row,
    sweep_motion,
)
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, IntRange, Uniform
from simkit.scenes.wrop.spec import SceneObject


class BallRollsPast(Task):
    family, name = "OP-2", "ball_rolls_past"
    summary = "a big ball rolls past in front of small objects, hiding them in turn; they must stay put"
    description = (
        "One or two small objects rest on the floor. After the cut a big ball rolls past in front of them, "
        "close enough to hide each in turn but never touching them, and rolls on. The occluder is round and "
        "rolling rather than a flat screen, so its silhouette covers the objects only around its middle and "
        "uncovers them gradually; the small objects must not be pushed, carried along or flattened by the "
        "ball, and must be in their places, unchanged, once it has passed. The big ball's size and speed, "
        "the objects' number, shapes and sizes, and the rolling direction vary."
    )
    structural = {
        "n_objects": IntRange(1, 2),
        "shape": Choice(["sphere", "box", "cylinder"]),
        "size": Uniform(0.07, 0.11),
        "spacing": Uniform(0.35, 0.5),
        "ball_radius": Uniform(0.42, 0.58),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.5, 2.5),
        "roll_at": Uniform(0.5, 0.55),
    }
    colour_slots = ("ball", "object1", "object2")

    def compose(self, s, clip, look):
        T, n, d, R = clip.frames, s["n_objects"], s["direction"], s["ball_radius"]
        xs = [(i - (n - 1) / 2) * s["spacing"] for i in range(n)]
        targets = object_row(look, T, s["shape"], s["size"], xs, 0.5)
        y = 0.5 - s["size"] - 0.12 - R  # the ball passes 0.12 m in front of the objects
        m, v = sweep_motion(
            clip,
            min(xs) - s["size"],
            max(xs) + s["size"],
            2 * R,
            R,
            d,
            s["speed"],
            s["roll_at"],
            y=y,
            lead=0.3,
        )
        m.roll(R)
        ball = SceneObject("ball", "occluder", "sphere", (R,), look.mat("ball"), m.track())
        objs, exps, hidden = hide_every_target(
            "the ball never hides every object", clip, look, self.view, targets, [ball]
        )
        exps += [X.apart("ball", t.name, list(range(T))) for t in targets]
        events = key_frames(hidden, clip)
        nouns = listing([f"a small {look.colour(f'object{i + 1}')} {NOUN[s['shape']]}" for i in range(n)])
        return Composition(
            objs,
            events,
            "covered",
            exps,
            prompt=f"{nouns[0].upper()}{nouns[1:]} {'rests' if n == 1 else 'rest'} on the floor; a big "
            f"{look.colour('ball')} ball lies to the {'left' if d > 0 else 'right'}. Continue the video.",
            outcome="the big ball rolls past in front; the small objects stay where they were",
            derived={"ball_path_y": round(y, 4), "ball_speed_m_per_s": round(v, 4)},
        )
