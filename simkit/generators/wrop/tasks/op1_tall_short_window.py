"""OP-1/tall_short_window."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import DEPTH, SCREEN_T, Motion, SceneObject
from simkit.generators.wrop.kit_op1 import panel, passage_events, probe, sight, sightline_z, steady_x
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class TallShortWindow(Task):
    family, name = "OP-1", "tall_short_window"
    summary = "a tall or short block passes behind a screen with a high window; only a tall one shows in it"
    description = (
        "Baillargeon and DeVos's window screen: a wide screen has a window in its upper half, and an upright "
        "block slides behind it at constant speed. A block taller than the window's sill must show its top "
        "in the window while it passes, and be hidden behind the solid parts on either side; a block shorter "
        "than the sill must stay hidden for the whole crossing, window included, and reappear beyond the "
        "screen. A model has to compare the block's height, seen before the crossing, with the sill. Block "
        "height (tall or short, by a varying margin), width, window width and sill height, direction and "
        "timing vary."
    )
    structural = {
        "tall": Choice([True, False]),
        "margin": Uniform(0.2, 0.4),
        "half_width": Uniform(0.13, 0.18),
        "window_width": Uniform(0.7, 0.9),
        "sill": Uniform(0.55, 0.75),
        "direction": Choice([1, -1]),
        "centre_at": Uniform(0.71, 0.76),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, d, b = clip.frames, s["direction"], s["half_width"]
        z_sill = sightline_z(s["sill"], DEPTH, self.view)
        h = z_sill + s["margin"] if s["tall"] else z_sill - s["margin"]
        ww = s["window_width"]
        top, half_w = max(h + 0.45, s["sill"] + 0.6), ww / 2 + 0.7
        t = SCREEN_T / 2
        parts = [
            panel("screen_left", look, "screen", T, (-half_w, -t, 0), (-ww / 2, t, top)),
            panel("screen_right", look, "screen", T, (ww / 2, -t, 0), (half_w, t, top)),
            panel("screen_sill", look, "screen", T, (-ww / 2, -t, 0), (ww / 2, t, s["sill"])),
            panel("screen_lintel", look, "screen", T, (-ww / 2, -t, top - 0.12), (ww / 2, t, top)),
        ]
        m = Motion(T, clip.fps, (0, DEPTH, h / 2))
        m.pos[:, 0] = steady_x(clip, 0.0, s["centre_at"], d, span=7.0)
        target = SceneObject("target", "target", "box", (2 * b, 2 * b, h), look.mat("target"), m.track())
        objs = [look.ground(T), target, *parts]
        sg = sight(target, parts, self.view)
        events = passage_events(sg, clip.cut)
        x = m.pos[:, 0]
        hid = [int(f) for f in np.nonzero(sg.hidden)[0]]
        exps = [X.visible("target", [int(f) for f in np.nonzero(sg.clear)[0]])]
        exps += [X.hidden("target", hid)] if hid else []
        c = Composition(objs, events, "occlusion_onset", exps, "", "", derived={"hidden_with_margin": hid})
        f_mid = int(np.argmin(np.abs(x)))
        c.events["window_centre"] = f_mid
        after = [f for f in range(T) if sg.clear[f] and np.sign(x[f]) == d]
        before = [f for f in range(T) if sg.clear[f] and np.sign(x[f]) == -d]
        c.expectations += [
            X.side("target", "screen_sill", after, d),
            X.side("target", "screen_sill", before, -d),
        ]
        if s["tall"]:
            part = probe(target, z_sill + 0.06, h)
            shown = [int(f) for f in np.nonzero(sight(part, parts, self.view).clear)[0]]
            if not shown:
                raise ValueError("the tall block never shows fully in the window")
            c.expectations.append(X.visible("target", shown, round(0.4 * (h - z_sill - 0.06) / h, 3)))
            c.derived["in_window"] = shown
        else:
            behind = [f for f in range(T) if abs(x[f]) <= ww / 2 + 0.02]
            c.expectations.append(X.hidden("target", behind))
        c.derived.update({"block_height": round(h, 4), "sill_sightline_z": round(z_sill, 4)})
        c.prompt = (
            f"A {look.colour('target')} upright block slides toward a wide {look.colour('screen')} screen "
            f"with a window in its upper half. Continue the video."
        )
        c.outcome = (
            "the block's top shows in the window as it passes, then the block reappears beyond the screen"
            if s["tall"]
            else "the block stays hidden while it passes the window and reappears beyond the screen"
        )
        c.legal_outcomes = [c.outcome]
        return c
