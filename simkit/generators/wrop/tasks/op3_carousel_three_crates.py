"""OP-3/carousel_three_crates (several legal outcomes)."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X, cup_timeline
from simkit.generators.wrop.kit_op3 import CRATE_ROT, cover_expectations, crate
from simkit.scenes.wrop.params import Choice, Uniform

PLATE_R, PLATE_H, RING = 1.5, 0.08, 0.95
CRATE = (0.55, 0.55, 0.45)
PLACES = ("left", "back", "right")  # the three stations at 210, 90 and -30 degrees


class CarouselThreeCrates(Task):
    family, name = "OP-3", "carousel_three_crates"
    summary = "three crates on a carousel, one over a ball; the carousel turns by one or two thirds of a turn"
    description = (
        "Three upturned crates of different colours stand on a round carousel at equal angles; one covers a "
        "ball. After the cut the carousel turns by a third or two thirds of a turn (either way round), which "
        "leaves the same three stations occupied, then the crates are lifted. Because the layout looks the "
        "same after any such turn, any station may legally hold the ball; only following the holding crate "
        "through the rotation tells which. Which crate holds the ball, the ball size, the turn (one or two "
        "thirds), its direction and a small extra angle vary."
    )
    structural = {
        "radius": Uniform(0.1, 0.15),
        "ball_under": Choice([0, 1, 2]),
        "thirds": Choice([1, 2]),
        "turn": Choice([1, -1]),
        "extra_deg": Uniform(-15.0, 15.0),
    }
    colour_slots = ("target", "crate_a", "crate_b", "crate_c", "plate")

    def compose(self, s, clip, look):
        T, fps, r = clip.frames, clip.fps, s["radius"]
        t = cup_timeline(clip)
        base = np.radians([210.0, 90.0, -30.0])
        zc, zup = PLATE_H + CRATE[2] / 2, PLATE_H + CRATE[2] / 2 + 2 * r + 0.6
        names = ["crate_a", "crate_b", "crate_c"]
        h = s["ball_under"]
        ang = s["turn"] * (s["thirds"] * 2 * np.pi / 3 + np.radians(s["extra_deg"]))
        crates, plate = {}, Motion(T, fps, (0, 0, PLATE_H / 2))
        for i, nm in enumerate(names):
            p = (RING * np.cos(base[i]), RING * np.sin(base[i]))
            crates[nm] = Motion(T, fps, (*p, zup if i == h else zc), rotation=CRATE_ROT)
        holder = names[h]
        p0 = crates[holder].at(0)
        crates[holder].move(t["lower0"], t["lower1"], (p0[0], p0[1], zc), "smooth")
        ball = Motion(T, fps, (p0[0], p0[1], PLATE_H + r))
        for m in (*crates.values(), plate, ball):
            m.orbit(t["move0"], t["move1"], (0, 0, 0), ang)
        for m in crates.values():
            e = m.at(t["lift0"])
            m.move(t["lift0"], t["lift1"], (e[0], e[1], zup), "smooth")
        rims = {nm: m.pos[:, 2] - zc + PLATE_H for nm, m in crates.items()}
        exps, hid, vis = cover_expectations(T, "target", 2 * r, rims, holder, floor_z=PLATE_H, clear=0.45)
        end = ball.at(T - 1)
        k = int(np.argmin([abs(np.angle(np.exp(1j * (np.arctan2(end[1], end[0]) - b)))) for b in base]))
        exps.append(X.same_place("target", [t["move1"], T - 1]))
        objs = [look.ground(T)]
        objs.append(
            SceneObject(
                "carousel",
                "platform",
                "cylinder",
                (PLATE_R, PLATE_H),
                look.mat("plate"),
                plate.track(),
                measure=False,
            )
        )
        objs += [crate(nm, look, nm, m.track(), CRATE) for nm, m in crates.items()]
        objs.append(SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()))
        ch = look.colour(holder)
        legal = [f"the ball is revealed under the {ch} crate at the {p} station" for p in PLACES]
        return Composition(
            objs,
            {"covered": hid[0], "rotation_start": t["move0"], "lift": t["lift0"]},
            "rotation_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests under a raised {ch} crate on a "
            f"{look.colour('plate')} carousel that carries two more upturned crates. Continue the video.",
            outcome=legal[k],
            legal_outcomes=legal,
            derived={
                "ball_end_xy": [round(float(end[0]), 4), round(float(end[1]), 4)],
                "end_station": PLACES[k],
            },
        )
