"""``simkit eval wrop-elo | wrop-fit | wrop-check``: scoring video continuations on the wrop exam.

- ``wrop-elo --votes VOTES.csv``: Bradley-Terry Elo (mean 1500, ties half a win) with a rater-clustered
  bootstrap (95 % CIs, top-1 probabilities); a table, and with ``--out`` a CSV, JSON and forest-plot PNG.
- ``wrop-fit --exam CORPUS --pred DIR``: target-fit metrics per sample, per generator and per family.
- ``wrop-check --exam CORPUS --pred DIR``: the generator-aware OP/OS checker per sample, per check and
  per family.

Top-level imports stay light (typer, pathlib): the CLI loads this module on every call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from simkit.commands import fail


def _out_dir(out: Path) -> Path:
    """Create ``--out`` (a directory); SimkitError when it is a file or cannot be created."""
    from simkit.core.errors import SimkitError

    if out.exists() and not out.is_dir():
        raise SimkitError(f"--out {out} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimkitError(f"--out {out}: cannot create ({exc.strerror or exc})") from None
    return out


def _models_option(models: str | None) -> list[str] | None:
    if models is None:
        return None
    names = [m.strip() for m in models.split(",") if m.strip()]
    return names or None


def _print_elo(res: Any) -> None:
    typer.echo(
        f"{res.votes} judgements by {res.raters} raters; {res.boot.shape[0]} rater-clustered bootstrap resamples"
    )
    rows = res.rows()
    w = max([len(r["model"]) for r in rows] + [5])
    typer.echo(f"{'rank':>4}  {'model':<{w}}  {'elo':>7}  {'95 % CI':>17}  {'top-1':>6}  {'games':>5}  score")
    for k, r in enumerate(rows, start=1):
        ci = f"[{r['ci_low']:.1f}, {r['ci_high']:.1f}]"
        typer.echo(
            f"{k:>4}  {r['model']:<{w}}  {r['elo']:7.1f}  {ci:>17}  {100 * r['top1']:5.1f}%  "
            f"{r['games']:>5}  {r['score_rate']:.3f}"
        )


def _write_elo(res: Any, out: Path) -> list[Path]:
    import csv

    from simkit.eval.wrop.elo import forest_plot

    rows = res.rows()
    csv_path = out / "elo.csv"
    with csv_path.open("w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    js = out / "elo.json"
    js.write_text(
        json.dumps(
            {"votes": res.votes, "raters": res.raters, "bootstrap": int(res.boot.shape[0]), "models": rows},
            indent=1,
        )
    )
    return [csv_path, js, forest_plot(res, out / "elo_forest.png")]


def register(groups: dict) -> None:
    """Add ``wrop-elo``, ``wrop-fit`` and ``wrop-check`` to the ``eval`` group."""
    eval_app = groups["eval"]

    @eval_app.command("wrop-elo")
    def wrop_elo(
        votes: Path = typer.Option(
            ..., "--votes", help="CSV with columns rater, sample, model_a, model_b, winner (a | b | tie)"
        ),
        models: str | None = typer.Option(
            None, "--models", help="comma-separated model names; votes naming another model are skipped"
        ),
        boot: int = typer.Option(1000, "--bootstrap", min=0, help="rater-clustered bootstrap resamples"),
        seed: int = typer.Option(0, "--seed", help="seed of the bootstrap"),
        prior_sd: float = typer.Option(
            1000.0, "--prior-sd", min=0.0, help="SD (Elo points) of the weak Gaussian prior; 0 = none"
        ),
        out: Path | None = typer.Option(
            None, "--out", help="directory for elo.csv, elo.json and the forest plot elo_forest.png"
        ),
    ) -> None:
        """Bradley-Terry Elo ratings (mean 1500, ties = half a win) with 95 % CIs and top-1 probabilities
        from a rater-clustered bootstrap. Bad rows (unknown winner or model, a self-comparison) are
        reported one line each and skipped. Exit 2 on bad input with nothing to score."""
        from simkit.core.errors import SimkitError

        try:
            from simkit.eval.wrop.elo import elo_ratings, read_votes

            names = _models_option(models)
            vs, problems = read_votes(votes, names)
            for line in problems:
                typer.echo(f"skipped {line}", err=True)
            if out is not None:
                _out_dir(out)
            res = elo_ratings(vs, names, n_boot=boot, seed=seed, prior_sd=prior_sd or None)
        except SimkitError as exc:
            fail(str(exc))
            return
        _print_elo(res)
        if out is not None:
            for p in _write_elo(res, out):
                typer.echo(f"wrote {p}")
