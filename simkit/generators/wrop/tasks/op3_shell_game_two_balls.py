"""OP-3/shell_game_two_balls (several legal outcomes)."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, CUP_R, Motion, SceneObject, X, cup, cup_timeline, lifted
from simkit.generators.wrop.kit_op3 import cover_expectations, shuffle_pairs, swap_arc
from simkit.scenes.wrop.params import Choice, IntRange, Uniform

SLOTS = ("left", "middle", "right")


class ShellGameTwoBalls(Task):
    family, name = "OP-3", "shell_game_two_balls"
    summary = "two differently coloured balls under two of three cups; the cups swap 1-2 times, then lift"
    description = (
        "Three upturned cups stand in a row; two balls of different colours go under two of them and the "
        "third cup stays empty. After the cut pairs of cups swap places once or twice on curved paths and all "
        "three are lifted. Several final layouts are legal, but the count and the pairing are fixed: exactly "
        "two balls come out, each under the cup that covered it, and the empty cup stays empty. Two hidden "
        "objects have to be tracked at once, which a single-ball shell game does not test. Which cup stays "
        "empty, spacing, ball size, number of swaps and the swapped pairs vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.17),
        "spacing": Uniform(1.05, 1.3),
        "empty": Choice([0, 1, 2]),
        "swaps": IntRange(1, 2),
        "order": IntRange(0, 8),
    }
    colour_slots = ("ball1", "ball2", "cup_a", "cup_b", "cup_c")

    def compose(self, s, clip, look):
        T, fps, r, sp = clip.frames, clip.fps, s["radius"], s["spacing"]
        t = cup_timeline(clip)
        names = ["cup_a", "cup_b", "cup_c"]
        full = [i for i in range(3) if i != s["empty"]]
        cups = {
            n: Motion(T, fps, ((i - 1) * sp, 0, lifted() if i in full else CUP_H / 2))
            for i, n in enumerate(names)
        }
        for i in full:
            cups[names[i]].move(t["lower0"], t["lower1"], ((i - 1) * sp, 0, CUP_H / 2), "smooth")
        n = min(s["swaps"], max(1, (t["move1"] - t["move0"]) // 2))
        span = (t["move1"] - t["move0"]) // n
        slot_of = {nm: i for i, nm in enumerate(names)}
        for k, (i, j) in enumerate(shuffle_pairs(s["order"], 3, n)):
            ci = next(c for c, sl in slot_of.items() if sl == i)
            cj = next(c for c, sl in slot_of.items() if sl == j)
            swap_arc(cups[ci], cups[cj], t["move0"] + k * span, t["move0"] + (k + 1) * span - 1, 2.2 * CUP_R)
            slot_of[ci], slot_of[cj] = j, i
        for c in cups.values():
            end = c.at(t["lift0"])
            c.move(t["lift0"], t["lift1"], (end[0], 0, lifted()), "smooth")
        rims = {nm: m.pos[:, 2] - CUP_H / 2 for nm, m in cups.items()}
        objs = [look.ground(T)] + [cup(nm, look, nm, m.track()) for nm, m in cups.items()]
        exps: list[X.Expectation] = []
        for b, i in enumerate(full):
            nm, holder = f"ball{b + 1}", names[i]
            m = Motion(T, fps, ((i - 1) * sp, 0, r)).follow(cups[holder], t["move0"], t["lift0"])
            objs.append(SceneObject(nm, "target", "sphere", (r,), look.mat(nm), m.track()))
            e, hid, vis = cover_expectations(T, nm, 2 * r, rims, holder, clear=0.5)
            exps += e
        late = [f for f in vis if f > t["move1"]]
        h1, h2 = names[full[0]], names[full[1]]
        exps.append(X.side("ball2", "ball1", late, 1 if slot_of[h2] > slot_of[h1] else -1, space="world"))
        empty_slot = SLOTS[slot_of[names[s["empty"]]]]
        c1, c2 = look.colour("ball1"), look.colour("ball2")
        return Composition(
            objs,
            {"covered": hid[0], "shuffle_start": t["move0"], "lift": t["lift0"]},
            "shuffle_start",
            exps,
            prompt=f"A {c1} ball and a {c2} ball rest on the floor under two raised cups of a row of three. "
            "Continue the video.",
            outcome=f"after the swaps the {c1} and {c2} balls come out under their own cups; the empty cup is "
            f"in the {empty_slot} place",
            legal_outcomes=[
                f"after the swaps the {c1} and {c2} balls come out under their own cups; the empty cup is in the "
                f"{p} place"
                for p in SLOTS
            ],
            derived={"swaps_done": n, "empty_end_slot": empty_slot},
        )
