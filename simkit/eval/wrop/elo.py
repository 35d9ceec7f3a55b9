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
#: the score of model_a for each winner value (a tie is half a win)
SCORE = {"a": 1.0, "b": 0.0, "tie": 0.5}
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


@dataclass(frozen=True)
class PairCounts:
    """Sparse (half-)win counts: one entry per (rater, model pair) that has at least one vote.

    ``i``, ``j``: (P,) int64 model indices of the compared pairs, ``i < j``; per entry k of ``rater``,
    ``pair``, ``wij``, ``wji`` (each (K,), K <= votes): rater index, pair index into ``i``/``j``, and the
    (half-)wins of ``i[pair]`` over ``j[pair]`` and back. Memory is linear in the votes, whatever the number
    of models (a dense (raters, models, models) array grows with the square of the models).
    """

    models: int
    raters: int
    i: np.ndarray
    j: np.ndarray
    rater: np.ndarray
    pair: np.ndarray
    wij: np.ndarray
    wji: np.ndarray

    def totals(self, rater_weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(wij, wji) per pair, each (P,) float64, summed over raters weighted by ``rater_weights`` (R,)
        (a rater drawn k times by the bootstrap counts k times); all weights 1 when ``None``."""
        w = None if rater_weights is None else rater_weights[self.rater]
        a = np.bincount(self.pair, self.wij if w is None else w * self.wij, minlength=len(self.i))
        b = np.bincount(self.pair, self.wji if w is None else w * self.wji, minlength=len(self.i))
        return a, b


def pair_counts(votes: list[Vote], models: list[str]) -> tuple[list[str], PairCounts]:
    """The sparse counts of ``votes`` (a tie adds 0.5 each way). Returns (sorted rater names, counts)."""
    index = {m: i for i, m in enumerate(models)}
    raters = sorted({v.rater for v in votes})
    rindex = {r: k for k, r in enumerate(raters)}
    a = np.array([index[v.model_a] for v in votes], dtype=np.int64)
    b = np.array([index[v.model_b] for v in votes], dtype=np.int64)
    r = np.array([rindex[v.rater] for v in votes], dtype=np.int64)
    score = np.array([SCORE[v.winner] for v in votes])
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    s_lo = np.where(a == lo, score, 1.0 - score)  # the score of the lower-indexed model of the pair
    M = len(models)
    pairs, pair_of = np.unique(lo * M + hi, return_inverse=True)
    cells, cell_of = np.unique(r * len(pairs) + pair_of, return_inverse=True)
    wij = np.bincount(cell_of, s_lo, minlength=len(cells))
    wji = np.bincount(cell_of, 1.0 - s_lo, minlength=len(cells))
    counts = PairCounts(
        M, len(raters), pairs // M, pairs % M, cells // len(pairs), cells % len(pairs), wij, wji
    )
    return raters, counts


def rater_win_matrices(votes: list[Vote], models: list[str]) -> tuple[list[str], np.ndarray]:
    """Per-rater dense win matrices ``W[r, i, j]`` (float64 (R, M, M), a tie 0.5 each way), for small
    numbers of models; the fit itself uses :func:`pair_counts`."""
    raters, c = pair_counts(votes, models)
    W = np.zeros((len(raters), c.models, c.models))
    np.add.at(W, (c.rater, c.i[c.pair], c.j[c.pair]), c.wij)
    np.add.at(W, (c.rater, c.j[c.pair], c.i[c.pair]), c.wji)
    return raters, W


def _pair_terms(theta: np.ndarray, sys: Any, wij, wji, lam: float) -> tuple[float, np.ndarray]:
    """(objective, p): the penalised log-likelihood at ``theta`` and ``p = sigmoid(theta_i - theta_j)`` per
    pair, from one exponential per pair (log sigmoid(d) = min(d, 0) - log1p(exp(-|d|)), stable)."""
    d = sys.D @ theta
    e = np.exp(-np.abs(d))
    soft = np.log1p(e)
    ll = (wij * (np.minimum(d, 0.0) - soft)).sum() + (wji * (np.minimum(-d, 0.0) - soft)).sum()
    p = np.where(d >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return float(ll - 0.5 * lam * (theta**2).sum()), p


def _has_mle(M: int, i: np.ndarray, j: np.ndarray, wij: np.ndarray, wji: np.ndarray) -> bool:
    """Zermelo/Ford condition: the maximum-likelihood ratings exist iff the directed graph "i won (half a
    game) against j" is strongly connected (else some group of models won, or lost, every game it played
    against the rest, and its rating runs to infinity)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if M == 1:
        return True
    src = np.concatenate([i[wij > 0], j[wji > 0]])
    dst = np.concatenate([j[wij > 0], i[wji > 0]])
    g = coo_matrix((np.ones(len(src)), (src, dst)), shape=(M, M))
    return connected_components(g, directed=True, connection="strong")[0] == 1


