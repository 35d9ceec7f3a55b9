"""OP-1/tray_behind_screen."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH, SCREEN_T, Motion, body, half_height
from simkit.generators.wrop.kit_op1 import occlusion_composition, panel, side_frames, steady_x
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform
from simkit.scenes.wrop.spec import SceneObject

TRAY = (0.8, 0.5, 0.06)


class TrayBehindScreen(Task):
    family, name = "OP-1", "tray_behind_screen"
    summary = (
        "an object riding on a sliding tray is carried behind a screen; it must come out still on the tray"
    )
    description = (
        "An object does not move by itself: it rests on a flat tray that slides along the floor and carries "
        "it behind a screen, the tray's ends showing on either side while the object is hidden. The object "
        "must stay bound to its support while it cannot be seen, so it reappears resting on the tray at the "
        "same place on it, at the time the tray's speed implies, rather than left behind at the screen or "
        "sliding off. The object's shape and size, its place on the tray, screen width, direction and timing "
        "vary."
    )
    structural = {
        "kind": Choice(["box", "cylinder"]),
        "size": Uniform(0.12, 0.18),
        "seat": Uniform(-0.15, 0.15),
        "screen_width": Uniform(1.0, 1.3),
        "direction": Choice([1, -1]),
        "centre_at": Uniform(0.71, 0.75),
    }
    colour_slots = ("target", "tray", "screen")

    def compose(self, s, clip, look):
        T, d, w, k = clip.frames, s["direction"], s["screen_width"], s["kind"]
        hh = half_height(k, s["size"])
        tray_m = Motion(T, clip.fps, (0, DEPTH, TRAY[2] / 2))
        tray_m.pos[:, 0] = steady_x(clip, 0.0, s["centre_at"], d, span=6.0) - d * s["seat"]
        tray = SceneObject("tray", "platform", "box", TRAY, look.mat("tray"), tray_m.track())
        m = Motion(T, clip.fps, (tray_m.pos[0, 0] + d * s["seat"], DEPTH, TRAY[2] + hh))
        m.follow(tray_m, 0)
        obj = body("target", "target", k, s["size"], look, "target", m.track())
        top = TRAY[2] + 2 * hh + 0.45
        scr = panel("screen", look, "screen", T, (-w / 2, -SCREEN_T / 2, 0), (w / 2, SCREEN_T / 2, top))
        c, sg = occlusion_composition(clip, [look.ground(T), tray, obj, scr], obj, [scr], self.view)
        x = m.pos[:, 0]
        frames = list(range(T))
        c.expectations += [
            X.bound("target", "tray", frames),
            X.touching("target", "tray", frames),
            X.side("target", "screen", side_frames(sg, x, 0.0, d, c.events["occlusion_end"]), d),
        ]
        c.derived["speed_m_per_s"] = round(float(x[1] - x[0]) * d * clip.fps, 4)
        noun = {"box": "block", "cylinder": "upright cylinder"}[k]
        c.prompt = (
            f"A {look.colour('target')} {noun} rests on a {look.colour('tray')} tray that slides toward a "
            f"{look.colour('screen')} screen. Continue the video."
        )
        c.outcome = f"the tray carries the {noun} behind the screen and out the other side, still on the tray"
        return c
