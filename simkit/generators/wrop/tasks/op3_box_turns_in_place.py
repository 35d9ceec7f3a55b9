"""OP-3/box_turns_in_place."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X
from simkit.generators.wrop.kit_op3 import BOX_VIEW, LID_T, box_height, lid_closed, lidded_box
from simkit.scenes.wrop.params import Choice, Uniform

HALF = 0.75  # box half-width (m)
CORNERS = {"front left": (-1, -1), "front right": (1, -1), "back left": (-1, 1), "back right": (1, 1)}


class BoxTurnsInPlace(Task):
    family, name = "OP-3", "box_turns_in_place"
    summary = "a closed square box with a ball in one corner turns in place by 90-270 degrees, then opens"
    description = (
        "Seen from above, a ball lies in one corner of a wide square box. A lid closes the box and after the "
        "cut the closed box turns about its vertical axis by a quarter, half or three quarter turn, then the "
        "lid is lifted off. The box looks the same after any quarter turn, so only the rotation itself tells "
        "where the ball went: it must be revealed in the corner the rotation carried it to, not in the corner "
        "where it was seen last. Ball size, starting corner, turn angle and direction vary."
    )
    structural = {
        "radius": Uniform(0.11, 0.16),
        "corner": Choice(list(CORNERS)),
        "quarters": Choice([1, 2, 3]),
        "turn": Choice([1, -1]),
    }
    colour_slots = ("target", "box", "lid")
    view = BOX_VIEW

    def compose(self, s, clip, look):
        T, fps, cut, r = clip.frames, clip.fps, clip.cut, s["radius"]
        w, h = 2 * HALF, box_height(2 * r)
        q = HALF - r - 0.3  # ball offset from the centre along x and y
        cx, cy = CORNERS[s["corner"]]
        lid_z, top = h + LID_T / 2, h + 0.9
        box = Motion(T, fps, (0, 0, h / 2))
        lid = Motion(T, fps, (0, w + 0.3, top))
        lid.arc(max(1, cut // 4), cut - 2, (0, 0, lid_z), 0.2)
        rem = T - 3 - cut
        turn1 = cut + max(3, int(0.6 * rem))
        ang = s["turn"] * s["quarters"] * np.pi / 2
        ball = Motion(T, fps, (cx * q, cy * q, r))
        for m in (box, lid, ball):
            m.orbit(cut, turn1, (0, 0, 0), ang)
        lid.arc(turn1 + 1, T - 3, (0, w + 0.3, top), 0.2)
        end = ball.at(T - 1)
        closed = lid_closed(box, lid, h)
        hid = [f for f in range(T) if closed[f]]
        vis = [f for f in range(T) if lid.pos[f, 2] - lid_z >= 0.5 or abs(lid.pos[f, 1]) >= w]
        late = [f for f in vis if f > turn1]
        exps = [
            X.hidden("target", hid),
            X.visible("target", vis),
            X.side("target", "box", late, int(np.sign(end[0])), space="world", axis=0),
            X.side("target", "box", late, int(np.sign(end[1])), space="world", axis=1),
            X.same_place("target", list(range(turn1, T))),
        ]
        name = next(k for k, v in CORNERS.items() if v == (int(np.sign(end[0])), int(np.sign(end[1]))))
        objs = lidded_box(look, box, lid, (w, w, h))
        objs.append(SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()))
        return Composition(
            [look.ground(T), *objs],
            {"closed": hid[0], "turn_start": cut, "open": turn1 + 1},
            "turn_start",
            exps,
            prompt=f"A {look.colour('target')} ball lies in the {s['corner']} corner of an open "
            f"{look.colour('box')} box; a {look.colour('lid')} lid is held next to it. Continue the video.",
            outcome=f"the closed box turns {90 * s['quarters']} degrees; when the lid comes off, the ball is "
            f"in the {name} corner",
            derived={"ball_end_xy": [round(float(end[0]), 4), round(float(end[1]), 4)], "end_corner": name},
        )
