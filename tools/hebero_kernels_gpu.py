"""Hebero's array kernels on a CUDA GPU: torch float32 equal to numpy float64, capturable into one CUDA graph.

``python tools/hebero_kernels_gpu.py [--envs 1600,8192]`` runs the controller, observation and
reward kernels of :mod:`simkit.envs.hebero.kernels` and the goal tests of
:mod:`simkit.sims.hebero.goal_geometry` on random float32 CUDA inputs and prints their largest
difference from the same functions on float64 numpy arrays (the CPU backend's evaluation; for the
goal tests, the fraction of states that differ), eagerly and as a replayed CUDA graph (new inputs
copied into the captured tensors: a kernel that synchronised with the host or changed shapes would
fail the capture or give stale results), then the time per call of both at the largest N (graph vs
eager in the same run; ``--no-goal`` leaves the goal tests out). Needs torch with CUDA only.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

KEYS_INT = ("kind", "ids", "succ", "cmp")


def random_inputs(
    rng: np.random.Generator, n: int, nbody: int = 40, nsite: int = 12
) -> dict[str, np.ndarray]:
    """Random kernel inputs for n envs (poses, Jacobian chains, limits, slots, actions), float64."""
    axis = rng.normal(size=(n, 7, 3))
    kind = rng.integers(0, 3, (n, 26))
    centre, half = rng.uniform(-1, 1, (n, 7)), rng.uniform(0.5, 2.0, (n, 7))
    return {
        "a": rng.uniform(-1, 1, (n, 7)),
        "prev": rng.uniform(-1, 1, (n, 7)),
        "q": rng.uniform(-2, 2, (n, 7)),
        "dq": rng.normal(size=(n, 7)) * 3,
        "anchor": rng.normal(size=(n, 7, 3)) * 0.3,
        "axis": axis / np.linalg.norm(axis, axis=-1, keepdims=True),
        "ee": rng.normal(size=(n, 3)) * 0.5,
        "qrange": centre[..., None] + np.stack([-half, half], -1),  # half ranges >= 0.5 rad, like the Panda's
        "xpos": rng.normal(size=(n, nbody, 3)),
        "xmat": rng.normal(size=(n, nbody, 9)),
        "sxpos": rng.normal(size=(n, nsite, 3)),
        "sxmat": rng.normal(size=(n, nsite, 9)),
        "kind": kind,
        "ids": np.where(kind == 1, rng.integers(0, nbody, (n, 26)), rng.integers(0, nsite, (n, 26))),
        "base": rng.normal(size=(n, 3)),
        "fingers": rng.uniform(0, 0.04, (n, 2)),
        "quat": rng.normal(size=(n, 4)),
        "succ": rng.random(n) < 0.5,
        # goal tests: 4 atoms per env, points near regions of random pose and size
        "pa": rng.normal(size=(n, 4, 3)) * 0.1,
        "pb": rng.normal(size=(n, 4, 3)) * 0.1,
        "pr": rng.normal(size=(n, 4, 3)) * 0.05,
        "rr": _rotations(rng, (n, 4)),
        "size": rng.uniform(0.02, 0.15, (n, 4, 3)),
        "jq": rng.uniform(-0.5, 0.5, (n, 4, 4)),
        "cmp": rng.integers(0, 4, (n, 4, 1)),
    }


def _rotations(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Random rotation matrices (*shape, 3, 3) (QR of Gaussian matrices, determinant +1)."""
    q, r = np.linalg.qr(rng.normal(size=(*shape, 3, 3)))
    q = q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]
    return q * np.sign(np.linalg.det(q))[..., None, None]


def run(x: dict, w, goal: bool = True) -> dict:
    """Controller targets, proprioception, slot buffer, reward and (``goal``) goal tests of inputs
    ``x`` (numpy arrays or torch tensors: the same functions evaluate both)."""
    from simkit.envs.hebero import kernels as k
    from simkit.sims.hebero import goal_geometry as geo

    jp, jr = k.hinge_jacobian(x["anchor"], x["axis"], x["ee"])
    tgt, fing = k.arm_targets(x["a"], x["q"], jp, jr, x["qrange"], 0.05, 0.5, 0.05)
    prop = k.proprioception(x["q"], x["dq"], x["fingers"], x["ee"], x["quat"], x["base"])
    slots = k.slot_features(x["xpos"], x["xmat"], x["sxpos"], x["sxmat"], x["kind"], x["ids"], x["base"])
    reward = k.task_reward(x["succ"], x["a"], x["prev"], x["q"], x["dq"], x["qrange"], w)["reward"]
    out = {"targets": tgt, "fingers": fing, "proprio": prop, "slots": slots, "reward": reward}
    if not goal:
        return out
    return {
        **out,
        "on_object": geo.on_object(x["pa"], x["pb"]),
        "on_region": geo.on_region(x["pa"], x["pr"], x["rr"], x["size"]),
        "in_region": geo.in_region(x["pa"], x["pr"], x["rr"], x["size"]),
        "joints": geo.compare(x["jq"], x["cmp"], 0.1),
    }


def main() -> None:
    import torch

    from simkit.envs.hebero.config import RewardWeights

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--envs", default="1600,8192")
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--no-goal", action="store_true", help="time the controller, observation and reward only")
    args = ap.parse_args()
    goal = not args.no_goal
    dev, w = torch.device("cuda"), RewardWeights()
    print(torch.__version__, torch.cuda.get_device_name(0))

    def to_dev(x):
        return {
            k: torch.as_tensor(v, device=dev, dtype=None if k in KEYS_INT else torch.float32)
            for k, v in x.items()
        }

    def diff(got, want):
        out = {}
        for k, v in want.items():
            g = got[k].cpu().numpy()
            out[k] = f"{np.mean(g != v):.1e}" if v.dtype == bool else f"{np.abs(g - v).max():.2e}"
        return out

    rng = np.random.default_rng(0)
    sizes = [int(s) for s in args.envs.split(",")]
    for n in sizes:
        x = random_inputs(rng, n)
        print(
            f"eager N={n}: max |torch float32 - numpy float64|",
            diff(run(to_dev(x), w), run(x, w)),
        )
    static = to_dev(random_inputs(rng, sizes[-1]))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside the capture (allocations, constants)
        for _ in range(3):
            run(static, w, goal)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = run(static, w, goal)
    for rep in range(3):
        x = random_inputs(rng, sizes[-1])
        for k, v in to_dev(x).items():
            static[k].copy_(v)
        graph.replay()
        torch.cuda.synchronize()
        print(f"graph replay {rep}: max |torch float32 - numpy float64|", diff(out, run(x, w, goal)))
    for name, fn in (("eager", lambda: run(static, w, goal)), ("graph", graph.replay)):
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(args.iters):
            fn()
        torch.cuda.synchronize()
        print(f"{name} N={sizes[-1]}: {(time.perf_counter() - t0) / args.iters * 1e6:.1f} us per call")


if __name__ == "__main__":
    main()
