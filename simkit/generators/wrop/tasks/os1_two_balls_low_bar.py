"""OS-1/two_balls_low_bar."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T, Motion, SceneObject, barrier_run, wall_part
from simkit.generators.wrop.kit_os1 import back_off
from simkit.scenes.wrop.params import Choice, Uniform

LANE = 0.4


def _reach(r: float, hb: float) -> float:
    """x distance (m) from a bar's front face to the centre of a ball of radius ``r`` touching it, the bar's
    underside at ``hb`` m: its lower front edge (sqrt(r^2 - (hb - r)^2)) or its face (r) when hb <= r."""
    return r if hb <= r else float(np.sqrt(max(r * r - (hb - r) ** 2, 0.0)))


class TwoBallsLowBar(Task):
    family, name = "OS-1", "two_balls_low_bar"
    summary = "a small and a large ball roll side by side at one low bar; each passes only if it is lower than the bar"
    description = (
        "Two balls of different sizes roll side by side toward the same horizontal bar held across their "
        "paths. The same obstacle treats them differently: each ball passes under the bar only if its "
        "diameter is smaller than the bar's height, so the small one may pass while the large one strikes "
        "the bar's lower edge and rolls back, or both pass, or both are stopped. A model must apply solidity "
        "to each object separately rather than to the pair. Ball sizes, bar height (below, between or above "
        "them), which lane holds the large ball, speed, restitution and arrival times vary."
    )
    structural = {
        "r_small": Uniform(0.1, 0.14),
        "size_gap": Uniform(0.06, 0.1),
        "bar": Choice(["between", "above", "below"]),
        "clearance": Uniform(0.03, 0.06),
        "large_left": Choice([True, False]),
        "speed": Uniform(1.2, 2.0),
        "restitution": Uniform(0.3, 0.6),
        "contact_at": Uniform(0.56, 0.62),
        "delay": Uniform(0.03, 0.08),
    }
    colour_slots = ("small", "large", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, t, rs = clip.frames, WALL_T / 2, s["r_small"]
        rl = rs + s["size_gap"]
        hb = {"between": rs + rl, "above": 2 * rl + s["clearance"], "below": 2 * rs - s["clearance"]}[
            s["bar"]
        ]
        parts = [
            wall_part("bar", look, T, (-t, -LANE - 0.5, hb), (t, LANE + 0.5, hb + 0.1)),
            wall_part("post_left", look, T, (-t, -LANE - 0.6, 0), (t, -LANE - 0.5, hb + 0.1)),
            wall_part("post_right", look, T, (-t, LANE + 0.5, 0), (t, LANE + 0.6, hb + 0.1)),
        ]
        y_large = -LANE if s["large_left"] else LANE
        runs = []
        for name, r, y, at in (
            ("small", rs, -y_large, s["contact_at"]),
            ("large", rl, y_large, s["contact_at"] + s["delay"]),
        ):
            ball = SceneObject(name, "target", "sphere", (r,), look.mat(name), None)
            passes = 2 * r < hb
            runs.append(
                (
                    name,
                    passes,
                    barrier_run(
                        clip,
                        look,
                        ball,
                        Motion(T, clip.fps, (0, y, r)),
                        r,
                        parts,
                        passes,
                        -t - _reach(r, hb),
                        s["speed"],
                        s["restitution"],
                        at,
                        "bar",
                    ),
                )
            )
        (_, p_s, c_s), (_, p_l, c_l) = runs
        events = {f"small_{k}": v for k, v in c_s.events.items()} | {
            f"large_{k}": v for k, v in c_l.events.items()
        }
        key = min(events, key=events.__getitem__)
        small = "passes under the bar" if p_s else f"hits the bar and {back_off(c_s, mover='small')}"
        large = "passes under it" if p_l else f"hits the bar and {back_off(c_l, mover='large')}"
        c = Composition(
            [look.ground(T), c_s.objects[1], c_l.objects[1], *parts],
            events,
            key,
            c_s.expectations + c_l.expectations,
            prompt=(
                f"A small {look.colour('small')} ball and a large {look.colour('large')} ball roll side by side "
                f"toward a low {look.colour('wall')} bar. Continue the video."
            ),
            outcome=f"the small ball {small}; the large ball {large}",
            derived={"bar_height": round(hb, 4), "small": c_s.derived, "large": c_l.derived},
            claims=c_s.claims + c_l.claims,
        )
        return c
