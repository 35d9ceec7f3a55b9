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

from simkit.commands import check_out, fail, plural, say, strict_json
from simkit.core.extras import needs_extra


def _out_dir(out: Path, exam: Path | None = None) -> Path:
    """Create ``--out`` (a directory): exit 2 with :func:`check_out`'s line when it is a file or under
    one, or lies in the exam corpus's own files (``shards/``, ``corpus.json``, ...), SimkitError when it
    cannot be created."""
    from simkit.core.errors import SimkitError

    check_out(out, folder=True, corpora=(exam,))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimkitError(f"--out {out}: cannot create ({exc.strerror or exc})") from None
    return out


def _votes_kept(votes: Path, out: Path) -> None:
    """Exit 2 when the votes file is one that writing ``--out`` would replace (``OUT/elo.csv``,
    ``OUT/elo_<family>.json``, ...): the command must not destroy what it reads."""
    import re

    from simkit.core.paths import same_file

    if same_file(votes.parent, out) and re.fullmatch(r"elo(_.+)?(\.csv|\.json|_forest\.png)", votes.name):
        fail(f"--out {out}: would replace the --votes file {votes}; give another --out folder")


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


def _family_elo(
    votes: list, names: list[str] | None, exam: Path, boot: int, seed: int, prior_sd: float | None
) -> dict[str, Any]:
    """Elo per exam family of the votes' samples; votes on a sample not in the exam are reported."""
    from simkit.eval.wrop.elo import elo_ratings
    from simkit.eval.wrop.video import exam_groups

    groups = exam_groups(exam)
    unknown = sorted({v.sample for v in votes if v.sample not in groups})
    if unknown:
        typer.echo(
            f"note: {len(unknown)} voted samples are not in {exam}: {', '.join(unknown[:5])}", err=True
        )
    by: dict[str, list] = {}
    for v in votes:
        if v.sample in groups:
            by.setdefault(groups[v.sample]["family"], []).append(v)
    return {
        f: elo_ratings(vs, names, n_boot=boot, seed=seed, prior_sd=prior_sd) for f, vs in sorted(by.items())
    }


