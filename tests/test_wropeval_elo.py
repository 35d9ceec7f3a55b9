"""Bradley-Terry Elo with a rater-clustered bootstrap (simkit.eval.wrop.elo, simkit eval wrop-elo)."""

import csv
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from simkit.cli import app
from simkit.core.errors import InputError
from simkit.eval.wrop.elo import (
    ELO_SCALE,
    Vote,
    elo_ratings,
    fit_bradley_terry,
    read_votes,
    simulate_votes,
)

TRUTH = {"alpha": 1700.0, "beta": 1600.0, "gamma": 1550.0, "delta": 1500.0, "eps": 1450.0, "zeta": 1200.0}


def test_two_models_analytic_with_ties_as_half_wins():
    # a beats b 3 times, b beats a once, 2 ties -> 4 vs 2 half-wins: MLE R_a - R_b = 400 log10(4 / 2)
    votes = [Vote("r", "s", "a", "b", w) for w in ("a", "a", "a", "b", "tie", "tie")]
    res = elo_ratings(votes, n_boot=0, prior_sd=None)
    diff = 400 * np.log10(2.0)
    assert res.models == ["a", "b"]
    np.testing.assert_allclose(res.elo, [1500 + diff / 2, 1500 - diff / 2], atol=1e-6)
    assert list(res.ties) == [2, 2] and list(res.wins) == [3, 1] and list(res.games) == [6, 6]
    # all ties: equal strength; a tie is exactly half a win each way
    tied = elo_ratings([Vote("r", "s", "a", "b", "tie")] * 4, n_boot=0, prior_sd=None)
    np.testing.assert_allclose(tied.elo, [1500, 1500], atol=1e-9)
    W = np.array([[0, 2.0], [2.0, 0]])
    np.testing.assert_allclose(fit_bradley_terry(W, None), tied.elo, atol=1e-9)


def test_mle_satisfies_the_score_equations():
    # Zermelo's condition: at the MLE each model's expected score equals its observed (half-)wins
    rng = np.random.default_rng(3)
    W = rng.integers(1, 9, size=(5, 5)).astype(float)
    np.fill_diagonal(W, 0)
    elo = fit_bradley_terry(W, None)
    assert elo.mean() == pytest.approx(1500)
    theta = (elo - 1500) / ELO_SCALE
    p = 1 / (1 + np.exp(-(theta[:, None] - theta[None, :])))
    N = W + W.T
    np.testing.assert_allclose((N * p).sum(1) - np.diag(N * p), W.sum(1), rtol=1e-8)


def test_prior_keeps_an_unbeaten_model_finite_and_ordered():
    W = np.array([[0, 10.0, 10], [0, 0, 6], [0, 4, 0]])  # model 0 never lost
    elo = fit_bradley_terry(W)
    assert np.all(np.isfinite(elo)) and elo[0] > elo[1] > elo[2]
    assert elo.mean() == pytest.approx(1500)


def test_recovers_known_strengths():
    votes = simulate_votes(TRUTH, n_raters=40, votes_per_rater=60, rng=np.random.default_rng(0))
    res = elo_ratings(votes, list(TRUTH), n_boot=200, seed=1)
    truth = np.array(list(TRUTH.values()))
    assert [res.models[i] for i in res.order()] == list(TRUTH)  # rank order recovered
    assert np.max(np.abs(res.elo - truth)) < 45  # Elo points; ~2400 votes
    assert np.all((res.ci_low <= res.elo) & (res.elo <= res.ci_high))
    assert res.top1.sum() == pytest.approx(1.0) and res.top1[0] > 0.9


