"""Benchmark: layout-first packing trajectories vs forward sampling (trajectories/s per core, per tier).

Layout-first = ``PackingGenerator.generate`` (compile + pybullet replay + geometric check + episode
fields) followed by its ``check`` (what ``simkit validate`` runs), redraws included.

Forward sampling (written only for this benchmark) = the generate-and-test approach that the
layout-first idea avoids: on the same container, boxes, arrival queue and buffer as a compiled
case, roll out random feasible placements (a uniformly random buffer box, orientation and grid
position among those that fit inside the container with the footprint fully supported) until every
box is placed or no box fits (then start again); a geometrically complete trajectory is replayed in
pybullet with the same stability check and geometric check, and counts when every placement is
valid. This is the most favourable form of forward sampling (cheap geometric rollouts, physics only
for complete candidates); a validity-equal trajectory packs every box (success ratio 1.0), as the
layout-first expert does.

Rates are per core: trajectories divided by the process CPU time (``time.process_time``), so they
do not depend on other load on the machine. Run::

    python tools/bench_packing.py --n 20 --forward-budget 20 --md bench_packing.md   # then copy into docs/benchmarks.md

``--layout-only --baseline DIR --rounds K`` times this checkout against another one (``PYTHONPATH=DIR``),
each round one fresh process per checkout, in turn (this, baseline, this, ...), and prints the ratio of
the CPU seconds per valid trajectory round by round::

    python tools/bench_packing.py --layout-only --tiers hard --n 12 --rounds 4 --baseline ../main
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from simkit.core.errors import SampleRejected
from simkit.core.seeding import episode_rng
from simkit.generators.packing.generator import PackingConfig, PackingGenerator, geometric_violations
from simkit.scenes.packing.geometry import place
from simkit.scenes.packing.layout import TIERS, PackingCase, compile_case


def bench_layout_first(tier: str, n: int, seed: int = 0) -> dict:
    """Generate + check ``n`` episodes of ``tier``; CPU seconds, rejections, check failures."""
    gen = PackingGenerator()
    gen.setup(PackingConfig(tier_mix={t: float(t == tier) for t in TIERS}))
    from simkit.episodes.codecs import decode, encode

    rejected = failed_checks = 0
    steps = 0
    physics = _time_physics()
    t0 = time.process_time()
    for i in range(n):
        redraw = 0
        while True:
            try:
                ep = gen.generate(i, episode_rng(seed, "packing-bench", i, redraw))
                break
            except SampleRejected:
                rejected += 1
                redraw += 1
        # what validate sees: the encoded and decoded fields
        sample = {name: decode(*encode(v)) for name, v in ep.fields.items()}
        failed_checks += bool(gen.check(sample))
        steps += len(ep.fields["steps"])
    cpu = time.process_time() - t0
    gen.teardown()
    physics_s = physics()
    return {
        "trajectories": n,
        "cpu_s": cpu,
        "physics_s_per_traj": physics_s / n,
        "per_core_traj_s": n / cpu,
        "s_per_traj": cpu / n,
        "rejections": rejected,
        "failed_checks": failed_checks,
        "steps": steps,
    }


def _time_physics():
    """Count the CPU seconds spent in ``PackingPhysics.place`` (pybullet drop and settle) from now on;
    returns a function that stops counting and gives the total."""
    from simkit.sims.packing.physics import PackingPhysics

    orig, total = PackingPhysics.place, [0.0]

    def place(self, *a, **k):
        t = time.process_time()
        try:
            return orig(self, *a, **k)
        finally:
            total[0] += time.process_time() - t

    PackingPhysics.place = place  # type: ignore[method-assign]

    def stop() -> float:
        PackingPhysics.place = orig  # type: ignore[method-assign]
        return total[0]

    return stop


def _random_rollout(case: PackingCase, rng: np.random.Generator):
    """One random forward rollout on the grid; the placements, or None at a dead end."""
    hm = case.container.empty_heightmap()
    placed: list[int] = []
    out = []
    L, W, Hc = case.container.size
    while len(placed) < len(case.boxes):
        options = []
        for bid in case.buffer_at(placed):
            box = case.box(bid)
            for o in box.rotations:
                lx, ly = box.footprint(o)
                if lx > L or ly > W:
                    continue
                win = np.lib.stride_tricks.sliding_window_view(hm, (lx, ly))
                zmax, zmin = win.max(axis=(2, 3)), win.min(axis=(2, 3))
                xs, ys = np.nonzero((zmax == zmin) & (zmax + box.height <= Hc))  # fits, fully supported
                options += [(bid, o, int(x), int(y)) for x, y in zip(xs, ys)]
        if not options:
            return None
        bid, o, x, y = options[int(rng.integers(len(options)))]
        hm, p = place(hm, case.box(bid), o, x, y)
        out.append(p)
        placed.append(bid)
    return out


def bench_forward(tier: str, budget_s: float, seed: int = 0) -> dict:
    """Forward sampling on compiled cases of ``tier`` for ``budget_s`` CPU seconds."""
    from simkit.sims.packing.physics import PackingPhysics

    physics = PackingConfig().physics.model_dump()
    rollouts = complete = valid = cases = 0
    t0 = time.process_time()
    rng = np.random.default_rng([seed, 4242])
    while time.process_time() - t0 < budget_s:
        case = compile_case(tier, episode_rng(seed, "packing-bench-forward", cases))
        cases += 1
        for _ in range(200):  # rollouts per case before moving to the next case
            if time.process_time() - t0 >= budget_s:
                break
            rollouts += 1
            traj = _random_rollout(case, rng)
            if traj is None:
                continue
            complete += 1
            with PackingPhysics(case.container, **physics) as world:
                ok = all(world.place(case.box(p.box_id), p).valid for p in traj)
                if ok:
                    ok = not geometric_violations(
                        case, [(case.box(i), pose) for i, pose in world.poses().items()]
                    )
            if ok:
                valid += 1
                break  # this case is done; a new case next
    cpu = time.process_time() - t0
    return {
        "cpu_s": cpu,
        "cases": cases,
        "rollouts": rollouts,
        "complete_geometric": complete,
        "trajectories": valid,
        "per_core_traj_s": valid / cpu,
        "per_core_upper_bound": (max(valid, 1)) / cpu,
    }


def _machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}"


def render_md(info: dict) -> str:
    """The markdown report of one benchmark run (``info`` as written by ``--json``)."""
    a = info["args"]
    lines = [
        "# packing benchmark: layout-first vs forward sampling",
        "",
        f"Measured {info['date']} on {info['machine']} (load average at start {info.get('load', '?')}), "
        f"Python {info['python']}, with `python tools/bench_packing.py --n {a['n']} "
        f"--forward-budget {a['forward_budget']:g}`.",
        "",
        "Rates are per core: trajectories / process CPU seconds. *Layout-first* = "
        "`PackingGenerator.generate` (compile, pybullet replay, geometric check, episode fields) + "
        "encode/decode + `check` (what `simkit validate` runs), redraws included, default config. "
        "*Forward sampling* (benchmark only) = random feasible placements (random buffer box, "
        "orientation and grid position that fits the container with the footprint fully supported) "
        "on the same kind of case (its boxes, arrival queue and buffer) until every box is placed, "
        "then pybullet replay + geometric check; a trajectory counts when every box is packed and "
        "every placement is valid, the validity the layout-first expert has (success ratio 1). When "
        "forward sampling finds none within its CPU budget, the ratio is a lower bound (one success "
        "assumed).",
        "",
        "| tier | layout-first traj/s/core | s per traj (goal hard <= 0.5) | rejections | failed checks "
        "| forward valid / rollouts (geometrically complete) | forward traj/s/core | ratio (goal >= 20x) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for tier, r in info["tiers"].items():
        lf, fw = r["layout_first"], r["forward"]
        lines.append(
            f"| {tier} | {lf['per_core_traj_s']:.2f} | {lf['s_per_traj']:.3f} | {lf['rejections']} "
            f"| {lf['failed_checks']} | {fw['trajectories']} / {fw['rollouts']} "
            f"({fw['complete_geometric']}) | {fw['per_core_traj_s']:.3f} | {r['ratio_text']} |"
        )
    return "\n".join(lines) + "\n"


def _layout_only(args) -> None:
    """``--layout-only``: per tier, CPU seconds per valid trajectory (generate + encode/decode + check) and
    the share spent in the physics replay; one JSON line per tier on stdout (and in ``--json``)."""
    import simkit

    rows = {}
    for tier in args.tiers.split(","):
        lf = bench_layout_first(tier, args.n)
        rows[tier] = lf
        print(
            json.dumps(
                {
                    "tier": tier,
                    "simkit": str(Path(simkit.__file__).parent),
                    "s_per_traj": round(lf["s_per_traj"], 4),
                    "physics_s_per_traj": round(lf["physics_s_per_traj"], 4),
                    "rejections": lf["rejections"],
                    "failed_checks": lf["failed_checks"],
                    "load": round(os.getloadavg()[0], 1),
                }
            ),
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


def _against_baseline(args) -> None:
    """``--layout-only --baseline DIR``: alternate fresh processes of this checkout and DIR, ``--rounds``
    rounds; per round and tier the s/traj of each and their ratio, then the medians (markdown table)."""
    import statistics
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    trees = {"this": root, "baseline": args.baseline.resolve()}
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--layout-only",
        "--tiers",
        args.tiers,
        "--n",
        str(args.n),
    ]
    runs: dict[str, dict[str, list[dict]]] = {t: {k: [] for k in trees} for t in args.tiers.split(",")}
    loads = [round(os.getloadavg()[0], 1)]
    for _ in range(args.rounds):
        for label, tree in trees.items():
            env = {**os.environ, "PYTHONPATH": str(tree)}
            out = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                row = json.loads(line)
                runs[row["tier"]][label].append(row)
    loads.append(round(os.getloadavg()[0], 1))
    print(
        f"{_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC, {_machine()}, load average (1 min) before/after "
        f"{loads}, {args.rounds} rounds of {args.n} trajectories per tier and checkout, medians"
    )
    print(
        "| tier | this s/traj | this physics s/traj | baseline s/traj | baseline physics s/traj | this / baseline | rejections this / baseline | failed checks |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for tier, r in runs.items():
        this, base = r["this"], r["baseline"]
        ratio = statistics.median(a["s_per_traj"] / b["s_per_traj"] for a, b in zip(this, base, strict=True))
        med = {
            f"{name}_{key}": statistics.median(x[key] for x in rows)
            for name, rows in (("this", this), ("base", base))
            for key in ("s_per_traj", "physics_s_per_traj")
        }
        rej = (sum(x["rejections"] for x in this), sum(x["rejections"] for x in base))
        failed = sum(x["failed_checks"] for x in this + base)
        print(
            f"| {tier} | {med['this_s_per_traj']:.3f} | {med['this_physics_s_per_traj']:.3f} "
            f"| {med['base_s_per_traj']:.3f} | {med['base_physics_s_per_traj']:.3f} "
            f"| {ratio:.2f}x | {rej[0]} / {rej[1]} | {failed} |"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20, help="layout-first trajectories per tier")
    ap.add_argument(
        "--forward-budget", type=float, default=20.0, help="CPU seconds of forward sampling per tier"
    )
    ap.add_argument("--tiers", default="easy,medium,hard")
    ap.add_argument("--json", type=Path, default=None, help="write the raw numbers here")
    ap.add_argument("--md", type=Path, default=None, help="write a markdown report here")
    ap.add_argument("--render", type=Path, default=None, help="only re-render --md from this --json file")
    ap.add_argument(
        "--layout-only",
        action="store_true",
        help="layout-first only (no forward sampling): the cost per trajectory",
    )
    ap.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="with --layout-only: another simkit checkout to time against",
    )
    ap.add_argument("--rounds", type=int, default=3, help="with --baseline: alternating rounds")
    args = ap.parse_args()
    if args.layout_only and args.baseline is not None:
        _against_baseline(args)
        return
    if args.layout_only:
        _layout_only(args)
        return
    if args.render:
        info = json.loads(args.render.read_text())
        (args.md or Path("bench_packing.md")).write_text(render_md(info))
        return
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None

    rows = {}
    for tier in args.tiers.split(","):
        lf = bench_layout_first(tier, args.n)
        fw = bench_forward(tier, args.forward_budget)
        if fw["trajectories"]:
            ratio = lf["per_core_traj_s"] / fw["per_core_traj_s"]
            ratio_txt = f"{ratio:.0f}x"
        else:
            ratio = lf["per_core_traj_s"] / fw["per_core_upper_bound"]
            ratio_txt = f">= {ratio:.0f}x (0 forward successes)"
        rows[tier] = {"layout_first": lf, "forward": fw, "ratio": ratio, "ratio_text": ratio_txt}
        print(
            f"{tier:6s} layout-first {lf['per_core_traj_s']:7.2f} traj/s/core ({lf['s_per_traj']:.3f} s/traj, "
            f"{lf['rejections']} rejections, {lf['failed_checks']} failed checks) | forward "
            f"{fw['trajectories']} valid of {fw['rollouts']} rollouts ({fw['complete_geometric']} complete) in "
            f"{fw['cpu_s']:.1f} s | ratio {ratio_txt}",
            flush=True,
        )

    info = {
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": _machine(),
        "load": None if load is None else round(load, 1),
        "python": platform.python_version(),
        "args": {"n": args.n, "forward_budget": args.forward_budget, "tiers": args.tiers},
        "tiers": rows,
    }
    if args.json:
        args.json.write_text(json.dumps(info, indent=2, default=str))
    if args.md:
        args.md.parent.mkdir(parents=True, exist_ok=True)
        args.md.write_text(render_md(info))


if __name__ == "__main__":
    main()
