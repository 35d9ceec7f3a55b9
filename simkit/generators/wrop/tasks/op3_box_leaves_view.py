"""OP-3/box_leaves_view."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import Motion, SceneObject, X
from simkit.generators.wrop.kit_op3 import BOX_VIEW, LID_T, box_height, lid_closed, lid_open, lidded_box
from simkit.scenes.wrop.params import Choice, Uniform

OUT_X = 4.6  # m: the box centre is out of the picture beyond this (half width of view at y = 0 is 3.1 m)


class BoxLeavesView(Task):
    family, name = "OP-3", "box_leaves_view"
    summary = "a closed box holding a ball slides out of the picture, comes back after a while and is opened"
    description = (
        "Seen from above, a ball lies in an open box and a lid closes it. After the cut the closed box slides "
        "out of the picture entirely, stays away for a while, and slides back in to stop at a place that may "
        "differ from where it started; then the lid is taken off. Nothing in the picture shows the box while "
        "it is away, so the model must keep both the container and its contents in memory across the gap: the "
        "ball must come back inside the box, neither lost off screen nor left where the box stood. Ball size, "
        "exit side, time away and the return place vary."
    )
    structural = {
        "radius": Uniform(0.12, 0.18),
        "margin": Uniform(0.25, 0.4),
        "exit_side": Choice([1, -1]),
        "away": Uniform(0.06, 0.15),
        "return_x": Uniform(-0.8, 0.8),
    }
    colour_slots = ("target", "box", "lid")
    view = BOX_VIEW

    def compose(self, s, clip, look):
        T, fps, cut, r, d = clip.frames, clip.fps, clip.cut, s["radius"], s["exit_side"]
        w, h = 2 * (r + s["margin"]), box_height(2 * r)
        x0, x1 = -0.4 * d, s["return_x"]
        lid_z, top = h + LID_T / 2, h + 0.9
        box = Motion(T, fps, (x0, 0, h / 2))
        lid = Motion(T, fps, (x0, w + 0.3, top)).arc(max(1, cut // 4), cut - 2, (x0, 0, lid_z), 0.2)
        rem = T - 3 - cut
        m = max(2, int(0.25 * rem))  # frames to slide out and back in
        out1 = cut + m
        back0 = min(out1 + 1 + max(1, clip.at(s["away"])), T - 6 - m)  # 3 frames left to open the lid
        back1 = back0 + m
        box.move(cut, out1, (d * OUT_X, 0, h / 2)).move(back0, back1, (x1, 0, h / 2), "smooth")
        lid.follow(box, cut, back1)
        ball = Motion(T, fps, (x0, 0, r)).follow(box, cut, back1).roll(r)
        lid.arc(back1 + 1, T - 3, (x1, w + 0.3, top), 0.2)
        closed = lid_closed(box, lid, h)
        opened = lid_open(box, lid, h, w)
        hid = [f for f in range(T) if closed[f]]
        away = [f for f in range(T) if abs(box.pos[f, 0]) >= OUT_X - 1e-6]
        exps = [
            X.hidden("target", hid),
            X.hidden("box", away),
            X.visible("target", [f for f in range(T) if opened[f]]),
            X.bound("target", "box", list(range(T))),
        ]
        objs = lidded_box(look, box, lid, (w, w, h))
        objs.append(SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()))
        return Composition(
            [look.ground(T), *objs],
            {"closed": hid[0], "slide_out": cut, "out_of_view": away[0], "back": back0, "open": back1 + 1},
            "slide_out",
            exps,
            prompt=f"A {look.colour('target')} ball lies in an open {look.colour('box')} box; a "
            f"{look.colour('lid')} lid is held next to it. Continue the video.",
            outcome="the closed box leaves the picture and comes back; when the lid comes off, the ball is "
            "inside it",
            derived={"end_x": round(x1, 4), "frames_away": len(away)},
        )
