"""Reference multi-task trainer for ``simkit/Hebero-v0``: rsl_rl PPO, env reward vs demo guidance.

One process, every task of ``--suite``/``--tasks`` at once (env i runs task i mod K), on the CPU
backend (``--backend cpu``, MuJoCo batch) or the GPU backend (``--backend warp``, MuJoCo Warp).
Each *variant* trains a fresh policy for ``--budget-s`` seconds of wall clock (setup and
evaluations not counted):

* ``env``: the env's task reward alone, resets from the layout bank / fresh layouts;
* ``demo``: task reward + ``--r-demo-weight`` x (r_demo - its maximum) (the demo-tracking reward
  of the Hebero spec, as a penalty so that early success never forfeits reward) and, unless
  ``--no-demo-start``, demo-start resets (RFCL-style: every episode starts at the state of a random
  cursor of a random demo of its task), demos from ``--demos`` (a ``hebero-demos`` corpus; made
  with ``--generate-demos N`` demos per task when the folder does not exist); on the GPU backend
  optionally behaviour cloning first (``--bc-epochs``: the actor's mean fitted to every demo
  state's action, ``HeberoWarpBatch.demo_dataset``) and BC steps between PPO updates
  (``--bc-steps``), as demo-augmented policy gradients do; ``--curriculum`` narrows the demo starts to
  each demo's tail first and widens them towards its start as the task's demo-started episodes
  succeed (:class:`~simkit.envs.hebero.stream.StartCurriculum`, RFCL's reverse curriculum), and
  ``--p-demo P`` starts only that share of episodes on demo states (the rest from the env's own starts).

Evaluation (every ``--eval-every-s`` seconds of training, and at the end): the deterministic policy,
one episode per env from LIBERO's fixed initial states (env e starts from state (e // K) mod 50),
``--horizon`` steps; an episode succeeds when its goal holds at any step. Writes, under ``--out``:
``<variant>/checkpoints/policy.pt`` (TorchScript actor: ``simkit eval hebero --policy
simkit.adapters.rsl_rl:load_policy --checkpoints OUT/<variant>/checkpoints`` evaluates it on the
CPU), ``<variant>/model.pt`` (rsl_rl's full state), ``results.json`` (per variant: per-task success
rate, mean, iterations, env steps, curve) and ``learning_curve.png``; prints progress and the
per-task table. Needs the ``rl`` extra (rsl-rl-lib, tensordict) and ``hebero``; ``warp`` a CUDA GPU.

``--session-s S`` stops an invocation after S seconds with the state kept; ``--resume`` continues.
``--prepare`` only generates the demos and builds the GPU layout-group cache (CPU work, minutes,
once); ``--merge A,B`` writes the table, JSON and curve of runs made separately (one variant each).

Example (the learning benchmark on one GPU, all variants in one process)::

    python tools/train_hebero.py --suite goal --backend warp --num-envs 4096 --budget-s 900 \\
        --demos demos_goal --generate-demos 8 --out runs/goal
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--suite", default="goal", help="goal | object | spatial | long | all")
    ap.add_argument("--tasks", default="", help="comma-separated task ids (override --suite)")
    ap.add_argument("--num-envs", type=int, default=40)
    ap.add_argument("--backend", choices=("cpu", "warp"), default="cpu")
    ap.add_argument("--budget-s", type=float, default=900.0, help="training wall clock per variant, s")
    ap.add_argument("--variants", default="env,demo", help="comma-separated: env, demo")
    ap.add_argument("--r-demo-weight", type=float, default=0.1)
    ap.add_argument("--no-demo-start", action="store_true", help="demo variant: keep the env's resets")
    ap.add_argument(
        "--curriculum",
        action="store_true",
        help="demo variant: reverse curriculum over the demo starts (StartCurriculum: each task's start "
        "window moves from the demos' tail towards their start as its episodes succeed)",
    )
    ap.add_argument("--start-lo", type=float, default=0.75, help="--curriculum: first window start (0-1)")
    ap.add_argument("--window", type=float, default=0.3, help="--curriculum: window width (0-1)")
    ap.add_argument("--lo-step", type=float, default=0.1, help="--curriculum: window move per pass")
    ap.add_argument(
        "--lo-threshold", type=float, default=0.6, help="--curriculum: success rate that moves a window"
    )
    ap.add_argument(
        "--p-demo",
        type=float,
        default=1.0,
        help="demo variant: share of resets that start on a demo state (the rest: the env's own starts)",
    )
    ap.add_argument(
        "--demos", default="", help="a hebero-demos corpus or a demo pack .npz (needed by the demo variant)"
    )
    ap.add_argument(
        "--pack-demos",
        default="",
        help="write --demos (its tasks) as a compact demo pack .npz (with --prepare)",
    )
    ap.add_argument("--generate-demos", type=int, default=0, help="demos per task to generate into --demos")
    ap.add_argument("--demo-steps", type=int, default=300, help="max steps of a generated demo")
    ap.add_argument(
        "--keep-failed-demos",
        action="store_true",
        help="store generated demos that miss the goal (smoke runs)",
    )
    ap.add_argument("--horizon", type=int, default=300, help="episode length, control steps (20 Hz)")
    ap.add_argument("--steps-per-env", type=int, default=24, help="rollout length per PPO iteration")
    ap.add_argument("--eval-every-s", type=float, default=0.0, help="0: budget / 4")
    ap.add_argument(
        "--workers", type=int, default=0, help="demo generation processes (0: all cores, 16 at most)"
    )
    ap.add_argument("--cache", default="", help="GPU layout-group cache folder (default: the env's own)")
    ap.add_argument(
        "--prepare", action="store_true", help="only generate the demos and the GPU cache, then exit"
    )
    ap.add_argument(
        "--merge", default="", help="comma-separated result folders: merge them into --out, no training"
    )
    ap.add_argument("--init-std", type=float, default=0.6, help="initial std of the Gaussian policy")
    ap.add_argument(
        "--bc-epochs",
        type=int,
        default=0,
        help="demo variant: behaviour-clone the actor on every demo state first (epochs; warp backend)",
    )
    ap.add_argument(
        "--bc-steps", type=int, default=0, help="demo variant: BC minibatch steps after every PPO update"
    )
    ap.add_argument("--bc-lr", type=float, default=1e-3, help="learning rate of the BC steps")
    ap.add_argument(
        "--bc-settle",
        action="store_true",
        help="also clone the demos' first steps, where the arm waits for the objects to settle",
    )
    ap.add_argument("--bc-batch", type=int, default=4096, help="BC minibatch size")
    ap.add_argument(
        "--session-s",
        type=float,
        default=0.0,
        help="stop this invocation after this many seconds of wall clock, keeping the run's state; "
        "rerun with --resume to continue (0: no limit)",
    )
    ap.add_argument("--resume", action="store_true", help="continue the runs kept in --out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    return ap.parse_args(argv)


def task_list(args) -> list[str]:
    from simkit.envs.hebero.tasks import task_ids

    return task_ids(args.suite, [t for t in args.tasks.split(",") if t] or None)


def make_env(args, tasks: list[str]):
    """The vector env of ``--backend`` (torch tensors on the GPU, numpy on the CPU)."""
    import gymnasium

    import simkit  # noqa: F401  (registers simkit/Hebero-v0)

    cfg = {"horizon": args.horizon, "terminate_on_success": True}
    kw: dict[str, Any] = {"num_envs": args.num_envs, "tasks": tasks, "backend": args.backend, "config": cfg}
    if args.backend == "warp":
        kw["seed"] = args.seed
        if args.cache:
            kw["cache_dir"] = args.cache
    return gymnasium.make_vec("simkit/Hebero-v0", **kw).unwrapped


def load_demos(args, tasks: list[str]) -> dict[str, list]:
    """Demos of every task from ``--demos`` (generated first with ``--generate-demos``)."""
    from simkit.core.errors import InputError
    from simkit.envs.hebero.stream import demos_from_samples, load_demo_pack, save_demo_pack
    from simkit.episodes.reader import iter_corpus

    path = Path(args.demos)
    if not args.demos:
        raise InputError(None, "the demo variant needs --demos CORPUS (and --generate-demos N to make it)")
    if not path.exists() and args.generate_demos > 0:
        n = args.generate_demos * len(tasks)
        print(f"[demos] generating {n} demos ({args.generate_demos} per task) -> {path}", flush=True)
        cmd = [sys.executable, "-m", "simkit", "generate", "hebero-demos", "--n", str(n), "--out", str(path),
               "--seed", str(args.seed), "--set", f"tasks=[{','.join(tasks)}]",
               "--set", f"max_steps={args.demo_steps}", "--workers", str(args.workers or min(16, os.cpu_count() or 1))]  # fmt: skip
        if args.keep_failed_demos:
            cmd += ["--set", "require_success=false"]
        if subprocess.run(cmd).returncode != 0:
            raise InputError(path, "generating the demo corpus failed (see above)")
    if not path.exists():
        raise InputError(path, "no such demo corpus (pass --generate-demos N to make it)")
    if path.suffix == ".npz":  # a demo pack (--pack-demos)
        demos = load_demo_pack(path)
    else:
        demos = demos_from_samples(iter_corpus(path))
    if args.pack_demos:
        print(f"wrote {save_demo_pack({t: demos[t] for t in tasks if t in demos}, args.pack_demos)}")
    missing = [t for t in tasks if t not in demos]
    if missing:
        raise InputError(path, f"the corpus has no demo of {missing}")
    return {t: demos[t] for t in tasks}


def train_cfg(args) -> dict[str, Any]:
    """rsl_rl 5.x OnPolicyRunner configuration (PPO, MLP actor and critic with observation normalisation)."""
    mlp = {
        "class_name": "MLPModel",
        "hidden_dims": [256, 256, 128],
        "activation": "elu",
        "obs_normalization": True,
    }
    return {
        "num_steps_per_env": args.steps_per_env,
        "save_interval": 10**9,
        "obs_groups": {"actor": ["policy"], "critic": ["policy"]},
        "algorithm": {
            "class_name": "PPO",
            "num_learning_epochs": 5,
            "num_mini_batches": 4,
            "learning_rate": 1e-3,
            "schedule": "adaptive",
            "desired_kl": 0.01,
            "gamma": 0.99,
            "lam": 0.95,
            "entropy_coef": 0.005,
            "clip_param": 0.2,
            "max_grad_norm": 1.0,
        },
        "actor": {
            **mlp,
            "distribution_cfg": {"class_name": "GaussianDistribution", "init_std": args.init_std},
        },
        "critic": dict(mlp),
    }


def evaluate(env, policy, tasks: list[str], horizon: int) -> np.ndarray:
    """(K,) success rates: one episode per env from LIBERO's initial state (e // K) mod 50."""
    n, k = env.num_envs, len(tasks)
    obs, info = env.reset(options={"init_state": (np.arange(n) // k) % 50})
    task_of = np.asarray(info["task_id"].cpu() if hasattr(info["task_id"], "cpu") else info["task_id"])
    success, finished = np.zeros(n, bool), np.zeros(n, bool)
    for _ in range(horizon):
        obs, _, term, trunc, info = env.step(policy(obs, info))
        success |= _host(info["success"]) & ~finished
        finished |= _host(term) | _host(trunc)
        if finished.all():
            break
    return np.array([success[task_of == t].mean() for t in range(k)])


def _host(x) -> np.ndarray:
    return np.asarray(x.cpu().numpy() if hasattr(x, "cpu") else x, bool)


def _setup(args, name: str, tasks: list[str], demos: dict | None):
    """The env of a variant (demos attached for ``demo``), its rsl_rl adapter and PPO runner."""
    import torch
    from rsl_rl.runners import OnPolicyRunner

    from simkit.adapters.rsl_rl import RslRlVecEnv

    torch.manual_seed(args.seed)
    env = make_env(args, tasks)
    weight = offset = 0.0
    if name == "demo":
        assert demos is not None
        env.set_demos(demos, demo_start=not args.no_demo_start)
        if args.curriculum or args.p_demo < 1.0:
            lo = args.start_lo if args.curriculum else 0.0
            hi = min(lo + args.window, 1.0) if args.curriculum else 1.0
            _stream(env).set_start_window(lo, hi, args.p_demo)
        w = env.cfg.demo_reward
        weight = args.r_demo_weight
        offset = w.ee_pos + w.arm_qpos + w.arm_qvel + w.gripper + w.objects + w.articulation
    venv = RslRlVecEnv(env, r_demo_weight=weight, r_demo_offset=offset, seed=args.seed)
    runner = OnPolicyRunner(venv, train_cfg(args), log_dir=None, device=str(venv.device))
    return env, venv, runner, weight


def _iterate(alg, venv, obs, steps_per_env: int):
    """One PPO iteration: a rollout of ``steps_per_env`` steps, returns, update. -> (obs, losses)."""
    import torch

    with torch.inference_mode():
        for _ in range(steps_per_env):
            obs, rew, dones, extras = venv.step(alg.act(obs))
            alg.process_env_step(obs, rew, dones, extras)
        alg.compute_returns(obs)
    return obs, alg.update()


def run_variant(args, name: str, tasks: list[str], demos: dict | None, out: Path) -> dict[str, Any] | None:
    """Train one variant for the budget; evaluate along the way; write its checkpoints. Returns None
    when ``--session-s`` ran out first (the state is kept in ``out/<name>``: rerun with ``--resume``)."""
    wall0 = t0 = time.perf_counter()
    env, venv, runner, weight = _setup(args, name, tasks, demos)
    alg, device = runner.alg, str(venv.device)
    run = _load_state(out / name) if args.resume else None
    if run is not None:
        runner.load(str(out / name / "model.pt"))
    run = run or {"it": 0, "env_steps": 0, "train_s": 0.0, "next_eval": 0.0, "curve": [], "bc": None}
    print(f"[{name}] setup {time.perf_counter() - t0:.1f} s on {device}; training {args.budget_s:.0f} s "
          f"(done {run['train_s']:.0f} s)", flush=True)  # fmt: skip
    cloned = run["bc"] is None
    _warm_up(venv, args.seed)
    bc = _bc_data(args, env, name, run, alg.actor)
    ckpt = out / name / "checkpoints"
    every = args.eval_every_s or args.budget_s / 4
    run["next_eval"] = run["next_eval"] or every
    if bc is not None:  # demo_dataset left the envs on demo states
        venv.reset(seed=args.seed)
        if cloned and args.bc_epochs:  # the cloned policy before any PPO update
            t2 = time.perf_counter()
            sr = _eval_now(runner, venv, env, ckpt, args, tasks)
            run["curve"].append({"it": 0, "train_s": round(run["train_s"], 2), "env_steps": 0,
                                 "train_success": None, "eval_s": round(time.perf_counter() - t2, 1),
                                 "eval_mean_sr": float(sr.mean()), "eval_sr": dict(zip(tasks, sr.tolist()))})  # fmt: skip
            print(f"[{name}] behaviour-cloned policy: eval mean SR {sr.mean():.3f}", flush=True)
    obs = venv.get_observations().to(device)
    alg.train_mode()
    curriculum = _curriculum(args, name, tasks, run)
    while run["it"] == 0 or run["train_s"] < args.budget_s:  # at least one iteration and evaluation
        if args.session_s and time.perf_counter() - wall0 > args.session_s:
            _save_state(runner, run, out / name)
            print(
                f"[{name}] paused after {run['train_s']:.0f} s of training: rerun with --resume", flush=True
            )
            env.close()
            return None
        t1 = time.perf_counter()
        obs, losses = _iterate(alg, venv, obs, args.steps_per_env)
        if bc is not None and args.bc_steps:
            losses["bc"] = bc_steps(alg.actor, bc, args)
        run["train_s"] += time.perf_counter() - t1
        run["it"] += 1
        run["env_steps"] += args.steps_per_env * venv.num_envs
        stats = venv.pop_episode_stats()
        if curriculum is not None:
            lo = curriculum.update(_stream(env).pop_demo_start_stats())
            _stream(env).set_start_window(lo, curriculum.hi, args.p_demo)
            run["start_lo"], losses["start_lo"] = lo, float(lo.mean())
        eps, ok = sum(v[0] for v in stats.values()), sum(v[1] for v in stats.values())
        point: dict[str, Any] = {"it": run["it"], "train_s": round(run["train_s"], 2),
                                 "env_steps": run["env_steps"], "train_success": ok / eps if eps else None}  # fmt: skip
        if run["train_s"] >= run["next_eval"] or run["train_s"] >= args.budget_s:
            t2 = time.perf_counter()
            sr = _eval_now(runner, venv, env, ckpt, args, tasks)
            point.update(eval_s=round(time.perf_counter() - t2, 1), eval_mean_sr=float(sr.mean()))
            point["eval_sr"] = dict(zip(tasks, sr.tolist()))
            run["next_eval"] += every
            obs = venv.get_observations().to(device)
            alg.train_mode()
        run["curve"].append(point)
        print(_progress(name, point, args.budget_s, losses), flush=True)
    _save_state(runner, run, out / name)
    env.close()
    final = run["curve"][-1]["eval_sr"]
    return {"tasks": final, "mean_sr": float(np.mean(list(final.values()))), "iterations": run["it"],
            "env_steps": run["env_steps"], "train_s": run["train_s"], "r_demo_weight": weight,
            "demo_start": name == "demo" and not args.no_demo_start, "bc": run["bc"],
            "start_lo": np.asarray(run.get("start_lo", [])).tolist(), "p_demo": args.p_demo,
            "num_envs": args.num_envs, "curve": run["curve"]}  # fmt: skip


def _warm_up(venv, seed: int) -> None:
    """Two steps of zero actions outside the budget (the first compiles the GPU kernels, the second
    captures the CUDA graphs), then a reset: every variant's clock starts on a warm env."""
    import torch

    with torch.inference_mode():
        for _ in range(2):
            venv.step(torch.zeros(venv.num_envs, venv.num_actions, device=venv.device))
    venv.reset(seed=seed)


def _stream(env):
    """The demo command stream of either backend's vector env (the GPU env keeps it on its batch)."""
    return env.batch.stream if hasattr(env, "batch") else env.stream


def _curriculum(args, name: str, tasks: list[str], run: dict[str, Any]):
    """The demo variant's :class:`StartCurriculum` (None without ``--curriculum``); its window starts
    live in ``run["start_lo"]`` (kept by ``--session-s``/``--resume``)."""
    if name != "demo" or not args.curriculum or args.no_demo_start:
        return None
    from simkit.envs.hebero.stream import StartCurriculum

    cur = StartCurriculum(len(tasks), args.start_lo, args.window, args.lo_step, args.lo_threshold)
    if run.get("start_lo"):
        cur.lo = np.asarray(run["start_lo"], float)
    run["start_lo"] = cur.lo
    return cur


def _save_state(runner, run: dict[str, Any], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    runner.save(str(folder / "model.pt"))
    state = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in run.items()}
    (folder / "state.json").write_text(json.dumps(state))


def _load_state(folder: Path) -> dict[str, Any] | None:
    path = folder / "state.json"
    return json.loads(path.read_text()) if path.exists() and (folder / "model.pt").exists() else None


def _bc_data(args, env, name: str, run: dict[str, Any], actor) -> dict[str, Any] | None:
    """The demo variant's behaviour-cloning pairs (``--bc-epochs``/``--bc-steps``; None without BC),
    cloned into the actor first (``--bc-epochs``, once per run). Counted as training time."""
    if name != "demo" or not (args.bc_epochs or args.bc_steps):
        return None
    from simkit.core.errors import InputError

    batch = getattr(env, "batch", None)
    if batch is None:
        raise InputError(None, "--bc-epochs/--bc-steps need --backend warp (the GPU env's demo_dataset)")
    t0 = time.perf_counter()
    data = batch.demo_dataset(from_first_motion=not args.bc_settle)
    if run["bc"] is None:
        losses = behaviour_clone(actor, data, args)
        run["bc"] = {"pairs": int(len(data["obs"])), "epochs": args.bc_epochs, "losses": losses,
                     "seconds": round(time.perf_counter() - t0, 1)}  # fmt: skip
        print(f"[{name}] behaviour cloning: {run['bc']['pairs']} pairs, {args.bc_epochs} epochs, "
              f"loss {losses[0] if losses else float('nan'):.4f} -> {losses[-1] if losses else float('nan'):.4f}, "
              f"{run['bc']['seconds']} s", flush=True)  # fmt: skip
    if args.bc_epochs:  # the observation normaliser keeps the statistics of the demo states
        actor.obs_normalizer.until = int(actor.obs_normalizer.count)
    run["train_s"] += time.perf_counter() - t0
    return data


def _td(x):
    from tensordict import TensorDict

    return TensorDict({"policy": x}, batch_size=[x.shape[0]])


def behaviour_clone(actor, data: dict[str, Any], args) -> list[float]:
    """Fit the actor's mean action to the demo actions (mean squared error, Adam), after fitting its
    observation normaliser to the demo observations. Returns the mean loss of every epoch."""
    import torch

    obs, act = data["obs"], data["actions"]
    actor.train()
    actor.update_normalization(_td(obs))
    losses = []
    opt = torch.optim.Adam(actor.mlp.parameters(), lr=args.bc_lr)
    for _ in range(args.bc_epochs):
        perm, total = torch.randperm(len(obs), device=obs.device), 0.0
        for i in range(0, len(obs), args.bc_batch):
            idx = perm[i : i + args.bc_batch]
            loss = torch.nn.functional.mse_loss(actor(_td(obs[idx])), act[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / len(obs))
    return losses


def bc_steps(actor, data: dict[str, Any], args) -> float:
    """``--bc-steps`` minibatch steps of the behaviour-cloning loss on the actor's mean (between PPO
    updates, as demo-augmented policy gradients do); returns their mean loss."""
    import torch

    opt = data.get("optimizer") or torch.optim.Adam(actor.mlp.parameters(), lr=args.bc_lr)
    data["optimizer"] = opt
    total = 0.0
    for _ in range(args.bc_steps):
        idx = torch.randint(len(data["obs"]), (args.bc_batch,), device=data["obs"].device)
        loss = torch.nn.functional.mse_loss(actor(_td(data["obs"][idx])), data["actions"][idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += float(loss.detach())
    return total / max(args.bc_steps, 1)


def _progress(name: str, point: dict[str, Any], budget: float, losses: dict[str, float]) -> str:
    loss = ", ".join(f"{k} {v:.3g}" for k, v in losses.items())
    ts = "-" if point["train_success"] is None else f"{point['train_success']:.3f}"
    ev = f", eval mean SR {point['eval_mean_sr']:.3f} ({point['eval_s']} s)" if "eval_s" in point else ""
    return (f"[{name}] it {point['it']} {point['train_s']:.0f}/{budget:.0f} s, {point['env_steps']} env steps, "
            f"training-episode success {ts}{ev}, {loss}")  # fmt: skip


def _eval_now(runner, venv, env, ckpt: Path, args, tasks) -> np.ndarray:
    """Export the actor (TorchScript), load it back as the evaluation loads it, and evaluate it."""
    import torch

    from simkit.adapters.rsl_rl import load_policy

    runner.export_policy_to_jit(str(ckpt), "policy.pt")
    stream = getattr(env, "stream", None)  # the CPU env: demo starts would override the initial states
    demo_start = stream is not None and stream.demo_start
    if demo_start:
        stream.demo_start = False
    try:
        with torch.inference_mode():
            sr = evaluate(env, load_policy(ckpt / "policy.pt"), tasks, args.horizon)
    finally:
        if demo_start:
            stream.demo_start = True
    venv.reset(seed=args.seed)
    return sr


def plot(results: dict[str, dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 5.2), dpi=100)
    for name, r in results.items():
        pts = [p for p in r["curve"] if "eval_mean_sr" in p]
        line = ax.plot(
            [p["train_s"] for p in pts],
            [p["eval_mean_sr"] for p in pts],
            "o-",
            label=f"{name}: eval, LIBERO initial states",
        )
        tr = [p for p in r["curve"] if p["train_success"] is not None]
        if not tr:
            continue
        k = min(9, len(tr))  # running mean: single iterations finish few episodes
        smooth = np.convolve([p["train_success"] for p in tr], np.ones(k) / k, mode="valid")
        ax.plot([p["train_s"] for p in tr][k - 1 :], smooth, ":", color=line[0].get_color(), alpha=0.7,
                label=f"{name}: training episodes (mean of {k} iterations)")  # fmt: skip
    ax.set(xlabel="training wall clock (s)", ylabel="success rate", ylim=(-0.02, 1.02),
           title="Hebero multi-task PPO: mean success over tasks")  # fmt: skip
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    from simkit.core.errors import SimkitError

    args = parse_args(argv)
    out = Path(args.out)
    try:
        _check_setup(args)
        tasks = task_list(args)
        variants = [v for v in args.variants.split(",") if v]
        bad = sorted(set(variants) - {"env", "demo"})
        if bad:
            raise SimkitError(f"--variants: unknown {bad} (env, demo)")
        if args.merge:
            results = merge(args.merge.split(","))
        else:
            demos = load_demos(args, tasks) if "demo" in variants or args.prepare else None
            if args.prepare:
                make_env(args, tasks).close()  # builds the GPU layout-group cache when missing
                print(f"prepared: demos {args.demos}, env of {len(tasks)} task(s) on {args.backend}")
                return 0
            runs = {v: run_variant(args, v, tasks, demos, out) for v in variants}
            if any(r is None for r in runs.values()):
                return 0  # paused by --session-s: the next --resume continues
            results = {v: r for v, r in runs.items() if r is not None}
    except SimkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report(args, tasks, results, out)
    return 0


def merge(folders: list[str]) -> dict[str, dict]:
    """The variants of several runs' ``results.json``: a later folder's variant replaces an earlier one
    of the same name and env count; the same name at another env count is kept as ``name@N``."""
    from simkit.core.errors import InputError

    out: dict[str, dict] = {}
    for f in folders:
        path = Path(f) / "results.json"
        try:
            runs = json.loads(path.read_text())["results"]
        except (OSError, ValueError, KeyError) as exc:
            raise InputError(path, f"not a train_hebero results file ({type(exc).__name__})") from None
        for name, r in runs.items():
            same = name not in out or out[name].get("num_envs") == r.get("num_envs")
            out[name if same else f"{name}@{r.get('num_envs')}"] = r
    return out


def report(args, tasks: list[str], results: dict[str, dict], out: Path) -> None:
    """Write results.json and learning_curve.png; print the per-task success table."""
    out.mkdir(parents=True, exist_ok=True)
    meta = dict(vars(args))
    (out / "results.json").write_text(json.dumps({"args": meta, "results": results}, indent=1))
    plot(results, out / "learning_curve.png")
    w = {v: max(8, len(v) + 2) for v in results}
    print(f"\n{'task':<60}" + "".join(f"{v:>{w[v]}}" for v in results))
    for t in tasks:
        print(f"{t:<60}" + "".join(f"{results[v]['tasks'][t]:>{w[v]}.2f}" for v in results))
    print(f"{'mean':<60}" + "".join(f"{results[v]['mean_sr']:>{w[v]}.2f}" for v in results))
    print(f"wrote {out / 'results.json'} and {out / 'learning_curve.png'}")


def _check_setup(args) -> None:
    """One clear line for what cannot run here: rsl_rl missing, the GPU backend without a GPU."""
    from simkit.core.errors import InputError, require

    if args.backend == "warp":
        from simkit.sims.hebero.warp_batch import require_gpu

        require_gpu()
    require("rsl_rl", "rl")
    require("tensordict", "rl")
    if args.num_envs < 1 or args.budget_s <= 0 or args.horizon < 1:
        raise InputError(None, "--num-envs, --budget-s and --horizon must be positive")


if __name__ == "__main__":
    sys.exit(main())
