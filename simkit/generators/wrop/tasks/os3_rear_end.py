"""OS-3/rear_end."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import SceneObject, collide_1d, collision_line
from simkit.generators.wrop.kit_os3 import touching_dx
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class RearEnd(Task):
    family, name = "OS-3", "rear_end"
    summary = "a fast ball catches up with a slower ball rolling the same way and bumps it forward"
    description = (
        "Two balls roll in the same direction, the rear one faster, so it closes the distance and strikes the "
        "front ball from behind at the declared frame. Only the relative speed matters for the impact: the "
        "front ball is pushed on faster, the rear one slows down (or even rolls back when it is much lighter), "
        "and the total momentum is unchanged. Neither ball may pass through the other or overtake it without "
        "a collision. Sizes (masses), both speeds, restitution and direction vary."
    )
    structural = {
        "r_rear": Uniform(0.12, 0.24),
        "r_front": Uniform(0.12, 0.24),
        "v_rear": Uniform(1.4, 2.2),
        "v_front": Uniform(0.3, 0.9),
        "restitution": Uniform(0.6, 1.0),
        "direction": Choice([1, -1]),
        "contact_at": Uniform(0.55, 0.64),
    }
    colour_slots = ("target", "front")

    def compose(self, s, clip, look):
        ra, rb, d = s["r_rear"], s["r_front"], s["direction"]
        ma, mb = ra**3, rb**3
        va, vb = collide_1d(ma, d * s["v_rear"], mb, d * s["v_front"], s["restitution"])
        dx = touching_dx(ra, rb)
        a = SceneObject("target", "target", "sphere", (ra,), look.mat("target"), None)
        b = SceneObject("front", "target", "sphere", (rb,), look.mat("front"), None)
        exps, ev = collision_line(
            clip,
            look,
            [a, b],
            [ma, mb],
            [-d * (0.6 + dx), -d * 0.6],
            [d * s["v_rear"], d * s["v_front"]],
            [va, vb],
            s["contact_at"],
            ("target", "front"),
        )
        exps.append(X.side("front", "target", list(range(clip.frames)), d, space="world"))
        return Composition(
            [look.ground(clip.frames), a, b],
            ev,
            "impact",
            exps,
            prompt=f"A {look.colour('target')} ball rolls after a slower {look.colour('front')} ball going "
            f"the same way. Continue the video.",
            outcome=f"the rear ball catches up and bumps the front ball on at {abs(vb):.2f} m/s; the rear ball "
            f"goes on at {va * d:+.2f} m/s",
            derived={"v_rear_after": round(va, 4), "v_front_after": round(vb, 4)},
        )
