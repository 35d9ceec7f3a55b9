"""OS-2/drop_behind_screen."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CLEAR_MARGIN, screen
from simkit.generators.wrop.kit_os2 import ball, block, fall_checks, yank
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion, fall_frames, fall_height
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class DropBehindScreen(Task):
    family, name = "OS-2", "drop_behind_screen"
    summary = (
        "a ball falls from its pillar behind a low screen; when the screen slides away it lies on the floor"
    )
    description = (
        "A ball sits on a pillar behind a low screen, so only the ball shows above the screen's top edge. "
        "After the cut the pillar is yanked away behind the screen; the ball falls, disappears behind the "
        "screen and lands on the floor out of sight at the declared frame. Then the screen slides aside and "
        "reveals the ball lying on the floor right under the place where it sat. The task joins support and "
        "permanence: the unseen fall must still happen (the ball must not reappear on its pillar, hover, or "
        "be gone) and it must land where gravity puts it. Ball size, pillar height, screen width, which way "
        "the screen slides and the pull speed vary."
    )
    structural = {
        "radius": Uniform(0.06, 0.09),
        "height": Uniform(0.3, 0.5),
        "screen_width": Uniform(0.9, 1.4),
        "slide": Choice([1, -1]),
        "pull_frames": IntRange(1, 2),
        "move_at": Uniform(0.5, 0.54),
    }
    colour_slots = ("target", "support", "screen")
    view = {"target": (0.0, 0.0, 0.3), "distance": 4.5}

    def compose(self, s, clip, look):
        T, fps, r, w = clip.frames, clip.fps, s["radius"], s["screen_width"]
        f_m = clip.at(s["move_at"], lo=clip.cut)
        f_rel = f_m + s["pull_frames"]
        depth = 0.3  # the ball and pillar stand this far behind the screen
        k = min(fall_frames(s["height"], fps), T - 5 - f_rel)
        H = fall_height(k, fps)
        sh = 2 * r + 0.11  # screen height: the ball on the floor is 0.11 m below its top
        if k < 2 or sh - 0.07 > H:
            raise ValueError("clip too short for the drop and the reveal")
        f_land = f_rel + k
        f_s0 = f_land + 1
        f_s1 = min(T - 3, f_s0 + max(2, (T - f_s0) // 3))
        sm = Motion(T, fps, (0.0, 0.0, sh / 2))
        sm.move(f_s0, f_s1, (s["slide"] * (w + 2 * r + 2 * CLEAR_MARGIN), 0.0, sh / 2), "smooth")
        pm = yank(clip, (0.0, depth, H / 2), f_m, 1, 1, 0.15 + 0.01, s["pull_frames"])
        m = Motion(T, fps, (0.0, depth, H + r))
        m.fall(f_rel, f_land, r)
        objs = [
            look.ground(T),
            screen("screen", look, "screen", sm.track(), w, sh),
            block("support", (0.3, 0.3, H), look, "support", pm.track(), "support"),
            ball("target", r, look, "target", m.track()),
        ]
        z, sx = m.pos[:, 2], sm.pos[:, 0]
        clear = np.abs(sx) >= w / 2 + r + CLEAR_MARGIN
        hid = [f for f in range(T) if z[f] + r <= sh - 0.1 and not np.abs(sx[f]) > w / 2 - r - 0.08]
        exps = fall_checks("target", "support", f_rel, f_land)
        exps += [
            X.visible("target", list(range(f_m))),
            X.hidden("target", hid),
            X.visible("target", [f for f in range(f_land, T) if clear[f]]),
            X.same_place("target", list(range(f_land, T))),
        ]
        return Composition(
            objs,
            {"support_lost": f_rel, "landing": f_land, "reveal": int(np.argmax(clear))},
            "support_lost",
            exps,
            prompt=f"A {look.colour('target')} ball sits on a {look.colour('support')} pillar behind a low "
            f"{look.colour('screen')} screen. Continue the video.",
            outcome="the pillar is pulled away, the ball falls out of sight and lies on the floor when the "
            "screen slides away",
            derived={"pillar_height": round(H, 4), "fall_frames": k, "screen_height": round(sh, 4)},
        )
