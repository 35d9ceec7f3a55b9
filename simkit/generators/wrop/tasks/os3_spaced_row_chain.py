"""OS-3/spaced_row_chain."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os3 import floor_ball, path
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class SpacedRowChain(Task):
    family, name = "OS-3", "spaced_row_chain"
    summary = (
        "a ball rolls into a row of equal balls with gaps between them; they are set off one after another"
    )
    description = (
        "Equal balls lie in a line with gaps between them, and one more ball rolls into the first. Each "
        "impact is elastic between equal masses, so the moving ball stops dead and the struck one takes over "
        "its full speed, crosses the gap and strikes the next, until the last ball rolls away: a relay with "
        "one impact per gap at the declared frames. Unlike a touching row, the impacts are separated in time "
        "and every ball moves in turn. The number of balls is conserved, none overlap, and each ends at rest "
        "one gap further on. Row length, gap, ball size, speed and direction vary."
    )
    structural = {
        "n_row": IntRange(2, 3),
        "radius": Uniform(0.1, 0.16),
        "speed": Uniform(1.2, 2.0),
        "gap": Uniform(0.15, 0.4),
        "direction": Choice([1, -1]),
        "contact_at": Uniform(0.55, 0.6),
    }
    colour_slots = ("target", "row1", "row2", "row3")

    def compose(self, s, clip, look):
        T, fps, r, n, d = clip.frames, clip.fps, s["radius"], s["n_row"], s["direction"]
        v = d * s["speed"]
        f1 = clip.at(s["contact_at"], lo=clip.cut)
        k = max(2, min(round(s["gap"] / s["speed"] * fps), (T - 3 - f1) // n))
        if f1 + (n - 1) * k > T - 3 or k < 2:
            raise ValueError("clip too short for the relay")
        gap = s["speed"] * k / fps  # a whole number of frames between impacts
        hits = [f1 + i * k for i in range(n)]
        x1 = -d * 0.5 * (n - 1) * (2 * r + gap)  # resting place of the first row ball
        names = ["target"] + [f"row{i + 1}" for i in range(n)]
        objs, exps = [look.ground(T)], []
        for i, nm in enumerate(names):
            rest = x1 + d * (i - 1) * (2 * r + gap)  # where ball i is struck (the striker: at contact)
            if i == 0:
                xy = path(T, fps, [(0, (v, 0)), (hits[0], (0, 0))], hits[0], (x1 - d * 2 * r, 0))
            elif i < n:
                xy = path(T, fps, [(0, (0, 0)), (hits[i - 1], (v, 0)), (hits[i], (0, 0))], 0, (rest, 0))
            else:
                xy = path(T, fps, [(0, (0, 0)), (hits[i - 1], (v, 0))], 0, (rest, 0), decel=0.3)
            objs.append(floor_ball(nm, r, look, nm, xy, fps))
        for i in range(n):
            a, b, f = names[i], names[i + 1], hits[i]
            exps += [X.contact(a, b, f), X.momentum([a, b], [1.0, 1.0], f), X.no_penetration(a, b)]
            exps += [X.same_place(a, list(range(f, T))), X.visible(b, [f - 1, f + 1], 0.3)]
        return Composition(
            objs,
            {f"impact{i + 1}": f for i, f in enumerate(hits)},
            "impact1",
            exps,
            prompt=f"A {look.colour('target')} ball rolls toward a row of {n} balls lying with gaps between "
            f"them. Continue the video.",
            outcome="each ball stops where it hits the next, which rolls on; finally the last ball rolls away",
            derived={"gap": round(gap, 4), "frames_between_impacts": k},
        )
