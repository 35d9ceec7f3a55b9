"""OS-3/snowplough_blocks."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os3 import box_mass, floor_block, path
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class SnowploughBlocks(Task):
    family, name = "OS-3", "snowplough_blocks"
    summary = (
        "a block slides into a spaced line of blocks, picking each up; the growing train slows at every hit"
    )
    description = (
        "A block slides across a smooth floor toward a line of resting blocks with gaps between them. At each "
        "impact the blocks lock together (a perfectly inelastic collision), so the train grows by one block "
        "and its speed drops to keep the momentum: after k pick-ups it moves at m0 v / (m0 + m1 + ... + mk). "
        "The impacts come at the declared frames, later and later as the train slows. Every block is "
        "conserved, the blocks stay in contact once joined and never interpenetrate. Line length, block "
        "sizes, gaps, speed and direction vary."
    )
    structural = {
        "n_line": IntRange(2, 3),
        "h_pusher": Uniform(0.14, 0.22),
        "h_line": Uniform(0.1, 0.18),
        "speed": Uniform(1.6, 2.6),
        "gap": Uniform(0.12, 0.3),
        "direction": Choice([1, -1]),
        "contact_at": Uniform(0.55, 0.58),
    }
    colour_slots = ("target", "line1", "line2", "line3")

    def compose(self, s, clip, look):
        T, fps, n, d = clip.frames, clip.fps, s["n_line"], s["direction"]
        sizes = [2 * s["h_pusher"]] + [2 * s["h_line"]] * n
        masses = [box_mass((w, w, w)) for w in sizes]
        f = clip.at(s["contact_at"], lo=clip.cut)
        hits: list[int] = []
        speeds, total = [s["speed"]], masses[0]
        for i in range(1, n + 1):
            if (
                i > 1
            ):  # frames to close the gap at the current speed (at least 2; short clips shrink the gaps)
                f += max(2, min(round(s["gap"] / speeds[-1] * fps), (T - 3 - hits[0]) // (n - 1)))
            hits.append(f)
            total += masses[i]
            speeds.append(s["speed"] * masses[0] / total)
        if hits[-1] > T - 3:
            raise ValueError("clip too short for the pick-ups")
        phases = [(0, (d * speeds[0],))] + [(h, (d * v,)) for h, v in zip(hits, speeds[1:])]
        names = ["target"] + [f"line{i}" for i in range(1, n + 1)]
        # the pusher's centre (its front face at x = 0 on the first impact); block i rides at a fixed offset
        # in front of it once it has been struck at hits[i - 1]
        pc = path(T, fps, phases, hits[0], (-d * sizes[0] / 2,), decel=0.6)[:, 0]
        objs, exps = [look.ground(T)], []
        for i, nm in enumerate(names):
            offset = 0.0 if i == 0 else sizes[0] / 2 + sum(sizes[1:i]) + sizes[i] / 2
            x = pc + d * offset
            if i > 0:
                x[: hits[i - 1]] = x[hits[i - 1]]  # at rest until struck
            objs.append(floor_block(nm, (sizes[i],) * 3, look, nm, x, fps))
        for i in range(1, n + 1):
            h, a, b = hits[i - 1], names[i - 1], names[i]
            exps += [X.contact(a, b, h), X.momentum(names[: i + 1], masses[: i + 1], h)]
            exps += [X.touching(a, b, list(range(h, T))), X.no_penetration(a, b)]
        return Composition(
            objs,
            {f"impact{i}": h for i, h in enumerate(hits, 1)},
            "impact1",
            exps,
            prompt=f"A {look.colour('target')} block slides toward a line of {n} resting blocks with gaps "
            f"between them. Continue the video.",
            outcome="the block picks up the resting blocks one by one; the growing train slows down at each hit",
            derived={"speeds": [round(v, 4) for v in speeds], "impacts": hits},
        )
