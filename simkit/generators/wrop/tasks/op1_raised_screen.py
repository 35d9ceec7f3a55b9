"""OP-1/raised_screen."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import DEPTH, SCREEN_T
from simkit.generators.wrop.kit_op1 import (
    ball_on_path,
    jitter_cameras,
    line_xyz,
    outline,
    panel,
    placed,
    probe,
    ray_blocked,
    sight,
    steady_x,
)
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform
from simkit.scenes.wrop.spec import SceneObject, Track

LEG = 0.06


def _band_seen(ball: SceneObject, parts: list[SceneObject], z_top: float, view) -> np.ndarray:
    """(T,) bool: every point of the camera-facing half of ``ball``'s outline lower than ``z_top`` (m) has a
    free line of sight from all nine cameras of :func:`jitter_cameras` (rays through the keyed ``parts``)."""
    origins = np.array([c.location for c in jitter_cameras(view)], float)
    local = outline(ball)
    out = []
    for f in range(ball.pose.frames):
        pts = placed(ball, f, local)
        c = ball.pose.position[f]
        pts = pts[(pts[:, 2] < z_top) & (np.einsum("ij,ij->i", pts - c, origins[0] - pts) > 0)]
        blocked = np.zeros((len(origins), len(pts)), bool)
        for p in parts:
            blocked |= ray_blocked(origins, pts, p, f)
        out.append(bool(len(pts)) and not blocked.any())
    return np.array(out, bool)


class RaisedScreen(Task):
    family, name = "OP-1", "raised_screen"
    summary = (
        "a ball rolls behind a screen raised on legs; a small ball stays in view beneath it, a large one half"
    )
    description = (
        "A screen stands on two legs, leaving a gap between its lower edge and the floor, and a ball rolls "
        "behind it. Occlusion depends on the gap: a ball small enough stays in full view beneath the screen "
        "for the whole crossing and must not be made to vanish; a larger ball shows only its lower part "
        "under the screen edge, the upper part hidden, sliding along at the ball's speed. Either way the "
        "ball is never fully hidden and comes out beyond the screen unchanged. Ball size, gap height (the "
        "ball fitting under it or not, by a varying margin), screen width, direction and timing vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "fits": Choice([True, False]),
        "margin": Uniform(0.08, 0.16),
        "screen_width": Uniform(1.2, 1.6),
        "direction": Choice([1, -1]),
        "centre_at": Uniform(0.72, 0.76),
    }
    colour_slots = ("target", "screen")

    def compose(self, s, clip, look):
        T, d, r, w = clip.frames, s["direction"], s["radius"], s["screen_width"]
        cam = jitter_cameras(self.view)[0]
        cy, cz = -cam.location[1], cam.location[2]
        # the sightline under the screen's lower back edge reaches z_line at the ball's front (similar triangles)
        z_line = 2 * r + s["margin"] + 0.06 if s["fits"] else 2 * r - s["margin"]
        k = (DEPTH - r + SCREEN_T / 2) / (cy - SCREEN_T / 2)  # from the screen's lower front edge
        g = (z_line + cz * k) / (1 + k)
        x = steady_x(clip, 0.0, s["centre_at"], d, span=6.0)
        ball = ball_on_path("target", look, "target", clip, r, line_xyz(x, DEPTH, r))
        t = SCREEN_T / 2
        parts = [
            panel("screen", look, "screen", T, (-w / 2, -t, g), (w / 2, t, g + 0.6)),
            panel("leg_left", look, "screen", T, (-w / 2, -t, 0), (-w / 2 + LEG, t, g)),
            panel("leg_right", look, "screen", T, (w / 2 - LEG, -t, 0), (w / 2, t, g)),
        ]
        sg = sight(ball, parts, self.view)
        under = [f for f in range(T) if abs(x[f]) < w / 2 - LEG - r - 0.15]
        if not under or under[0] <= clip.cut:
            raise ValueError("the ball does not pass under the screen after the cut")
        exps = [X.visible("target", [int(f) for f in np.nonzero(sg.clear)[0]])]
        if s["fits"]:
            seen = [f for f in under if sg.clear[f]]
            if not seen:
                raise ValueError("the small ball is not fully in view under the screen")
            exps.append(X.visible("target", seen))
        else:
            upright = Track(ball.pose.position.copy(), np.zeros((T, 3)), np.ones((T, 3)))  # no rolling spin
            box = SceneObject("span", "probe", "box", (2 * r, 2 * r, 2 * r), None, upright)
            high = sight(probe(box, z_line + 0.06, 2 * r), parts, self.view)
            low = _band_seen(ball, parts, z_line - 0.05, self.view)
            part = [f for f in under if low[f] and high.hidden[f]]
            if not part:
                raise ValueError("the large ball is not half in view under the screen")
            exps += [X.visible("target", part, 0.1), X.hidden("target", part, 0.85)]
        c = Composition(
            [look.ground(T), ball, *parts],
            {"under_start": under[0], "under_end": under[-1]},
            "under_start",
            exps,
            "",
            "",
        )
        c.expectations.append(X.side("target", "screen", [f for f in range(under[-1], T) if sg.clear[f]], d))
        c.derived.update({"gap_height": round(g, 4), "sightline_at_ball": round(z_line, 4)})
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward a {look.colour('screen')} screen raised on two legs "
            f"above the floor. Continue the video."
        )
        c.outcome = (
            "the ball stays in full view as it rolls beneath the raised screen and out beyond it"
            if s["fits"]
            else "the ball's lower part stays in view beneath the screen edge as it passes, then it comes out whole"
        )
        return c
