"""OS-3/newton_row."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import SceneObject, collision_line
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import IntRange, Uniform


class NewtonRow(Task):
    family, name = "OS-3", "newton_row"
    summary = "a ball hits a row of touching equal balls; the last one flies off, the rest stay put"
    description = (
        "A ball rolls into a row of touching balls of the same size, as in Newton's cradle laid on the floor. "
        "With equal masses and an elastic impact the momentum travels through the row: the striker stops dead "
        "at the declared contact frame, the balls in the middle stay where they are, and only the last ball "
        "rolls away with the striker's speed. The number of balls must be conserved and none may overlap. "
        "Row length, ball size and speed vary."
    )
    structural = {
        "n_row": IntRange(2, 3),
        "radius": Uniform(0.13, 0.2),
        "speed": Uniform(1.2, 2.2),
        "contact_at": Uniform(0.55, 0.64),
    }
    colour_slots = ("target", "row1", "row2", "row3")

    def compose(self, s, clip, look):
        r, n, v = s["radius"], s["n_row"], s["speed"]
        bodies = [SceneObject("target", "target", "sphere", (r,), look.mat("target"), None)]
        xs, vb, va = [-r - 0.4], [v], [0.0]
        for i in range(n):
            bodies.append(SceneObject(f"row{i + 1}", "target", "sphere", (r,), look.mat(f"row{i + 1}"), None))
            xs.append(r + 2 * r * i - 0.4)
            vb.append(0.0)
            va.append(v if i == n - 1 else 0.0)
        exps, ev = collision_line(
            clip, look, bodies, [1.0] * (n + 1), xs, vb, va, s["contact_at"], ("target", "row1")
        )
        T = clip.frames
        for i in range(1, n):
            exps.append(X.touching(f"row{i}", f"row{i + 1}", list(range(ev["impact"] + 1))))
        exps.append(X.same_place("target", list(range(ev["impact"], T))))
        return Composition(
            [look.ground(T), *bodies],
            ev,
            "impact",
            exps,
            prompt=f"A {look.colour('target')} ball rolls toward a row of {n} touching balls. "
            f"Continue the video.",
            outcome="the striker stops, the middle balls stay, the last ball rolls away",
        )
