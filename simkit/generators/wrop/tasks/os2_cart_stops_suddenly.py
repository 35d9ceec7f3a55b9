"""OS-2/cart_stops_suddenly."""

import numpy as np

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import block, slab
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import G, Motion
from simkit.scenes.wrop.params import Choice, Uniform

STAYS = "the cart stops; the block slides forward on its top and comes to rest still aboard"
LEAVES = "the cart stops; the block slides forward off its front edge and falls to the floor"


def cart_approach(t: np.ndarray, v: float, accel: float, run: float) -> np.ndarray:
    """Cart displacement (m, relative to where it stops) at times ``t`` (s, 0 = the stop, negative before):
    constant speed ``v`` over the last ``run`` s, before that a uniform acceleration ``accel`` from rest."""
    t_acc = v / accel
    s = np.where(t >= -run, v * t, -v * run - v * t_acc / 2 + 0.5 * accel * (t + run + t_acc) ** 2)
    return np.where(t < -run - t_acc, -v * run - v * t_acc / 2, np.minimum(s, 0.0))


class CartStopsSuddenly(Task):
    family, name = "OS-2", "cart_stops_suddenly"
    summary = (
        "a cart carrying a block hits a buffer; the block slides on and stays aboard or flies off the front"
    )
    description = (
        "A low cart rolls along the floor carrying a block on its flat top. After the cut the cart runs into "
        "a buffer and stops dead. The block is not fixed to the cart: by inertia it slides on across the top, "
        "slowed by friction (deceleration mu g), for v^2 / (2 mu g). If the top in front of it is longer than "
        "that it comes to rest aboard; otherwise it slides past the front edge fast enough to leave it without "
        "tipping (its speed there is kept above sqrt(g b)), loses support and flies "
        "off in a parabola (horizontal speed kept), landing on the floor at the declared frame. Both outcomes "
        "are physically legal and the structure decides which one happens: speed, friction coefficient, how "
        "much room is in front of the block, cart height and direction vary."
    )
    structural = {
        "half_size": Uniform(0.08, 0.1),
        "speed": Uniform(1.6, 2.4),
        "friction": Uniform(0.5, 0.9),
        "leaves": Choice([True, False]),
        "margin": Uniform(0.4, 0.8),
        "height": Uniform(0.3, 0.55),
        "direction": Choice([1, -1]),
        "stop_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "cart", "buffer")

    def compose(self, s, clip, look):
        T, fps, b, d, v = clip.frames, clip.fps, s["half_size"], s["direction"], s["speed"]
        f_s = clip.at(s["stop_at"], lo=clip.cut)
        a = s["friction"] * G
        slide = v * v / (2 * a)
        # leaves: the block's rear edge clears the front edge after sliding ``room``; stays: it stops with
        # margin * slide of the top still in front of it
        room = slide * (1 - s["margin"]) if s["leaves"] else slide * (1 + s["margin"])
        t = (np.arange(T) - f_s) / fps
        x = np.where(t > 0, v * np.minimum(t, v / a) - 0.5 * a * np.minimum(t, v / a) ** 2, 0.0)
        H, z, events = s["height"], np.full(T, s["height"] + b), {"cart_stops": f_s}
        if s["leaves"]:
            v_e = v * np.sqrt(s["margin"])  # speed when the centre passes the front edge
            t_e = (v - v_e) / a
            k = max(int(np.ceil(t_e * fps)) + 2, int(np.ceil((t_e + np.sqrt(2 * H / G)) * fps)))
            k = min(k, T - 3 - f_s)
            H = 0.5 * G * (k / fps - t_e) ** 2  # cart top height: the flight ends on a whole frame
            if k / fps - t_e < 2 / fps or H < 0.08:
                raise ValueError("clip too short for the fall")
            tt = np.clip(t - t_e, 0.0, k / fps - t_e)
            x = np.where(t > t_e, room + v_e * tt, x)
            z = np.where(t > t_e, H + b - 0.5 * G * tt * tt, H + b)
            events.update({"leaves_edge": f_s + int(np.floor(t_e * fps)), "landing": f_s + k})
        L, x_stop = 2 * room + 2 * b + 0.3, d * 0.3
        x0 = (
            L / 2 + b - room if s["leaves"] else L / 2 - b - room
        )  # block centre on the cart (from its centre)
        # the cart speeds up at 0.35 mu g, below the mu g friction can give the block, so the block does not slip
        cart_x = x_stop + d * cart_approach(t, v, 0.35 * a, min(1.2 / v, f_s / fps))
        cm = Motion(T, fps, (0.0, 0.0, H / 2))
        cm.pos[:, 0] = cart_x
        m = Motion(T, fps, (0.0, 0.0, 0.0))
        m.pos[:, 0] = np.where(t > 0, x_stop + d * (x0 + x), cart_x + d * x0)
        m.pos[:, 2] = z
        buf = (x_stop + d * (L / 2), x_stop + d * (L / 2 + 0.3))
        objs = [
            look.ground(T),
            block("cart", (L, 0.6, H), look, "cart", cm.track(), role="platform"),
            slab("buffer", "obstacle", "buffer", look, T, (min(buf), -0.5, 0.0), (max(buf), 0.5, H * 0.6)),
            block("target", (2 * b,) * 3, look, "target", m.track()),
        ]
        exps = [X.contact("cart", "buffer", f_s), X.no_penetration("cart", "buffer")]
        exps += [X.no_penetration("target", "cart"), X.no_penetration("target", "ground")]
        if s["leaves"]:
            exps += [
                X.touching("target", "cart", list(range(events["leaves_edge"] + 1))),
                X.contact("target", "ground", events["landing"]),
            ]
        else:
            exps.append(X.touching("target", "cart", list(range(T))))
        return Composition(
            objs,
            events,
            "cart_stops",
            exps,
            prompt=f"A {look.colour('cart')} cart carrying a {look.colour('target')} block rolls toward a "
            f"{look.colour('buffer')} buffer. Continue the video.",
            outcome=LEAVES if s["leaves"] else STAYS,
            legal_outcomes=[STAYS, LEAVES],
            derived={"cart_height": round(H, 4), "slide_distance": round(slide, 4), "room": round(room, 4)},
        )
