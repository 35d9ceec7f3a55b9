"""Benchmark of the wrop evaluation kit on an exam corpus: checker separation, fit metrics, throughput, Elo.

Four parts, all measured in one run:

1. Checker separation: baselines and corruptions of every exam sample (``export wrop-baselines``) are
   checked; per family and kind: mean score and pass rate, on the samples where the corruption is a
   violation (``is_violation``). The margin is the ground truth's 5th-percentile score minus each
   violation's 95th-percentile score.
2. Fit metrics of the baselines per family (the paper's target-fit table, simkit's baselines).
3. Throughput: samples/s of ``wrop-check`` and ``wrop-fit`` against the bare floor of decoding and
   resampling the same prediction files (``load_prediction`` only).
4. Elo: paper-scale synthetic votes (14 models, 20 raters, 476 judgements; 1,000 rater-clustered
   resamples): seconds of the batched Newton fit against scipy L-BFGS on each resample (the plain
   approach); and 95 % CI coverage of the truth over repeated synthetic data sets with per-rater taste,
   clustered bootstrap vs a vote-level bootstrap.

Usage::

    python tools/bench_wrop_eval.py --exam runs/wrop-exam --work /tmp/wrop-bench --out bench.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from simkit.eval.wrop.check import check_prediction, reference
from simkit.eval.wrop.corrupt import KINDS, is_violation, write_baselines
from simkit.eval.wrop.elo import elo_ratings, fit_bradley_terry, rater_win_matrices, simulate_votes
from simkit.eval.wrop.fit import group_means, video_metrics
from simkit.eval.wrop.video import iter_exam, load_prediction


def checker_part(exam: Path, base: Path) -> dict:
    rows = []
    t_check = t_load = 0.0
    n_checked = 0
    for s in iter_exam(exam):
        ref = reference(s)
        for kind in KINDS:
            t0 = time.perf_counter()
            pred = load_prediction(base / kind, s)
            t1 = time.perf_counter()
            r = check_prediction(s, pred, ref)
            t2 = time.perf_counter()
            t_load += t1 - t0
            t_check += t2 - t0
            n_checked += 1
            if r["passed"] is None:
                continue
            rows.append(
                {
                    "key": s.key,
                    "family": s.family,
                    "kind": kind,
                    "violation": kind == "ground_truth" or is_violation(s, kind),
                    "score": r["score"],
                    "seen_through": r["seen_through"],
                    "passed": r["passed"],
                }
            )
    table = {}
    for fam in sorted({r["family"] for r in rows}) + ["all"]:
        for kind in KINDS:
            sel = [
                r
                for r in rows
                if (fam == "all" or r["family"] == fam)
                and r["kind"] == kind
                and (r["violation"] or kind == "last_frame")
            ]
            if sel:
                table[f"{fam}/{kind}"] = _stats(sel)
    gt = table["all/ground_truth"]
    margins = {k: gt["score_p5"] - table[f"all/{k}"]["score_p95"] for k in KINDS[2:-1] if f"all/{k}" in table}
    if "all/seen_through" in table:
        margins["seen_through"] = table["all/seen_through"]["ghost_p5"] - gt["ghost_p95"]
    return {
        "table": table,
        "margins": margins,
        "check_samples_per_s": n_checked / t_check,
        "load_only_samples_per_s": n_checked / t_load,
        "rows": rows,
    }


def _stats(sel: list[dict]) -> dict:
    """n, pass rate, and mean / 5th / 95th percentile of the presence score and of the ghost evidence."""
    out: dict = {"n": len(sel), "pass_rate": float(np.mean([r["passed"] for r in sel]))}
    for name, key in (("score", "score"), ("ghost", "seen_through")):
        v = np.array([r[key] for r in sel if r[key] is not None])
        if len(v):
            out.update({name: float(v.mean()), f"{name}_p5": float(np.percentile(v, 5))})
            out[f"{name}_p95"] = float(np.percentile(v, 95))
    return out


def fit_part(exam: Path, base: Path, kinds: list[str], limit: int | None) -> dict:
    out = {}
    t_fit = t_load = 0.0
    n = 0
    for kind in kinds:
        rows = []
        for i, s in enumerate(iter_exam(exam)):
            if limit is not None and i >= limit:
                break
            t0 = time.perf_counter()
            pred = load_prediction(base / kind, s)
            t1 = time.perf_counter()
            m = video_metrics(pred, s.target_video)
            t2 = time.perf_counter()
            t_load += t1 - t0
            t_fit += t2 - t0
            n += 1
            rows.append({"family": s.family, **m})
        out[kind] = group_means(rows, "family", [k for k in rows[0] if k != "family"])
    return {"table": out, "fit_samples_per_s": n / t_fit, "load_only_samples_per_s": n / t_load}


def _scipy_fit(W: np.ndarray) -> np.ndarray:
    from scipy.optimize import minimize

    M = W.shape[0]
    lam = 1.0 / (1000.0 * np.log(10) / 400.0) ** 2

    def f(theta):
        d = theta[:, None] - theta[None, :]
        p = 1 / (1 + np.exp(-d))
        val = (W * np.logaddexp(0, -d)).sum() + 0.5 * lam * theta @ theta
        g = -((W - (W + W.T) * p).sum(1)) + lam * theta
        return val, g

    th = minimize(f, np.zeros(M), jac=True, method="L-BFGS-B").x
    return 1500 + 400 / np.log(10) * (th - th.mean())


def elo_part(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    strengths = dict(zip([f"model{i:02d}" for i in range(14)], np.linspace(1250, 1750, 14)))
    votes = simulate_votes(strengths, 20, 24, rng, rater_sd=60.0)[:476]
    t0 = time.perf_counter()
    res = elo_ratings(votes, list(strengths), n_boot=1000, seed=1)
    t_newton = time.perf_counter() - t0
    raters, Wr = rater_win_matrices(votes, list(strengths))
    R = len(raters)
    t0 = time.perf_counter()
    rs = np.random.default_rng(1)
    scipy_boot = []
    for _ in range(1000):
        c = rs.multinomial(R, np.full(R, 1 / R)).astype(float)
        scipy_boot.append(_scipy_fit(np.tensordot(c, Wr, 1)))
    t_scipy = time.perf_counter() - t0
    agree = float(np.abs(np.percentile(scipy_boot, [2.5, 97.5], axis=0) - [res.ci_low, res.ci_high]).max())
    return {
        "paper_scale_seconds_newton": t_newton,
        "paper_scale_seconds_scipy_lbfgs": t_scipy,
        "ci_max_abs_difference_elo": agree,
        **coverage(),
    }


def coverage(reps: int = 60, n_boot: int = 400) -> dict:
    truth_d = {f"m{i}": v for i, v in enumerate([1700.0, 1600, 1550, 1500, 1450, 1200])}
    truth = np.array(list(truth_d.values()))
    clustered, naive = [], []
    for k in range(reps):
        rng = np.random.default_rng(1000 + k)
        votes = simulate_votes(truth_d, 12, 40, rng, rater_sd=120.0)
        res = elo_ratings(votes, list(truth_d), n_boot=n_boot, seed=k)
        clustered.append((res.ci_low <= truth) & (truth <= res.ci_high))
        _, Wr = rater_win_matrices(votes, list(truth_d))
        per_vote = np.stack([rater_win_matrices([v], list(truth_d))[1][0] for v in votes])
        idx = rng.integers(0, len(votes), size=(n_boot, len(votes)))
        Wb = np.stack([per_vote[i].sum(0) for i in idx])
        nb = fit_bradley_terry(Wb)
        lo, hi = np.percentile(nb, [2.5, 97.5], axis=0)
        naive.append((lo <= truth) & (truth <= hi))
    return {"coverage_clustered": float(np.mean(clustered)), "coverage_vote_level": float(np.mean(naive))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--exam", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True, help="folder for the baseline videos")
    ap.add_argument("--out", type=Path, default=None, help="write all numbers as JSON here")
    ap.add_argument("--skip-fit", action="store_true")
    ap.add_argument("--fit-limit", type=int, default=None, help="fit metrics on the first K samples only")
    ap.add_argument("--fit-kinds", default="ground_truth,last_frame,deleted,frozen")
    a = ap.parse_args()
    t0 = time.perf_counter()
    if not (a.work / "violations.json").exists():
        write_baselines(iter_exam(a.exam), a.work)
    res: dict = {"baselines_seconds": time.perf_counter() - t0}
    res["checker"] = checker_part(a.exam, a.work)
    if not a.skip_fit:
        res["fit"] = fit_part(a.exam, a.work, a.fit_kinds.split(","), a.fit_limit)
    res["elo"] = elo_part()
    summary = {k: v for k, v in res.items() if k != "checker"} | {
        "checker": {k: v for k, v in res["checker"].items() if k != "rows"}
    }
    print(json.dumps(summary, indent=1))
    if a.out:
        a.out.write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
