"""Bradley-Terry Elo at scale: wall time and peak memory of ``elo_ratings`` on simulated votes.

Usage: python tools/bench_elo_scale.py [--models 1000] [--votes 200000] [--raters 200] [--bootstrap 1000]

Votes come from :func:`simkit.eval.wrop.elo.simulate_votes` (strengths N(1500, 150), 30 % ties at
equal strength). Prints one JSON object: the sizes, seconds to build the votes, seconds of the fit with
its bootstrap (wall clock and CPU of this process: on a shared machine the CPU time is the fairer
figure), and the process's peak resident memory (``ru_maxrss``) in MiB.
"""

from __future__ import annotations

import argparse
import json
import resource
import time

import numpy as np

from simkit.eval.wrop.elo import elo_ratings, simulate_votes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--votes", type=int, default=200_000)
    ap.add_argument("--raters", type=int, default=200)
    ap.add_argument("--bootstrap", type=int, default=1000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    strengths = {f"model{k:04d}": float(rng.normal(1500.0, 150.0)) for k in range(args.models)}
    t0 = time.perf_counter()
    votes = simulate_votes(strengths, args.raters, args.votes // args.raters, rng)
    t_votes = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    res = elo_ratings(votes, list(strengths), n_boot=args.bootstrap, seed=1)
    t_fit, c_fit = time.perf_counter() - t0, time.process_time() - c0
    truth = np.array(list(strengths.values()))
    truth = truth - truth.mean() + 1500.0
    print(
        json.dumps(
            {
                "models": args.models,
                "votes": len(votes),
                "raters": args.raters,
                "bootstrap": args.bootstrap,
                "seconds_votes": round(t_votes, 2),
                "seconds_fit_and_bootstrap": round(t_fit, 2),
                "cpu_seconds_fit_and_bootstrap": round(c_fit, 2),
                "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                "rmse_to_truth_elo": round(float(np.sqrt(np.mean((res.elo - truth) ** 2))), 2),
                "ci_coverage": round(float(np.mean((res.ci_low <= truth) & (truth <= res.ci_high))), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
