"""OS-3/knocked_off_table."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import slab
from simkit.generators.wrop.kit_os3 import path
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion, collide_1d, fall_frames, fall_height
from simkit.scenes.wrop.params import Choice, Uniform
from simkit.scenes.wrop.spec import SceneObject


class KnockedOffTable(Task):
    family, name = "OS-3", "knocked_off_table"
    summary = (
        "a ball rolling on a table knocks a resting ball over the edge; it flies off and lands on the floor"
    )
    description = (
        "On a table top a flicked ball rolls into an equal ball resting near the edge. The impact passes almost all "
        "the momentum on: the striker nearly stops and stays on the table, while the struck ball rolls to the "
        "edge at (1 + e) v / 2, loses its support there and follows a parabola to the floor, landing at the "
        "declared frame. Two physical laws chain: momentum transfer at the impact and free fall after the "
        "edge. Neither ball may pass through the other, the struck ball must not hover past the edge, and "
        "the striker must not fall. Ball size, speed, restitution, distance to the edge, table height and "
        "direction vary."
    )
    structural = {
        "radius": Uniform(0.1, 0.16),
        "speed": Uniform(1.6, 2.4),
        "restitution": Uniform(0.8, 1.0),
        "to_edge": Uniform(0.2, 0.5),
        "height": Uniform(0.5, 0.9),
        "direction": Choice([1, -1]),
        "contact_at": Uniform(0.52, 0.56),
    }
    colour_slots = ("target", "struck", "table")

    def compose(self, s, clip, look):
        T, fps, r, d, v = clip.frames, clip.fps, s["radius"], s["direction"], s["speed"]
        f_c = clip.at(s["contact_at"], lo=clip.cut)
        va, vb = collide_1d(1.0, v, 1.0, 0.0, s["restitution"])
        n_e = max(2, min(round(s["to_edge"] / vb * fps), T - 5 - f_c))
        f_e = f_c + n_e  # the struck ball's centre is over the edge on a whole frame
        k = min(fall_frames(s["height"], fps), T - 3 - f_e)
        if k < 2:
            raise ValueError("clip too short for the fall")
        H = fall_height(k, fps)
        x_b = -d * vb * n_e / fps  # the struck ball's resting place; the edge is at x = 0
        f_go = max(0, f_c - round(1.6 / v * fps))  # flicked at most 1.6 m before the impact: on the table
        phases = (
            [(0, (0.0,)), (f_go, (d * v,)), (f_c, (d * va,))]
            if f_go > 0
            else [(0, (d * v,)), (f_c, (d * va,))]
        )
        xa = path(T, fps, phases, f_c, (x_b - d * 2 * r,), decel=0.6)[:, 0]
        a = Motion(T, fps, (0.0, 0.0, H + r))
        a.pos[:, 0] = xa
        a.roll(r)
        b = Motion(T, fps, (x_b, 0.0, H + r))
        b.velocity(f_c, (d * vb, 0.0, 0.0))
        b.fall(f_e, f_e + k, r)
        b.velocity(f_e + k, (d * vb * 0.5, 0.0, 0.0))  # rolls on after the landing, slower
        b.roll(r)
        lo, hi = sorted((0.0, -d * 3.0))
        objs = [
            look.ground(T),
            slab("table", "support", "table", look, T, (lo, -0.5, 0.0), (hi, 0.5, H)),
            SceneObject("target", "target", "sphere", (r,), look.mat("target"), a.track()),
            SceneObject("struck", "target", "sphere", (r,), look.mat("struck"), b.track()),
        ]
        exps = [
            X.contact("target", "struck", f_c),
            X.momentum(["target", "struck"], [1.0, 1.0], f_c),
            X.no_penetration("target", "struck"),
            X.touching("target", "table", list(range(T))),
            X.touching("struck", "table", list(range(f_e + 1))),
            X.contact("struck", "ground", f_e + k),
        ]
        exps += [X.no_penetration(o, t) for o in ("target", "struck") for t in ("table", "ground")]
        return Composition(
            objs,
            {"impact": f_c, "leaves_edge": f_e, "landing": f_e + k},
            "impact",
            exps,
            prompt=f"On a {look.colour('table')} table a {look.colour('target')} ball rolls toward a "
            f"{look.colour('struck')} ball resting near the edge. Continue the video.",
            outcome="the struck ball is knocked over the edge and falls to the floor; the striker stays on the table",
            derived={
                "table_height": round(H, 4),
                "v_struck": round(vb, 4),
                "v_striker_after": round(va, 4),
                "fall_frames": k,
            },
        )
