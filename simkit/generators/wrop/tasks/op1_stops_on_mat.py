"""OP-1/stops_on_mat."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH, SCREEN_T, Motion
from simkit.generators.wrop.kit_op1 import occlusion_composition, panel, side_frames
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform
from simkit.scenes.wrop.spec import SceneObject

MAT_T = 0.004


class StopsOnMat(Task):
    family, name = "OP-1", "stops_on_mat"
    summary = (
        "a block slows down on a rough mat that runs behind a screen; it either stops hidden or creeps out"
    )
    description = (
        "A block slides across the floor onto a rough mat that runs behind a screen and beyond it, and from "
        "there it slows down at a constant rate (friction), which is visible before the cut. Permanence "
        "meets prediction under deceleration: depending on its speed and the deceleration the block either "
        "comes to rest behind the screen, where it must stay, invisible, until the end (it must not pop "
        "out), or creeps out on the far side and stops there. Both are legal; which one happens follows "
        "from the motion seen in the input. Block size, screen width, where it stops, the deceleration and "
        "timing vary."
    )
    structural = {
        "half_size": Uniform(0.13, 0.18),
        "screen_width": Uniform(1.3, 1.6),
        "stops_behind": Choice([True, False]),
        "stop": Uniform(-0.5, 0.5),
        "run_up": Uniform(1.5, 1.9),
        "direction": Choice([1, -1]),
        "stop_at": Uniform(0.86, 0.92),
    }
    colour_slots = ("target", "screen", "mat")

    def compose(self, s, clip, look):
        T, fps, d, b, w = clip.frames, clip.fps, s["direction"], s["half_size"], s["screen_width"]
        inner = w / 2 - b - 0.15
        u = s["stop"] * 2 * inner if s["stops_behind"] else w / 2 + b + 0.3 + (s["stop"] + 0.5) * 0.5
        x_m, x_s = -d * (w / 2 + s["run_up"]), d * u
        f_s, D = clip.at(s["stop_at"]), abs(x_s - x_m)
        f_e = clip.at(0.38)
        # enter the mat late enough that the block is still clear of the screen on the cut frame
        while (
            f_e < clip.cut - 1 and D * (1 - (1 - (clip.cut - f_e) / (f_s - f_e)) ** 2) > s["run_up"] - b - 0.1
        ):
            f_e += 1
        tau = (f_s - f_e) / fps
        v, a = 2 * D / tau, 2 * D / tau**2  # entry speed (m/s) and deceleration (m/s^2) that stop it at x_s
        m = Motion(T, fps, (x_m - d * v * f_e / fps, DEPTH, b))
        m.velocity(0, (d * v, 0, 0), f_e)
        m.decelerate(f_e, (d * v, 0, 0), a)
        blk = SceneObject("target", "target", "box", (2 * b, 2 * b, 2 * b), look.mat("target"), m.track())
        far = d * (w / 2 + 1.5)
        mat = panel(
            "mat",
            look,
            "mat",
            T,
            (min(x_m, far), DEPTH - 0.3, 0),
            (max(x_m, far), DEPTH + 0.3, MAT_T),
            "support",
        )
        top = 2 * b + 0.45
        scr = panel("screen", look, "screen", T, (-w / 2, -SCREEN_T / 2, 0), (w / 2, SCREEN_T / 2, top))
        c, sg = occlusion_composition(
            clip, [look.ground(T), mat, blk, scr], blk, [scr], self.view, need_clear=not s["stops_behind"]
        )
        x = m.pos[:, 0]
        c.expectations.append(X.same_place("target", list(range(f_s + 1, T))))
        if s["stops_behind"]:
            c.expectations.append(X.hidden("target", list(range(c.events["occlusion_start"] + 1, T))))
        else:
            c.expectations.append(
                X.side("target", "screen", side_frames(sg, x, 0.0, d, c.events["occlusion_end"]), d)
            )
        c.events["rest"] = f_s
        c.derived.update(
            {
                "entry_speed_m_per_s": round(v, 4),
                "deceleration_m_per_s2": round(a, 4),
                "rest_x": round(x_s, 4),
            }
        )
        c.prompt = (
            f"A {look.colour('target')} block slides onto a {look.colour('mat')} mat that runs behind a "
            f"{look.colour('screen')} screen. Continue the video."
        )
        hidden = "the block slows down and comes to rest behind the screen, out of sight"
        out = "the block slows down, creeps out beyond the screen and comes to rest there"
        c.outcome = hidden if s["stops_behind"] else out
        c.legal_outcomes = [hidden, out]
        return c
