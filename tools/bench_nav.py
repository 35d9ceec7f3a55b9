"""Benchmark closed-loop sound-guided navigation on one core (``simkit/FoaNav-v0``).

Measured in one process, one thread, on the same episodes (env seeds 0..E-1):

- **bare**: the navigation simulation alone (agent step with sliding + geodesic distance to the
  goal, the work every env step does besides observations);
- **env, FOA, no frames**: ``FoaNavEnv.step`` with the FOA window per step (the project's target:
  >= 100 steps/s per core);
- **env, FOA + RGB/depth frames**: the same with MuJoCo offscreen frames (128 x 96);
- **closed loop, oracle**: ``simkit eval nav --policy oracle`` end to end (policy included);
- **FOA real-time factor**: seconds of FOA audio rendered per CPU second (window rendering alone).

The stepping policy for the env rows is a walker that never stops (forward 0.7, turns 0.3), so
episodes run to ``--steps``; resets (plan compile + backend + stem) are timed separately.
CPU time is ``time.process_time``; the bare and env rows are measured alternately ``--repeats``
times and the best of each is kept (on a shared machine the load drifts between runs). Usage::

    python tools/bench_nav.py [--episodes 3] [--steps 200] [--repeats 3] [--backend poly|grid] [--markdown out.md]
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402


def _walk(env, episodes: int, steps: int, seed: int = 0) -> tuple[float, float, int]:
    """(CPU s in steps, CPU s in resets, steps) of the never-stopping walker."""
    rng = np.random.default_rng(seed)
    t_step = t_reset = 0.0
    n = 0
    for e in range(episodes):
        t = time.process_time()
        env.reset(seed=e)
        t_reset += time.process_time() - t
        acts = rng.choice([1, 2, 3], size=steps, p=[0.7, 0.15, 0.15])
        t = time.process_time()
        for a in acts:
            env.step(int(a))
            n += 1
        t_step += time.process_time() - t
    return t_step, t_reset, n


def _bare(env, episodes: int, steps: int, seed: int = 0) -> tuple[float, int]:
    """CPU s and steps of agent stepping + geodesic distance only (same episodes and actions)."""
    rng = np.random.default_rng(seed)
    total, n = 0.0, 0
    for e in range(episodes):
        env.reset(seed=e)
        agent, be, goal = env.agent, env.backend, env.task.goal
        acts = rng.choice([1, 2, 3], size=steps, p=[0.7, 0.15, 0.15])
        t = time.process_time()
        for a in acts:
            agent.step(int(a))
            be.geodesic_distance(agent.position, goal)
            n += 1
        total += time.process_time() - t
    return total, n


def _foa_rtf(seconds: float = 20.0, window_s: float = 0.25) -> float:
    from simkit.renderers.foa.windows import render_windows

    fs, win = 16000, int(window_s * 16000)
    n = int(seconds / window_s)
    rng = np.random.default_rng(0)
    poses = np.stack([rng.uniform(0, 8, n), rng.uniform(0, 6, n), rng.uniform(-np.pi, np.pi, n)], 1)
    stem = rng.standard_normal(n * win + 800)
    render_windows(stem[: 2 * win + 800], fs, poses[:2], (4.0, 3.0, 1.0), win, pad=800)  # warm-up (numba)
    t = time.process_time()
    render_windows(stem, fs, poses, (4.0, 3.0, 1.0), win, pad=800)
    return seconds / (time.process_time() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--episodes", type=int, default=3)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--frame-steps", type=int, default=30)
    ap.add_argument(
        "--repeats", type=int, default=3, help="bare/env pairs measured alternately; best of each"
    )
    ap.add_argument("--backend", default="poly", choices=["poly", "grid"])
    ap.add_argument("--markdown", default=None)
    args = ap.parse_args()
    from simkit.envs.nav.env import FoaNavEnv
    from simkit.eval.nav.evaluate import evaluate

    env = FoaNavEnv(max_steps=10**6, backend=args.backend)
    _walk(env, 1, 5)  # warm-up (imports, numba)
    pairs = []  # bare and env alternately, best of --repeats each (a shared machine's load drifts)
    for _ in range(args.repeats):
        pairs.append((*_bare(env, args.episodes, args.steps), *_walk(env, args.episodes, args.steps)))
    t_bare, n_bare = min(p[0] for p in pairs), pairs[0][1]
    t_foa, t_reset, n_foa = min(p[2] for p in pairs), min(p[3] for p in pairs), pairs[0][4]
    fenv = FoaNavEnv(max_steps=10**6, frames=True, backend=args.backend)
    t_fr, _, n_fr = _walk(fenv, 1, args.frame_steps)
    t = time.process_time()
    res = evaluate(
        "oracle", episodes=args.episodes, seed=0, env_kwargs={"backend": args.backend}, on_episode=None
    )
    t_or = time.process_time() - t
    rtf = _foa_rtf()
    rows = [
        ("bare: agent step + geodesic distance", n_bare / t_bare, 1.0),
        ("env step, FOA window, no frames", n_foa / t_foa, (n_foa / t_foa) / (n_bare / t_bare)),
        ("env step, FOA + RGB/depth 128x96", n_fr / t_fr, (n_fr / t_fr) / (n_bare / t_bare)),
        (
            "closed loop, oracle policy (eval nav)",
            res["steps"] / t_or,
            (res["steps"] / t_or) / (n_bare / t_bare),
        ),
    ]
    lines = [
        f"`python tools/bench_nav.py --episodes {args.episodes} --steps {args.steps} --backend {args.backend} "
        f"--repeats {args.repeats}`, {time.strftime('%Y-%m-%d')}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, one process, CPU time "
        f"(bare and env rows: best of {args.repeats} alternating runs):",
        "",
        "| measurement | steps/s per core | ratio to bare |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {name} | {rate:,.0f} | {ratio:.2f} |" for name, rate, ratio in rows]
    lines += [
        "",
        f"- reset (plan + walkable area + graph + 8 s stem): {t_reset / args.episodes * 1000:.0f} ms CPU",
        f"- FOA window rendering (0.25 s windows, direct path, 16 kHz): {rtf:,.0f}x real time per core",
        f"- oracle: SR {res['summary']['SR']:.2f}, SPL {res['summary']['SPL']:.3f} on {args.episodes} episodes",
    ]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
