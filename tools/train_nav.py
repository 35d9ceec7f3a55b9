"""Learnability check for ``simkit/FoaNav-v0``: SB3 PPO on the CPU against the random policy.

Trains Stable-Baselines3 PPO (MLP 64 x 64, ``--n-envs`` envs in one process, one torch thread) on
the env's own reward (Habitat's PointNav shape: geodesic progress - 0.01 slack per step, + 2.5 on a
stop within the success radius; :mod:`simkit.envs.nav.env`) for ``--budget`` env steps (or until
``--max-train-s`` of wall clock), on procedural scenes from the env's ``np_random`` stream (from
``--seed``; ``--scene-reuse`` episodes per scene, each with a new start, goal and loudness, so that
plan compilation does not dominate the short early episodes). Then evaluates,
with :func:`simkit.eval.nav.evaluate.run_episode` (the ``simkit eval nav`` protocol: 500 steps,
stuck test, Habitat's SR and SPL), on ``--eval-episodes`` held-out episodes (env seeds
``--eval-seed`` + i, never met in training): PPO (stochastic and deterministic actions), the
``random`` policy and the ``sound`` heuristic, all on the same episodes.

Observation given to the policy (:class:`Features`; the FOA window reduced to what a small MLP
can use, computed from the env's observation only): per step the broadband DirAC active-intensity
direction of the window (unit 3-vector in the agent frame, Pulkki, JAES 2007), the W level
``(10 log10 mean W^2 + 50) / 15``, a moved flag (the GPS moved > 1 cm), the previous action
(one-hot) and the start-frame pose ``[x / 10, y / 10, cos yaw, sin yaw]``; the last
``--stack`` steps are concatenated (13 * stack floats).

Learning curve: success rate and SPL of the training episodes (rolling over 200 episodes) and of
``--val-episodes`` validation episodes (seeds ``--val-seed`` + i, stochastic policy) every
``--val-every`` steps, with the random policy's level on the validation episodes.
Writes ``--json`` and ``--png``; the model to ``--model``. Usage::

    nice -n 10 python tools/train_nav.py --budget 500000 --max-train-s 2700 --json docs/nav_ppo.json --png docs/nav_ppo.png
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from collections import deque  # noqa: E402
from typing import Any  # noqa: E402

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402

PER_STEP = 13


class Features:
    """The policy's observation from the env's (module docstring): float32 (13 * stack,)."""

    def __init__(self, stack: int = 4):
        self.stack = int(stack)
        self.reset()

    def reset(self) -> None:
        self.hist: deque[np.ndarray] = deque(maxlen=self.stack)
        self.prev_xy: np.ndarray | None = None

    def __call__(self, obs: dict[str, np.ndarray], prev_action: int | None) -> np.ndarray:
        w = np.asarray(obs["foa"], dtype=np.float64)
        ww = w[:, 0]
        e = float(np.mean(ww * ww))
        inten = np.array([np.mean(ww * w[:, 3]), np.mean(ww * w[:, 1]), np.mean(ww * w[:, 2])])
        u = inten / max(float(np.linalg.norm(inten)), 1e-20)
        level = (10.0 * np.log10(e + 1e-12) + 50.0) / 15.0
        pose = np.asarray(obs["pose"], dtype=np.float64)
        moved = self.prev_xy is not None and float(np.linalg.norm(pose[:2] - self.prev_xy)) > 0.01
        self.prev_xy = pose[:2].copy()
        act = np.zeros(4)
        if prev_action is not None:
            act[int(prev_action)] = 1.0
        f = np.concatenate([u, [level, float(moved)], act,
                            [pose[0] / 10, pose[1] / 10, np.cos(pose[2]), np.sin(pose[2])]])  # fmt: skip
        if not self.hist:
            self.hist.extend([f] * self.stack)
        else:
            self.hist.append(f)
        return np.concatenate(list(self.hist)).astype(np.float32)


class FeatureEnv(gymnasium.Wrapper):
    """``simkit/FoaNav-v0`` with the :class:`Features` observation (actions and reward unchanged)."""

    def __init__(self, env: gymnasium.Env, stack: int = 4):
        super().__init__(env)
        self.features = Features(stack)
        self.observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (PER_STEP * stack,), np.float32)

    def reset(self, **kw):
        obs, info = self.env.reset(**kw)
        self.features.reset()
        return self.features(obs, None), info

    def step(self, action):
        obs, r, term, trunc, info = self.env.step(action)
        return self.features(obs, int(action)), r, term, trunc, info


class PPOPolicy:
    """A trained SB3 model as a :mod:`simkit.eval.nav.policies` policy (``reset(env)``, ``act(obs)``)."""

    name = "ppo"

    def __init__(self, model, stack: int, deterministic: bool):
        self.model, self.features, self.det = model, Features(stack), deterministic
        self.prev: int | None = None

    def reset(self, env) -> None:
        self.features.reset()
        self.prev = None

    def act(self, obs):
        x = self.features(obs, self.prev)
        a, _ = self.model.predict(x, deterministic=self.det)
        self.prev = int(a)
        return self.prev


def evaluate_policy(policy, seeds: list[int], env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """SR, SPL (and the other nav metrics) of ``policy`` on env seeds ``seeds`` (``simkit eval nav`` protocol)."""
    from simkit.envs.nav.env import FoaNavEnv
    from simkit.eval.nav.evaluate import run_episode
    from simkit.eval.nav.metrics import summarise

    env = FoaNavEnv(**env_kwargs)
    t = time.perf_counter()
    rows = [run_episode(env, policy, s) for s in seeds]
    out = summarise(rows)
    out["steps"] = float(sum(r["steps"] for r in rows))
    out["seconds"] = time.perf_counter() - t
    out["success"] = [float(r["SR"]) for r in rows]
    out["spl"] = [float(r["SPL"]) for r in rows]
    return out


def _callback(args, curve: dict[str, list], env_kwargs: dict[str, Any]):
    from stable_baselines3.common.callbacks import BaseCallback

    val_seeds = [args.val_seed + i for i in range(args.val_episodes)]
    every = max(1, args.val_every)
    t0 = time.perf_counter()

    class Curve(BaseCallback):
        def __init__(self):
            super().__init__()
            self.recent: deque[tuple[float, float]] = deque(maxlen=200)
            self.next_val = every

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
                if done:
                    ok = float(info["success"])
                    geo, path = info["geodesic_start_m"], info["path_length_m"]
                    self.recent.append((ok, ok * geo / max(path, geo)))
            n = self.num_timesteps
            if n % 2048 < args.n_envs and self.recent:
                sr, spl = np.mean(self.recent, axis=0)
                curve["train"].append([n, float(sr), float(spl), len(self.recent)])
            if n >= self.next_val:
                self.next_val += every
                res = evaluate_policy(PPOPolicy(self.model, args.stack, False), val_seeds, env_kwargs)
                curve["val"].append([n, res["SR"], res["SPL"]])
                print(f"[{time.strftime('%H:%M:%S')}] {n} steps: val SR {res['SR']:.3f} SPL {res['SPL']:.3f}"
                      f" (train SR {curve['train'][-1][1] if curve['train'] else float('nan'):.3f})", flush=True)  # fmt: skip
            if n % 10240 < args.n_envs:
                print(
                    f"[{time.strftime('%H:%M:%S')}] {n} steps, {n / (time.perf_counter() - t0):.0f} steps/s",
                    flush=True,
                )
            return time.perf_counter() - t0 < args.max_train_s  # the wall-clock cap ends training early

    return Curve()


def plot(
    curve: dict[str, list], random_val: dict[str, Any], final: dict[str, Any], path: str, budget: int
) -> None:
    """The learning curve PNG: SR and SPL vs env steps (training rolling, validation, random level)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharex=True)
    tr, va = np.asarray(curve["train"]), np.asarray(curve["val"])
    for ax, col, name in ((axes[0], 1, "SR"), (axes[1], 2, "SPL")):
        if tr.size:
            ax.plot(tr[:, 0], tr[:, col], color="0.6", label="PPO, training episodes (rolling 200)")
        if va.size:
            ax.plot(va[:, 0], va[:, col], "o-", color="C0", label="PPO, validation episodes")
        ax.axhline(random_val[name], color="C3", ls="--", label="random policy, validation")
        ax.axhline(final["ppo"][name], color="C0", ls=":", label="PPO, held-out test (final)")
        ax.set_xlabel("env steps")
        ax.set_ylabel(name)
        ax.set_xlim(0, budget)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, loc="upper left")
    fig.suptitle("simkit/FoaNav-v0: SB3 PPO (CPU) vs random")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--budget", type=int, default=500_000, help="training env steps")
    ap.add_argument("--n-envs", type=int, default=4)
    ap.add_argument("--n-steps", type=int, default=256, help="rollout steps per env per PPO update")
    ap.add_argument("--stack", type=int, default=4, help="feature steps concatenated")
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-episodes", type=int, default=100)
    ap.add_argument("--eval-seed", type=int, default=100_000)
    ap.add_argument("--val-episodes", type=int, default=20)
    ap.add_argument("--val-seed", type=int, default=50_000)
    ap.add_argument("--val-every", type=int, default=20_000, help="env steps between validation evals")
    ap.add_argument("--max-train-s", type=float, default=float("inf"), help="wall-clock cap on training, s")
    ap.add_argument("--scene-reuse", type=int, default=8, help="training env: episodes per scene (FoaNavEnv)")
    ap.add_argument("--json", default="docs/nav_ppo.json")
    ap.add_argument("--png", default="docs/nav_ppo.png")
    ap.add_argument("--model", default="runs/nav_ppo.zip")
    return ap.parse_args(argv)


