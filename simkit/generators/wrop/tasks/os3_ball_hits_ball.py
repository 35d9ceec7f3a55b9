"""OS-3/ball_hits_ball."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import SceneObject, collide_1d, collision_line
from simkit.scenes.wrop.params import Uniform


class BallHitsBall(Task):
    family, name = "OS-3", "ball_hits_ball"
    summary = "a rolling ball strikes a resting ball; momentum passes on and both balls remain"
    description = (
        "A ball rolls into a resting ball. At the declared contact frame momentum is transferred as in a 1-D "
        "collision with restitution: a heavier striker keeps moving forward more slowly, a lighter one "
        "bounces back, and the struck ball moves off at the speed momentum conservation demands. Neither "
        "ball passes through the other, merges, vanishes or duplicates. Sizes (hence masses, equal density), "
        "speed and restitution vary."
    )
    structural = {
        "r_striker": Uniform(0.12, 0.26),
        "r_struck": Uniform(0.12, 0.26),
        "speed": Uniform(1.2, 2.4),
        "restitution": Uniform(0.7, 1.0),
        "contact_at": Uniform(0.55, 0.64),
    }
    colour_slots = ("target", "struck")

    def compose(self, s, clip, look):
        ra, rb = s["r_striker"], s["r_struck"]
        ma, mb = ra**3, rb**3
        dx = 2 * (ra * rb) ** 0.5  # horizontal centre distance of touching balls resting on the floor
        va, vb = collide_1d(ma, s["speed"], mb, 0.0, s["restitution"])
        a = SceneObject("target", "target", "sphere", (ra,), look.mat("target"), None)
        b = SceneObject("struck", "target", "sphere", (rb,), look.mat("struck"), None)
        exps, ev = collision_line(
            clip,
            look,
            [a, b],
            [ma, mb],
            [-0.3 - dx / 2, -0.3 + dx / 2],
            [s["speed"], 0.0],
            [va, vb],
            s["contact_at"],
            ("target", "struck"),
        )
        return Composition(
            [look.ground(clip.frames), a, b],
            ev,
            "impact",
            exps,
            prompt=f"A {look.colour('target')} ball rolls toward a {look.colour('struck')} ball "
            f"resting on the floor. Continue the video.",
            outcome=f"the balls collide; the struck ball moves off at {vb:.2f} m/s, the striker "
            f"continues at {va:.2f} m/s",
            derived={"v_striker_after": round(va, 4), "v_struck_after": round(vb, 4)},
        )