def _write_elo(res: Any, out: Path, stem: str = "elo") -> list[Path]:
    import csv

    from simkit.eval.wrop.elo import forest_plot

    rows = res.rows()
    csv_path = out / f"{stem}.csv"
    with csv_path.open("w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    js = out / f"{stem}.json"
    js.write_text(
        json.dumps(
            {"votes": res.votes, "raters": res.raters, "bootstrap": int(res.boot.shape[0]), "models": rows},
            indent=1,
        )
    )
    return [csv_path, js, forest_plot(res, out / f"{stem}_forest.png")]


def wrop_elo(
    votes: Path = typer.Option(
        ..., "--votes", help="CSV with columns rater, sample, model_a, model_b, winner (a | b | tie)"
    ),
    models: str | None = typer.Option(
        None, "--models", help="comma-separated model names; votes naming another model are skipped"
    ),
    boot: int = typer.Option(
        1000, "--bootstrap", min=1, help="rater-clustered bootstrap resamples (at least 1)"
    ),
    seed: int = typer.Option(0, "--seed", help="seed of the bootstrap"),
    prior_sd: float = typer.Option(
        1000.0, "--prior-sd", min=0.0, help="SD (Elo points) of the weak Gaussian prior; 0 = none"
    ),
    out: Path | None = typer.Option(
        None, "--out", help="directory for elo.csv, elo.json and the forest plot elo_forest.png"
    ),
    exam: Path | None = typer.Option(
        None, "--exam", help="the exam corpus the sample column refers to: adds one Elo table per family"
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
        if exam is not None:
            _count(exam)  # a wrop corpus, before --out is created
        if out is not None:
            _out_dir(out, exam)
            _votes_kept(votes, out)
        res = elo_ratings(vs, names, n_boot=boot, seed=seed, prior_sd=prior_sd or None)
        fams = _family_elo(vs, names, exam, boot, seed, prior_sd or None) if exam is not None else {}
    except SimkitError as exc:
        fail(str(exc))
        return
    _print_elo(res)
    for line in res.problems:
        typer.echo(f"note: {line}", err=True)
    for fam, r in fams.items():
        typer.echo(f"\n{fam}")
        _print_elo(r)
        for line in r.problems:
            typer.echo(f"note: {fam}: {line}", err=True)
    if out is not None:
        for p in _write_elo(res, out):
            say(f"wrote {p}")
        for fam, r in fams.items():
            for p in _write_elo(r, out, f"elo_{fam}"):
                say(f"wrote {p}")


def wrop_fit(
    exam: Path = typer.Option(..., "--exam", help="wrop exam corpus (simkit generate wrop --split exam)"),
    pred: Path = typer.Option(..., "--pred", help="predictions: DIR/{key}.mp4 or DIR/{key}/ frame folders"),
    out: Path | None = typer.Option(
        None, "--out", help="directory for per-sample/generator/family CSVs + JSON"
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar"),
) -> None:
    """Target-fit metrics (MSE, MAE, PSNR, SSIM, MS-SSIM, temporal-difference L1, final-frame MSE/SSIM
    at 320x192 and 720p) per sample, per generator and per family. LPIPS, CLIP and FID are skipped with
    a note (no registry package ships their weights). A missing or malformed prediction is one line
    and the rest is scored. Exit 2 on bad input with nothing to score."""
    from simkit.eval.wrop.fit import METRICS, evaluate_fit

    rep = _scored(exam, pred, out, progress, "wrop-fit", evaluate_fit)
    for name, note in rep.skipped.items():
        typer.echo(f"note: {name} {note}")
    cols = list(METRICS)
    for by in ("family", "generator_id"):
        _print_table(rep.table(by), by, cols)
    if out is not None:
        _write_tables(out, "fit", rep.rows, {by: rep.table(by) for by in ("family", "generator_id")})
    if not rep.rows:
        raise typer.Exit(2)


def wrop_check(
    exam: Path = typer.Option(..., "--exam", help="wrop exam corpus (simkit generate wrop --split exam)"),
    pred: Path = typer.Option(..., "--pred", help="predictions: DIR/{key}.mp4 or DIR/{key}/ frame folders"),
    out: Path | None = typer.Option(
        None, "--out", help="directory for per-sample/generator/family CSVs + JSON"
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar"),
) -> None:
    """Generator-aware OP/OS checker: each target object's presence (its ground-truth colours inside its
    projected box) on every frame where the exam's trajectory says it must be seen after it reappears
    or after the key event, and no hidden object seen through its occluder; per family: mean score, pass
    rate, count-conserved rate, hidden-object rate. A missing or malformed prediction is one line and
    the rest is checked. Exit 2 on bad input with nothing to check."""
    from simkit.eval.wrop.check import evaluate_check

    rep = _scored(exam, pred, out, progress, "wrop-check", evaluate_check)
    unmeasured = [r["key"] for r in rep.rows if r["passed"] is None]
    if unmeasured:
        typer.echo(
            f"note: {len(unmeasured)} samples have no measurable required frame: {', '.join(unmeasured)}"
        )
    cols = ["check", "score", "pass_rate", "count_rate", "hidden_rate"]
    for by in ("family", "generator_id"):
        _print_table(rep.table(by), by, cols)
    if out is not None:
        flat = [{k: v for k, v in r.items() if k != "objects"} for r in rep.rows]
        _write_tables(out, "check", flat, {by: rep.table(by) for by in ("family", "generator_id")})
        (out / "check_objects.json").write_text(
            json.dumps(strict_json({r["key"]: r["objects"] for r in rep.rows}), indent=1, allow_nan=False)
        )
    if not rep.rows:
        raise typer.Exit(2)


def export_wrop_baselines(
    exam: Path = typer.Option(..., "--exam", help="wrop exam corpus"),
    out: Path = typer.Option(..., "--out", help="directory: OUT/{kind}/{key}.mp4 and OUT/violations.json"),
    kinds: str = typer.Option(
        "all",
        "--kinds",
        help="comma-separated: ground_truth, last_frame, deleted, teleported, frozen, passed_through, seen_through; or all",
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar"),
) -> None:
    """Write baseline and corrupted continuations of every exam sample (the ground truth, the last input
    frame repeated, and the ground truth with an object deleted, teleported, frozen, passed through, or
    seen through its occluder),
    as prediction folders for wrop-fit / wrop-check; violations.json lists, per kind, the samples on
    which that corruption contradicts the ground truth."""
    from simkit.core.errors import SimkitError

    try:
        from simkit.eval.wrop.corrupt import KINDS, write_baselines
        from simkit.eval.wrop.video import iter_exam

        chosen = list(KINDS) if kinds == "all" else [k.strip() for k in kinds.split(",") if k.strip()]
        bad = [k for k in chosen if k not in KINDS]
        if bad or not chosen:
            raise SimkitError(
                f"--kinds: unknown kind {bad[0] if bad else kinds!r}; one of {', '.join(KINDS)}"
            )
        n = _count(exam)
        _out_dir(out, exam)
        with _bar(progress, n, "wrop-baselines") as tick:
            info = write_baselines(iter_exam(exam), out, chosen, on_sample=tick)
    except SimkitError as exc:
        fail(str(exc))
        return
    for k in chosen:
        typer.echo(
            f"{k:<15} {info['written'][k]} videos -> {out / k}  ({len(info['violations'].get(k, []))} violations)"
        )
    say(f"wrote {out / 'violations.json'}")


def export_wrop_pairs(
    exam: Path = typer.Option(..., "--exam", help="wrop exam corpus"),
    pred: list[Path] = typer.Option(
        ..., "--pred", help="a model's predictions (DIR/{key}.mp4 or frame folders); repeat, one per model"
    ),
    out: Path = typer.Option(..., "--out", help="directory: OUT/index.html, OUT/videos/, OUT/pairs.json"),
    seed: int = typer.Option(0, "--seed", help="seed of the pair order and of each pair's sides"),
    max_pairs: int | None = typer.Option(
        None, "--max-pairs", min=1, help="keep only this many pairs of the random order (default: all)"
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar"),
) -> None:
    """Write a blind pairwise-rating page: the input clip of an exam sample above two models'
    continuations side by side, in random order and sides from --seed, keys a / b / t (tie); it works
    from file:// with no server and saves the votes as the CSV that `simkit eval wrop-elo --votes`
    reads. Models are named after their --pred folders. A missing or invalid prediction is one line and
    that model is left out of that sample's pairs."""
    from simkit.core.errors import SimkitError

    try:
        from simkit.eval.wrop.pairs import model_names, write_pairs_page
        from simkit.eval.wrop.video import iter_exam

        preds = dict(zip(model_names(pred), pred))
        _count(exam)  # a wrop corpus, before --out is created
        _out_dir(out, exam)
        with _bar(progress, _count(exam), "wrop-pairs") as tick:
            rep = write_pairs_page(
                iter_exam(exam), preds, out, seed=seed, max_pairs=max_pairs, on_sample=tick
            )
    except SimkitError as exc:
        fail(str(exc))
        return
    for line in rep.problems:
        typer.echo(f"error: {line}", err=True)
    typer.echo(
        f"{len(rep.pairs)} pairs of {len(rep.models)} models ({', '.join(rep.models)}) "
        f"on {rep.samples} exam samples ({plural(len(rep.problems), 'problem')})"
    )
    typer.echo(
        f"wrote {rep.page} (open it in a browser; votes: simkit eval wrop-elo --votes votes_RATER.csv)"
    )


def register(groups: dict) -> None:
    """Add ``wrop-elo``, ``wrop-fit`` and ``wrop-check`` to the ``eval`` group and ``wrop-baselines`` and
    ``wrop-pairs`` to ``export``."""
    groups["eval"].command("wrop-elo")(needs_extra("eval")(wrop_elo))
    groups["eval"].command("wrop-fit")(needs_extra("eval")(wrop_fit))
    groups["eval"].command("wrop-check")(needs_extra("eval")(wrop_check))
    groups["export"].command("wrop-baselines")(needs_extra("eval")(export_wrop_baselines))
    groups["export"].command("wrop-pairs")(needs_extra("eval")(export_wrop_pairs))


def _count(exam: Path) -> int:
    """How many exam samples ``exam`` holds; SimkitError when it is not a wrop corpus (checked before
    any ``--out`` is created)."""
    from simkit.core.errors import SimkitError
    from simkit.episodes.reader import corpus_info

    info = corpus_info(exam)
    if info.get("generator") != "wrop":
        raise SimkitError(f"{exam}: a {info.get('generator')!r} corpus, not a wrop exam")
    counts = info.get("counts") or {}
    return int(counts.get("ok", counts.get("present", 0)) or 0)


def _scored(exam: Path, pred: Path, out: Path | None, progress: bool, label: str, evaluate: Any) -> Any:
    """``evaluate(samples, pred, on_sample=tick)`` over the exam under a progress bar (``--out`` created
    before the run, not after it), its problems and count reported; a SimkitError ends the command."""
    from simkit.core.errors import SimkitError

    try:
        samples, n = _exam(exam, pred)
        if out is not None:
            _out_dir(out, exam)
        with _bar(progress, n, label) as tick:
            rep = evaluate(samples, pred, on_sample=tick)
    except SimkitError as exc:
        fail(str(exc))
    _report(rep.problems, rep.rows, n)
    return rep


def _exam(exam: Path, pred: Path) -> tuple[Any, int]:
    from simkit.core.errors import SimkitError
    from simkit.eval.wrop.video import iter_exam

    if not pred.is_dir():
        raise SimkitError(f"--pred {pred}: {'not a directory' if pred.exists() else 'no such directory'}")
    return iter_exam(exam), _count(exam)


def _bar(enabled: bool, total: int, label: str):
    """The command's progress (:func:`simkit.core.progress.progress_bar`, samples/s and ETA); yields a
    ``tick(key)`` callable."""
    from simkit.core.progress import progress_bar

    return progress_bar(label, total, enabled, unit="samples")


def _report(problems: list[str], rows: list[dict[str, Any]], n: int) -> None:
    for line in problems:
        typer.echo(f"error: {line}", err=True)
    typer.echo(
        f"scored {len(rows)} of {n or len(rows) + len(problems)} exam samples ({plural(len(problems), 'problem')})"
    )


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4f}" if abs(v) < 10 else f"{v:.2f}"
    return str(v)


def _print_table(rows: list[dict[str, Any]], by: str, cols: list[str]) -> None:
    if not rows:
        return
    head = [by, "n", *cols]
    cells = [[_fmt(r.get(c, "")) for c in head] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
    typer.echo("")
    typer.echo("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths))))
    for c in cells:
        typer.echo("  ".join(x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(c, widths))))


def _write_tables(
    out: Path, stem: str, rows: list[dict[str, Any]], tables: dict[str, list[dict[str, Any]]]
) -> None:
    import csv

    paths = []
    for name, data in [
        ("samples", rows),
        *[(("families" if by == "family" else "generators"), t) for by, t in tables.items()],
    ]:
        p = out / f"{stem}_{name}.csv"
        keys = list(data[0]) if data else []
        with p.open("w", newline="") as fh:
            wr = csv.DictWriter(fh, fieldnames=keys)
            wr.writeheader()
            wr.writerows(data)
        paths.append(p)
    js = out / f"{stem}.json"
    js.write_text(
        json.dumps(strict_json({"samples": rows, **tables}), indent=1, default=str, allow_nan=False)
    )
    for p in [*paths, js]:
        say(f"wrote {p}")
