"""OS-3/wall_rebound_hits_ball."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import slab
from simkit.generators.wrop.kit_os3 import floor_ball, path
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import collide_1d
from simkit.scenes.wrop.params import Choice, Uniform


class WallReboundHitsBall(Task):
    family, name = "OS-3", "wall_rebound_hits_ball"
    summary = "a ball rolls away from a resting ball, rebounds off a wall and comes back to strike it"
    description = (
        "A ball rolls away from a resting ball toward a wall. It hits the wall after the cut, rebounds at the "
        "wall's restitution times its speed and rolls back, striking the resting ball it had left behind at the "
        "declared frame, where momentum passes on as in a 1-D collision (the mover is the heavier ball, so it then "
        "rolls on slowly away from the wall). The sequence asks a model to keep "
        "track of a ball that is behind the moving one, to reverse the motion at the wall (not pass through "
        "it), and to transfer momentum on the second impact. Ball sizes, speed, both restitutions, the "
        "distances and the direction vary."
    )
    structural = {
        "r_mover": Uniform(0.14, 0.2),
        "r_rest": Uniform(0.1, 0.14),
        "speed": Uniform(1.4, 2.4),
        "wall_restitution": Uniform(0.6, 0.9),
        "restitution": Uniform(0.7, 1.0),
        "back_distance": Uniform(0.3, 0.8),
        "direction": Choice([1, -1]),
        "wall_at": Uniform(0.5, 0.54),
    }
    colour_slots = ("target", "resting", "wall")

    def compose(self, s, clip, look):
        T, fps, d, v = clip.frames, clip.fps, s["direction"], s["speed"]
        ra, rb = s["r_mover"], s["r_rest"]
        f_w = clip.at(s["wall_at"], lo=clip.cut)
        v_back = -s["wall_restitution"] * v
        n = max(2, min(round(s["back_distance"] / abs(v_back) * fps), T - 5 - f_w))
        f_i = f_w + n  # the impact with the resting ball, on a whole frame
        va, vb = collide_1d(ra**3, d * v_back, rb**3, 0.0, s["restitution"])
        x_w = d * 0.8  # centre of the mover when it touches the wall
        x_i = x_w + d * v_back * n / fps  # ... and when it touches the resting ball
        x_rest = x_i - d * 2 * (ra * rb) ** 0.5
        # set rolling just in front of the resting ball (so it rolls away from it), at most 1.8 m from the wall
        f_go = max(0, f_w - int(min(1.8, abs(x_w - x_i) - 0.03) / v * fps))
        phases = [(0, (0.0, 0.0)), (f_go, (d * v, 0.0))] if f_go > 0 else [(0, (d * v, 0.0))]
        xa = path(T, fps, [*phases, (f_w, (d * v_back, 0.0)), (f_i, (va, 0.0))], f_w, (x_w, 0.0), decel=0.3)
        xb = path(T, fps, [(0, (0.0, 0.0)), (f_i, (vb, 0.0))], f_i, (x_rest, 0.0), decel=0.3)
        face = x_w + d * ra
        lo, hi = sorted((face, face + d * 0.2))
        objs = [
            look.ground(T),
            slab("wall", "wall", "wall", look, T, (lo, -0.8, 0.0), (hi, 0.8, 0.7)),
            floor_ball("target", ra, look, "target", xa, fps),
            floor_ball("resting", rb, look, "resting", xb, fps),
        ]
        exps = [
            X.contact("target", "wall", f_w),
            X.velocity("target", f_w, d * v_back),
            X.contact("target", "resting", f_i),
            X.momentum(["target", "resting"], [ra**3, rb**3], f_i),
            X.no_penetration("target", "wall"),
            X.no_penetration("target", "resting"),
            X.no_penetration("resting", "wall"),
        ]
        return Composition(
            objs,
            {"wall_hit": f_w, "impact": f_i},
            "wall_hit",
            exps,
            prompt=f"A {look.colour('target')} ball rolls away from a resting {look.colour('resting')} ball "
            f"toward a {look.colour('wall')} wall. Continue the video.",
            outcome="the ball rebounds off the wall, rolls back and strikes the resting ball, passing momentum on",
            derived={
                "v_after_wall": round(d * v_back, 4),
                "v_mover_after": round(va, 4),
                "v_struck": round(vb, 4),
            },
        )
