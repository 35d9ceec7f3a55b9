#!/usr/bin/env python
"""Cost of verified reading: MB/s of the corpus readers with and without manifest verification.

One corpus of the tests' toy generator with a large array payload per episode is read
(page cache warm, best of ``--repeat``) by:
  * bare tar: ``tarfile`` iterating every member's bytes (the floor any tar reader pays);
  * webdataset: ``webdataset.WebDataset`` raw samples (no decoding);
  * simkit raw, verify off / on: ``iter_episodes(decode_fields=False, verify=...)``;
  * simkit decoded, verify off / on: ``CorpusReader(verify=...)`` (npy/png/json decoded).
MB = 2**20 bytes of shard files.

Usage:  python tools/bench_readers.py [--n 120] [--payload-mb 1.0] [--out /tmp/simkit-bench-readers]
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
os.environ["SIMKIT_GENERATORS"] = "toy=toygen:ToyGenerator"

from simkit.adapters.reader import CorpusReader  # noqa: E402
from simkit.episodes.reader import corpus_episodes, iter_episodes, shard_paths  # noqa: E402
from simkit.executors.run import generate_corpus  # noqa: E402


def bare_tar(root: Path) -> int:
    n = 0
    for p in shard_paths(root):
        with tarfile.open(p) as tf:
            for m in tf:
                n += len(tf.extractfile(m).read())
    return n


def webdataset_raw(root: Path) -> int:
    import webdataset as wds

    return sum(
        len(v)
        for s in wds.WebDataset([str(p) for p in shard_paths(root)], shardshuffle=False)
        for k, v in s.items()
        if not k.startswith("__")
    )


def simkit_raw(root: Path, verify: bool) -> int:
    return sum(
        len(v)
        for s in iter_episodes(corpus_episodes(root), decode_fields=False, verify=verify)
        for k, v in s.items()
        if k != "__key__"
    )


def simkit_decoded(root: Path, verify: bool) -> int:
    return sum(len(s) for s in CorpusReader(root, verify=verify))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=120)
    ap.add_argument("--payload-mb", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path("/tmp/simkit-bench-readers"))
    args = ap.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    generate_corpus(
        "toy", args.n, args.out, config={"payload_bytes": int(args.payload_mb * 2**20)}, episodes_per_shard=16
    )
    mb = sum(p.stat().st_size for p in shard_paths(args.out)) / 2**20
    cases = {
        "bare tar (tarfile)": lambda: bare_tar(args.out),
        "webdataset raw": lambda: webdataset_raw(args.out),
        "simkit raw, verify off": lambda: simkit_raw(args.out, False),
        "simkit raw, verify on": lambda: simkit_raw(args.out, True),
        "simkit decoded, verify off": lambda: simkit_decoded(args.out, False),
        "simkit decoded, verify on": lambda: simkit_decoded(args.out, True),
    }
    bare_tar(args.out)  # warm the page cache
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}; corpus {args.n} episodes, {mb:.1f} MB"
    )
    base = None
    print("| reader | MB/s | vs bare tar |\n| --- | ---: | ---: |")
    for name, fn in cases.items():
        best = min(_timed(fn) for _ in range(args.repeat))
        rate = mb / best
        base = base or rate
        print(f"| {name} | {rate:.0f} | {rate / base:.2f} |")


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
