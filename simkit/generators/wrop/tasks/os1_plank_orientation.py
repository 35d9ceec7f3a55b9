"""OS-1/plank_orientation."""

from simkit.generators.wrop.base import Task
from simkit.generators.wrop.kit import OS1_VIEW, WALL_T, Motion, SceneObject, barrier_run
from simkit.generators.wrop.kit_os1 import wall_with_opening
from simkit.scenes.wrop.params import Choice, Uniform


class PlankOrientation(Task):
    family, name = "OS-1", "plank_orientation"
    summary = "a long plank slides at a slot end-on or broadside; only end-on does it fit through"
    description = (
        "A long, narrow plank slides toward a vertical slot between two wall panels. The slot is wider than "
        "the plank's width but narrower than its length, so orientation decides: sliding end-on, the plank "
        "passes through; sliding broadside, its length spans the slot and it is stopped flat against both "
        "panels at the declared frame and slides back a little. The same object meets the same opening with "
        "opposite outcomes. Plank length, width and height, slot width between the two, orientation, speed "
        "and restitution vary."
    )
    structural = {
        "length": Uniform(0.7, 1.0),
        "width": Uniform(0.14, 0.22),
        "height": Uniform(0.18, 0.3),
        "end_on": Choice([True, False]),
        "slot_share": Uniform(0.25, 0.75),
        "speed": Uniform(1.2, 2.0),
        "restitution": Uniform(0.1, 0.3),
        "contact_at": Uniform(0.56, 0.66),
    }
    colour_slots = ("target", "wall")
    view = OS1_VIEW

    def compose(self, s, clip, look):
        T, t, ln, w, h = clip.frames, WALL_T / 2, s["length"], s["width"], s["height"]
        lo, hi = w + 0.08, ln - 0.1
        a = lo + s["slot_share"] * (hi - lo)
        H = h + 0.6
        parts = wall_with_opening(look, T, a, H)
        dims = (ln, w, h) if s["end_on"] else (w, ln, h)
        plank = SceneObject("target", "target", "box", dims, look.mat("target"), None)
        c = barrier_run(
            clip,
            look,
            plank,
            Motion(T, clip.fps, (0, 0, h / 2)),
            dims[0] / 2,
            parts,
            s["end_on"],
            -t - dims[0] / 2,
            s["speed"],
            s["restitution"],
            s["contact_at"],
            "wall_left",
        )
        way = "end-on" if s["end_on"] else "broadside"
        c.prompt = (
            f"A long {look.colour('target')} plank slides {way} toward a slot between two "
            f"{look.colour('wall')} panels. Continue the video."
        )
        c.outcome = (
            "the plank slides end-on through the slot"
            if s["end_on"]
            else "the plank's length spans the slot and it is stopped against the panels"
        )
        c.derived["slot_width"] = round(a, 4)
        return c