def _neg_hessian(M: int, i: np.ndarray, j: np.ndarray, c: np.ndarray, lam: float) -> np.ndarray:
    """Minus the Hessian of the objective, (M, M) float64: the graph Laplacian of the pair curvatures ``c``
    plus ``lam`` I, plus ``1 1^T / M`` without a prior (which fixes the shift and keeps it definite)."""
    A: np.ndarray = np.bincount(i * M + j, -c, minlength=M * M).reshape(M, M).astype(np.float64)
    A = A + A.T
    A[np.diag_indices(M)] += np.bincount(i, c, minlength=M) + np.bincount(j, c, minlength=M) + lam
    return A + 1.0 / M if lam == 0.0 else A


class _PairSystem:
    """The signed incidence matrix D (P, M) of the compared pairs (+1 at i, -1 at j; scipy CSR, built
    once): differences ``theta_i - theta_j`` are ``D @ theta``, per-model sums ``D.T @ x``, and the
    Hessian-vector product ``D.T @ (c * (D @ v)) + lam v`` needs no matrix of its own."""

    def __init__(self, M: int, i: np.ndarray, j: np.ndarray):
        from scipy.sparse import csr_matrix

        P = len(i)
        rows = np.repeat(np.arange(P), 2)
        cols = np.stack([i, j], axis=1).ravel()
        vals = np.tile([1.0, -1.0], P)
        self.M, self.i, self.j = M, i, j
        self.D = csr_matrix((vals, (rows, cols)), shape=(P, M))
        self.DT = self.D.T.tocsr()
        self.A = abs(self.D)  # the unsigned incidence: per-model sums of a per-pair quantity, A.T @ x


def _laplacian_solve(
    sys: _PairSystem, c: np.ndarray, lam: float, g: np.ndarray, rtol: float = 1e-9
) -> np.ndarray:
    """The Newton step x = (L + lam I)^-1 g, L the graph Laplacian of the pair curvatures ``c`` (P,).

    The constant direction is solved exactly (``mean(g) / lam``; 0 without a prior, which fixes the mean),
    the rest by conjugate gradients on the mean-zero subspace with a Jacobi preconditioner, O(M + P)
    memory. Comparison graphs with many votes per model are expanders whose Laplacian is well
    conditioned (about ten iterations); a dense solve is the fallback when CG has not converged in 400.
    """
    M = sys.M
    deg = np.bincount(sys.i, c, minlength=M) + np.bincount(sys.j, c, minlength=M)
    diag = np.maximum(deg + lam, 1e-300)
    mean = g.mean()
    x = np.zeros(M)
    r = g - mean
    z = r / diag
    z -= z.mean()
    d = z.copy()
    rz = float(r @ z)
    stop = rtol * float(np.linalg.norm(r))
    for _ in range(400):
        if float(np.linalg.norm(r)) <= stop:
            break
        Ad = sys.DT @ (c * (sys.D @ d)) + lam * d
        alpha = rz / float(d @ Ad)
        x += alpha * d
        r -= alpha * Ad
        z = r / diag
        z -= z.mean()
        rz, rz_old = float(r @ z), rz
        d = z + (rz / rz_old) * d
    else:
        return np.linalg.solve(_neg_hessian(M, sys.i, sys.j, c, lam), g)
    return x - x.mean() + (mean / lam if lam > 0 else 0.0)