def train(args: argparse.Namespace, env_kwargs: dict[str, Any], curve: dict[str, list]):
    """The trained PPO model and its training wall-clock seconds."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from simkit.envs.nav.env import FoaNavEnv

    torch.set_num_threads(1)

    def make(i: int):
        return lambda: FeatureEnv(FoaNavEnv(**env_kwargs, scene_reuse=args.scene_reuse), args.stack)

    venv = DummyVecEnv([make(i) for i in range(args.n_envs)])
    venv.seed(args.seed)
    model = PPO("MlpPolicy", venv, n_steps=args.n_steps, batch_size=256, n_epochs=5, learning_rate=args.lr,
                gamma=0.99, gae_lambda=0.95, ent_coef=args.ent_coef, clip_range=0.2, seed=args.seed,
                policy_kwargs={"net_arch": [64, 64]}, device="cpu", verbose=0)  # fmt: skip
    t = time.perf_counter()
    model.learn(total_timesteps=args.budget, callback=_callback(args, curve, env_kwargs))
    return model, time.perf_counter() - t, int(model.num_timesteps)


def main(argv: list[str] | None = None) -> None:
    from simkit.eval.nav.policies import make_policy

    args = parse_args(argv)
    env_kwargs: dict[str, Any] = {}
    curve: dict[str, list] = {"train": [], "val": []}
    val_seeds = [args.val_seed + i for i in range(args.val_episodes)]
    random_val = evaluate_policy(make_policy("random", args.seed), val_seeds, env_kwargs)
    print(f"random on validation: SR {random_val['SR']:.3f} SPL {random_val['SPL']:.3f}", flush=True)
    model, t_train, trained = train(args, env_kwargs, curve)
    os.makedirs(os.path.dirname(args.model) or ".", exist_ok=True)
    model.save(args.model)
    seeds = [args.eval_seed + i for i in range(args.eval_episodes)]
    final = {
        "ppo": evaluate_policy(PPOPolicy(model, args.stack, False), seeds, env_kwargs),
        "ppo_deterministic": evaluate_policy(PPOPolicy(model, args.stack, True), seeds, env_kwargs),
        "random": evaluate_policy(make_policy("random", args.seed), seeds, env_kwargs),
        "sound": evaluate_policy(make_policy("sound", args.seed), seeds, env_kwargs),
    }
    for name, res in final.items():
        print(
            f"{name:18s} SR {res['SR']:.3f}  SPL {res['SPL']:.3f}  NE {res['NE']:.2f} m  ({args.eval_episodes} held-out)"
        )
    report = {
        "env": "simkit/FoaNav-v0", "env_kwargs": env_kwargs, "budget_steps": args.budget, "trained_steps": trained,
        "max_train_s": None if args.max_train_s == float("inf") else args.max_train_s, "scene_reuse": args.scene_reuse,
        "train_seconds": t_train, "train_steps_per_s": trained / t_train,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"), "load_average": os.getloadavg(),
        "ppo": {"n_envs": args.n_envs, "n_steps": args.n_steps, "batch_size": 256, "n_epochs": 5, "lr": args.lr,
                "gamma": 0.99, "gae_lambda": 0.95, "ent_coef": args.ent_coef, "net_arch": [64, 64], "seed": args.seed},
        "features": {"stack": args.stack, "per_step": PER_STEP},
        "eval_seeds": [seeds[0], seeds[-1]], "val_seeds": [val_seeds[0], val_seeds[-1]],
        "final": final, "random_val": random_val, "curve": curve,
    }  # fmt: skip
    os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
    with open(args.json, "w") as fh:
        json.dump(report, fh, indent=1)
    plot(curve, random_val, final, args.png, max(trained, 1))
    print(
        f"wrote {args.json}, {args.png}, {args.model}; {trained} steps trained in {t_train:.0f} s ({trained / t_train:.0f} steps/s)"
    )


if __name__ == "__main__":
    main()
