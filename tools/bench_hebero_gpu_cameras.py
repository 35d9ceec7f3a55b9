"""Hebero camera observations on the GPU (MuJoCo Warp's batch renderer): cost and correctness.

Two subcommands:

``export --out DIR [--suite goal] [--bank 4]``
    CPU side. Writes the suite's layout-group cache with render models
    (``export_groups(..., visual=True)``: ``group_<k>_visual.mjb`` beside each physics model) and
    its task models (``export_task_models``: a GPU machine without LIBERO's assets then maps demos
    and LIBERO's initial states onto the union models).

``run DIR [--envs 1600,4096] [--iters 20] [--cameras agentview,eye_in_hand] [--json OUT] [--png DIR]``
    GPU side (``[gpu]`` extra). In one process, at each environment count N, env (control) steps/s of
    ``HeberoWarpBatch`` over the cache's tasks (controller, observations, rewards, predicates,
    autoreset, and the cameras' rendering included) with no camera, one 128 x 128 RGB camera, two
    128 x 128 RGB cameras and one 64 x 64 camera; and the bare renderer on the same render models
    (``mujoco_warp.refit_bvh`` + ``mujoco_warp.render`` alone, the poses left as they are) as the
    floor. Each figure = N x iterations / wall time between two device synchronisations, after
    warm-up. With ``--png``, world 0's images of every camera are written beside a CPU
    ``mujoco.Renderer`` image of the same state and the mean absolute difference (0-255) of the two,
    upright and flipped, is reported (an orientation and colour check).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


def export(args) -> None:
    from simkit.scenes.hebero import compile_task, suite_files
    from simkit.sims.hebero.layout_models import export_groups

    descs = [compile_task(p, args.suite, i, None) for i, p in suite_files(None, args.suite)]
    t0 = time.perf_counter()
    from simkit.envs.hebero.vector_env import build_tasks
    from simkit.envs.hebero.warp_starts import export_task_models

    paths = export_groups(descs, None, Path(args.out), bank=args.bank, progress=print, visual=True)
    ids, models = build_tasks(None, [d["task_id"] for d in descs], None)
    for p in [*paths, *export_task_models(args.out, dict(zip(ids, models)))]:
        print(f"{p.name} {p.stat().st_size / 2**20:.1f} MiB")
    print(f"export {time.perf_counter() - t0:.1f} s")


def _steps_per_s(env, n: int, iters: int, torch) -> float:
    acts = torch.zeros(n, 7, device="cuda")
    env.reset(seed=0)
    for _ in range(3):  # warm-up, then the graph capture
        env.step(acts)
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(iters):
        env.step(acts)
    torch.cuda.synchronize()
    return n * iters / (time.perf_counter() - t)


def _bare_render(env, iters: int, torch) -> float:
    """Env steps/s equivalent of rendering alone: N worlds / (refit + render of every group)."""
    for _ in range(2):
        for g in env.groups:
            g.cams.mjw.refit_bvh(g.cams.m, g.cams.d, g.cams.rc)
            g.cams.mjw.render(g.cams.m, g.cams.d, g.cams.rc)
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(iters):
        for g in env.groups:
            g.cams.mjw.refit_bvh(g.cams.m, g.cams.d, g.cams.rc)
            g.cams.mjw.render(g.cams.m, g.cams.d, g.cams.rc)
    torch.cuda.synchronize()
    return env.num_envs * iters / (time.perf_counter() - t)


def _compare_png(env, cache: Path, out: Path, torch) -> dict:
    """World 0's GPU images against MuJoCo's CPU renderer on the same state; PNGs into ``out``."""
    import mujoco
    from PIL import Image

    out.mkdir(parents=True, exist_ok=True)
    g = env.groups[0]
    mjm = mujoco.MjModel.from_binary_path(str(cache / "group_0_visual.mjb"))
    mjd = mujoco.MjData(mjm)
    mjd.qpos[:] = g.sim.t["qpos"][0].double().cpu().numpy()
    mjd.mocap_pos[:] = g.sim.t["mocap_pos"][0].double().cpu().numpy()
    mjd.mocap_quat[:] = g.sim.t["mocap_quat"][0].double().cpu().numpy()
    mujoco.mj_forward(mjm, mjd)
    obs, res = env.camera_obs(), {}
    s = env.cfg.image_size
    with mujoco.Renderer(mjm, s, s) as r:
        for cam in env.cfg.cameras:
            gpu = obs[f"{cam}_rgb"][int(g.envs[0])].permute(1, 2, 0).cpu().numpy()
            r.update_scene(mjd, camera=cam)
            cpu = r.render()
            Image.fromarray(np.concatenate([gpu, cpu], axis=1)).save(out / f"{cam}_gpu_cpu.png")
            res[cam] = {
                "mean_abs_diff": float(np.abs(gpu.astype(int) - cpu.astype(int)).mean()),
                "mean_abs_diff_flipped": float(np.abs(gpu[::-1].astype(int) - cpu.astype(int)).mean()),
            }
    return res


def run(args) -> None:
    import torch

    from simkit.envs.hebero.warp import HeberoWarpBatch, WarpEnvConfig

    cache = Path(args.cache)
    cams = tuple(args.cameras.split(","))
    variants = {"state": (), "rgb1x128": cams[:1], "rgb2x128": cams[:2], "rgb1x64": cams[:1]}
    rows = []
    for n in [int(x) for x in args.envs.split(",")]:
        row: dict = {"envs": n}
        for name, cs in variants.items():
            size = 64 if name.endswith("x64") else 128
            env = HeberoWarpBatch(cache, n, warp=WarpEnvConfig(cameras=cs, image_size=size))
            row[name] = _steps_per_s(env, n, args.iters, torch)
            if cs:
                row[f"{name}_bare_render"] = _bare_render(env, args.iters, torch)
                row[f"{name}_ratio"] = row[name] / row["state"]
            if name == "rgb2x128" and args.png and n == min(int(x) for x in args.envs.split(",")):
                try:  # the CPU renderer needs an OpenGL context (MUJOCO_GL=egl on a GPU box)
                    row["png_check"] = _compare_png(env, cache, Path(args.png), torch)
                except Exception as exc:  # a missing GL stack must not lose the timings
                    row["png_check"] = f"not run: {exc.__class__.__name__}: {exc}"
            print(name, n, f"{row[name]:.0f}", "env steps/s", flush=True)
            if args.json:  # after every figure: a run cut short keeps what it measured
                Path(args.json).write_text(json.dumps([*rows, row], indent=1))
            env.close()
            del env
            torch.cuda.empty_cache()
        rows.append(row)
    print(json.dumps(rows, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export")
    e.add_argument("--out", required=True)
    e.add_argument("--suite", default="goal")
    e.add_argument("--bank", type=int, default=4)
    r = sub.add_parser("run")
    r.add_argument("cache")
    r.add_argument("--envs", default="1600,4096")
    r.add_argument("--iters", type=int, default=20)
    r.add_argument("--cameras", default="agentview,eye_in_hand")
    r.add_argument("--json")
    r.add_argument("--png")
    args = ap.parse_args()
    export(args) if args.cmd == "export" else run(args)


if __name__ == "__main__":
    main()
