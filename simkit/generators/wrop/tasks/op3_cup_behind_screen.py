"""OP-3/cup_behind_screen."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import (
    COVER_MARGIN,
    CUP_H,
    CUP_R,
    DEPTH,
    Motion,
    Track,
    X,
    cup_timeline,
    cups_and_ball,
    lifted,
    screen,
)
from simkit.scenes.wrop.params import Choice, Uniform


class CupBehindScreen(Task):
    family, name = "OP-3", "cup_behind_screen"
    summary = "a cup hiding a ball slides behind a screen and out the far side, then is lifted"
    description = (
        "An upturned cup is lowered over a ball. After the cut the cup slides along the floor and passes "
        "behind an opaque screen, so the container itself disappears for a while, then comes out on the far "
        "side and is lifted. Two layers of hiding are stacked: the ball is out of sight inside the cup and the "
        "cup is out of sight behind the screen. The ball must be carried through the occlusion and revealed "
        "under the cup beyond the screen, not left behind it or lost. Ball size, screen width, direction and "
        "travel distance vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.2),
        "screen_width": Uniform(1.4, 1.8),
        "direction": Choice([1, -1]),
        "beyond": Uniform(0.3, 0.7),
    }
    colour_slots = ("target", "cup", "screen")

    def compose(self, s, clip, look):
        T, fps, r, d, w = clip.frames, clip.fps, s["radius"], s["direction"], s["screen_width"]
        x0 = -d * (w / 2 + CUP_R + 0.45)
        x1 = d * (w / 2 + CUP_R + s["beyond"])
        t = cup_timeline(clip)
        c = Motion(T, fps, (x0, DEPTH, lifted()))
        c.move(t["lower0"], t["lower1"], (x0, DEPTH, CUP_H / 2), "smooth")
        c.move(t["move0"], t["move1"], (x1, DEPTH, CUP_H / 2))
        c.move(t["lift0"], t["lift1"], (x1, DEPTH, lifted()), "smooth")
        ball = Motion(T, fps, (x0, DEPTH, r)).follow(c, t["move0"], t["move1"]).roll(r)
        objs, exps, hid = cups_and_ball(clip, look, r, {"cup": c}, "cup", ball)
        sh = CUP_H + 0.35
        objs.append(screen("screen", look, "screen", Track.static(T, (0.0, 0.0, sh / 2)), w, sh))
        cx = c.pos[:, 0]
        behind = [f for f in range(T) if abs(cx[f]) <= w / 2 - CUP_R - COVER_MARGIN]
        if not behind:
            raise ValueError("the cup is never fully behind the screen in this clip")
        exps += [
            X.hidden("cup", behind),
            X.visible("cup", [f for f in range(T) if abs(cx[f]) >= w / 2 + CUP_R + 0.15]),
            X.side(
                "target",
                "screen",
                [f for f in next(e.frames for e in exps if isinstance(e, X.Visible)) if f > t["move1"]],
                d,
                space="world",
            ),
        ]
        return Composition(
            [look.ground(T), *objs],
            {"covered": hid[0], "slide_start": t["move0"], "cup_hidden": behind[0], "lift": t["lift0"]},
            "slide_start",
            exps,
            prompt=f"A {look.colour('target')} ball rests on the floor under a raised {look.colour('cup')} cup "
            f"beside a {look.colour('screen')} screen. Continue the video.",
            outcome="the cup carries the ball behind the screen and out the far side; lifting it reveals the "
            "ball there",
            derived={"end_x": round(x1, 4), "screen_height": round(sh, 4)},
        )