def test_rater_clustered_ci_coverage_is_near_nominal():
    # raters with their own taste (per-rater strength noise) make votes of one rater correlated; the
    # clustered bootstrap's 95 % intervals must still cover the truth at about the nominal rate
    truth = np.array(list(TRUTH.values()))
    cover = []
    for k in range(40):
        rng = np.random.default_rng(100 + k)
        votes = simulate_votes(TRUTH, n_raters=20, votes_per_rater=24, rng=rng, rater_sd=60.0)
        res = elo_ratings(votes, list(TRUTH), n_boot=300, seed=k)
        cover.append((res.ci_low <= truth) & (truth <= res.ci_high))
    rate = float(np.mean(cover))
    assert 0.87 <= rate <= 0.99, rate


def test_bootstrap_is_deterministic_and_resamples_raters():
    votes = simulate_votes(TRUTH, 10, 20, np.random.default_rng(5))
    a = elo_ratings(votes, n_boot=50, seed=7)
    b = elo_ratings(votes, n_boot=50, seed=7)
    np.testing.assert_array_equal(a.boot, b.boot)
    assert a.boot.shape == (50, 6)
    np.testing.assert_allclose(a.boot.mean(axis=1), 1500)
    # one rater only: every cluster resample is the full data, so the intervals collapse on the estimate
    one = [Vote("solo", v.sample, v.model_a, v.model_b, v.winner) for v in votes]
    r1 = elo_ratings(one, n_boot=20, seed=0)
    np.testing.assert_allclose(r1.ci_low, r1.elo, atol=1e-6)
    np.testing.assert_allclose(r1.ci_high, r1.elo, atol=1e-6)


def _write(path, rows, header=("rater", "sample", "model_a", "model_b", "winner")):
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_read_votes_reports_bad_rows_and_keeps_the_rest(tmp_path):
    p = _write(
        tmp_path / "v.csv",
        [
            ("r1", "s1", "m1", "m2", "a"),
            ("r1", "s2", "m1", "m1", "b"),  # self-comparison
            ("r2", "s1", "m1", "m9", "a"),  # unknown model
            ("r2", "s2", "m2", "m1", "maybe"),  # bad winner
            ("r2", "", "m2", "m1", "tie"),  # empty cell
            ("r3", "s3", "m2", "m1", "TIE"),
        ],
    )
    votes, problems = read_votes(p, ["m1", "m2"])
    assert [v.winner for v in votes] == ["a", "tie"]
    assert len(problems) == 4
    assert problems[0].startswith(f"{p}:3: model 'm1' compared with itself")
    assert "unknown model 'm9'" in problems[1] and ":5:" in problems[2] and "empty sample" in problems[3]
    with pytest.raises(InputError, match="missing column"):
        read_votes(_write(tmp_path / "bad.csv", [("a", "b")], header=("rater", "who")))


