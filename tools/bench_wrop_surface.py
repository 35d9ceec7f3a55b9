"""Benchmark: render cost of the WROP surface variety (procedural materials, lighting set-ups, props) against
the plain look (every material plain, the ``sun_sky`` set-up, primitives), in the same run.

One scene (a task generator at fixed structural and surface seeds, a 24-frame clip of which the first
``--frames`` are rendered) is composed once per variant with the
look overridden: ``plain``; each pattern of :data:`simkit.core.scene.PATTERNS` on every coloured object and
the floor; each lighting set-up of :data:`simkit.scenes.wrop.lighting.LIGHTINGS`; a prop in the task's first
mesh slot (when it has one). Each variant is built and rendered (Cycles by default, 16 samples, 320 x 180);
the table gives CPU seconds per frame of ``BlenderSession.render`` (all threads) and the ratio to ``plain``. Each variant is
rendered right after a ``plain`` render (a pair), over ``--repeats`` rounds; the ratio is the median of the
paired ratios, so a shared machine's load drift cancels.
Usage::

    python tools/bench_wrop_surface.py --frames 2 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import time

from simkit.core.scene import PATTERNS
from simkit.generators.wrop import WropConfig, WropGenerator, catalogue
from simkit.generators.wrop.base import Clip
from simkit.renderers.blender import RenderSettings
from simkit.scenes.wrop import Scene
from simkit.scenes.wrop.lighting import LIGHTINGS


def variants(cls) -> list[tuple[str, dict]]:
    """(name, look overrides): ``values`` updates, per-slot ``pattern``, ``prop``."""
    out: list[tuple[str, dict]] = [("plain", {})]
    out += [(f"pattern {p}", {"pattern": p}) for p in PATTERNS if p != "plain"]
    out += [(f"lighting {li}", {"lighting": li}) for li in LIGHTINGS if li != "sun_sky"]
    if cls.mesh_slots:
        out.append(("prop duck", {"prop": "duck"}))
    return out


def scene_of(gen: WropGenerator, cls, over: dict) -> Scene:
    """The task's scene at structural seed 0 / surface seed 0 with the look set to ``over`` (see :func:`variants`)."""
    task = cls()
    s, look = task.sample_structural(0), task.sample_surface(0)
    pattern = over.get("pattern", "plain")
    floor_pattern = pattern if pattern in ("wood", "checker", "marble") else "plain"
    look.values.update({"lighting": over.get("lighting", "sun_sky"), "floor_pattern": floor_pattern})
    look.patterns = {k: {**p, "pattern": pattern} for k, p in look.patterns.items()}
    look.props = dict.fromkeys(cls.mesh_slots, "none")
    if "prop" in over:
        look.props[cls.mesh_slots[0]] = over["prop"]
    cfg = gen.config
    comp = task.compose(s, Clip(cfg.frames, cfg.fps), look)
    sun, world, lamps = look.lights()
    return Scene(
        cfg.frames, cfg.fps, comp.objects, look.camera(task.view), sun, look.background(), world_strength=world,
        lamps=lamps,
    )  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generator", default="OP-1/block_behind_wall")
    ap.add_argument("--engine", default="cycles")
    ap.add_argument("--frames", type=int, default=12)
    ap.add_argument("--width", type=int, default=320)
    ap.add_argument("--height", type=int, default=180)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    gen = WropGenerator()
    # the scene is composed as a 24-frame clip; its first ``--frames`` frames are rendered
    gen.setup(WropConfig(generator=a.generator, frames=24, width=a.width, height=a.height))
    cls = catalogue()[a.generator]
    ses = gen.session()

    def seconds_per_frame(over: dict) -> float:
        """CPU seconds (all threads of this process) per rendered frame: on a shared machine the wall
        time follows other jobs' load, the CPU time the work done."""
        scene = scene_of(gen, cls, over)
        ses.reset()
        ses.configure(RenderSettings(a.engine, a.width, a.height, a.samples), a.frames, 24.0)
        ses.build(scene)
        t0 = time.process_time()
        ses.render(a.frames)
        return (time.process_time() - t0) / a.frames

    times: dict[str, list[float]] = {name: [] for name, _ in variants(cls)}
    ratios: dict[str, list[float]] = {name: [] for name, _ in variants(cls)}
    for _ in range(a.repeats):
        for name, over in variants(cls)[1:]:  # each variant right after its own plain run (paired)
            plain, t = seconds_per_frame({}), seconds_per_frame(over)
            times["plain"].append(plain)
            times[name].append(t)
            ratios[name].append(t / plain)
    print(
        f"{a.generator}, {a.engine} {a.samples} spp, {a.width}x{a.height}, {a.frames} frames; "
        f"medians of {a.repeats} paired runs"
    )
    print("| variant | CPU s / frame | vs plain (paired) |\n| --- | ---: | ---: |")
    print(f"| plain | {statistics.median(times['plain']):.3f} | 1.00x |")
    for name, ts in list(times.items())[1:]:
        print(f"| {name} | {statistics.median(ts):.3f} | {statistics.median(ratios[name]):.2f}x |")


if __name__ == "__main__":
    main()
