"""OP-1/peek_over_screen."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import DEPTH, SCREEN_T, Motion
from simkit.generators.wrop.kit_op1 import panel, passage_events, probe, sight, sightline_z, steady_x
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform
from simkit.scenes.wrop.spec import SceneObject


class PeekOverScreen(Task):
    family, name = "OP-1", "peek_over_screen"
    summary = "a tall cylinder glides behind a short screen; its top must stay in view above the screen"
    description = (
        "A tall upright cylinder glides behind a screen lower than itself. Occlusion is partial: the part "
        "above the screen's sightline stays in view for the whole crossing while the rest is hidden, so the "
        "visible top must slide along above the screen at the cylinder's speed, with the same width and "
        "height above the screen, and the whole cylinder must come out on the far side. A model that treats "
        "an occluded object as gone, or that lets the hidden part change, fails. Cylinder radius and height, "
        "screen height and width, direction and timing vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "height": Uniform(0.8, 1.1),
        "screen_height": Uniform(0.4, 0.6),
        "screen_width": Uniform(1.1, 1.5),
        "direction": Choice([1, -1]),
        "centre_at": Uniform(0.72, 0.76),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, d, r, h, w = clip.frames, s["direction"], s["radius"], s["height"], s["screen_width"]
        m = Motion(T, clip.fps, (0, DEPTH, h / 2))
        m.pos[:, 0] = steady_x(clip, 0.0, s["centre_at"], d, span=6.5)
        target = SceneObject("target", "target", "cylinder", (r, h), look.mat("target"), m.track())
        scr = panel(
            "screen", look, "screen", T, (-w / 2, -SCREEN_T / 2, 0), (w / 2, SCREEN_T / 2, s["screen_height"])
        )
        sg = sight(target, [scr], self.view)
        events = passage_events(sg, clip.cut)
        z_edge = sightline_z(s["screen_height"], DEPTH - r, self.view)
        top = sight(probe(target, z_edge + 0.1, h), [scr], self.view)
        z_back = sightline_z(s["screen_height"], DEPTH + r + 0.03, self.view)
        low = sight(probe(target, 0.0, z_back - 0.05), [scr], self.view)
        x = m.pos[:, 0]
        behind = [int(f) for f in np.nonzero(low.hidden)[0]]
        shown = [f for f in behind if top.clear[f]]
        if not shown:
            raise ValueError("no frame with the lower part hidden and the top in view")
        share = (h - z_edge - 0.1) / h
        exps = [
            X.visible("target", [int(f) for f in np.nonzero(sg.clear)[0]]),
            X.visible("target", shown, round(0.5 * share, 3)),
            X.hidden("target", shown, round(1 - 0.8 * (z_back - 0.05) / h, 3)),
            X.side("target", "screen", [f for f in range(events["uncovered"], T) if sg.clear[f]], d),
        ]
        c = Composition([look.ground(T), target, scr], events, "occlusion_onset", exps, "", "")
        c.events["centre"] = int(np.argmin(np.abs(x)))
        c.derived.update({"part_above_sightline_m": round(h - z_edge, 4), "top_in_view": shown})
        c.prompt = (
            f"A tall {look.colour('target')} cylinder glides toward a low {look.colour('screen')} screen. "
            f"Continue the video."
        )
        c.outcome = "the cylinder's top stays in view above the screen as it passes, then the whole cylinder comes out"
        return c
