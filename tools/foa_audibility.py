"""Label audibility of foa-qa corpora: how often the direction labels agree with the audio's own DOA.

Usage:
    python tools/foa_audibility.py [--n 100] [--seed 0] [--out foa_audibility.json]

For the default config and for the version-2 ("hard") settings it draws episodes exactly as
``simkit generate`` does (a rejected sample is redrawn from a derived seed), and reports for every
direction-bearing label (``direction`` and ``localization_3d`` items) the angle between the label
and the onset-weighted DOA estimate of the episode's audio
(:func:`simkit.generators.foa.generator.direction_errors`):

- per draw: every first draw, before the label-audibility check rejects anything;
- per corpus: the episodes the corpus keeps (after redraws).

Prints a markdown table with the machine and date for docs/foa.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

import simkit.generators.foa.generator as foa_qa
from simkit.core.errors import SampleRejected
from simkit.core.seeding import episode_rng

HARD = {
    "dominance_db": None,
    "max_concurrent": None,
    "max_distance_rc": None,
    "materials": False,
    "n_sources": (1, 4),
    "n_offscreen": (2, 4),
    "distance_m": (1.0, 6.0),
    "rt60_s": (0.2, 0.6),
    "ambient_lufs": (-48.0, -38.0),
}


def _errors(ep) -> list[float]:
    x = np.asarray(ep.fields["foa"].samples, dtype=np.float64)
    return [e for _, e in foa_qa.direction_errors(x, ep.fields["foa"].sample_rate, ep.fields["qa"])]


def measure(config: dict, n: int, seed: int) -> dict:
    """First-draw and corpus label errors (degrees) over ``n`` episodes, with redraw and timing counts."""
    gen = foa_qa.FoaQaGenerator()
    gen.setup(foa_qa.FoaQaConfig(**config, features=False))
    first, kept, redraws, sources, asked = [], [], 0, 0, 0
    t0 = time.perf_counter()
    for i in range(n):
        for redraw in range(gen.max_redraws + 1):
            rng = episode_rng(seed, "foa-qa", i, redraw)
            if redraw == 0:  # the first draw as it would be without the audibility rejection
                bound, foa_qa.DOA_FAIL_DEG = foa_qa.DOA_FAIL_DEG, float("inf")
                try:
                    first += _errors(gen.generate(i, episode_rng(seed, "foa-qa", i, 0)))
                except SampleRejected:
                    pass
                finally:
                    foa_qa.DOA_FAIL_DEG = bound
            try:
                ep = gen.generate(i, rng)
            except SampleRejected:
                redraws += 1
                continue
            kept += _errors(ep)
            sources += len(ep.fields["scene"]["sources"])
            asked += sum(q["kind"] == "direction" for q in ep.fields["qa"])
            break
    return {
        "first_draw_errors": first,
        "corpus_errors": kept,
        "redraws": redraws,
        "sources": sources,
        "direction_questions": asked,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def _row(name: str, r: dict, n: int) -> str:
    f, k = np.asarray(r["first_draw_errors"]), np.asarray(r["corpus_errors"])
    return (
        f"| {name} | {n} | {r['redraws']} | {r['direction_questions']} / {r['sources']} | "
        f"{100 * np.mean(f <= 20):.1f} % ({f.size}) | {100 * np.mean(k <= 20):.1f} % ({k.size}) | "
        f"{np.median(k):.1f} | {100 * np.mean(k <= 45):.1f} % | {r['seconds'] / n:.2f} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("foa_audibility.json"))
    args = ap.parse_args()
    date = datetime.now(UTC).isoformat(timespec="seconds")
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {platform.system()}"
    print(f"# {date} {machine}; seed {args.seed}")
    print(
        "\n| settings | episodes | redraws | direction questions / sources | within 20 deg, first draws (labels) "
        "| within 20 deg, corpus (labels) | median error, corpus (deg) | within 45 deg, corpus | s/episode |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    doc = {"date": date, "machine": machine, "n": args.n}
    for name, cfg in (("default (v3)", {}), ("hard (v2 settings)", HARD)):
        r = measure(cfg, args.n, args.seed)
        doc[name] = r
        print(_row(name, r, args.n), flush=True)
    args.out.write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
