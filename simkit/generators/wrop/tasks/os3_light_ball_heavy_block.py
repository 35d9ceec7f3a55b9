"""OS-3/light_ball_heavy_block."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import SceneObject, collide_1d, collision_line
from simkit.generators.wrop.kit_os3 import ball_mass, box_mass
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class LightBallHeavyBlock(Task):
    family, name = "OS-3", "light_ball_heavy_block"
    summary = "a small ball rolls into a big resting block; the ball bounces back and the block barely moves"
    description = (
        "A small ball rolls into the face of a large block of the same material resting on the floor. The "
        "block is tens of times heavier, so momentum conservation leaves it only a small push, and the ball "
        "rebounds at almost its restitution times its impact speed, rolling back the way it came. The light "
        "object must not shove the heavy one away, stop dead, or pass through it; the heavy block must still "
        "move a little. Ball size, block size (mass ratio), speed, restitution and direction vary."
    )
    structural = {
        "radius": Uniform(0.08, 0.14),
        "h_block": Uniform(0.22, 0.34),
        "speed": Uniform(1.2, 2.2),
        "restitution": Uniform(0.55, 0.9),
        "direction": Choice([1, -1]),
        "contact_at": Uniform(0.55, 0.64),
    }
    colour_slots = ("target", "block")

    def compose(self, s, clip, look):
        r, h, d, v = s["radius"], s["h_block"], s["direction"], s["speed"]
        mb, mk = ball_mass(r), box_mass((2 * h,) * 3)
        va, vk = collide_1d(mb, d * v, mk, 0.0, s["restitution"])
        a = SceneObject("target", "target", "sphere", (r,), look.mat("target"), None)
        k = SceneObject("block", "obstacle", "box", (2 * h,) * 3, look.mat("block"), None)
        exps, ev = collision_line(
            clip,
            look,
            [a, k],
            [mb, mk],
            [-d * r, d * h],
            [d * v, 0.0],
            [va, vk],
            s["contact_at"],
            ("target", "block"),
            decel=0.3,
        )
        T = clip.frames
        exps += [
            X.velocity("target", ev["impact"], va),
            X.side("target", "block", list(range(T)), -d, space="world"),
        ]
        return Composition(
            [look.ground(T), a, k],
            ev,
            "impact",
            exps,
            prompt=f"A small {look.colour('target')} ball rolls toward a big {look.colour('block')} block "
            f"resting on the floor. Continue the video.",
            outcome=f"the ball bounces back at {abs(va):.2f} m/s and the block is pushed on only at {abs(vk):.2f} m/s",
            derived={
                "mass_ratio": round(mk / mb, 2),
                "v_ball_after": round(va, 4),
                "v_block_after": round(vk, 4),
            },
        )
