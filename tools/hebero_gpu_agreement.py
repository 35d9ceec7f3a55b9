"""CPU (MuJoCo, float64) vs GPU (MuJoCo Warp, float32) agreement of ``simkit/Hebero-v0``.

The same scripted demos (:mod:`simkit.envs.hebero.scripted`, the libero_goal planner) replayed
with the same actions from the same initial state (layout-bank entry 0 of each task) on the real
CPU env (:class:`~simkit.envs.hebero.vector_env.HeberoVectorEnv`) and the real GPU env
(:class:`~simkit.envs.hebero.warp.HeberoWarpBatch`), one environment per task, the same
:class:`~simkit.envs.hebero.config.HeberoConfig` on both. Three steps; the GPU machine needs only the
layout-group cache (``tools/bench_hebero_gpu.py export`` or ``export_groups``):

``demos CACHE [--tasks goal/...] [--libero-root ROOT] [--max-steps 300]``  (CPU)
    Runs the scripted planner closed-loop in the CPU env started from bank entry 0 and writes the
    actions (K, T, 7), the task ids and the config to ``CACHE/agreement_demos.npz`` (it travels
    with the cache). Tasks whose plan ends early get idle actions (hold, gripper open) after it.

``gpu CACHE --out gpu.npz``  (GPU)
    Replays those actions on the GPU env from bank entry 0 (no autoreset, no termination) and
    writes the observations (T + 1, K, 300), success flags and rewards per control step.

``cpu CACHE gpu.npz [--steps 100] [--json report.json]``  (CPU)
    Replays the same actions on the CPU env and compares, per task: the largest difference of the
    entity-slot positions (objects, fixtures, regions: observation dims 66-299) and of the grip
    site over the first ``--steps`` control steps, and the predicate outcome (goal reached at any
    step, first success step) over the whole demo.

The demo-tracking reward (``r_demo``) and cursor (``phi``) of the command stream, from the same
demo states (a ``hebero-demos`` corpus, demo 0 of each task), two steps; both sides need the
LIBERO assets (the GPU side maps the demo states onto its union models with the CPU task models):

``rdemo-gpu CACHE --demos CORPUS --out rdemo.npz [--steps 60] [--cursors 0,0.5]``  (GPU)
    For each cursor fraction f, resets every env to its task's demo 0 at r_e = floor(f (T - 1))
    (:meth:`~simkit.envs.hebero.warp.HeberoWarpBatch.reset_to_demo`), replays the demo's actions
    from there and records r_demo and phi per step.

``rdemo-cpu CACHE rdemo.npz --demos CORPUS [--json report.json]``  (CPU)
    The same on the CPU env (its own demo command stream and r_demo) and the per-task largest
    |r_demo difference| and |phi difference|.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

DEMOS = "agreement_demos.npz"
#: what both sides change in HeberoConfig: whole demos, no episode end
REPLAY = {"terminate_on_success": False, "horizon": 10**6}


def goal_tasks(cache: Path) -> list[str]:
    """The libero_goal tasks of a layout-group cache (the suite the scripted planner covers)."""
    from simkit.sims.hebero.layout_models import load_groups

    ids, _ = load_groups(cache)
    return [t for t in ids if t.startswith("goal/")]


def record_demos(env, max_steps: int, hold: int = 10) -> np.ndarray:
    """Scripted demos in a CPU env (one env per task) from bank entry 0: actions (K, T, 7) float32.

    Each env follows its task's plan (:func:`~simkit.envs.hebero.scripted.plan_task` on its initial
    state) until the goal holds or the plan ends, then idles (zero motion, gripper open); once every
    env has finished, ``hold`` more idle steps follow (a run that ended on the very step a goal first
    held would leave its outcome to a contact just made).
    """
    from simkit.envs.hebero.scripted import Tracker, plan_task

    env.reset(options={"bank_entry": 0})
    trackers, where = [], []
    for e in range(env.num_envs):
        g, j = next(
            (g, int(np.flatnonzero(grp.env_ids == e)[0]))
            for g, grp in enumerate(env.backend.groups)
            if e in grp.env_ids
        )
        task = env.tasks[int(env.task_of[e])]
        _model, data = env.backend.get_data(g, j)
        task.scene.data = data  # the planner reads the initial state through the scene's evaluator
        try:
            plan = plan_task(task.scene, data)
        except ValueError:  # a goal with no scripted primitive: idle actions, a failed demo
            plan = []
        rot0 = data.site_xmat[task.ee_site].reshape(3, 3).copy()
        trackers.append(Tracker(plan, rot0, env.cfg.pos_scale, env.cfg.rot_scale))
        where.append((g, j, task.ee_site))
    finished = np.zeros(env.num_envs, bool)
    actions = []
    for _ in range(max_steps):
        a = np.zeros((env.num_envs, 7))
        a[:, 6] = -1.0
        for e, (g, j, site) in enumerate(where):
            if not finished[e]:
                arr = env.backend.arrays(g)
                a[e] = trackers[e].action(arr["site_xpos"][j, site], arr["site_xmat"][j, site].reshape(3, 3))
        _, _, _, _, info = env.step(a)
        actions.append(a)
        finished |= info["success"] | np.array([t.done for t in trackers])
        if finished.all():
            break
    idle = np.zeros((env.num_envs, 7))
    idle[:, 6] = -1.0
    for _ in range(hold):
        env.step(idle)
        actions.append(idle)
    return np.asarray(actions, np.float32).transpose(1, 0, 2)


def replay_cpu(env, actions: np.ndarray) -> dict[str, np.ndarray]:
    """Replay actions (K, T, 7) on a CPU env from bank entry 0: obs (T + 1, K, 300), success, reward."""
    obs, info = env.reset(options={"bank_entry": 0})
    out = {"obs": [obs], "success": [info["success"]], "reward": []}
    for k in range(actions.shape[1]):
        obs, r, _, _, info = env.step(actions[:, k])
        out["obs"].append(obs)
        out["success"].append(info["success"])
        out["reward"].append(r)
    return {k: np.asarray(v) for k, v in out.items()}


def replay_gpu(batch, actions: np.ndarray) -> dict[str, np.ndarray]:
    """Replay actions (K, T, 7) on a :class:`HeberoWarpBatch` from bank entry 0 (same output as :func:`replay_cpu`)."""
    obs = batch.reset_to_bank(0)
    out = {"obs": [obs.cpu().numpy().copy()], "success": [np.zeros(batch.num_envs, bool)], "reward": []}
    for k in range(actions.shape[1]):
        obs, r, _, _, success = batch.step(actions[:, k])
        out["obs"].append(obs.cpu().numpy().copy())
        out["success"].append(success.cpu().numpy().copy())
        out["reward"].append(r.cpu().numpy().copy())
    return {k: np.asarray(v) for k, v in out.items()}


def compare(cpu: dict, gpu: dict, tasks: list[str], steps: int = 100) -> dict[str, dict]:
    """Per task: max slot / grip-site position difference (m) over ``steps`` control steps and the outcomes."""
    n = min(steps + 1, len(cpu["obs"]), len(gpu["obs"]))
    report = {}
    for e, tid in enumerate(tasks):
        oc, og = cpu["obs"][:n, e].astype(np.float64), gpu["obs"][:n, e].astype(np.float64)
        sc, sg = oc[:, 66:].reshape(n, 26, 9), og[:, 66:].reshape(n, 26, 9)
        used = np.any(sc != 0, axis=(0, 2))
        slot = float(np.abs(sc[:, used, :3] - sg[:, used, :3]).max()) if used.any() else 0.0
        succ_c, succ_g = cpu["success"][:, e], gpu["success"][:, e]
        report[tid] = {
            "max_slot_pos_err_m": slot,
            "max_grip_pos_err_m": float(np.abs(oc[:, 59:62] - og[:, 59:62]).max()),
            "cpu_success": bool(succ_c.any()),
            "gpu_success": bool(succ_g.any()),
            "cpu_first_success": int(np.argmax(succ_c)) if succ_c.any() else -1,
            "gpu_first_success": int(np.argmax(succ_g)) if succ_g.any() else -1,
        }
    return report


def read_demos(corpus: str, tasks: list[str]) -> dict[str, list]:
    """Task id -> demos of a ``hebero-demos`` corpus (every task of ``tasks`` must have one)."""
    from simkit.core.errors import InputError
    from simkit.envs.hebero.stream import demos_from_samples
    from simkit.episodes.reader import iter_corpus

    demos = demos_from_samples(iter_corpus(corpus))
    missing = [t for t in tasks if t not in demos]
    if missing:
        raise InputError(corpus, f"no demo of {missing}")
    return {t: demos[t] for t in tasks}


def _cursors(demos: dict[str, list], tasks: list[str], frac: float) -> np.ndarray:
    return np.array([int(frac * (demos[t][0].length - 1)) for t in tasks])


def _demo_actions(demos: dict[str, list], tasks: list[str], r: np.ndarray, k: int) -> np.ndarray:
    return np.stack([demos[t][0].actions[min(r[e] + k, demos[t][0].length - 1)] for e, t in enumerate(tasks)])


def rdemo_gpu(batch, demos: dict[str, list], tasks: list[str], fracs: list[float], steps: int) -> dict:
    """r_demo and phi (F, steps, K) on a :class:`HeberoWarpBatch` (demos attached) replaying demo 0 of
    each task from r_e = floor(f (T - 1)) for each cursor fraction f."""
    out: dict[str, list] = {"r_demo": [], "phi": []}
    for f in fracs:
        r = _cursors(demos, tasks, f)
        batch.reset_to_demo(0, r)
        rows: dict[str, list] = {"r_demo": [], "phi": []}
        for k in range(steps):
            batch.step(_demo_actions(demos, tasks, r, k))
            for n in rows:
                rows[n].append(batch.demo_terms[n].cpu().numpy().astype(np.float64))
        for n in rows:
            out[n].append(rows[n])
    return {n: np.asarray(v) for n, v in out.items()}


def rdemo_cpu(env, demos: dict[str, list], tasks: list[str], fracs: list[float], steps: int) -> dict:
    """:func:`rdemo_gpu` on the CPU env (one env per task): demo 0 at the same cursors, its own stream."""
    env.set_demos(demos)
    out: dict[str, list] = {"r_demo": [], "phi": []}
    for f in fracs:
        r = _cursors(demos, tasks, f)
        env.reset(seed=0)
        env.stream.demo[:], env.stream.r[:], env.stream.t[:] = 0, r, 0
        for g, grp in enumerate(env.backend.groups):
            states = np.stack([demos[tasks[e]][0].states[r[e]] for e in grp.env_ids])
            env.backend.set_state(g, np.arange(len(grp.env_ids)), states)
        env.prev_action[:], env.elapsed[:] = 0.0, 0
        rows: dict[str, list] = {"r_demo": [], "phi": []}
        for k in range(steps):
            _, _, _, _, info = env.step(_demo_actions(demos, tasks, r, k))
            for n in rows:
                rows[n].append(np.asarray(info[n], np.float64))
        for n in rows:
            out[n].append(rows[n])
    return {n: np.asarray(v) for n, v in out.items()}


def compare_rdemo(cpu: dict, gpu: dict, tasks: list[str]) -> dict[str, dict]:
    """Per task: largest |r_demo difference| and |phi difference| over cursors and steps, mean r_demo."""
    return {
        t: {
            "max_r_demo_diff": float(np.abs(cpu["r_demo"][..., e] - gpu["r_demo"][..., e]).max()),
            "max_phi_diff": float(np.abs(cpu["phi"][..., e] - gpu["phi"][..., e]).max()),
            "mean_r_demo_cpu": float(cpu["r_demo"][..., e].mean()),
            "mean_r_demo_gpu": float(gpu["r_demo"][..., e].mean()),
        }
        for e, t in enumerate(tasks)
    }


def rdemo_gpu_cmd(args) -> None:
    from simkit.envs.hebero.warp import HeberoWarpBatch, WarpEnvConfig

    tasks = args.tasks.split(",") if args.tasks else goal_tasks(Path(args.cache))
    demos = read_demos(args.demos, tasks)
    knobs = WarpEnvConfig(autoreset=False, nconmax=256, njmax=1280)
    batch = HeberoWarpBatch(args.cache, len(tasks), tasks=tasks, config=REPLAY, warp=knobs)
    batch.set_demos(demos)
    fracs = [float(f) for f in args.cursors.split(",")]
    out = rdemo_gpu(batch, demos, tasks, fracs, args.steps)
    np.savez(args.out, tasks=np.array(tasks), fracs=np.array(fracs), **out)
    print(f"gpu r_demo over {len(fracs)} cursor(s) x {args.steps} steps -> {args.out}")


def rdemo_cpu_cmd(args) -> None:
    ref = np.load(args.gpu)
    tasks, fracs = [str(t) for t in ref["tasks"]], [float(f) for f in ref["fracs"]]
    demos = read_demos(args.demos, tasks)
    env = _cpu_env(tasks, {}, args.libero_root)
    report = compare_rdemo(rdemo_cpu(env, demos, tasks, fracs, ref["r_demo"].shape[1]), dict(ref), tasks)
    for tid, r in report.items():
        print(
            f"{tid[:58]:58s} |d r_demo| {r['max_r_demo_diff']:.2e}  |d phi| {r['max_phi_diff']:.1e}  "
            f"mean r_demo cpu {r['mean_r_demo_cpu']:.3f} gpu {r['mean_r_demo_gpu']:.3f}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


def _cpu_env(tasks: list[str], config: dict, libero_root: str | None):
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    return HeberoVectorEnv(
        num_envs=len(tasks), tasks=tasks, libero_root=libero_root, config={**config, **REPLAY}
    )


def demos(args) -> None:
    cache = Path(args.cache)
    tasks = args.tasks.split(",") if args.tasks else goal_tasks(cache)
    env = _cpu_env(tasks, {}, args.libero_root)
    actions = record_demos(env, args.max_steps)
    config = env.cfg.model_dump_json()
    np.savez(cache / DEMOS, actions=actions, tasks=np.array(tasks), config=np.array(config))
    print(f"{len(tasks)} demos, {actions.shape[1]} control steps -> {cache / DEMOS}")


def gpu(args) -> None:
    from simkit.envs.hebero.warp import HeberoWarpBatch, WarpEnvConfig

    d = np.load(Path(args.cache) / DEMOS)
    tasks = [str(t) for t in d["tasks"]]
    config = {**json.loads(str(d["config"])), **REPLAY}
    knobs = WarpEnvConfig(autoreset=False, nconmax=256, njmax=1280)
    batch = HeberoWarpBatch(args.cache, len(tasks), tasks=tasks, config=config, warp=knobs)
    out = replay_gpu(batch, d["actions"])
    np.savez(args.out, tasks=np.array(tasks), **out)
    print(f"gpu replay -> {args.out}; goal reached: {int(out['success'].any(0).sum())} / {len(tasks)}")


def cpu(args) -> None:
    d = np.load(Path(args.cache) / DEMOS)
    tasks = [str(t) for t in d["tasks"]]
    ref = np.load(args.gpu)
    env = _cpu_env(tasks, json.loads(str(d["config"])), args.libero_root)
    report = compare(replay_cpu(env, d["actions"]), dict(ref), tasks, args.steps)
    for tid, r in report.items():
        print(
            f"{tid[:58]:58s} slots {r['max_slot_pos_err_m'] * 1000:8.3f} mm  grip {r['max_grip_pos_err_m'] * 1000:7.3f} mm  "
            f"goal cpu {r['cpu_success']!s:5} (step {r['cpu_first_success']:3d})  gpu {r['gpu_success']!s:5} "
            f"(step {r['gpu_first_success']:3d})"
        )
    errs = np.array([r["max_slot_pos_err_m"] for r in report.values()])
    same = sum(r["cpu_success"] == r["gpu_success"] for r in report.values())
    print(
        f"tasks {len(report)}: same outcome {same}; over {args.steps} steps median max slot |dp| "
        f"{np.median(errs) * 1000:.3f} mm, max {errs.max() * 1000:.3f} mm"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("demos", help="CPU: record the scripted demos' actions into CACHE/" + DEMOS)
    d.add_argument("cache")
    d.add_argument("--tasks", default="", help="comma-separated task ids (default: the cache's goal tasks)")
    d.add_argument("--libero-root", default=None)
    d.add_argument("--max-steps", type=int, default=300)
    g = sub.add_parser("gpu", help="GPU: replay the demos on the GPU env, write one npz")
    g.add_argument("cache")
    g.add_argument("--out", required=True)
    c = sub.add_parser("cpu", help="CPU: replay the demos on the CPU env and compare with the GPU npz")
    c.add_argument("cache")
    c.add_argument("gpu")
    c.add_argument("--steps", type=int, default=100)
    c.add_argument("--libero-root", default=None)
    c.add_argument("--json", default="")
    rg = sub.add_parser("rdemo-gpu", help="GPU: r_demo and phi replaying corpus demos, one npz")
    rg.add_argument("cache")
    rg.add_argument("--demos", required=True, help="a hebero-demos corpus with every task of the cache")
    rg.add_argument("--tasks", default="", help="comma-separated task ids (default: the cache's goal tasks)")
    rg.add_argument("--steps", type=int, default=60)
    rg.add_argument("--cursors", default="0,0.5", help="comma-separated fractions of the demo length")
    rg.add_argument("--out", required=True)
    rc = sub.add_parser("rdemo-cpu", help="CPU: r_demo and phi on the CPU env, compared with the GPU npz")
    rc.add_argument("cache")
    rc.add_argument("gpu")
    rc.add_argument("--demos", required=True)
    rc.add_argument("--libero-root", default=None)
    rc.add_argument("--json", default="")
    args = ap.parse_args()
    cmds = {"demos": demos, "gpu": gpu, "cpu": cpu, "rdemo-gpu": rdemo_gpu_cmd, "rdemo-cpu": rdemo_cpu_cmd}
    cmds[args.cmd](args)


if __name__ == "__main__":
    main()
