"""OS-3/puck_between_walls."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import slab
from simkit.generators.wrop.kit_os3 import path
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, Uniform
from simkit.scenes.wrop.spec import SceneObject


def rebounds(x0: float, u: float, e: float, half: float, t: np.ndarray) -> np.ndarray:
    """Centre x at times ``t`` (s) of a puck leaving ``x0`` at velocity ``u`` (m/s) between centre limits
    +-``half`` (m), reversing with speed factor ``e`` at each limit (frictionless)."""
    x = np.empty_like(t)
    t0, p, w = 0.0, x0, u
    while True:
        t_hit = t0 + (np.sign(w) * half - p) / w if w != 0 else np.inf
        on = (t >= t0) & (t < t_hit)
        x[on] = p + w * (t[on] - t0)
        if t_hit >= t[-1] or abs(w) < 1e-3:
            rest = t >= t_hit
            x[rest] = np.sign(w) * half
            return x
        t0, p, w = t_hit, np.sign(w) * half, -e * w


class PuckBetweenWalls(Task):
    family, name = "OS-3", "puck_between_walls"
    summary = "a puck glides on ice between two walls, losing speed by the same factor at every rebound"
    description = (
        "A flat puck glides without friction between two parallel walls. It strikes one wall after the cut, "
        "rebounds at the restitution coefficient e times its speed, crosses to the other wall and rebounds "
        "again at e^2 times its first speed: each crossing takes longer by the factor 1/e. The walls are solid, "
        "so the puck reverses exactly at their faces on the declared frames and never passes through, and "
        "nothing but the walls changes its speed. Puck size, speed, restitution, the distance between the "
        "walls and the first direction vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "speed": Uniform(1.4, 2.4),
        "restitution": Uniform(0.5, 0.85),
        "span": Uniform(0.5, 1.4),
        "direction": Choice([1, -1]),
        "hit_at": Uniform(0.5, 0.56),
    }
    colour_slots = ("target", "wall")
    view = {"target": (0.0, 0.0, 0.2), "elevation_deg": 22.0}

    def compose(self, s, clip, look):
        T, fps, r, d, v, e = clip.frames, clip.fps, s["radius"], s["direction"], s["speed"], s["restitution"]
        f1 = clip.at(s["hit_at"], lo=clip.cut)
        n = max(2, min(round(s["span"] / (e * v) * fps), T - 5 - f1))
        f2 = f1 + n
        span = e * v * n / fps  # travel of the centre between the two impacts: a whole number of frames
        x1 = d * span / 2  # centre at the first impact; at the second: -x1
        f_go = max(0, f1 - int(min(1.2, span - 0.05) / v * fps))  # struck between the walls
        phases = [(0, (0.0,)), (f_go, (d * v,))] if f_go > 0 else [(0, (d * v,))]
        x = path(T, fps, [*phases, (f1, (-d * e * v,))], f1, (x1,))[:, 0]
        x[f2:] = rebounds(-x1, d * e * e * v, e, span / 2, (np.arange(f2, T) - f2) / fps)
        m = Motion(T, fps, (0.0, 0.0, 0.04))
        m.pos[:, 0] = x
        objs = [
            look.ground(T),
            SceneObject("target", "target", "cylinder", (r, 0.08), look.mat("target"), m.track()),
        ]
        for nm, sgn in (("wall_far", d), ("wall_near", -d)):
            face = sgn * (span / 2 + r)
            lo, hi = sorted((face, face + sgn * 0.15))
            objs.append(slab(nm, "wall", "wall", look, T, (lo, -0.7, 0.0), (hi, 0.7, 0.35)))
        exps = [
            X.contact("target", "wall_far", f1),
            X.velocity("target", f1, -d * e * v),
            X.contact("target", "wall_near", f2),
            X.velocity("target", f2, d * e * e * v),
            X.no_penetration("target", "wall_far"),
            X.no_penetration("target", "wall_near"),
        ]
        return Composition(
            objs,
            {"first_rebound": f1, "second_rebound": f2},
            "first_rebound",
            exps,
            prompt=f"A {look.colour('target')} puck glides on ice between two {look.colour('wall')} walls. "
            f"Continue the video.",
            outcome=f"the puck rebounds off one wall at {e * v:.2f} m/s, then off the other at {e * e * v:.2f} m/s",
            derived={"span": round(span, 4), "speeds": [round(v, 4), round(e * v, 4), round(e * e * v, 4)]},
        )
