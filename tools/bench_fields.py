#!/usr/bin/env python
"""Cost of the engine's field check (``assert_episode``) next to producing the episode.

For each shipped generator, at its ``smoke_config`` (small episodes, where the check weighs most),
it generates ``--n`` episodes in this process and times, per episode: ``generate``, ``encode`` of
every field (the bare baseline the engine cannot avoid) and ``assert_episode`` against the
declaration. Reports the check in microseconds and as a share of generate + encode.

Usage:  python tools/bench_fields.py [--n 10]
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from simkit.core.fields import assert_episode
from simkit.core.registry import load
from simkit.core.seeding import episode_rng
from simkit.episodes.codecs import encode

GENERATORS = ("packing", "foa-qa", "wrop")


def measure(name: str, n: int) -> tuple[float, float, float]:
    """Median (generate s, encode s, check s) per episode over ``n`` episodes of ``name`` at its smoke
    config (medians: the machine is shared, and a single descheduled call would dominate a mean)."""
    cls = load(name)
    gen = cls()
    gen.setup(cls.Config.model_validate(cls.smoke_config))
    warm = gen.generate(0, episode_rng(0, name, 0))  # warm up (imports, renderer start)
    assert_episode(name, cls.fields, warm.fields)
    t_gen, t_enc, t_chk = [], [], []
    try:
        for i in range(1, n + 1):
            t0 = time.perf_counter()
            ep = gen.generate(i, episode_rng(0, name, i))
            t1 = time.perf_counter()
            for value in ep.fields.values():
                encode(value)
            t2 = time.perf_counter()
            assert_episode(name, cls.fields, ep.fields)
            t3 = time.perf_counter()
            t_gen.append(t1 - t0)
            t_enc.append(t2 - t1)
            t_chk.append(t3 - t2)
    finally:
        gen.teardown()
    return float(np.median(t_gen)), float(np.median(t_enc)), float(np.median(t_chk))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10, help="episodes per generator")
    args = ap.parse_args()
    print(f"{platform.machine()} {platform.system()}, Python {platform.python_version()}, n={args.n}")
    print("| generator | generate ms | encode ms | check us | check / (generate + encode) |")
    print("|---|---:|---:|---:|---:|")
    for name in GENERATORS:
        g, e, c = measure(name, args.n)
        print(f"| {name} | {g * 1e3:.2f} | {e * 1e3:.2f} | {c * 1e6:.1f} | {100 * c / (g + e):.4f} % |")


if __name__ == "__main__":
    main()
