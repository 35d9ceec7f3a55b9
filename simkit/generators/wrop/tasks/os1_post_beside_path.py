"""OS-1/post_beside_path."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, wall_part
from simkit.generators.wrop.kit_os1 import back_off, roll_ball_at_barrier
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform

POST = 0.14


class PostBesidePath(Task):
    family, name = "OS-1", "post_beside_path"
    summary = (
        "a ball rolls past a post standing next to its path; it hits the post only if the post is in its way"
    )
    description = (
        "A single post stands on the floor either squarely in a ball's path or just beside it. A near miss "
        "and a hit look alike from afar: the ball clears the post only if the gap between its path and the "
        "post is larger than its radius, and then it must roll past without touching or deflecting; if the "
        "post is in its path the ball strikes it at the declared frame and rolls back. Ball size, the "
        "post's sideways offset (a hit or a near miss by a varying margin, to either side), speed and "
        "restitution vary."
    )
    structural = {
        "radius": Uniform(0.14, 0.24),
        "in_path": Choice([True, False]),
        "miss_by": Uniform(0.03, 0.15),
        "side": Choice([1, -1]),
        "speed": Uniform(1.3, 2.4),
        "restitution": Uniform(0.3, 0.6),
        "contact_at": Uniform(0.55, 0.68),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, r, h = clip.frames, s["radius"], POST / 2
        y = 0.0 if s["in_path"] else s["side"] * (r + h + s["miss_by"])
        post = wall_part("post", look, T, (-h, y - h, 0), (h, y + h, 2 * r + 0.6))
        c = roll_ball_at_barrier(clip, look, s, [post], not s["in_path"], -h - r, "post")
        if not s["in_path"]:
            c.expectations.append(X.apart("target", "post", list(range(T))))
        c.prompt = (
            f"A {look.colour('target')} ball rolls toward a {look.colour('wall')} post. Continue the video."
        )
        c.outcome = (
            "the ball rolls past the post without touching it"
            if not s["in_path"]
            else f"the ball hits the post and {back_off(c)}"
        )
        c.derived["post_offset_y"] = round(y, 4)
        return c
