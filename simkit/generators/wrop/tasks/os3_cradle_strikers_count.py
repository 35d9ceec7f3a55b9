"""OS-3/cradle_strikers_count."""

import itertools

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os3 import floor_ball, path
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class CradleStrikersCount(Task):
    family, name = "OS-3", "cradle_strikers_count"
    summary = "two or three touching balls hit a touching row; as many balls fly off the far end as came in"
    description = (
        "A group of two or three touching balls rolls into a row of touching balls of the same size, as in "
        "Newton's cradle laid on the floor with several balls released at once. With equal masses and elastic "
        "impacts, momentum and energy can only both be conserved if exactly as many balls leave the far end "
        "as arrived, at the strikers' speed: the strikers stop dead at the declared frame, the front of the "
        "row stays put, and the last k balls roll away together. Counting matters: one ball leaving fast or "
        "all balls moving slowly are wrong. The number of strikers, row length, ball size and speed vary."
    )
    structural = {
        "n_strikers": Choice([2, 3]),
        "extra": IntRange(0, 1),
        "radius": Uniform(0.1, 0.15),
        "speed": Uniform(1.2, 2.0),
        "contact_at": Uniform(0.55, 0.64),
    }
    colour_slots = ("target", "striker2", "striker3", "row1", "row2", "row3", "row4")

    def compose(self, s, clip, look):
        T, fps, r, v = clip.frames, clip.fps, s["radius"], s["speed"]
        k = s["n_strikers"]
        n = k + s["extra"]  # the row is at least as long as the group of strikers
        f_c = clip.at(s["contact_at"], lo=clip.cut)
        strikers = ["target"] + [f"striker{i}" for i in range(2, k + 1)]
        row = [f"row{i}" for i in range(1, n + 1)]
        names = strikers + row
        x_first = -0.5 * (n - 1) * 2 * r  # the first row ball
        objs, exps = [look.ground(T)], []
        for i, nm in enumerate(names):
            x_c = x_first + (i - k) * 2 * r  # centre at the impact frame
            if i < k:
                xy = path(T, fps, [(0, (v, 0)), (f_c, (0, 0))], f_c, (x_c, 0))
            elif i >= k + n - k:  # the last k balls of the row leave at the strikers' speed
                xy = path(T, fps, [(0, (0, 0)), (f_c, (v, 0))], f_c, (x_c, 0), decel=0.3)
            else:
                xy = path(T, fps, [(0, (0, 0))], f_c, (x_c, 0))
            objs.append(floor_ball(nm, r, look, nm, xy, fps))
        before, after = list(range(f_c)), list(range(f_c, T))
        exps += [X.contact(strikers[-1], row[0], f_c), X.momentum(names, [1.0] * len(names), f_c)]
        for a, b in itertools.pairwise(names):
            exps += [X.no_penetration(a, b), X.touching(a, b, before if b != row[0] else [f_c])]
        exps += [X.same_place(nm, after) for nm in strikers + row[: n - k]]
        exps += [X.velocity(nm, f_c, v) for nm in row[n - k :]]
        exps += [X.visible(nm, [f_c - 1, f_c + 1], 0.3) for nm in names]
        return Composition(
            objs,
            {"impact": f_c},
            "impact",
            exps,
            prompt=f"{k} touching balls roll into a row of {n} touching balls of the same size. Continue the "
            f"video.",
            outcome=f"the {k} strikers stop and the last {k} balls of the row roll away together",
            derived={"balls_leaving": k, "speed_after": v},
        )
