"""OP-3/cup_up_ramp."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, Motion, SceneObject, Track, X, cup, cup_timeline
from simkit.scenes.wrop.motion import ease
from simkit.scenes.wrop.params import Choice, Uniform

DECK = 1.3  # platform length (m)


class CupUpRamp(Task):
    family, name = "OP-3", "cup_up_ramp"
    summary = "a cup over a ball is slid up a ramp onto a raised platform and lifted there"
    description = (
        "An upturned cup is lowered over a ball at the foot of a ramp that leads up to a raised platform. "
        "After the cut the cup slides up the ramp, tilting with the slope, and on along the platform; then it "
        "is lifted. The hidden ball is pushed up the slope inside the cup, so it must be revealed resting on "
        "top of the platform, at the raised height, not left at the foot of the ramp nor sunk into the "
        "platform. Support and container move the ball together: the ball's height changes while it is out "
        "of sight. Ramp length and height, ball size, direction and how far along the platform it goes vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.17),
        "ramp_length": Uniform(1.0, 1.5),
        "rise": Uniform(0.25, 0.45),
        "direction": Choice([1, -1]),
        "along": Uniform(0.3, 0.8),
    }
    colour_slots = ("target", "cup", "ramp")

    def compose(self, s, clip, look):
        T, fps, r, d, L, hp = clip.frames, clip.fps, s["radius"], s["direction"], s["ramp_length"], s["rise"]
        t = cup_timeline(clip)
        x_foot = -d * (L / 2 + 0.3)
        x0 = x_foot - d * 0.75
        th = np.arctan2(hp, L)
        seg = [0.75, np.hypot(L, hp), s["along"]]  # floor, slope, deck path lengths
        u = ease((np.arange(T) - t["move0"]) / max(t["move1"] - t["move0"], 1), "smooth")
        sl = u * sum(seg)
        # bottom-centre point of the cup and its tilt along the path (piecewise: floor, slope, deck)
        bx = np.where(
            sl <= seg[0],
            x0 + d * sl,
            np.where(
                sl <= seg[0] + seg[1],
                x_foot + d * (sl - seg[0]) * np.cos(th),
                x_foot + d * (L + sl - seg[0] - seg[1]),
            ),
        )
        bz = np.clip((sl - seg[0]) * np.sin(th), 0.0, hp)
        tilt = np.where((sl > seg[0]) & (sl <= seg[0] + seg[1]), th, 0.0)
        n = np.stack([-d * np.sin(tilt), np.zeros(T), np.cos(tilt)], 1)  # surface normal = cup axis
        c = Motion(T, fps, (x0, 0, CUP_H / 2 + 1.0))
        c.move(t["lower0"], t["lower1"], (x0, 0, CUP_H / 2), "smooth")
        fr = np.arange(t["move0"], t["move1"] + 1)
        base = np.stack([bx, np.zeros(T), bz], 1)
        c.pos[fr] = base[fr] + n[fr] * CUP_H / 2
        c.rot[fr, 1] = -d * tilt[fr]
        c.pos[t["move1"] + 1 :] = c.pos[t["move1"]]
        end = base[t["move1"]]
        c.move(t["lift0"], t["lift1"], (end[0], 0, hp + 1.0 + CUP_H / 2), "smooth")
        ball = Motion(T, fps, (x0, 0, r))
        ball.pos[fr] = base[fr] + n[fr] * r
        ball.pos[t["move1"] + 1 :] = ball.pos[t["move1"]]
        ball.roll(r)
        rim = c.pos[:, 2] - CUP_H / 2
        hid = list(range(t["lower1"], t["lift0"] + 1))
        deck = list(range(t["move1"], T))
        exps = [
            X.hidden("target", hid),
            X.visible(
                "target", [f for f in range(T) if rim[f] - (hp if f > t["move1"] else 0) >= 2 * r + 0.5]
            ),
            X.touching("target", "deck", deck),
            X.no_penetration("target", "deck"),
            X.same_place("target", deck),
        ]
        rot = (0.0, 0.0, 0.0 if d > 0 else np.pi)
        ramp = SceneObject(
            "ramp",
            "support",
            "wedge",
            (L, 1.0, hp),
            look.mat("ramp"),
            Track.static(T, (x_foot + d * L / 2, 0, hp / 2), rot),
        )
        deck_x = x_foot + d * (L + DECK / 2)
        platform = SceneObject(
            "deck", "platform", "box", (DECK, 1.0, hp), look.mat("ramp"), Track.static(T, (deck_x, 0, hp / 2))
        )
        return Composition(
            [
                look.ground(T),
                ramp,
                platform,
                cup("cup", look, "cup", c.track()),
                SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()),
            ],
            {"covered": hid[0], "slide_start": t["move0"], "lift": t["lift0"]},
            "slide_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised {look.colour('cup')} cup at "
            f"the foot of a {look.colour('ramp')} ramp. Continue the video.",
            outcome="the cup carries the ball up the ramp onto the platform; lifting it reveals the ball on the "
            "platform",
            derived={
                "ball_end": [round(float(end[0]), 4), round(float(hp + r), 4)],
                "slope_deg": round(float(np.degrees(th)), 2),
            },
        )
