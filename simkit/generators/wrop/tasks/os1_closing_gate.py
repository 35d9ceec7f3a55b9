"""OS-1/closing_gate."""

import numpy as np

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import (
    OS1_APPROACH,
    OS1_VIEW,
    WALL_T,
    Motion,
    SceneObject,
)
from simkit.generators.wrop.kit_os1 import back_off, roll_ball_at_barrier, wall_with_opening
from simkit.scenes.wrop.params import Choice, Uniform

GATE_T = 0.05


class ClosingGate(Task):
    family, name = "OS-1", "closing_gate"
    summary = "a gate slides down over an opening as a ball rolls at it; the ball passes only if it gets there first"
    description = (
        "A ball rolls toward an opening in a wall that is wide enough for it, while a gate in front of the "
        "opening slides down to close it. Solidity depends on timing: if the ball is through before the gate "
        "comes down to the ball's height, it passes and the gate closes behind it; if the gate reaches the "
        "floor first, the ball strikes the closed gate at the declared frame and rolls back. The race is "
        "visible in the input (the gate's speed and the ball's), so the outcome can be predicted. Ball size, "
        "opening size, gate speed, who wins the race and by how much, speed and restitution vary."
    )
    structural = {
        "radius": Uniform(0.14, 0.2),
        "in_time": Choice([True, False]),
        "margin": Uniform(0.0, 0.5),
        "close_frames": Uniform(0.25, 0.35),
        "shut_at": Uniform(0.68, 0.74),
        "speed": Uniform(1.3, 2.2),
        "restitution": Uniform(0.3, 0.6),
    }
    colour_slots = ("target", "wall", "gate")
    view = OS1_VIEW

    @staticmethod
    def _in_time(clip, r: float, gx: float, g0: int, g1: int, s) -> tuple[int, int, int]:
        """(g0, g1, f_c): gate frames and crossing frame when the ball wins the race: its back clears the gate's
        back face while the gate's lower edge is still 3 cm above the ball; in short clips the gate's
        descent is shifted later so that the crossing stays at or after the cut."""
        T, fps, H = clip.frames, clip.fps, 2 * r + 0.7
        for _ in range(3):
            z_edge = H - H * (np.arange(T) - g0) / (g1 - g0)  # the gate's lower edge while it descends
            f_lim = int(np.nonzero(z_edge >= 2 * r + 0.03)[0].max())  # last frame it is still above the ball
            f_c = f_lim - 1 - int(round(s["margin"] * clip.at(0.06)))
            v = min(s["speed"], OS1_APPROACH * fps / max(f_c, 1)) / fps  # m per frame (barrier_run's speed)
            f_c -= int(np.ceil((r + gx + GATE_T / 2) / v))
            if f_c >= clip.cut:
                break
            shift = min(clip.cut - f_c, T - 2 - g1)
            g0, g1 = g0 + shift, g1 + shift
        return g0, g1, f_c

    def compose(self, s, clip, look):
        T, fps, r, t = clip.frames, clip.fps, s["radius"], WALL_T / 2
        a, hole_h = 2 * r + 0.2, 2 * r + 0.2
        H = hole_h + 0.5
        gx = -t - GATE_T / 2 - 0.01  # the gate's plane, just in front of the wall
        g1 = clip.at(s["shut_at"])
        g0 = g1 - max(3, clip.at(s["close_frames"]))
        if s["in_time"]:
            g0, g1, f_c = self._in_time(clip, r, gx, g0, g1, s)
            x_c = 0.0
        else:
            f_c = g1 + 1 + int(round(s["margin"] * clip.at(0.06)))
            x_c = gx - GATE_T / 2 - r
        if f_c < clip.cut or f_c > T - 4:
            raise ValueError("the race between the ball and the gate does not fit the clip")
        gm = Motion(T, fps, (gx, 0, H + H / 2))
        gm.move(g0, g1, (gx, 0, H / 2))
        gate = SceneObject("gate", "wall", "box", (GATE_T, a + 0.1, H), look.mat("gate"), gm.track())
        parts = [*wall_with_opening(look, T, a, H, side=0.9, top=hole_h, top_name="lintel"), gate]
        blocker = "wall_left" if s["in_time"] else "gate"
        c = roll_ball_at_barrier(clip, look, s, parts, s["in_time"], x_c, blocker, contact_at=f_c / (T - 1))
        c.events.update({"gate_starts": g0, "gate_shut": g1})
        c.derived.update({"gate_frames": [g0, g1], "opening": round(a, 4)})
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward an opening in a {look.colour('wall')} wall while a "
            f"{look.colour('gate')} gate slides down over the opening. Continue the video."
        )
        passed = "the ball gets through before the gate comes down, and the gate closes behind it"
        c.outcome = passed if s["in_time"] else f"the gate shuts first and the ball hits it and {back_off(c)}"
        c.legal_outcomes = [c.outcome]
        return c
