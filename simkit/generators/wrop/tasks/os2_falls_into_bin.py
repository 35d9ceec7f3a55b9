"""OS-2/falls_into_bin."""

from simkit.generators.wrop.base import Composition, Task
from simkit.generators.wrop.kit_os2 import ball, block, slab, yank
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion, fall_frames, fall_height
from simkit.scenes.wrop.params import Choice, IntRange, Uniform


class FallsIntoBin(Task):
    family, name = "OS-2", "falls_into_bin"
    summary = "a lid under a ball slides off an open bin; the ball drops inside and stays within its walls"
    description = (
        "An open bin stands on the floor, covered by a sliding lid on which a ball rests. After the cut the "
        "lid is pulled off sideways; the ball loses its support, falls straight down into the bin and lands "
        "on its bottom at the declared frame, between the four walls and without passing through any of them. "
        "When the walls are tall enough the ball is then hidden behind the front wall, but it is still inside "
        "the bin. A model must tie the ball's fate to what lies beneath it: it falls into the bin, not beside "
        "it, and does not vanish. Bin size and wall height, ball size, pull direction and speed vary."
    )
    structural = {
        "radius": Uniform(0.08, 0.13),
        "bin_half": Uniform(0.25, 0.4),
        "wall_height": Uniform(0.4, 0.7),
        "direction": Choice([1, -1]),
        "pull_frames": IntRange(1, 3),
        "move_at": Uniform(0.52, 0.58),
    }
    colour_slots = ("target", "bin", "lid")

    def compose(self, s, clip, look):
        T, fps, r, a = clip.frames, clip.fps, s["radius"], s["bin_half"]
        f_m = clip.at(s["move_at"], lo=clip.cut)
        f_rel = f_m + s["pull_frames"]
        lid_t, wt = 0.04, 0.05
        k = min(fall_frames(s["wall_height"] + lid_t, fps), T - 3 - f_rel)
        Hw = fall_height(k, fps) - lid_t  # wall height: the ball's bottom drops Hw + lid_t onto the floor
        if k < 2 or Hw < r + 0.05:
            raise ValueError("clip too short for the drop into the bin")
        walls = {
            "wall_front": ((-a - wt, -a - wt, 0.0), (a + wt, -a, Hw)),
            "wall_back": ((-a - wt, a, 0.0), (a + wt, a + wt, Hw)),
            "wall_left": ((-a - wt, -a, 0.0), (-a, a, Hw)),
            "wall_right": ((a, -a, 0.0), (a + wt, a, Hw)),
        }
        objs = [look.ground(T)] + [
            slab(n, "container", "bin", look, T, lo, hi) for n, (lo, hi) in walls.items()
        ]
        lid = yank(clip, (0.0, 0.0, Hw + lid_t / 2), f_m, 0, s["direction"], a + wt + 0.01, s["pull_frames"])
        objs.append(block("lid", (2 * (a + wt), 2 * (a + wt), lid_t), look, "lid", lid.track(), "lid"))
        m = Motion(T, fps, (0.0, 0.0, Hw + lid_t + r))
        m.fall(f_rel, f_rel + k, r)
        objs.append(ball("target", r, look, "target", m.track()))
        exps = [X.touching("target", "lid", list(range(f_rel + 1))), X.contact("target", "ground", f_rel + k)]
        exps += [X.no_penetration("target", n) for n in (*walls, "lid", "ground")]
        exps.append(X.same_place("target", list(range(f_rel + k, T))))
        # hidden behind the front wall once down when the wall top is 0.2 m above the ball's top (the sight line
        # from the camera, 14 +- 1.5 deg up, drops under 0.1 m over the bin's half depth)
        if Hw - 2 * r >= 0.2:
            exps.append(X.hidden("target", list(range(f_rel + k, T))))
        return Composition(
            objs,
            {"support_lost": f_rel, "landing": f_rel + k},
            "support_lost",
            exps,
            prompt=f"A {look.colour('target')} ball rests on a {look.colour('lid')} lid covering an open "
            f"{look.colour('bin')} bin. Continue the video.",
            outcome="the lid slides away and the ball drops into the bin, where it stays",
            derived={
                "wall_height": round(Hw, 4),
                "fall_frames": k,
                "hidden_after_landing": Hw - 2 * r >= 0.2,
            },
        )