def fit_pairs(
    M: int,
    i: np.ndarray,
    j: np.ndarray,
    wij: np.ndarray,
    wji: np.ndarray,
    prior_sd: float | None = 1000.0,
    theta0: np.ndarray | None = None,
    tol: float = 1e-10,
    max_iter: int = 200,
    system: _PairSystem | None = None,
    cg_rtol: float = 1e-9,
    full_step_stop: float | None = None,
) -> np.ndarray:
    """Bradley-Terry log-strengths theta (M,) float64 (mean 0) from pair counts (see :class:`PairCounts`).

    Damped Newton on the concave penalised log-likelihood (module docstring) from ``theta0`` (default 0),
    each step solved by :func:`_laplacian_solve`: memory O(M + P) (P compared pairs, distinct, i < j;
    weights may be 0), never an (M, M) array unless the fallback dense solve is needed. Stops when a step
    is below ``tol`` or a full step is below ``full_step_stop`` (default ``sqrt(tol) / 10``: Newton's
    quadratic convergence leaves an error of the order of its square). Each step is solved to the
    relative residual ``cg_rtol``. ``prior_sd`` in Elo points, ``None``: maximum likelihood (the
    parameter fixed to mean zero, the likelihood being shift-invariant). ``system``: the pairs' prebuilt
    :class:`_PairSystem` (a bootstrap reuses one for every resample).

    Raises:
        InputError: ``prior_sd`` is None and the maximum-likelihood ratings do not exist (:func:`_has_mle`).
    """
    lam = 0.0 if prior_sd is None else 1.0 / (prior_sd / ELO_SCALE) ** 2
    if lam == 0.0 and not _has_mle(M, i, j, wij, wji):
        raise InputError(
            None,
            "no maximum-likelihood ratings without a prior: some models won (or lost) every game they "
            "played against the others; give --prior-sd (e.g. 1000)",
        )
    sys = _PairSystem(M, i, j) if system is None else system
    n = wij + wji
    theta = np.zeros(M) if theta0 is None else np.array(theta0, dtype=np.float64)
    f, p = _pair_terms(theta, sys, wij, wji, lam)
    for _ in range(max_iter):
        s = wij - n * p
        g = sys.DT @ s - lam * theta
        step = _laplacian_solve(sys, n * p * (1.0 - p), lam, g, cg_rtol)
        t = 1.0
        for _ in range(40):  # backtracking: halve the step while the objective falls
            cand = theta + t * step
            fc, pc = _pair_terms(cand, sys, wij, wji, lam)
            if fc >= f - 1e-12 * abs(f):
                break
            t /= 2
        theta, f, p = cand, fc, pc
        size = float(np.max(np.abs(t * step))) if M else 0.0
        if size < tol or (
            t == 1.0 and size < (0.1 * np.sqrt(tol) if full_step_stop is None else full_step_stop)
        ):
            break
    return theta - theta.mean()


