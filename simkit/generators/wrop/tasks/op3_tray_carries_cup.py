"""OP-3/tray_carries_cup."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CUP_H, Motion, SceneObject, X, cup_timeline, cups_and_ball, lifted
from simkit.scenes.wrop.params import Choice, Uniform

TRAY_H = 0.06


class TrayCarriesCup(Task):
    family, name = "OP-3", "tray_carries_cup"
    summary = "a cup over a ball stands on a tray; the tray is pulled along and carries both"
    description = (
        "A ball lies on a flat tray and an upturned cup is lowered over it. After the cut the tray is pulled "
        "along the floor, toward or away from the camera and sideways, and the cup and the hidden ball ride "
        "on it; nothing touches the cup itself. When the cup is lifted the ball must be on the tray at the "
        "tray's new place: an object rests on its support and moves with it even when hidden inside another "
        "container. Ball size, tray size, pull direction and distance vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "tray": Uniform(1.0, 1.5),
        "direction": Choice([1, -1]),
        "distance": Uniform(0.9, 1.6),
        "depth": Uniform(-0.6, 0.6),
    }
    colour_slots = ("target", "cup", "tray")

    def compose(self, s, clip, look):
        T, fps, r = clip.frames, clip.fps, s["radius"]
        x1, y1 = s["direction"] * s["distance"], s["depth"]
        t = cup_timeline(clip)
        tray = Motion(T, fps, (0, 0, TRAY_H / 2)).move(t["move0"], t["move1"], (x1, y1, TRAY_H / 2), "smooth")
        c = Motion(T, fps, (0, 0, TRAY_H + lifted()))
        c.move(t["lower0"], t["lower1"], (0, 0, TRAY_H + CUP_H / 2), "smooth")
        c.follow(tray, t["move0"], t["move1"])
        c.move(t["lift0"], t["lift1"], (x1, y1, TRAY_H + lifted()), "smooth")
        ball = Motion(T, fps, (0, 0, TRAY_H + r)).follow(tray, t["move0"], t["move1"])
        objs, exps, hid = cups_and_ball(clip, look, r, {"cup": c}, "cup", ball, floor_z=TRAY_H)
        moving = list(range(t["move0"], t["move1"] + 1))
        exps += [
            X.bound("target", "tray", list(range(T))),
            X.touching("target", "tray", moving),
            X.same_place("target", [t["move1"], T - 1]),
        ]
        objs.insert(
            0,
            SceneObject(
                "tray",
                "platform",
                "box",
                (s["tray"], s["tray"] * 0.8, TRAY_H),
                look.mat("tray"),
                tray.track(),
            ),
        )
        return Composition(
            [look.ground(T), *objs],
            {"covered": hid[0], "pull_start": t["move0"], "lift": t["lift0"]},
            "pull_start",
            exps,
            prompt=f"A {look.colour('target')} ball lies on a {look.colour('tray')} tray under a raised "
            f"{look.colour('cup')} cup. Continue the video.",
            outcome="the tray carries the cup and the ball to a new place; lifting the cup reveals the ball "
            "on the tray there",
            derived={"end_xy": [round(x1, 4), round(y1, 4)]},
        )
