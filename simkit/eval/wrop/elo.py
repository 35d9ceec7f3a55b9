"""Bradley-Terry ratings on an Elo scale from pairwise preference votes, with a rater-clustered bootstrap.

The WROP protocol (spec ``wrop``, "Evaluation side"): blind pairwise judgements (A, B or tie) are
aggregated with a Bradley-Terry model into an Elo scale with mean 1500, ties count as half a win to each
side, and 1,000 bootstrap resamples clustered by rater give 95 % percentile intervals and the probability
that each model ranks first.

Model (Bradley & Terry 1952; Elo parametrisation as in Chatbot Arena, Chiang et al. 2024):
``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))``, i.e. ``sigmoid(theta_i - theta_j)`` with
``R = 1500 + 400 / ln(10) * (theta - mean(theta))``. With ``w_ij`` the (half-)wins of i over j, the
estimate maximises ``sum_ij w_ij log sigmoid(theta_i - theta_j) - |theta|^2 / (2 s^2)``: a weak Gaussian
prior (``s`` = ``prior_sd`` Elo points, default 1000) keeps a model that won or lost every game finite
(``prior_sd=None`` gives the plain maximum-likelihood estimate). Scoring a tie as half a win keeps the
estimating equations unbiased whenever the expected score of i against j is ``sigmoid(theta_i - theta_j)``.

Bootstrap (Field & Welsh 2007, cluster bootstrap): each resample draws the raters with replacement; a rater
drawn k times contributes all of its votes k times. Intervals are the 2.5 / 97.5 percentiles of the
resampled ratings; top-1 probability is the share of resamples in which a model has the highest rating
(ties for first split equally).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import InputError

ELO_MEAN = 1500.0
ELO_SCALE = 400.0 / np.log(10.0)  # Elo points per natural log-odds unit
WINNERS = ("a", "b", "tie")
COLUMNS = ("rater", "sample", "model_a", "model_b", "winner")


@dataclass(frozen=True)
class Vote:
    """One pairwise judgement: ``winner`` is ``"a"``, ``"b"`` or ``"tie"``."""

    rater: str
    sample: str
    model_a: str
    model_b: str
    winner: str


@dataclass
class EloResult:
    """Ratings of ``models`` (Elo points, mean 1500) with bootstrap summaries.

    Attributes:
        models: model names, in the order of every array below.
        elo: (M,) float64 point estimate on the full data.
        ci_low, ci_high: (M,) float64 2.5 / 97.5 percentiles of the bootstrap ratings (NaN without bootstrap).
        top1: (M,) float64 share of resamples in which the model ranks first (sums to 1).
        games: (M,) int number of judgements the model took part in; wins, ties: (M,) int.
        boot: (B, M) float64 bootstrap ratings.
        raters: number of distinct raters; votes: number of judgements used.
    """

    models: list[str]
    elo: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    top1: np.ndarray
    games: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    boot: np.ndarray
    raters: int
    votes: int
    problems: list[str] = field(default_factory=list)

    def order(self) -> list[int]:
        """Model indices from the highest rating to the lowest."""
        return [int(i) for i in np.argsort(-self.elo, kind="stable")]

    def rows(self) -> list[dict[str, Any]]:
        """One dict per model, best first: model, elo, ci_low, ci_high, top1, games, wins, ties, win_rate."""
        out = []
        for i in self.order():
            g = int(self.games[i])
            out.append(
                {
                    "model": self.models[i],
                    "elo": float(self.elo[i]),
                    "ci_low": float(self.ci_low[i]),
                    "ci_high": float(self.ci_high[i]),
                    "top1": float(self.top1[i]),
                    "games": g,
                    "wins": int(self.wins[i]),
                    "ties": int(self.ties[i]),
                    "score_rate": (self.wins[i] + 0.5 * self.ties[i]) / g if g else float("nan"),
                }
            )
        return out


def read_votes(path: str | Path, models: list[str] | None = None) -> tuple[list[Vote], list[str]]:
    """Read a votes CSV with columns ``rater, sample, model_a, model_b, winner`` (winner in a | b | tie).

    A bad row (an empty cell, an unknown winner, a model compared with itself, a model not in ``models``
    when that list is given) is skipped and reported as one line ``FILE:LINE: reason``; the rest is used.

    Returns:
        (votes, problems).

    Raises:
        InputError: the file cannot be read or lacks a required column.
    """
    p = Path(path)
    try:
        with p.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            header = [h.strip() for h in (reader.fieldnames or [])]
            missing = [c for c in COLUMNS if c not in header]
            if missing:
                raise InputError(p, f"missing column(s) {', '.join(missing)}; need {', '.join(COLUMNS)}")
            reader.fieldnames = header
            rows = list(reader)
    except OSError as exc:
        raise InputError(p, f"cannot read ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InputError(p, f"not a readable CSV file ({exc})") from None
    known = set(models) if models is not None else None
    votes: list[Vote] = []
    problems: list[str] = []
    for n, row in enumerate(rows, start=2):
        cells = {c: (row.get(c) or "").strip() for c in COLUMNS}
        reason = _row_problem(cells, known)
        if reason:
            problems.append(f"{p}:{n}: {reason}; row skipped")
            continue
        votes.append(Vote(**{**cells, "winner": cells["winner"].lower()}))
    return votes, problems


def _row_problem(cells: dict[str, str], known: set[str] | None) -> str:
    empty = [c for c in COLUMNS if not cells[c]]
    if empty:
        return f"empty {', '.join(empty)}"
    if cells["winner"].lower() not in WINNERS:
        return f"winner {cells['winner']!r} is not one of a, b, tie"
    if cells["model_a"] == cells["model_b"]:
        return f"model {cells['model_a']!r} compared with itself"
    if known is not None:
        unknown = [cells[c] for c in ("model_a", "model_b") if cells[c] not in known]
        if unknown:
            return f"unknown model {unknown[0]!r} (known: {', '.join(sorted(known))})"
    return ""


def rater_win_matrices(votes: list[Vote], models: list[str]) -> tuple[list[str], np.ndarray]:
    """Per-rater win matrices: ``W[r, i, j]`` = wins of model i over model j by rater r, a tie adding 0.5
    to both ``W[r, i, j]`` and ``W[r, j, i]``. Returns (raters, W float64 (R, M, M))."""
    index = {m: i for i, m in enumerate(models)}
    raters = sorted({v.rater for v in votes})
    rindex = {r: k for k, r in enumerate(raters)}
    W = np.zeros((len(raters), len(models), len(models)))
    for v in votes:
        r, a, b = rindex[v.rater], index[v.model_a], index[v.model_b]
        if v.winner == "a":
            W[r, a, b] += 1.0
        elif v.winner == "b":
            W[r, b, a] += 1.0
        else:
            W[r, a, b] += 0.5
            W[r, b, a] += 0.5
    return raters, W


def _objective(theta: np.ndarray, W: np.ndarray, lam: float) -> np.ndarray:
    d = theta[:, :, None] - theta[:, None, :]
    # log sigmoid(d) = -log(1 + exp(-d)), computed stably
    ll = -(W * np.logaddexp(0.0, -d)).sum(axis=(1, 2))
    return ll - 0.5 * lam * (theta**2).sum(axis=1)


def fit_bradley_terry(
    wins: np.ndarray, prior_sd: float | None = 1000.0, tol: float = 1e-10, max_iter: int = 200
) -> np.ndarray:
    """Bradley-Terry ratings (Elo points, mean 1500) of one or a batch of win matrices.

    Args:
        wins: float (M, M) or (B, M, M); ``wins[..., i, j]`` = (half-)wins of model i over model j.
        prior_sd: SD of the Gaussian prior on the ratings in Elo points (None: maximum likelihood; then
            every model must have won and lost at least half a game in a connected comparison graph).
        tol: stop when the largest Newton step is below this (log-odds units).

    Returns:
        float64 ratings of shape (M,) or (B, M), each row with mean 1500.

    Method: damped Newton on the concave penalised log-likelihood (module docstring), batched over B; the
    parameter is fixed to mean zero when there is no prior (the likelihood is shift-invariant).
    """
    W = np.asarray(wins, dtype=np.float64)
    single = W.ndim == 2
    if single:
        W = W[None]
    B, M, _ = W.shape
    lam = 0.0 if prior_sd is None else 1.0 / (prior_sd / ELO_SCALE) ** 2
    N = W + W.transpose(0, 2, 1)
    theta = np.zeros((B, M))
    f = _objective(theta, W, lam)
    eye = np.eye(M)
    ones = np.ones(M) / np.sqrt(M)
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-(theta[:, :, None] - theta[:, None, :])))
        g = (W - N * p).sum(axis=2) - lam * theta
        c = N * p * (1.0 - p)
        H = c - eye * c.sum(axis=2)[:, :, None] - lam * eye  # Hessian of the objective (c symmetric)
        if lam == 0.0:  # fix the shift: add the rank-one term -1 1^T / M, the step then has zero mean
            H = H - np.outer(ones, ones)
        step = -np.linalg.solve(H, g[:, :, None])[:, :, 0]
        t = np.ones(B)
        for _ in range(40):  # backtracking: halve the step of the resamples whose objective fell
            cand = theta + t[:, None] * step
            fc = _objective(cand, W, lam)
            bad = fc < f - 1e-12 * np.abs(f)
            if not bad.any():
                break
            t = np.where(bad, t / 2, t)
        theta, f = cand, fc
        if np.max(np.abs(t[:, None] * step)) < tol:
            break
    elo = ELO_MEAN + ELO_SCALE * (theta - theta.mean(axis=1, keepdims=True))
    return elo[0] if single else elo


def elo_ratings(
    votes: list[Vote],
    models: list[str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    prior_sd: float | None = 1000.0,
    chunk: int = 250,
) -> EloResult:
    """Fit Bradley-Terry Elo ratings and their rater-clustered bootstrap (module docstring).

    Args:
        votes: judgements (see :func:`read_votes`).
        models: the model order (default: sorted names seen in the votes).
        n_boot: bootstrap resamples (0: none; CIs are then NaN and top-1 is from the point estimate).
        seed: seed of the bootstrap's ``numpy.random.default_rng``; the same votes and seed give the same
            numbers.
        prior_sd: see :func:`fit_bradley_terry`.

    Raises:
        InputError: no usable votes.
    """
    if not votes:
        raise InputError(None, "no usable votes")
    models = sorted({v.model_a for v in votes} | {v.model_b for v in votes}) if models is None else models
    raters, Wr = rater_win_matrices(votes, models)
    W = Wr.sum(axis=0)
    elo = fit_bradley_terry(W, prior_sd)
    rng = np.random.default_rng(seed)
    R, M = len(raters), len(models)
    boots = []
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        counts = rng.multinomial(R, np.full(R, 1.0 / R), size=b).astype(np.float64)  # (b, R)
        Wb = (counts @ Wr.reshape(R, M * M)).reshape(b, M, M)
        boots.append(fit_bradley_terry(Wb, prior_sd))
    boot = np.concatenate(boots) if boots else np.zeros((0, M))
    if len(boot):
        lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
        best = boot == boot.max(axis=1, keepdims=True)
        top1 = (best / best.sum(axis=1, keepdims=True)).mean(axis=0)
    else:
        lo = hi = np.full(M, np.nan)
        best1 = elo == elo.max()
        top1 = best1 / best1.sum()
    games = (Wr.sum(axis=0) + Wr.sum(axis=0).T).sum(axis=1)
    ties = np.zeros(M, dtype=int)
    wins = np.zeros(M, dtype=int)
    index = {m: i for i, m in enumerate(models)}
    for v in votes:
        if v.winner == "tie":
            ties[index[v.model_a]] += 1
            ties[index[v.model_b]] += 1
        else:
            wins[index[v.model_a if v.winner == "a" else v.model_b]] += 1
    return EloResult(
        list(models), elo, lo, hi, top1, games.round().astype(int), wins, ties, boot, R, len(votes)
    )


def forest_plot(result: EloResult, path: str | Path, title: str = "Bradley-Terry Elo (95 % CI)") -> Path:
    """Write a forest plot PNG: one row per model (best on top), point estimate and 95 % interval.

    Raises:
        ExtraMissing: matplotlib is not installed (extra ``eval``).
    """
    from simkit.core.errors import require

    mpl = require("matplotlib", "eval")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    order = result.order()
    y = np.arange(len(order))[::-1]
    fig, ax = plt.subplots(figsize=(7.0, 0.8 + 0.38 * len(order)), dpi=120)
    est = result.elo[order]
    lo, hi = result.ci_low[order], result.ci_high[order]
    if np.all(np.isfinite(lo)):
        ax.errorbar(est, y, xerr=[est - lo, hi - est], fmt="o", color="k", ecolor="0.4", capsize=3)
    else:
        ax.plot(est, y, "o", color="k")
    ax.axvline(ELO_MEAN, color="0.7", lw=1, ls="--")
    labels = [f"{result.models[i]}  (top-1 {100 * result.top1[i]:.1f} %)" for i in order]
    ax.set_yticks(y, labels)
    ax.set_xlabel("Elo (mean 1500)")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out)
    plt.close(fig)
    return out


def simulate_votes(
    strengths: dict[str, float],
    n_raters: int,
    votes_per_rater: int,
    rng: np.random.Generator,
    tie_share: float = 0.3,
    rater_sd: float = 0.0,
) -> list[Vote]:
    """Synthetic judgements from known Elo strengths (for tests and benchmarks).

    Each vote draws a random pair and sample id; rater r judges with strengths ``strengths + u_r``,
    ``u_r ~ N(0, rater_sd^2)`` per model (a rater effect that makes votes of one rater correlated). With
    ``s = P(a beats b)`` from the Elo formula, the outcome is a tie with probability
    ``2 * tie_share * min(s, 1 - s)``, else a or b, so that the expected score of a is exactly ``s``
    (ties as half a win stay unbiased).
    """
    names = list(strengths)
    base = np.array([strengths[m] for m in names], dtype=np.float64)
    votes = []
    for r in range(n_raters):
        mine = base + rng.normal(0.0, rater_sd, size=len(names)) if rater_sd > 0 else base
        for _ in range(votes_per_rater):
            a, b = rng.choice(len(names), size=2, replace=False)
            s = 1.0 / (1.0 + 10.0 ** ((mine[b] - mine[a]) / 400.0))
            p_tie = 2.0 * tie_share * min(s, 1.0 - s)
            u = rng.random()
            winner = "tie" if u < p_tie else ("a" if u < p_tie + s - p_tie / 2 else "b")
            sample = f"s{int(rng.integers(0, 300)):03d}"
            votes.append(Vote(f"rater{r:02d}", sample, names[a], names[b], winner))
    return votes
