"""OS-3/head_on."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import SceneObject, collide_1d, collision_line
from simkit.scenes.wrop.params import Uniform


class HeadOn(Task):
    family, name = "OS-3", "head_on"
    summary = "two balls roll toward each other and collide head-on; both bounce apart"
    description = (
        "Two balls roll toward each other and meet after the cut. The collision conserves momentum: equal "
        "balls exchange velocities, a heavy ball pushes a light one back. Both balls must survive the impact "
        "as two distinct objects of unchanged size and colour, touch at the declared frame without "
        "overlapping and move apart with the velocities the masses and restitution imply. Sizes, speeds and "
        "restitution vary."
    )
    structural = {
        "r_left": Uniform(0.13, 0.25),
        "r_right": Uniform(0.13, 0.25),
        "v_left": Uniform(0.8, 2.0),
        "v_right": Uniform(0.8, 2.0),
        "restitution": Uniform(0.7, 1.0),
        "contact_at": Uniform(0.56, 0.64),
    }
    colour_slots = ("target", "other")

    def compose(self, s, clip, look):
        ra, rb = s["r_left"], s["r_right"]
        ma, mb = ra**3, rb**3
        dx = 2 * (ra * rb) ** 0.5  # horizontal centre distance of touching balls resting on the floor
        va, vb = collide_1d(ma, s["v_left"], mb, -s["v_right"], s["restitution"])
        a = SceneObject("target", "target", "sphere", (ra,), look.mat("target"), None)
        b = SceneObject("other", "target", "sphere", (rb,), look.mat("other"), None)
        exps, ev = collision_line(
            clip,
            look,
            [a, b],
            [ma, mb],
            [-dx / 2, dx / 2],
            [s["v_left"], -s["v_right"]],
            [va, vb],
            s["contact_at"],
            ("target", "other"),
        )
        return Composition(
            [look.ground(clip.frames), a, b],
            ev,
            "impact",
            exps,
            prompt=f"A {look.colour('target')} ball and a {look.colour('other')} ball roll toward "
            f"each other. Continue the video.",
            outcome="the balls collide head-on and bounce apart, momentum conserved",
            derived={"v_left_after": round(va, 4), "v_right_after": round(vb, 4)},
        )
