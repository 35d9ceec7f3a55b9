"""OS-3/collision_behind_screen."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import CLEAR_MARGIN, COVER_MARGIN, DEPTH, collide_1d, in_view, screen
from simkit.generators.wrop.kit_os3 import path
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Uniform
from simkit.scenes.wrop.spec import SceneObject, Track


class CollisionBehindScreen(Task):
    family, name = "OS-3", "collision_behind_screen"
    summary = "two balls roll toward each other and collide behind a screen; both must come back out"
    description = (
        "Two equal balls roll toward each other behind a narrow screen and meet while hidden. The collision "
        "itself is never seen, but its consequences are fixed: with equal masses and an almost elastic impact "
        "each ball returns the way it came, with roughly the other's speed, so both reappear on their own "
        "side of the screen after the declared frames. Count and momentum are conserved across an unseen "
        "event: no ball may vanish, pass through the other and come out on the far side, or merge. Ball "
        "size, both speeds, restitution and the timing vary."
    )
    structural = {
        "radius": Uniform(0.08, 0.12),
        "v_left": Uniform(1.6, 2.4),
        "v_right": Uniform(1.6, 2.4),
        "restitution": Uniform(0.9, 1.0),
        "contact_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "other", "screen")

    def compose(self, s, clip, look):
        T, fps, r = clip.frames, clip.fps, s["radius"]
        f_c = clip.at(s["contact_at"], lo=clip.cut + 1)
        vl, vr = s["v_left"], -s["v_right"]
        al, ar = collide_1d(1.0, vl, 1.0, vr, s["restitution"])
        w, sh = 4 * r + 0.3, 2 * r + 0.4
        objs = [look.ground(T), screen("screen", look, "screen", Track.static(T, (0.0, 0.0, sh / 2)), w, sh)]
        exps = []
        back, side_ok = [], []
        for nm, x_c, v0, v1, sgn in (("target", -r, vl, al, -1), ("other", r, vr, ar, 1)):
            x = path(T, fps, [(0, (v0,)), (f_c, (v1,))], f_c, (x_c,), decel=0.2)[:, 0]
            m = Motion(T, fps, (0.0, DEPTH, r))
            m.pos[:, 0] = x
            m.roll(r)
            objs.append(SceneObject(nm, "target", "sphere", (r,), look.mat(nm), m.track()))
            hid, clr = Task.occlusion_frames(x, 0.0, w / 2 - r - COVER_MARGIN, w / 2 + r + CLEAR_MARGIN)
            if np.sign(v1) != sgn:  # equal masses, e >= 0.9 and speeds within 1.5x: never happens
                raise ValueError("a ball would come out on the far side")
            seen = [f for f in clr if in_view(x[f])]
            after = [f for f in seen if f > f_c]
            if not after or not [f for f in seen if f < f_c]:
                raise ValueError("clip too short for both balls to reappear")
            exps += [X.hidden(nm, hid), X.visible(nm, seen)]
            side_ok.append(X.side(nm, "screen", after, int(np.sign(x[after[0]])), space="world"))
            back.append(after[0])
        exps += side_ok + [
            X.contact("target", "other", f_c),
            X.momentum(["target", "other"], [1.0, 1.0], f_c),
            X.no_penetration("target", "other"),
        ]
        return Composition(
            objs,
            {"impact": f_c, "reappearance": max(back)},
            "impact",
            exps,
            prompt=f"A {look.colour('target')} ball and a {look.colour('other')} ball roll toward each other "
            f"behind a {look.colour('screen')} screen. Continue the video.",
            outcome="the balls collide behind the screen and both come back out, each on the side it came from",
            derived={
                "v_left_after": round(al, 4),
                "v_right_after": round(ar, 4),
                "screen_width": round(w, 4),
            },
        )
