"""Hebero on MuJoCo Warp: export the models (CPU side), then measure env steps/s on a GPU.

Two subcommands:

``export [--libero-root ROOT] --out DIR [--bank 4]``
    CPU side. Compiles the 40 tasks, writes the layout-group cache
    (``DIR/groups``, :func:`simkit.sims.hebero.layout_models.export_groups`) and, for the bare
    reference, each task's own scene as a physics-only model (``DIR/tasks/task_<i>.mjb`` +
    ``.npz`` with its initial qpos/ctrl).

``run DIR [--envs 1600,4096,8192] [--iters 20] [--json OUT]``
    GPU side (needs the ``[gpu]`` extra). In one process, at each environment count N:

    * ``bare_one``: one task model (the first task) on all N worlds, one CUDA graph
      (25 physics steps) -- the homogeneous ceiling;
    * ``bare_40_seq``: the 40 task models, N/40 worlds each, one graph each, launched back
      to back on one stream;
    * ``bare_40_streams``: the same graphs, each on its own CUDA stream;
    * ``bare_groups``: the layout-group union models, worlds as the env assigns them, one
      graph per group on its own stream (physics only);
    * ``env_all``: ``HeberoWarpBatch`` over all 40 tasks (controller, observations, rewards,
      predicates and autoreset included);
    * ``env_one``: the same env with one task on all N worlds.

    Each figure is env (control) steps per second = N x iterations / wall time between two
    device synchronisations, after warm-up. Also: compile (first capture) time, GPU memory per
    environment (device free memory before and after building the env), contact and
    constraint counts against their allocations.

Prints ``name N value unit`` lines and a table; ``--json`` writes all numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

SUITES = ("goal", "object", "spatial", "long")


def export(args) -> None:
    import mujoco

    from simkit.scenes.hebero import compile_task, suite_files
    from simkit.sims.hebero.layout_models import export_groups, physics_only
    from simkit.sims.hebero.scene import build_scene

    root = Path(args.libero_root) if args.libero_root else None
    descs = [compile_task(p, s, i, root) for s in SUITES for i, p in suite_files(root, s)]
    out = Path(args.out)
    t0 = time.perf_counter()
    export_groups(descs, root, out / "groups", bank=args.bank, progress=print)
    print(f"export_groups {time.perf_counter() - t0:.1f} s")
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    for i, d in enumerate(descs):
        sc = build_scene(d, root, np.random.default_rng(0))
        m = physics_only(sc)
        mujoco.mj_saveModel(m, str(out / "tasks" / f"task_{i}.mjb"))
        np.savez(out / "tasks" / f"task_{i}.npz", qpos=np.array(sc.data.qpos), ctrl=np.array(sc.data.ctrl))
    (out / "tasks" / "index.json").write_text(json.dumps([d["task_id"] for d in descs]))
    print(f"export total {time.perf_counter() - t0:.1f} s")


def _timed(fn, iters: int, wp) -> float:
    """Seconds per call of fn (after 2 warm-up calls), device-synchronised."""
    for _ in range(2):
        fn()
    wp.synchronize()
    t = time.perf_counter()
    for _ in range(iters):
        fn()
    wp.synchronize()
    return (time.perf_counter() - t) / iters


def _bare_groups(models, states, counts, wp, mjw, cfg):
    """WarpGroups for (model, state, nworld) triples, initial states set, graphs captured."""
    from simkit.envs.hebero.config import HeberoConfig
    from simkit.envs.hebero.warp import control_substeps
    from simkit.sims.hebero.warp_batch import WarpGroup

    out = []
    for m, (qpos, ctrl), n in zip(models, states, counts):
        if n == 0:
            continue
        g = WarpGroup(m, n, control_substeps(HeberoConfig(), float(m.opt.timestep)), cfg.nconmax, cfg.njmax)
        import torch

        g.t["qpos"].copy_(torch.as_tensor(qpos, dtype=torch.float32, device="cuda")[None].expand(n, -1))
        g.t["ctrl"].copy_(torch.as_tensor(ctrl, dtype=torch.float32, device="cuda")[None].expand(n, -1))
        g.capture()
        out.append(g)
    return out


def _launcher(groups, wp, streams: bool):
    main = wp.get_stream()

    def run():
        for g in groups:
            if streams:
                g.launch(after=main)
            else:
                wp.capture_launch(g.graph, stream=main)
        if streams:
            for g in groups:
                main.wait_stream(g.stream)

    return run


def _counts(groups) -> dict:
    nacon = max(int(g.d.nacon.numpy()[0]) for g in groups)
    nefc = max(int(g.d.nefc.numpy().max()) for g in groups)
    return {
        "max_nacon": nacon,
        "naconmax": max(int(g.d.naconmax) for g in groups),
        "max_nefc": nefc,
        "njmax": max(int(g.d.njmax) for g in groups),
    }


def _variant(spec: str) -> dict:
    """``"iterations=20,broadphase=SAP_TILE"`` -> WarpEnvConfig overrides (``"default"`` -> {}).

    ``broadphase``, ``filter`` and ``deterministic`` become MuJoCo Warp model overrides
    (``opt.broadphase``, ``opt.broadphase_filter``, ``opt.deterministic``; ``filter`` takes ``+``-joined
    flags such as ``PLANE+SPHERE+AABB``).
    """
    out: dict = {}
    mjw_keys = {
        "broadphase": "opt.broadphase",
        "filter": "opt.broadphase_filter",
        "deterministic": "opt.deterministic",
    }
    for kv in filter(None, spec.split(",")):
        if kv == "default":
            continue
        k, v = kv.split("=")
        if k in mjw_keys:
            out.setdefault("overrides", {})[mjw_keys[k]] = v.replace("+", "|")
        else:
            out[k] = bool(int(v)) if k == "cuda_graphs" else (float(v) if k == "tolerance" else int(v))
    return out


def _rollout(env, acts, steps: int, torch):
    """Free-body positions of every group after ``steps`` env steps from reset(seed=0), on the host."""
    env.reset(seed=0)
    for k in range(steps):
        env.step(acts[k % len(acts)])
    torch.cuda.synchronize()
    return [g.sim.t["qpos"].double().cpu().numpy() for g in env.groups]


def _accuracy(row, label, env, acts, ref, torch) -> None:
    """Drift of the qpos after 20 steps against the reference variant, and a same-seed repeat check."""
    a = _rollout(env, acts, 20, torch)
    b = _rollout(env, acts, 20, torch)
    row[f"{label}_repeat_max_diff"] = float(max(np.abs(x - y).max() for x, y in zip(a, b)))
    if "qpos" not in ref:
        ref["qpos"] = a
        return
    d = np.concatenate([np.abs(x - y).ravel() for x, y in zip(a, ref["qpos"])])
    row[f"{label}_qpos_drift_vs_first"] = {"median": float(np.median(d)), "p99": float(np.quantile(d, 0.99))}


def _measure_env(row, label, cache, tasks, n, cfg, args, env_too, wp, torch, ref=None) -> None:
    """Build ``HeberoWarpBatch`` on a cache; time bare group stepping (streams / one stream) and env steps."""
    from simkit.envs.hebero.warp import HeberoWarpBatch

    torch.cuda.synchronize()
    free0 = torch.cuda.mem_get_info()[0]
    t0 = time.perf_counter()
    env = HeberoWarpBatch(cache, n, tasks=tasks, warp=cfg)
    env.reset(seed=0)
    for g in env.groups:
        g.sim.capture()
    torch.cuda.synchronize()
    row[f"{label}_build_s"] = time.perf_counter() - t0
    row[f"{label}_mem_per_env_kib"] = (free0 - torch.cuda.mem_get_info()[0]) / n / 1024
    row[f"{label}_groups"] = [int(g.sim.nworld) for g in env.groups]
    sims = [g.sim for g in env.groups]
    if args.bare:
        tag = label.replace("env_all", "bare_groups").replace("env_one", "bare_onegroup")
        row[tag] = n / _timed(_launcher(sims, wp, True), args.iters, wp)
        row[tag + "_one_stream"] = n / _timed(_launcher(sims, wp, False), args.iters, wp)
    if env_too:
        gen = torch.Generator(device="cuda").manual_seed(1)
        acts = [torch.rand(n, 7, device="cuda", generator=gen) * 2 - 1 for _ in range(4)]
        if ref is not None:
            _accuracy(row, label, env, acts, ref, torch)
        k = [0]

        def env_step():
            k[0] += 1
            env.step(acts[k[0] % 4])

        row[label] = n / _timed(env_step, args.iters, wp)
        row[f"{label}_cuda_graphs"] = env.graphs_active
        row[f"{label}_solver_niter"] = [
            [float(g.sim.t["solver_niter"].float().mean()), int(g.sim.t["solver_niter"].max())]
            for g in env.groups
        ]
        env.timings = {}
        for _ in range(5):
            env.step(acts[0])
        row[f"{label}_phase_ms"] = {p: round(v / 5 * 1000, 2) for p, v in env.timings.items() if p}
        env.timings = None
        row[f"{label}_obs_finite"] = bool(torch.isfinite(env.obs).all())
        row[f"{label}_counts"] = _counts(sims)
    env.close()


def run(args) -> None:
    import mujoco
    import torch

    from simkit.envs.hebero.warp import WarpEnvConfig
    from simkit.sims.hebero.warp_batch import require_gpu

    wp, mjw, _ = require_gpu()
    cfg = WarpEnvConfig()
    root = Path(args.dir)
    task_ids = json.loads((root / "tasks" / "index.json").read_text())

    def task_model(i: int):
        z = np.load(root / "tasks" / f"task_{i}.npz")
        return mujoco.MjModel.from_binary_path(str(root / "tasks" / f"task_{i}.mjb")), (z["qpos"], z["ctrl"])

    res: dict = {
        "gpu": torch.cuda.get_device_name(0),
        "driver": os.popen("nvidia-smi --query-gpu=driver_version --format=csv,noheader").read().strip(),
        "warp": wp.config.version,
        "mujoco_warp": getattr(mjw, "__version__", "?"),
        "results": [],
    }
    print(res["gpu"], res["driver"], flush=True)
    for n in [int(x) for x in args.envs.split(",")]:
        row: dict = {"N": n}
        sel = args.only.split(",") if args.only else None

        def want(name, sel=sel):
            return sel is None or name in sel

        t0 = time.perf_counter()
        if want("bare_one"):
            m0, s0 = task_model(0)
            gs = _bare_groups([m0], [s0], [n], wp, mjw, cfg)
            row["compile_one_s"] = time.perf_counter() - t0
            row["bare_one"] = n / _timed(_launcher(gs, wp, False), args.iters, wp)
            row["counts_one"] = _counts(gs)
            del gs
        if want("bare_40_seq") or want("bare_40_streams"):
            per = [n // 40 + (1 if i < n % 40 else 0) for i in range(40)]
            t0 = time.perf_counter()
            loaded = [task_model(i) for i in range(40)]
            gs = _bare_groups([x[0] for x in loaded], [x[1] for x in loaded], per, wp, mjw, cfg)
            row["compile_40_s"] = time.perf_counter() - t0
            if want("bare_40_seq"):
                row["bare_40_seq"] = n / _timed(_launcher(gs, wp, False), max(3, args.iters // 4), wp)
            if want("bare_40_streams"):
                row["bare_40_streams"] = n / _timed(_launcher(gs, wp, True), args.iters, wp)
            row["counts_40"] = _counts(gs)
            del gs
        for cache in args.caches.split(","):
            suffix = "" if cache == "groups" else f"@{cache}"
            ref: dict = {}
            for vi, spec in enumerate(args.variants.split("|")):
                vcfg = WarpEnvConfig(**_variant(spec))
                vsuffix = suffix if spec == "default" else f"{suffix}[{spec}]"
                args.bare = vi == 0
                for label, tasks in (("env_all", None), ("env_one", task_ids[:1])):
                    if want(label) or (label == "env_all" and want("bare_groups") and vi == 0):
                        try:
                            _measure_env(
                                row,
                                label + vsuffix,
                                root / cache,
                                tasks,
                                n,
                                vcfg,
                                args,
                                want(label),
                                wp,
                                torch,
                                ref if label == "env_all" and args.accuracy else None,
                            )
                        except Exception as err:  # keep measuring the other variants
                            row[f"{label}{vsuffix}_error"] = repr(err)[:300]
                            print(f"{label}{vsuffix}: {err!r}", flush=True)
        res["results"].append(row)
        print(json.dumps(row), flush=True)
    _table(res)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))


def gym_run(args) -> None:
    """``gymnasium.make_vec("simkit/Hebero-v0", backend="warp")`` at each N: shapes and env steps/s."""
    import gymnasium
    import torch

    import simkit.envs

    simkit.envs.register_envs()  # what the installed .pth hook does on a pip install
    for n in [int(x) for x in args.envs.split(",")]:
        env = gymnasium.make_vec(
            "simkit/Hebero-v0", num_envs=n, suite="all", backend="warp", cache_dir=args.cache
        )
        obs, info = env.reset(seed=0)
        acts = torch.rand(n, 7, device="cuda") * 2 - 1
        for _ in range(3):
            env.step(acts)
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(args.iters):
            obs, rew, term, trunc, info = env.step(acts)
        torch.cuda.synchronize()
        rate = n * args.iters / (time.perf_counter() - t)
        print(
            f"make_vec N={n}: obs {tuple(obs.shape)} {obs.dtype} {obs.device}, reward {tuple(rew.shape)}, "
            f"task_id {tuple(info['task_id'].shape)}, finite {bool(torch.isfinite(obs).all())}, "
            f"{rate:.0f} env steps/s",
            flush=True,
        )
        env.close()


def _table(res) -> None:
    cols = sorted({k for r in res["results"] for k, v in r.items() if isinstance(v, float) and k[0] in "be"})
    cols = [c for c in cols if not c.endswith("_s") and "mem" not in c and "diff" not in c]
    print(f"{res['gpu']}, driver {res['driver']}, warp {res['warp']}, mujoco_warp {res['mujoco_warp']}")
    print("| N | " + " | ".join(cols) + " |")
    for r in res["results"]:
        print(f"| {r['N']} | " + " | ".join(f"{r[c] / 1e3:.1f}k" if c in r else "-" for c in cols) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="compile the models on the CPU side")
    e.add_argument("--libero-root", default=None, help="LIBERO tree (default: the [libero] asset wheels)")
    e.add_argument("--out", required=True)
    e.add_argument("--bank", type=int, default=4)
    r = sub.add_parser("run", help="measure on the GPU")
    r.add_argument("dir")
    r.add_argument("--envs", default="1600,4096,8192")
    r.add_argument("--iters", type=int, default=20)
    r.add_argument("--only", default="", help="comma-separated subset of the measurements")
    r.add_argument("--json", default="")
    r.add_argument("--caches", default="groups", help="comma-separated layout-group caches under DIR")
    r.add_argument(
        "--variants",
        default="default",
        help="'|'-separated WarpEnvConfig overrides of the env rows, e.g. "
        "'default|iterations=20,ls_iterations=10|cuda_graphs=0' (bare rows: first variant only)",
    )
    r.add_argument("--accuracy", action="store_true", help="qpos drift of each variant vs the first")
    y = sub.add_parser("gym", help="gymnasium.make_vec(backend='warp') on the GPU")
    y.add_argument("cache")
    y.add_argument("--envs", default="1600,4096,8192")
    y.add_argument("--iters", type=int, default=20)
    args = ap.parse_args()
    {"export": export, "run": run, "gym": gym_run}[args.cmd](args)


if __name__ == "__main__":
    main()