def test_cli_table_files_and_errors(tmp_path):
    votes = simulate_votes(TRUTH, 12, 30, np.random.default_rng(2))
    rows = [(v.rater, v.sample, v.model_a, v.model_b, v.winner) for v in votes]
    p = _write(tmp_path / "votes.csv", rows + [("r9", "s", "alpha", "alpha", "a")])
    out = tmp_path / "elo"
    r = CliRunner().invoke(
        app, ["eval", "wrop-elo", "--votes", str(p), "--bootstrap", "100", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    alpha = next(line for line in lines if " alpha " in line)
    res = json.loads((out / "elo.json").read_text())
    assert res["bootstrap"] == 100 and res["models"][0]["model"] == "alpha"
    assert f"{res['models'][0]['elo']:.1f}" in alpha  # the name and its Elo on one line
    assert "compared with itself" in r.output
    png = (out / "elo_forest.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    bad = CliRunner().invoke(app, ["eval", "wrop-elo", "--votes", str(tmp_path / "nope.csv")])
    assert bad.exit_code == 2 and "nope.csv: cannot read" in bad.output and "Traceback" not in bad.output


def test_without_a_prior_an_unbeaten_model_is_one_clear_error(tmp_path):
    from typer.testing import CliRunner

    from simkit.cli import app
    from simkit.core.errors import InputError

    votes = [Vote(f"r{k % 3}", "s", "champ", other, "a") for k in range(12) for other in ("x", "y")]
    votes += [Vote("r0", "s", "x", "y", w) for w in ("a", "b")]
    with pytest.raises(InputError, match="no maximum-likelihood ratings without a prior"):
        elo_ratings(votes, n_boot=0, prior_sd=None)
    assert np.isfinite(elo_ratings(votes, n_boot=5, prior_sd=1000.0).elo).all()
    csv = tmp_path / "votes.csv"
    csv.write_text(
        "rater,sample,model_a,model_b,winner\n"
        + "".join(f"{v.rater},{v.sample},{v.model_a},{v.model_b},{v.winner}\n" for v in votes)
    )
    r = CliRunner().invoke(
        app, ["eval", "wrop-elo", "--votes", str(csv), "--prior-sd", "0", "--bootstrap", "5"]
    )
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no maximum-likelihood ratings"), r.output


def test_bootstrap_resamples_without_an_mle_are_counted_and_left_out():
    # two raters: one saw b beat a, one saw a beat b; a resample of only one of them has no MLE
    votes = [Vote("r1", "s", "a", "b", "a"), Vote("r2", "s", "a", "b", "b")]
    res = elo_ratings(votes, n_boot=40, seed=0, prior_sd=None)
    assert res.problems and res.problems[0].endswith(
        "bootstrap resamples have no maximum-likelihood ratings and are left out"
    )
    failed = int(res.problems[0].split()[0])
    assert 0 < failed < 40 and len(res.boot) == 40 - failed
    np.testing.assert_allclose(res.boot, 1500.0, atol=1e-9)  # the resamples that fit hold both raters once


def test_counts_are_sparse_and_memory_is_linear_in_the_votes():
    import tracemalloc

    from simkit.eval.wrop.elo import pair_counts

    rng = np.random.default_rng(0)
    strengths = {f"m{k:03d}": float(rng.normal(1500, 100)) for k in range(400)}
    votes = simulate_votes(strengths, n_raters=50, votes_per_rater=100, rng=rng)
    _, c = pair_counts(votes, list(strengths))
    assert len(c.rater) <= len(votes) and len(c.i) <= len(votes)
    wij, wji = c.totals()
    assert wij.sum() + wji.sum() == pytest.approx(len(votes))  # every vote counted once (a tie 0.5 + 0.5)
    tracemalloc.start()
    elo_ratings(votes, list(strengths), n_boot=3, seed=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # a dense (raters, models, models) float64 array alone is 50 * 400 * 400 * 8 = 64 MB; the fit needs
    # a few (models, models) Hessians (1.3 MB each) and arrays of the votes' length
    assert peak < 20 * 2**20, peak


def test_batched_bootstrap_matches_a_full_fit_of_each_resample():
    # the bootstrap fits its resamples in batches with the k-step stops (BOOT_*): each resample must
    # still agree with a tightly converged single fit of the same rater counts (same seed, same draws)
    from simkit.eval.wrop.elo import ELO_MEAN, fit_pairs, pair_counts

    rng = np.random.default_rng(3)
    strengths = {f"m{k:02d}": float(rng.normal(1500, 150)) for k in range(40)}
    votes = simulate_votes(strengths, n_raters=12, votes_per_rater=150, rng=rng)
    res = elo_ratings(votes, list(strengths), n_boot=11, seed=4)
    raters, c = pair_counts(votes, list(strengths))
    R = len(raters)
    counts = np.random.default_rng(4).multinomial(R, np.full(R, 1.0 / R), size=11).astype(float)
    for k in range(11):
        wij, wji = c.totals(counts[k])
        ref = ELO_MEAN + ELO_SCALE * fit_pairs(c.models, c.i, c.j, wij, wji, 1000.0, tol=1e-12)
        np.testing.assert_allclose(res.boot[k], ref, atol=0.05)
    assert np.ptp(res.boot, axis=0).mean() > 5.0  # the resamples do differ (the test is not trivial)
