"""OP-1/reverse_off_post."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import DEPTH, SCREEN_T, Motion
from simkit.generators.wrop.kit_op1 import ball_on_path, occlusion_composition, panel, side_frames
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform


class ReverseOffPost(Task):
    family, name = "OP-1", "reverse_off_post"
    summary = "a ball rolls behind a screen, hits a post standing behind it and must come back out the way it went in"
    description = (
        "A post stands behind a screen, its top showing above the screen. A ball rolls behind the screen, "
        "strikes the hidden foot of the post and rolls back at a lower speed (restitution). The collision is "
        "never seen: a model must infer it from the post's position and keep the hidden ball's state through "
        "the reversal, so the ball reappears on the side it entered, later than a straight crossing would "
        "take and slower than it went in, and never on the far side. Ball size, post position, screen width, "
        "speed, restitution and timing vary."
    )
    structural = {
        "radius": Uniform(0.13, 0.2),
        "screen_width": Uniform(1.1, 1.4),
        "post_offset": Uniform(-0.1, 0.15),
        "restitution": Uniform(0.75, 0.95),
        "direction": Choice([1, -1]),
        "contact_at": Uniform(0.64, 0.68),
    }
    colour_slots = ("target", "screen", "post")

    def compose(self, s, clip, look):
        T, fps, d, r, w = clip.frames, clip.fps, s["direction"], s["radius"], s["screen_width"]
        top = 2 * r + 0.45
        xp = d * s["post_offset"]
        post = panel(
            "post", look, "post", T, (xp - 0.06, DEPTH - 0.15, 0), (xp + 0.06, DEPTH + 0.15, top + 0.5)
        )
        post.role = "obstacle"
        f_c = clip.at(s["contact_at"], lo=clip.cut + 1)
        v = 6.0 / (T - 1) * fps  # m/s
        x_c = xp - d * (0.06 + r)
        m = Motion(T, fps, (x_c - d * v * f_c / fps, DEPTH, r))
        m.velocity(0, (d * v, 0, 0), f_c)
        m.decelerate(f_c, (-d * s["restitution"] * v, 0, 0), 0.3)
        ball = ball_on_path("target", look, "target", clip, r, m.pos)
        scr = panel("screen", look, "screen", T, (-w / 2, -SCREEN_T / 2, 0), (w / 2, SCREEN_T / 2, top))
        c, sg = occlusion_composition(clip, [look.ground(T), ball, scr, post], ball, [scr], self.view)
        x = m.pos[:, 0]
        c.events["hidden_impact"] = f_c
        back = side_frames(sg, x, 0.0, -d, c.events["occlusion_end"])
        if not back:
            raise ValueError("the ball does not come back into view")
        c.expectations += [
            X.contact("target", "post", f_c),
            X.no_penetration("target", "post"),
            X.side("target", "screen", back, -d),
            X.side("target", "post", list(range(T)), -d, space="world"),
        ]
        c.derived.update(
            {"speed_m_per_s": round(v, 4), "return_speed_m_per_s": round(s["restitution"] * v, 4)}
        )
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward a {look.colour('screen')} screen; the top of a "
            f"{look.colour('post')} post shows above the screen. Continue the video."
        )
        c.outcome = "the ball hits the post behind the screen and rolls back out on the side it entered"
        return c
