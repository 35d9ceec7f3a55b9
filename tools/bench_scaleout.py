#!/usr/bin/env python
"""Scale-out benchmark: Ray nodes without a shared disk, and the cost of an object store per shard.

Part 1, throughput scaling: ``simkit generate packing`` (CPU-bound: physics settling per box) on a
Ray cluster of 1, 2 and 4 nodes started on this machine (``ray.cluster_utils.Cluster``, one CPU per
node), each writing whole shards straight to a local S3 endpoint (moto's server through s3fs). The
baseline is the local executor with one in-process worker writing to a local directory, in the same
run. Episodes/s exclude cluster start-up. On a machine with C cores no more than C nodes can run at
once: the 4-node figure shows the engine's behaviour when nodes outnumber cores, not extra speed.

Part 2, object-store overhead per shard: the tests' toy generator (almost no work per episode) writes
the same corpus to a local directory and to the S3 endpoint; the difference divided by the shards
written is the cost the object store adds per shard (upload of the tar, then of the rows object, a
listing, the manifest and corpus.json PUTs). Reading: ``CorpusReader`` (verified, decoded) over both.

Usage:  python tools/bench_scaleout.py [--nodes 1 2 4] [--n 48] [--per-shard 4] [--toy-shards 32]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
os.environ["SIMKIT_GENERATORS"] = "toy=toygen:ToyGenerator"

from rayhelp import start_cluster  # noqa: E402
from s3help import make_bucket, moto_s3  # noqa: E402

from simkit.adapters.reader import CorpusReader  # noqa: E402
from simkit.executors.run import generate_corpus  # noqa: E402


def ray_run(nodes: int, n: int, per_shard: int, url: str) -> float:
    """Seconds for ``generate_corpus(packing, n)`` on a fresh cluster of ``nodes`` one-CPU nodes."""
    cluster, _ = start_cluster(nodes, include_dashboard=False)
    try:
        t0 = time.perf_counter()
        generate_corpus(
            "packing", n, url, episodes_per_shard=per_shard, executor="ray", address=cluster.address
        )
        return time.perf_counter() - t0
    finally:
        cluster.shutdown()


def scaling(args: argparse.Namespace, tmp: Path) -> None:
    t0 = time.perf_counter()
    generate_corpus("packing", args.n, tmp / "local-packing", episodes_per_shard=args.per_shard)
    base = time.perf_counter() - t0
    print(f"\n## Ray nodes without a shared disk: packing, {args.n} episodes, {args.per_shard} per shard\n")
    print("| run | episodes/s | vs local 1 worker |")
    print("|---|---:|---:|")
    print(f"| local executor, 1 worker, local dir (baseline) | {args.n / base:.2f} | 1.00x |")
    make_bucket("bench-ray")
    for k in args.nodes:
        s = ray_run(k, args.n, args.per_shard, f"s3://bench-ray/nodes{k}")
        print(f"| Ray, {k} node{'s' if k > 1 else ''} x 1 CPU, to S3 | {args.n / s:.2f} | {base / s:.2f}x |")


def _best(fn, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def store_overhead(args: argparse.Namespace, tmp: Path) -> None:
    per = 4
    n = args.toy_shards * per
    cfg = {"payload_bytes": args.payload_kb * 1024}
    make_bucket("bench-store")
    runs = {"local": iter(range(args.repeat)), "s3": iter(range(args.repeat))}

    def gen(where: str) -> None:
        k = next(runs[where])
        out = str(tmp / f"toy{k}") if where == "local" else f"s3://bench-store/toy{k}"
        generate_corpus("toy", n, out, config=cfg, episodes_per_shard=per)

    local, s3 = _best(lambda: gen("local"), args.repeat), _best(lambda: gen("s3"), args.repeat)
    shards = args.toy_shards
    print(f"\n## Object-store overhead: toy generator, {n} episodes, {shards} shards of {per}\n")
    print("| where | run s | ms per shard | episodes/s |")
    print("|---|---:|---:|---:|")
    print(f"| local directory (baseline) | {local:.2f} | {1000 * local / shards:.1f} | {n / local:.1f} |")
    print(f"| S3 endpoint on loopback (moto) | {s3:.2f} | {1000 * s3 / shards:.1f} | {n / s3:.1f} |")
    print(
        f"\nobject store adds {1000 * (s3 - local) / shards:.1f} ms per shard ({s3 / local:.2f}x the local run)"
    )
    rl = _best(lambda: sum(1 for _ in CorpusReader(tmp / "toy0")), args.repeat)
    rs = _best(lambda: sum(1 for _ in CorpusReader("s3://bench-store/toy0")), args.repeat)
    print("\n| verified read (CorpusReader) | episodes/s | vs local |")
    print("|---|---:|---:|")
    print(f"| local directory | {n / rl:.1f} | 1.00x |")
    print(f"| S3 endpoint on loopback | {n / rs:.1f} | {rl / rs:.2f}x |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--n", type=int, default=48, help="packing episodes per Ray run")
    ap.add_argument("--per-shard", type=int, default=4, help="packing episodes per shard (= per Ray task)")
    ap.add_argument("--toy-shards", type=int, default=32)
    ap.add_argument("--payload-kb", type=int, default=64, help="toy payload per episode, KiB")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-ray", action="store_true")
    ap.add_argument("--skip-store", action="store_true")
    args = ap.parse_args()
    print(
        f"# simkit scale-out benchmark  {time.strftime('%Y-%m-%d')}  {platform.processor() or platform.machine()}  "
        f"{os.cpu_count()} cpus  python {platform.python_version()}"
    )
    tmp = Path(tempfile.mkdtemp(prefix="simkit-bench-scaleout-"))
    try:
        with moto_s3():
            if not args.skip_store:
                store_overhead(args, tmp)
            if not args.skip_ray:
                scaling(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
