"""OS-1/pushed_through_slot."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T, Motion, SceneObject, barrier_run
from simkit.generators.wrop.kit_os1 import wall_with_opening
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.params import Choice, Uniform

PADDLE = (0.06, 0.08, 0.2)


class PushedThroughSlot(Task):
    family, name = "OS-1", "pushed_through_slot"
    summary = "a thin paddle pushes a box at a slot; a wide box is stopped dead with the paddle, a narrow one goes through"
    description = (
        "A box is not moving on its own: a thin paddle pushes it at constant speed toward a slot between two "
        "wall panels. A box narrower than the slot is pushed through and on; a wider one is stopped at the "
        "declared frame when its front meets the panels, and because it is driven rather than thrown it "
        "does not bounce: box and paddle stop dead together and stay in contact. The test adds a pushing "
        "agent to solidity: the paddle cannot push the box into the wall. Box size, slot width (fit or "
        "not, by a varying margin), speed and timing vary."
    )
    structural = {
        "half_size": Uniform(0.14, 0.22),
        "fits": Choice([True, False]),
        "clearance": Uniform(0.06, 0.18),
        "speed": Uniform(0.9, 1.6),
        "contact_at": Uniform(0.56, 0.66),
    }
    colour_slots = ("target", "wall", "paddle")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, b, t = clip.frames, s["half_size"], WALL_T / 2
        a = 2 * b + s["clearance"] if s["fits"] else 2 * b - s["clearance"]
        H = 2 * b + 0.6
        parts = wall_with_opening(look, T, a, H)
        box = SceneObject("target", "target", "box", (2 * b, 2 * b, 2 * b), look.mat("target"), None)
        m = Motion(T, clip.fps, (0, 0, b))
        c = barrier_run(
            clip, look, box, m, b, parts, s["fits"], -t - b, s["speed"], 0.0, s["contact_at"], "wall_left"
        )
        pm = Motion(T, clip.fps, (m.pos[0, 0] - b - PADDLE[0] / 2, 0, PADDLE[2] / 2))
        pm.follow(m, 0)
        paddle = SceneObject("paddle", "mover", "box", PADDLE, look.mat("paddle"), pm.track())
        c.objects.append(paddle)
        frames = list(range(T))
        c.expectations += [X.touching("paddle", "target", frames)] + [
            X.no_penetration("paddle", p.name) for p in parts
        ]
        if not s["fits"]:
            f = c.events["contact"]
            c.expectations += [
                X.same_place("target", list(range(f, T))),
                X.same_place("paddle", list(range(f, T))),
            ]
        c.prompt = (
            f"A {look.colour('paddle')} paddle pushes a {look.colour('target')} box toward a slot between two "
            f"{look.colour('wall')} panels. Continue the video."
        )
        c.outcome = (
            "the paddle pushes the box through the slot and on"
            if s["fits"]
            else "the box jams against the panels and box and paddle stop dead together"
        )
        c.derived["slot_width"] = round(a, 4)
        return c
