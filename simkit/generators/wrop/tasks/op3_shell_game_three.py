"""OP-3/shell_game_three (several legal outcomes)."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, CUP_R, Motion, X, cup_timeline, cups_and_ball, lifted
from simkit.generators.wrop.kit_op3 import shuffle_pairs, swap_arc
from simkit.scenes.wrop.params import Choice, IntRange, Uniform

SLOTS = ("left", "middle", "right")


class ShellGameThree(Task):
    family, name = "OP-3", "shell_game_three"
    summary = "three cups, one hiding a ball, are shuffled by 1-3 pairwise swaps before all are lifted"
    description = (
        "The shell game: three upturned cups of different colours stand in a row and one is lowered over a "
        "ball. After the cut pairs of cups exchange places on curved paths, one to three times (neighbours "
        "or the two outer cups), and then all three cups are lifted. Any of the three places can end up "
        "holding the ball, so the final layout cannot be guessed from the input; the only invariant is that "
        "the ball comes out under the cup that covered it. A model must track that cup through every swap. "
        "Which cup holds the ball, spacing, ball size, the number of swaps and which pairs swap vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "spacing": Uniform(1.05, 1.3),
        "ball_under": Choice([0, 1, 2]),
        "swaps": IntRange(1, 3),
        "order": IntRange(0, 26),
    }
    colour_slots = ("target", "cup_a", "cup_b", "cup_c")

    def compose(self, s, clip, look):
        T, fps, r, sp = clip.frames, clip.fps, s["radius"], s["spacing"]
        t = cup_timeline(clip)
        names = ["cup_a", "cup_b", "cup_c"]
        h = s["ball_under"]
        cups = {}
        for i, n in enumerate(names):
            x = (i - 1) * sp
            cups[n] = Motion(T, fps, (x, 0, lifted() if i == h else CUP_H / 2))
        holder = names[h]
        cups[holder].move(t["lower0"], t["lower1"], (cups[holder].at(0)[0], 0, CUP_H / 2), "smooth")
        n = min(s["swaps"], max(1, (t["move1"] - t["move0"]) // 2))
        span = (t["move1"] - t["move0"]) // n
        slot_of = {nm: i for i, nm in enumerate(names)}  # cup -> slot
        for k, (i, j) in enumerate(shuffle_pairs(s["order"], 3, n)):
            ci = next(c for c, sl in slot_of.items() if sl == i)
            cj = next(c for c, sl in slot_of.items() if sl == j)
            f0 = t["move0"] + k * span
            swap_arc(cups[ci], cups[cj], f0, f0 + span - 1, 2.2 * CUP_R)
            slot_of[ci], slot_of[cj] = j, i
        for c in cups.values():
            end = c.at(t["lift0"])
            c.move(t["lift0"], t["lift1"], (end[0], 0, lifted()), "smooth")
        ball = Motion(T, fps, (cups[holder].at(0)[0], 0, r)).follow(cups[holder], t["move0"], t["lift0"])
        objs, exps, _hid = cups_and_ball(clip, look, r, cups, holder, ball)
        vis = next(e.frames for e in exps if isinstance(e, X.Visible))
        for nm in names:
            if nm != holder:
                sign = 1 if slot_of[holder] > slot_of[nm] else -1
                exps.append(X.side("target", nm, vis, sign, space="world"))
        ch = look.colour(holder)
        where = SLOTS[slot_of[holder]]
        others = [look.colour(nm) for nm in names if nm != holder]
        return Composition(
            [look.ground(T), *objs],
            {"shuffle_start": t["move0"], "lift": t["lift0"]},
            "shuffle_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised {ch} cup between "
            f"a {others[0]} and a {others[1]} cup standing in a row. Continue the video.",
            outcome=f"the ball is revealed under the {ch} cup, now in the {where} place",
            legal_outcomes=[f"the ball is revealed under the {ch} cup, now in the {p} place" for p in SLOTS],
            derived={"swaps_done": n, "ball_end_slot": where},
        )
