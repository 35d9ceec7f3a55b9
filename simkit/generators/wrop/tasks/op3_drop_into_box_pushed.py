"""OP-3/drop_into_box_pushed."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X, fall_height
from simkit.generators.wrop.kit_op3 import BOX_VIEW, LID_T, box_height, lid_closed, lid_open, lidded_box
from simkit.scenes.wrop.params import Choice, Uniform


class DropIntoBoxPushed(Task):
    family, name = "OP-3", "drop_into_box_pushed"
    summary = "a ball drops into a box, the box is closed, and a sliding block pushes the closed box along"
    description = (
        "Seen from above, a ball falls freely into an open box and a lid is put on. After the cut a block "
        "slides in from the side, touches the box on the declared frame and pushes it along the floor before "
        "both stop; then the lid is taken off. The ball entered the box in plain view, so it must be inside "
        "the box after the push, displaced exactly as much as the box; the box must start moving only when "
        "the block touches it, and the block must not pass into the box. Ball size, box size, pusher size, "
        "push direction, speed and push distance vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "margin": Uniform(0.25, 0.4),
        "pusher_half": Uniform(0.15, 0.25),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.0, 2.0),
        "push_for": Uniform(0.1, 0.2),
    }
    colour_slots = ("target", "box", "lid", "pusher")
    view = BOX_VIEW

    def compose(self, s, clip, look):
        T, fps, cut, r, d = clip.frames, clip.fps, clip.cut, s["radius"], s["direction"]
        w, h, ph = 2 * (r + s["margin"]), box_height(2 * r), s["pusher_half"]
        x0 = -0.8 * d
        k = max(2, cut // 6)
        drop0 = max(1, cut // 8)
        ball = Motion(T, fps, (x0, 0, r + fall_height(k, fps))).fall(drop0, drop0 + k, r)
        lid_z, top = h + LID_T / 2, h + 0.9
        lid = Motion(T, fps, (x0, w + 0.3, top)).arc(drop0 + k + 1, cut - 2, (x0, 0, lid_z), 0.2)
        rem = T - 3 - cut
        f_c = cut + max(2, rem // 5)
        f_stop = min(f_c + max(2, clip.at(s["push_for"])), T - 6)
        v = min(s["speed"], 2.5 * fps / (f_c - cut))  # the pusher starts at most 2.5 m from the box
        edge = x0 - d * (w / 2 + ph)  # pusher centre on contact
        pusher = Motion(T, fps, (edge - d * v * (f_c - cut) / fps, 0, ph))
        pusher.velocity(cut, (d * v, 0, 0), f_stop)
        box = Motion(T, fps, (x0, 0, h / 2)).velocity(f_c, (d * v, 0, 0), f_stop)
        lid.follow(box, f_c, f_stop)
        ball.follow(box, f_c, f_stop)
        x1 = float(box.at(T - 1)[0])
        lid.arc(f_stop + 1, T - 3, (x1, w + 0.3, top), 0.2)
        closed = lid_closed(box, lid, h)
        opened = lid_open(box, lid, h, w)
        hid = [f for f in range(T) if closed[f]]
        exps = [
            X.hidden("target", hid),
            X.visible("target", [f for f in range(drop0 + k) if opened[f]]),
            X.visible("target", [f for f in range(f_stop, T) if opened[f]]),
            X.contact("pusher", "box", f_c),
            X.no_penetration("pusher", "box"),
            X.touching("pusher", "box", list(range(f_c, f_stop + 1))),
            X.bound("target", "box", list(range(drop0 + k, T))),
        ]
        objs = lidded_box(look, box, lid, (w, w, h))
        objs += [
            SceneObject("pusher", "mover", "box", (2 * ph,) * 3, look.mat("pusher"), pusher.track()),
            SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()),
        ]
        return Composition(
            [look.ground(T), *objs],
            {"landing": drop0 + k, "closed": hid[0], "contact": f_c, "open": f_stop + 1},
            "contact",
            exps,
            prompt=f"A {look.colour('target')} ball is held above an open {look.colour('box')} box; a "
            f"{look.colour('lid')} lid and a {look.colour('pusher')} block wait nearby. Continue the video.",
            outcome="the block pushes the closed box along; when the lid comes off, the ball is inside it",
            derived={"end_x": round(x1, 4), "speed_m_per_s": round(v, 4), "drop_frames": k},
        )
