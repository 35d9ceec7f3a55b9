"""OP-1/struck_behind_screen."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH, SCREEN_T, Motion, collide_1d
from simkit.generators.wrop.kit_op1 import ball_on_path, occlusion_composition, panel, side_frames
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class StruckBehindScreen(Task):
    family, name = "OP-1", "struck_behind_screen"
    summary = "a resting ball is struck by another and rolls behind a screen; its speed comes from the impact"
    description = (
        "A ball rests on the floor until a second ball rolls into it; the struck ball takes up the momentum "
        "of the impact (a 1-D collision with restitution) and rolls toward a screen, passing behind it after "
        "the cut. Its speed is not shown for long before it disappears: a model must carry the speed the "
        "impact gave it (set by the two sizes, the striker's speed and the restitution) through the "
        "occlusion, so the ball reappears beyond the screen at the right time, while the striker keeps the "
        "velocity the impact left it. Ball sizes, speeds, restitution, direction and timing vary."
    )
    structural = {
        "r_striker": Uniform(0.15, 0.2),
        "r_target": Uniform(0.12, 0.17),
        "restitution": Uniform(0.8, 1.0),
        "travel": Uniform(3.6, 4.4),
        "direction": Choice([1, -1]),
        "impact_at": Uniform(0.22, 0.3),
        "centre_at": Uniform(0.72, 0.76),
    }
    colour_slots = ("target", "striker", "screen")

    def compose(self, s, clip, look):
        T, fps, d = clip.frames, clip.fps, s["direction"]
        r1, r2, e = s["r_striker"], s["r_target"], s["restitution"]
        m1, m2 = r1**3, r2**3  # equal density: mass proportional to volume
        f_i, f_c = clip.at(s["impact_at"], lo=2), clip.at(s["centre_at"])
        u = s["travel"] / (T - 1) * fps  # struck ball's speed after the impact (m/s)
        v = u * (m1 + m2) / (m1 * (1 + e))  # striker's speed that gives it (collide_1d with v2 = 0)
        w1, w2 = collide_1d(m1, v, m2, 0.0, e)
        x_t = -d * u * (f_c - f_i) / fps
        tgt = Motion(T, fps, (x_t, DEPTH, r2))
        tgt.velocity(f_i, (d * w2, 0, 0))
        st = Motion(T, fps, (x_t - d * (r1 + r2) - d * v * f_i / fps, DEPTH, r1))
        st.velocity(0, (d * v, 0, 0), f_i)
        st.decelerate(f_i, (d * w1, 0, 0), 0.3)
        ball = ball_on_path("target", look, "target", clip, r2, tgt.pos)
        striker = ball_on_path("striker", look, "striker", clip, r1, st.pos)
        striker.role = "mover"
        w = 2 * r2 + 0.8
        top = 2 * max(r1, r2) + 0.45
        scr = panel("screen", look, "screen", T, (-w / 2, -SCREEN_T / 2, 0), (w / 2, SCREEN_T / 2, top))
        c, sg = occlusion_composition(clip, [look.ground(T), ball, striker, scr], ball, [scr], self.view)
        x = tgt.pos[:, 0]
        c.expectations += [
            X.contact("striker", "target", f_i),
            X.momentum(["striker", "target"], [m1, m2], f_i),
            X.no_penetration("striker", "target"),
            X.same_place("target", list(range(f_i + 1))),
            X.side("target", "screen", side_frames(sg, x, 0.0, d, c.events["occlusion_end"]), d),
        ]
        c.events["impact"] = f_i
        c.derived.update(
            {"target_speed_m_per_s": round(float(w2), 4), "striker_speed_m_per_s": round(float(v), 4)}
        )
        c.prompt = (
            f"A {look.colour('striker')} ball rolls toward a {look.colour('target')} ball that rests in front "
            f"of a {look.colour('screen')} screen. Continue the video."
        )
        c.outcome = f"the struck {look.colour('target')} ball rolls behind the screen and reappears beyond it"
        return c
