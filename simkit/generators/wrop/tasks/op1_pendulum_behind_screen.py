"""OP-1/pendulum_behind_screen."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH, SCREEN_T, G, Motion
from simkit.generators.wrop.kit_op1 import ball_on_path, occlusion_composition, panel
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform
from simkit.scenes.wrop.spec import SceneObject

CLEARANCE = 0.05  # m between the bob's lowest point and the floor


class PendulumBehindScreen(Task):
    family, name = "OP-1", "pendulum_behind_screen"
    summary = "a pendulum bob swings down behind a low screen and must rise out on the other side in rhythm"
    description = (
        "A ball hangs from a rod and swings as a pendulum in front of a post; a low screen hides the bottom "
        "of its arc. Periodic motion through occlusion: each time the bob swings through the bottom it is "
        "hidden, and it must rise out on the opposite side at the time the pendulum's period implies "
        "(T = 2 pi sqrt(L / g), small-angle law) and to the same height, then come back. The rod's upper "
        "part stays in view, the bob does not. Rod length (hence period), amplitude, bob size, screen width "
        "and the side it starts from vary."
    )
    structural = {
        "length": Uniform(0.7, 1.0),
        "amplitude_deg": Uniform(42.0, 55.0),
        "radius": Uniform(0.09, 0.12),
        "cover": Uniform(0.35, 0.65),
        "side": Choice([1, -1]),
    }
    colour_slots = ("target", "screen", "rod")

    def compose(self, s, clip, look):
        T, fps, L, r = clip.frames, clip.fps, s["length"], s["radius"]
        th0 = np.radians(s["amplitude_deg"])
        omega = np.sqrt(G / L)  # rad/s (small-angle law; Halliday, Resnick and Walker, ch. 15)
        # through the bottom on frame f_b: a quarter period after the cut, or earlier in short clips
        f_b = min(clip.cut + int(round(np.pi / 2 / omega * fps)), clip.at(0.74))
        phi = s["side"] * th0 * np.sin(omega * (f_b - np.arange(T)) / fps)
        pivot = np.array([0.0, DEPTH, CLEARANCE + r + L])
        bob = pivot + L * np.stack([np.sin(phi), np.zeros(T), -np.cos(phi)], 1)
        ball = ball_on_path("target", look, "target", clip, r, bob)
        ball.pose.rotation[:] = 0.0  # a hanging bob swings, it does not roll
        rod_m = Motion(T, fps, pivot)
        rod_m.pos[:] = pivot + 0.5 * (bob - pivot)
        rod_m.rot[:, 1] = -phi
        rod = SceneObject("rod", "support", "box", (0.025, 0.025, L - r), look.mat("rod"), rod_m.track())
        post = panel(
            "post", look, "rod", T, (-0.05, DEPTH + 0.35, 0), (0.05, DEPTH + 0.45, pivot[2] + 0.05), "support"
        )
        axle = panel(
            "axle",
            look,
            "rod",
            T,
            (-0.02, DEPTH, pivot[2] - 0.02),
            (0.02, DEPTH + 0.35, pivot[2] + 0.02),
            "support",
        )
        # the screen is narrower than the bob's reach on both sides of f_b within the target half
        dt = min(f_b - clip.cut, T - 1 - f_b) / fps
        x_ext = L * np.sin(th0 * np.sin(min(omega * dt, np.pi / 2)))
        half = r + 0.1 + s["cover"] * max(x_ext - 2 * r - 0.3, 0.0)
        top = CLEARANCE + 2 * r + 0.35
        scr = panel("screen", look, "screen", T, (-half, -SCREEN_T / 2, 0), (half, SCREEN_T / 2, top))
        objs = [look.ground(T), ball, rod, post, axle, scr]
        c, sg = occlusion_composition(clip, objs, ball, [scr], self.view)
        swing = int(round(np.pi / omega * fps))
        x = bob[:, 0]
        far = [
            f
            for f in range(c.events["occlusion_end"], min(f_b + swing, T))
            if sg.clear[f] and np.sign(x[f]) == -s["side"]
        ]
        if not far:
            raise ValueError("the bob does not show on the far side")
        c.expectations.append(X.side("target", "screen", far, -s["side"]))
        c.events["lowest_point"] = f_b
        c.derived.update({"period_s": round(2 * np.pi / omega, 4), "screen_half_width": round(half, 4)})
        c.prompt = (
            f"A {look.colour('target')} ball on a {look.colour('rod')} rod swings as a pendulum; a low "
            f"{look.colour('screen')} screen stands in front of the bottom of its swing. Continue the video."
        )
        c.outcome = (
            "the bob swings down behind the screen and rises out on the other side, keeping its rhythm"
        )
        return c
