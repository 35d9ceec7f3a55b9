"""OP-3/crate_hides_count."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, X, cup_timeline, listing, row_positions
from simkit.generators.wrop.kit_op3 import CRATE_ROT, cover_expectations, crate
from simkit.scenes.wrop.params import Choice, IntRange, Uniform
from simkit.scenes.wrop.spec import SceneObject

WORDS = {2: "two", 3: "three"}


class CrateHidesCount(Task):
    family, name = "OP-3", "crate_hides_count"
    summary = "an upturned crate is put over two or three balls in a row, slides, and is lifted"
    description = (
        "Two or three balls of different colours lie in a row on the floor. An upturned crate is lowered "
        "over all of them, slides along the floor after the cut carrying them, and is lifted. Container "
        "permanence here concerns a set: the number of hidden objects, their colours and their order must be "
        "conserved, none may be lost, merged or added, and all of them must come out at the crate's new "
        "place. The number of balls, their size, spacing, slide direction and distance vary."
    )
    structural = {
        "n_balls": IntRange(2, 3),
        "radius": Uniform(0.1, 0.15),
        "gap": Uniform(0.06, 0.2),
        "direction": Choice([1, -1]),
        "distance": Uniform(0.9, 1.6),
    }
    colour_slots = ("object1", "object2", "object3", "crate")

    def compose(self, s, clip, look):
        T, fps, r, n = clip.frames, clip.fps, s["radius"], s["n_balls"]
        x0 = -0.3 * s["direction"]
        x1 = x0 + s["direction"] * s["distance"]
        xs = [x0 + p for p in row_positions(n, 2 * r + s["gap"])]
        size = (n * (2 * r + s["gap"]) + 0.2, 2 * r + 0.4, 2 * r + 0.25)
        zc, zup = size[2] / 2, size[2] / 2 + 2 * r + 0.6
        t = cup_timeline(clip)
        c = Motion(T, fps, (x0, 0, zup), rotation=CRATE_ROT)
        c.move(t["lower0"], t["lower1"], (x0, 0, zc), "smooth").move(
            t["move0"], t["move1"], (x1, 0, zc), "smooth"
        )
        c.move(t["lift0"], t["lift1"], (x1, 0, zup), "smooth")
        objs = [look.ground(T), crate("crate", look, "crate", c.track(), size)]
        exps: list[X.Expectation] = []
        rim = c.pos[:, 2] - zc
        for i, x in enumerate(xs):
            nm = f"object{i + 1}"
            m = Motion(T, fps, (x, 0, r)).follow(c, t["move0"], t["move1"]).roll(r)
            objs.append(SceneObject(nm, "target", "sphere", (r,), look.mat(nm), m.track()))
            e, hid, _vis = cover_expectations(T, nm, 2 * r, {"crate": rim}, "crate", clear=0.4)
            exps += e
            if i:
                exps.append(X.side(nm, f"object{i}", list(range(T)), 1, space="world"))
        cols = listing([look.colour(f"object{i + 1}") for i in range(n)])
        return Composition(
            objs,
            {"covered": hid[0], "slide_start": t["move0"], "lift": t["lift0"]},
            "slide_start",
            exps,
            prompt=f"{WORDS[n].capitalize()} balls ({cols}) lie in a row on the floor under a raised "
            f"{look.colour('crate')} crate. Continue the video.",
            outcome=f"the crate carries all {WORDS[n]} balls to its new place; lifting it reveals them there "
            "in the same order",
            derived={"end_x": round(x1, 4), "count": n},
        )