def fit_bradley_terry(
    wins: np.ndarray, prior_sd: float | None = 1000.0, tol: float = 1e-10, max_iter: int = 200
) -> np.ndarray:
    """Bradley-Terry ratings (Elo points, mean 1500) of one or a batch of dense win matrices.

    Args:
        wins: float (M, M) or (B, M, M); ``wins[..., i, j]`` = (half-)wins of model i over model j.
        prior_sd: SD of the Gaussian prior on the ratings in Elo points (None: maximum likelihood; then
            the comparison graph must be strongly connected, see :func:`fit_pairs`).
        tol: stop when the largest Newton step is below this (log-odds units).

    Returns:
        float64 ratings of shape (M,) or (B, M), each row with mean 1500.

    Raises:
        InputError: no maximum-likelihood ratings exist (``prior_sd`` None).
    """
    W = np.asarray(wins, dtype=np.float64)
    single = W.ndim == 2
    if single:
        W = W[None]
    M = W.shape[1]
    i, j = np.triu_indices(M, 1)
    out = []
    for Wb in W:
        keep = (Wb[i, j] + Wb[j, i]) > 0
        theta = fit_pairs(
            M, i[keep], j[keep], Wb[i, j][keep], Wb[j, i][keep], prior_sd, tol=tol, max_iter=max_iter
        )
        out.append(ELO_MEAN + ELO_SCALE * theta)
    elo = np.stack(out)
    return elo[0] if single else elo


#: how closely each bootstrap resample is fitted: Newton stops after a full step below 1e-2 log-odds
#: (quadratic convergence then leaves about 0.4 x step^2 = 4e-5, i.e. 0.01 Elo points; the k-step bootstrap
#: of Andrews 2002, Econometrica 70(1), keeps the bootstrap's accuracy with a few Newton steps from the
#: full-data estimate), each step solved to a relative residual of 1e-3; far below the resamples' spread
BOOT_TOL, BOOT_CG_RTOL, BOOT_FULL_STEP_STOP = 1e-8, 1e-3, 1e-2


