#!/usr/bin/env python
"""Benchmark the episode engine: writer throughput and engine overhead per episode.

For each case (episode work time in ms, payload bytes) it runs:
  * bare: a plain loop that does the same work without the engine -- seed an rng,
    generate the episode, encode its fields, append the members to one tar file;
  * engine: ``generate_corpus`` with one in-process worker (partials, shard assembly,
    manifest, corpus.json, checksums).
and reports episodes/s, MB/s and the engine's overhead relative to the bare loop.

Usage:  python tools/bench_engine.py [--n 40] [--out /tmp/simkit-bench]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tarfile
import time
from pathlib import Path

import numpy as np
from pydantic import Field

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ["SIMKIT_GENERATORS"] = "bench=bench_engine:BenchGenerator"

from simkit.core.episode import Episode
from simkit.core.generator import Generator, GeneratorConfig
from simkit.core.seeding import episode_rng
from simkit.episodes.codecs import encode
from simkit.executors.run import generate_corpus


class BenchConfig(GeneratorConfig):
    work_ms: float = Field(1.0, ge=0, description="CPU work per episode (busy numpy loop)")
    payload_bytes: int = Field(1000, ge=0, description="bytes of array payload per episode")


class BenchGenerator(Generator):
    name = "bench"
    version = "1"
    description = "engine benchmark generator"
    Config = BenchConfig

    def generate(self, index, rng):
        cfg = self.config
        t_end = time.perf_counter() + cfg.work_ms / 1000
        acc = np.zeros(64)
        while time.perf_counter() < t_end:  # deterministic result, time-bounded work
            acc += np.sin(np.arange(64) * 0.1)
        payload = rng.integers(0, 256, size=cfg.payload_bytes, dtype=np.uint8)
        return Episode(
            {"payload": payload, "stats": {"i": index, "s": float(payload.sum())}},
            params={"structural": {"work_ms": cfg.work_ms}, "surface": {}},
        )


def bare_loop(cfg: BenchConfig, n: int, out: Path) -> float:
    gen = BenchGenerator()
    gen.setup(cfg)
    t0 = time.perf_counter()
    with tarfile.open(out, "w") as tf:
        for i in range(n):
            ep = gen.generate(i, episode_rng(0, "bench", i))
            for name, value in ep.fields.items():
                ext, data = encode(value)
                info = tarfile.TarInfo(f"bench_{i:08d}.{name}.{ext}")
                info.size = len(data)
                import io

                tf.addfile(info, io.BytesIO(data))
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--out", type=Path, default=Path("/tmp/simkit-bench-engine"))
    args = ap.parse_args()
    cases = [(0.0, 1_000), (0.0, 4_000_000), (10.0, 1_000), (50.0, 1_000), (50.0, 4_000_000)]
    print(
        f"# simkit engine benchmark  {time.strftime('%Y-%m-%d')}  {platform.processor() or platform.machine()}  "
        f"{os.cpu_count()} cpus  python {platform.python_version()}"
    )
    print("| work ms | payload | bare ep/s | engine ep/s | engine MB/s | overhead/ep ms | overhead % |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for work_ms, payload in cases:
        n = args.n if payload < 1_000_000 else max(10, args.n // 4)
        cfg = BenchConfig(work_ms=work_ms, payload_bytes=payload)
        shutil.rmtree(args.out, ignore_errors=True)
        args.out.mkdir(parents=True)
        bare = min(bare_loop(cfg, n, args.out / f"bare{k}.tar") for k in range(2))
        engine = []
        for k in range(2):
            d = args.out / f"engine{k}"
            t0 = time.perf_counter()
            generate_corpus("bench", n, d, config=cfg.model_dump(), episodes_per_shard=16)
            engine.append(time.perf_counter() - t0)
            mb = sum(p.stat().st_size for p in (d / "shards").glob("*.tar")) / 2**20
        eng = min(engine)
        over = (eng - bare) / n * 1000
        print(
            f"| {work_ms:.0f} | {payload:,} | {n / bare:.1f} | {n / eng:.1f} | {mb / eng:.1f} | "
            f"{over:.2f} | {100 * (eng - bare) / bare:.1f} |"
        )
    shutil.rmtree(args.out, ignore_errors=True)


if __name__ == "__main__":
    main()
