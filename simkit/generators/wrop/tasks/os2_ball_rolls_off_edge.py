"""OS-2/ball_rolls_off_edge."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import G, Motion, SceneObject, Track, X, fall_frames, fall_height
from simkit.scenes.wrop.params import Choice, Uniform


class BallRollsOffEdge(Task):
    family, name = "OS-2", "ball_rolls_off_edge"
    summary = "a ball rolls off the end of a table and must follow a falling arc to the floor"
    description = (
        "A ball rolls along a table top toward its edge. Past the edge it has no support, so after the cut it "
        "follows a projectile path: horizontal speed unchanged, vertical drop growing with the square of time, "
        "landing on the floor at the declared frame and rolling on. A model without support knowledge lets "
        "the ball roll on in mid-air or drop straight down. Ball size, table height, speed and direction vary "
        "(the speed is always high enough, v^2 > g r, that the ball leaves the edge without rolling around it)."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "height": Uniform(0.5, 1.0),
        "speed": Uniform(1.6, 2.4),
        "direction": Choice([1, -1]),
        "edge_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "support")

    def compose(self, s, clip, look):
        T, fps, r, d, v = clip.frames, clip.fps, s["radius"], s["direction"], s["speed"]
        assert v * v > G * r
        f_e = clip.at(s["edge_at"], lo=clip.cut)
        k = min(fall_frames(s["height"], fps), T - 3 - f_e)
        H = fall_height(k, fps)
        x_edge = -d * 0.6
        m = Motion(T, fps, (x_edge - d * v * f_e / fps, 0, H + r))
        m.velocity(0, (d * v, 0, 0))
        m.fall(f_e, f_e + k, r)
        m.roll(r)
        ball = SceneObject("target", "target", "sphere", (r,), look.mat("target"), m.track())
        length = v * f_e / fps + 1.0
        table = SceneObject(
            "support",
            "support",
            "box",
            (length, 1.0, H),
            look.mat("support"),
            Track.static(T, (x_edge - d * length / 2, 0, H / 2)),
        )
        exps = [
            X.touching("target", "support", list(range(f_e + 1))),
            X.contact("target", "ground", f_e + k),
            X.no_penetration("target", "support"),
            X.no_penetration("target", "ground"),
        ]
        return Composition(
            [look.ground(T), table, ball],
            {"leaves_edge": f_e, "landing": f_e + k},
            "leaves_edge",
            exps,
            prompt=f"A {look.colour('target')} ball rolls along a {look.colour('support')} table "
            f"toward its edge. Continue the video.",
            outcome="the ball leaves the edge, falls in an arc and lands on the floor",
            derived={"table_height": round(H, 4), "fall_frames": k},
        )
