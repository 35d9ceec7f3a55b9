"""OP-3/decoy_cup_moves."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, Motion, X, cup_timeline, cups_and_ball, lifted
from simkit.scenes.wrop.params import Choice, Uniform


class DecoyCupMoves(Task):
    family, name = "OP-3", "decoy_cup_moves"
    summary = "an empty cup slides past the cup that hides a ball, passing in front of it; the ball must stay"
    description = (
        "Two upturned cups stand apart, one lowered over a ball. After the cut the empty cup slides across to "
        "the far side of the other one, passing in front of it (between it and the camera), while the cup "
        "with the ball does not move; then both are lifted. Motion draws attention, but the moving container "
        "is the empty one: the ball must be revealed under the cup that stayed, at its old place, and the cup "
        "that moved must be empty. Which side the decoy starts on, spacing, ball size, how far the decoy goes "
        "and how close in front it passes vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "spacing": Uniform(1.1, 1.5),
        "decoy_from": Choice(["left", "right"]),
        "beyond": Uniform(0.9, 1.4),
        "front": Uniform(0.8, 1.1),
    }
    colour_slots = ("target", "cup_a", "cup_b")

    def compose(self, s, clip, look):
        T, fps, r = clip.frames, clip.fps, s["radius"]
        t = cup_timeline(clip)
        d = 1 if s["decoy_from"] == "left" else -1  # decoy travel direction
        xa, xb = d * (s["spacing"] / 2), -d * (s["spacing"] / 2)
        a = Motion(T, fps, (xa, 0, lifted())).move(t["lower0"], t["lower1"], (xa, 0, CUP_H / 2), "smooth")
        b = Motion(T, fps, (xb, 0, CUP_H / 2))
        y = -s["front"]  # the decoy's lane, in front of the holder (toward the camera)
        q = max(1, (t["move1"] - t["move0"]) // 4)
        b.move(t["move0"], t["move0"] + q, (xb, y, CUP_H / 2), "smooth")
        b.move(t["move0"] + q + 1, t["move1"] - q - 1, (xa + d * s["beyond"], y, CUP_H / 2), "smooth")
        b.move(t["move1"] - q, t["move1"], (xa + d * s["beyond"], 0, CUP_H / 2), "smooth")
        for c in (a, b):
            e = c.at(t["lift0"])
            c.move(t["lift0"], t["lift1"], (e[0], e[1], lifted()), "smooth")
        ball = Motion(T, fps, (xa, 0, r))
        objs, exps, hid = cups_and_ball(clip, look, r, {"cup_a": a, "cup_b": b}, "cup_a", ball)
        late = [f for f in next(e.frames for e in exps if isinstance(e, X.Visible)) if f > t["move1"]]
        exps += [
            X.same_place("target", list(range(T))),
            X.same_place("cup_a", list(range(t["lower1"], t["lift0"] + 1))),
            X.side("target", "cup_b", late, -d, space="world"),
            X.apart("cup_a", "cup_b", list(range(T))),
        ]
        return Composition(
            [look.ground(T), *objs],
            {"covered": hid[0], "decoy_start": t["move0"], "lift": t["lift0"]},
            "decoy_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised {look.colour('cup_a')} "
            f"cup; a {look.colour('cup_b')} cup stands apart from it. Continue the video.",
            outcome=f"the {look.colour('cup_b')} cup slides past; the ball is revealed under the "
            f"{look.colour('cup_a')} cup, which never moved",
        )
