"""Benchmark the cost of camera images in Hebero demo generation.

``python tools/bench_hebero_cameras.py [--task goal/turn_on_the_stove] [--demos 3] [--size 128] [--rounds 2]``

Per demo (the same seeds in every variant, timed in alternating rounds in one run):

* ``bare``: ``reset(seed)`` and ``env.step`` of the demo's recorded actions in the one-env demo env
  (no planner, no recording): the env's own stepping, the baseline;
* ``demo``: :func:`~simkit.envs.hebero.demos.record_demo` without cameras (planner, per-step
  snapshots), what ``hebero-demos`` does by default;
* ``demo+cameras``: ``record_demo`` with ``agentview`` and ``eye_in_hand`` at ``--size`` px on the
  visual task model, plus the H.264 encoding of both videos (the corpus codec), what
  ``--set cameras=[agentview,eye_in_hand]`` adds.

Prints ``name value unit`` lines: seconds per demo of each, their ratios to ``bare``, the steps per
demo, the milliseconds per rendered image, and one agentview image with ``mujoco.Renderer``'s default
options (shadows, reflections, collision geoms) against the camera renderer's. ``MUJOCO_GL`` as for
the env (``egl`` when unset).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np


def _bare(env, seed: int, actions: np.ndarray) -> None:
    env.reset(seed=seed)
    for a in actions:
        env.step(a[None])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--task", default="goal/turn_on_the_stove")
    ap.add_argument("--demos", type=int, default=3)
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    os.environ.setdefault("MUJOCO_GL", "egl")
    from simkit.core.episode import Video
    from simkit.envs.hebero.demos import demo_env, record_demo
    from simkit.episodes.codecs import encode

    cams = ("agentview", "eye_in_hand")
    plain, visual = demo_env(args.task), demo_env(args.task, visual=True)
    seeds = list(range(args.demos))
    demos = [record_demo(plain, s) for s in seeds]  # warm-up; the actions the bare runs replay
    record_demo(
        visual, seeds[0], 2, cameras=cams, image_size=args.size
    )  # warm-up: GL context, textures uploaded
    totals = {"bare": 0.0, "demo": 0.0, "demo+cameras": 0.0}
    for _ in range(args.rounds):
        for s, d in zip(seeds, demos, strict=True):
            t0 = time.perf_counter()
            _bare(plain, s, d.actions)
            t1 = time.perf_counter()
            record_demo(plain, s)
            t2 = time.perf_counter()
            rec = record_demo(visual, s, 600, cameras=cams, image_size=args.size)
            for c in cams:
                encode(Video(rec.images[f"{c}_rgb"], fps=visual.cfg.control_hz))
            t3 = time.perf_counter()
            assert np.array_equal(rec.states, d.states), "images changed the demo"
            totals["bare"] += t1 - t0
            totals["demo"] += t2 - t1
            totals["demo+cameras"] += t3 - t2
    n = args.rounds * len(seeds)
    steps = float(np.mean([d.length for d in demos]))
    print(f"machine {platform.machine()} {os.cpu_count()} cores; MUJOCO_GL={os.environ['MUJOCO_GL']}")
    print(f"steps_per_demo {steps:.1f} steps")
    for k, v in totals.items():
        print(f"{k} {v / n:.3f} s/demo")
    for k in ("demo", "demo+cameras"):
        print(f"{k}_over_bare {totals[k] / totals['bare']:.2f} x")
    per_image = (totals["demo+cameras"] - totals["demo"]) / n / ((steps + 1) * len(cams))
    print(f"camera_cost_per_image {1000 * per_image:.1f} ms ({args.size}x{args.size}, render + encode)")
    for c in cams:  # rendering alone, one camera over the first demo's states
        t0 = time.perf_counter()
        for state in demos[0].states:
            visual.backend.set_state(0, np.array([0]), state[None])
            visual.camera_images((c,), args.size, envs=[0])
        print(f"render_{c} {1000 * (time.perf_counter() - t0) / len(demos[0].states):.1f} ms/image")
    _default_options(visual, demos[0].states[-1], args.size)


def _default_options(env, state: np.ndarray, size: int, repeats: int = 3) -> None:
    """One agentview image with ``mujoco.Renderer``'s defaults (shadows, reflections, collision geoms
    drawn) against :class:`~simkit.sims.hebero.cameras.CameraRenderer`'s options, same model and state."""
    import mujoco

    env.backend.set_state(0, np.array([0]), state[None])
    data = env._render_data(0)
    opt = mujoco.MjvOption()
    opt.sitegroup[:] = 0
    with mujoco.Renderer(env.tasks[0].model, size, size) as r:
        r.update_scene(data, camera="agentview", scene_option=opt)
        r.render()  # warm-up
        t0 = time.perf_counter()
        for _ in range(repeats):
            r.update_scene(data, camera="agentview", scene_option=opt)
            r.render()
        t_default = (time.perf_counter() - t0) / repeats
    t0 = time.perf_counter()
    for _ in range(repeats):
        env.camera_images(("agentview",), size, envs=[0])
    t_ours = (time.perf_counter() - t0) / repeats
    print(f"render_agentview_mujoco_defaults {1000 * t_default:.1f} ms/image")
    print(f"render_agentview_camera_options {1000 * t_ours:.1f} ms/image")


if __name__ == "__main__":
    main()
