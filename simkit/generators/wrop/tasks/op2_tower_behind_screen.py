"""OP-2/tower_behind_screen."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit import listing
from simkit.generators.wrop.kit_op2 import key_frames, moving_screen, static_body, static_scene
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class TowerBehindScreen(Task):
    family, name = "OP-2", "tower_behind_screen"
    summary = "a screen slides past a tower of stacked blocks; the tower must stand as it was"
    description = (
        "Two or three blocks of decreasing size are stacked into a tower, each slightly off the centre of "
        "the one below but resting stably on it. After the cut a tall screen slides past in front of the "
        "tower and moves on. Besides the number and colours of the blocks, the model must restore a support "
        "structure: the same stacking order, the same offsets, every block still resting on the one below "
        "(neither floating nor sunk into it). Number of blocks, sizes, how much each level shrinks and "
        "shifts, the screen's width, direction and speed vary."
    )
    structural = {
        "n_blocks": IntRange(2, 3),
        "base_half": Uniform(0.17, 0.24),
        "shrink": Uniform(0.65, 0.9),
        "shift": Uniform(-0.35, 0.35),
        "screen_extra": Uniform(0.3, 0.7),
        "direction": Choice([1, -1]),
        "speed": Uniform(1.4, 2.4),
        "cover_at": Uniform(0.54, 0.62),
    }
    colour_slots = ("screen", "block1", "block2", "block3")

    def compose(self, s, clip, look):
        T, fps, d, n = clip.frames, clip.fps, s["direction"], s["n_blocks"]
        blocks, z, x, half = [], 0.0, 0.0, s["base_half"]
        for i in range(n):
            if i:
                x += s["shift"] * half  # centre stays over the block below (|shift| < 1): a stable stack
                half *= s["shrink"]
            blocks.append(static_body(f"block{i + 1}", "box", half, look, f"block{i + 1}", T, x, 0.5, z))
            z += 2 * half
        xs_lo = min(b.pose.position[0, 0] - b.dims[0] / 2 for b in blocks)
        xs_hi = max(b.pose.position[0, 0] + b.dims[0] / 2 for b in blocks)
        w = xs_hi - xs_lo + s["screen_extra"] + 0.3
        h = z + 0.45
        f_in = clip.at(s["cover_at"], lo=clip.cut)
        x_start = (xs_lo if d > 0 else xs_hi) - d * (w / 2 + 0.45)
        x_end = (xs_hi if d > 0 else xs_lo) + d * (w / 2 + 0.45)
        v = max(s["speed"], abs(x_end - x_start) / max(T - 3 - f_in, 1) * fps)
        m = Motion(T, fps, (x_start, 0.0, h / 2))
        m.velocity(f_in, (d * v, 0.0, 0.0))
        scr = moving_screen("screen", look, "screen", m, w, h)
        objs, exps, hidden = static_scene(clip, look, self.view, blocks, [scr])
        if any(not hidden[b.name] for b in blocks):
            raise ValueError("the screen never hides the whole tower")
        exps += [X.touching(f"block{i + 2}", f"block{i + 1}", list(range(T))) for i in range(n - 1)]
        exps.append(X.touching("block1", "ground", list(range(T))))
        events = key_frames(hidden, clip)
        names = listing([f"a {look.colour(f'block{i + 1}')}" for i in range(n)])
        return Composition(
            objs,
            events,
            "covered",
            exps,
            prompt=f"A tower of {n} blocks stands on the floor: from the bottom up {names} block. "
            f"A {look.colour('screen')} screen stands to the {'left' if d > 0 else 'right'}. Continue the video.",
            outcome=f"the screen slides past; the tower of {n} blocks stands unchanged",
            derived={
                "tower_height": round(z, 4),
                "screen_width": round(w, 4),
                "screen_speed_m_per_s": round(v, 4),
                "block_x": [round(float(b.pose.position[0, 0]), 4) for b in blocks],
            },
        )