def _batch_terms(T: np.ndarray, sys: _PairSystem, N, Wji, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_pair_terms` for a batch: ``T`` (M, b) log-strengths, ``N``/``Wji`` (P, b) games and
    (half-)wins of ``j`` over ``i``; returns the objectives (b,) and ``p = sigmoid(d)`` (P, b), ``d`` the
    pairs' differences. One transcendental pass for ``p`` and one ``log`` for the objective, by
    ``wij log p + wji log(1 - p) = n log p - wji d`` (``log(1 - p) = log p - d``)."""
    from scipy.special import expit

    d = sys.D @ T
    p = expit(d)
    lp = np.log(np.maximum(p, 1e-300))
    ll = np.einsum("pb,pb->b", N, lp) - np.einsum("pb,pb->b", Wji, d)
    return ll - 0.5 * lam * np.einsum("mb,mb->b", T, T), p


def _batch_solve(sys: _PairSystem, C: np.ndarray, lam: float, G: np.ndarray, rtol: float) -> np.ndarray:
    """:func:`_laplacian_solve` for b systems at once (``C`` (P, b) curvatures, ``G`` (M, b) gradients):
    one sparse (P, M) x (M, b) product per conjugate-gradient iteration serves every column, each column
    with its own step length and stop; a column unsolved after 400 iterations falls back to the dense
    solve."""
    deg = sys.A.T @ C  # (M, b): per-model sums of the pair curvatures
    diag = np.maximum(deg + lam, 1e-300)
    mean = G.mean(axis=0)
    X = np.zeros_like(G)
    R = G - mean
    Z = R / diag
    Z -= Z.mean(axis=0)
    Dd = Z.copy()
    rz = np.einsum("mb,mb->b", R, Z)
    stop = rtol * np.linalg.norm(R, axis=0)
    live = np.ones(G.shape[1], dtype=bool)
    for _ in range(400):
        live &= np.linalg.norm(R, axis=0) > stop
        if not live.any():
            break
        Ad = sys.DT @ (C * (sys.D @ Dd)) + lam * Dd
        dAd = np.einsum("mb,mb->b", Dd, Ad)
        alpha = np.where(live, rz / np.where(live, dAd, 1.0), 0.0)
        X += alpha * Dd
        R -= alpha * Ad
        Z = R / diag
        Z -= Z.mean(axis=0)
        rz, rz_old = np.einsum("mb,mb->b", R, Z), rz
        Dd = Z + np.where(live, rz / np.where(live, rz_old, 1.0), 0.0) * Dd
    live &= np.linalg.norm(R, axis=0) > stop
    for k in np.flatnonzero(live):  # its mean is already mean(g) / lam (0 without a prior): kept below
        X[:, k] = np.linalg.solve(_neg_hessian(sys.M, sys.i, sys.j, C[:, k], lam), G[:, k])
    return X - X.mean(axis=0) + (mean / lam if lam > 0 else 0.0)


def fit_pairs_batch(
    sys: _PairSystem, Wij: np.ndarray, Wji: np.ndarray, lam: float, theta0: np.ndarray, max_iter: int = 200
) -> np.ndarray:
    """Bradley-Terry log-strengths (M, b), each column mean 0, of b count vectors ``Wij``/``Wji`` (P, b) on
    the same pairs: :func:`fit_pairs` (damped Newton from ``theta0`` (M,)) run on every column at once with
    the bootstrap's stops (``BOOT_*``); a column stops as soon as it has converged. ``lam``: the prior's
    precision in log-odds units (0: maximum likelihood; the caller checks that it exists)."""
    b = Wij.shape[1]
    T = np.repeat(np.asarray(theta0, dtype=np.float64)[:, None], b, axis=1)
    N = Wij + Wji
    f, p = _batch_terms(T[:, :1], sys, N[:, :1], Wji[:, :1], lam)  # every column starts at theta0: one pass
    f = np.einsum("pb,p->b", N, np.log(np.maximum(p[:, 0], 1e-300))) - Wji.T @ (sys.D @ T[:, 0])
    f -= 0.5 * lam * float(T[:, 0] @ T[:, 0])
    p = np.repeat(p, b, axis=1)
    act = np.arange(b)
    for _ in range(max_iter):
        if not len(act):
            break
        full = len(act) == b  # no copies while every column is still running
        Ta, wij, wji, n, pa, fa = (
            (T, Wij, Wji, N, p, f)
            if full
            else (T[:, act], Wij[:, act], Wji[:, act], N[:, act], p[:, act], f[act])
        )
        G = sys.DT @ (wij - n * pa) - lam * Ta
        step = _batch_solve(sys, n * pa * (1.0 - pa), lam, G, BOOT_CG_RTOL)
        t = np.ones(len(act))
        fc, pc = _batch_terms(Ta + step, sys, n, wji, lam)
        for _ in range(40):  # backtracking, per column: halve the step while the objective falls
            bad = fc < fa - 1e-12 * np.abs(fa)
            if not bad.any():
                break
            t[bad] /= 2
            fc[bad], pc[:, bad] = _batch_terms(
                Ta[:, bad] + t[bad] * step[:, bad], sys, n[:, bad], wji[:, bad], lam
            )
        new = Ta + t * step
        if full:
            T, f, p = new, fc, pc
        else:
            T[:, act], f[act], p[:, act] = new, fc, pc
        size = np.abs(t * step).max(axis=0) if sys.M else np.zeros(len(act))
        done = (size < BOOT_TOL) | ((t == 1.0) & (size < BOOT_FULL_STEP_STOP))
        act = act[~done]
    return T - T.mean(axis=0)


def _bootstrap(
    c: PairCounts,
    n_boot: int,
    rng: np.random.Generator,
    prior_sd: float | None,
    theta: np.ndarray,
    chunk: int,
) -> tuple[np.ndarray, int]:
    """(B, M) Elo ratings of ``n_boot`` rater-clustered resamples (warm-started at ``theta``) and how many
    resamples had no maximum-likelihood ratings (rows of NaN; only without a prior).

    The resamples are drawn ``chunk`` at a time (one multinomial draw of rater counts per resample, in
    order, so the numbers depend on the seed only) and fitted ``batch`` at a time by
    :func:`fit_pairs_batch`: their pair counts are one sparse (P, R) x (R, batch) product, memory
    O(P x batch)."""
    from scipy.sparse import csr_matrix

    R, M, P = c.raters, c.models, len(c.i)
    lam = 0.0 if prior_sd is None else 1.0 / (prior_sd / ELO_SCALE) ** 2
    boot = np.full((n_boot, M), np.nan)
    failed = 0
    system = _PairSystem(M, c.i, c.j)
    Sij = csr_matrix((c.wij, (c.pair, c.rater)), shape=(P, R))
    Sji = csr_matrix((c.wji, (c.pair, c.rater)), shape=(P, R))
    batch = 8  # (P, 8) float64 arrays: about 11 MiB at 180,000 pairs, near the cache, unlike wider batches
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        counts = rng.multinomial(R, np.full(R, 1.0 / R), size=b).astype(np.float64)  # (b, R)
        for s0 in range(0, b, batch):
            cb = counts[s0 : s0 + batch].T  # (R, batch)
            Wij, Wji = np.asarray(Sij @ cb), np.asarray(Sji @ cb)
            ok = np.array(
                [lam > 0 or _has_mle(M, c.i, c.j, Wij[:, k], Wji[:, k]) for k in range(cb.shape[1])],
                dtype=bool,
            )
            failed += int((~ok).sum())
            if ok.any():
                T = fit_pairs_batch(system, Wij[:, ok], Wji[:, ok], lam, theta)
                boot[start + s0 + np.flatnonzero(ok)] = (ELO_MEAN + ELO_SCALE * T).T
    return boot, failed


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
        prior_sd: see :func:`fit_bradley_terry`. Without a prior, a resample that has no
            maximum-likelihood ratings is left out of the intervals and top-1 (``problems`` says how many).

    Memory is linear in the votes plus one (M, M) Hessian (:class:`PairCounts`).

    Raises:
        InputError: no usable votes, or no maximum-likelihood ratings on the full data (``prior_sd`` None).
    """
    if not votes:
        raise InputError(None, "no usable votes")
    models = sorted({v.model_a for v in votes} | {v.model_b for v in votes}) if models is None else models
    raters, c = pair_counts(votes, models)
    wij, wji = c.totals()
    theta = fit_pairs(c.models, c.i, c.j, wij, wji, prior_sd)
    elo = ELO_MEAN + ELO_SCALE * theta
    rng = np.random.default_rng(seed)
    R, M = len(raters), len(models)
    boot, failed = _bootstrap(c, n_boot, rng, prior_sd, theta, chunk)
    problems = []
    if failed:
        problems.append(
            f"{failed} of {n_boot} bootstrap resamples have no maximum-likelihood ratings and are left out"
        )
    boot = boot[np.isfinite(boot).all(axis=1)]
    if len(boot):
        lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
        best = boot == boot.max(axis=1, keepdims=True)
        top1 = (best / best.sum(axis=1, keepdims=True)).mean(axis=0)
    else:
        lo = hi = np.full(M, np.nan)
        best1 = elo == elo.max()
        top1 = best1 / best1.sum()
    games = np.bincount(c.i, wij + wji, minlength=M) + np.bincount(c.j, wij + wji, minlength=M)
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
        list(models), elo, lo, hi, top1, games.round().astype(int), wins, ties, boot, R, len(votes), problems
    )


def forest_plot(result: EloResult, path: str | Path, title: str = "Bradley-Terry Elo (95 % CI)") -> Path:
    """Write a forest plot PNG: one row per model (best on top), point estimate and 95 % interval (drawn
    between its ends, also when the estimate lies outside it).

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
    finite = np.isfinite(lo) & np.isfinite(hi)
    # the interval drawn from its own ends: a percentile interval need not hold the point estimate (few
    # resamples, a skewed bootstrap), so it is not an error bar around the estimate
    ax.hlines(y[finite], lo[finite], hi[finite], color="0.4", lw=1.5)
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
