"""``simkit eval packing`` (closed-loop benchmark) and ``simkit eval packing-overlap`` (bench vs corpus).

Top-level imports stay light (typer, pathlib); the evaluation code loads inside the commands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from simkit.commands import fail, plural, progress_bar, say
from simkit.core.extras import needs_extra


def _check_out(out: Path) -> None:
    """Refuse an ``--out`` that can never be written (a directory, a file as a parent): SimkitError."""
    from simkit.core.errors import SimkitError
    from simkit.core.paths import out_fault

    why = out_fault(out)
    if why is not None:
        raise SimkitError(f"--out {out}: {why}")


def run_packing_eval(
    policy: str,
    cases: str,
    limit: int | None,
    buffer: int | None,
    order: str,
    physics: bool,
    seed: int,
    out: Path | None,
    progress: bool,
    support: str,
) -> tuple[dict[str, Any], str]:
    """Validate the options, load the cases and evaluate (with a progress bar on a terminal).

    Returns:
        (the :func:`~simkit.eval.packing.evaluate.evaluate` result, the case kind ``bench``/``br``).
    Raises:
        SimkitError: bad policy, support rule, order, ``--out`` or case selection.
    """
    from simkit.core.errors import SimkitError
    from simkit.eval.packing.evaluate import evaluate, load_cases
    from simkit.eval.packing.policies import make_policy
    from simkit.scenes.packing.candidates import parse_support

    make_policy(policy)  # fail fast on a bad name
    rule = parse_support(support)
    if out is not None:
        _check_out(out)  # before the evaluation, not after it
    if order not in ("shuffled", "file"):
        raise SimkitError(f"--order must be 'shuffled' or 'file', got {order!r}")
    case_list, kind = load_cases(cases, limit, buffer, order)
    if not case_list:
        raise SimkitError(f"--cases {cases}: no cases selected")
    with progress_bar(f"{policy} on {len(case_list)} cases", len(case_list), progress) as advance:
        res = evaluate(case_list, policy, physics=physics, seed=seed, on_case=advance, support=rule)
    return res, kind


def print_packing_eval(res: dict[str, Any], kind: str, physics: bool) -> int:
    """Print the per-group and average lines (every utilisation names its support rule) and the
    checker's verdict; returns the number of violations in episodes physics fully accepted."""
    summary = res["summary"]
    rule = res["support"]
    groups = [g for g in summary if g != "average"]
    typer.echo(
        f"policy {res['policy']}  support {rule}  cases {len(res['cases'])}  "
        f"physics {'on' if physics else 'off'}  {res['seconds']:.1f} s"
    )
    tiers = ("easy", "medium", "hard")
    if kind == "bench":
        for g in [t for t in tiers if t in groups] + [t for t in groups if t not in tiers]:
            s = summary[g]
            typer.echo(
                f"{g:<8} success {s['success_ratio']:.3f}  compactness {s['compactness']:.3f}  "
                f"overall {s['overall']:.3f}  ({s['cases']} cases, support {rule})"
            )
    else:
        for g in groups:
            s = summary[g]
            typer.echo(
                f"{g:<8} utilisation {s['utilisation']:.3f} (support {rule})  success {s['success_ratio']:.3f}  "
                f"compactness {s['compactness']:.3f}  overall {s['overall']:.3f}  ({plural(s['cases'], 'problem')})"
            )
    a = summary["average"]
    typer.echo(
        f"average  success {a['success_ratio']:.3f}  compactness {a['compactness']:.3f}  "
        f"overall {a['overall']:.3f}"
        + (
            f"  utilisation {a['utilisation']:.3f} (support {rule})"
            if kind == "br"
            else f"  (support {rule})"
        )
    )
    unexplained = sum(len(r["violations"]) for r in res["cases"] if r["invalid_placements"] == 0)
    typer.echo(
        f"physics-invalid placements {res['invalid_placements']}; geometric checker violations "
        f"{res['violations']} ({unexplained} in episodes whose placements physics all accepted)"
    )
    for row in res["cases"]:
        for v in row["violations"][:3]:
            typer.echo(f"VIOLATION {row['case']}: {v}")
    return unexplained


def eval_packing(
    policy: str = typer.Option(
        "dblf", "--policy", help="dblf | mta | hm | sdf (sdf-pack) | ffp | random | expert"
    ),
    cases: str = typer.Option(
        "bench", "--cases", help="bench (the shipped 60 cases), bench:PATH, or br:PATH/thpackN.txt"
    ),
    limit: int | None = typer.Option(
        None, "--limit", min=1, help="first K cases (per tier for the bench, per file for BR)"
    ),
    buffer: int | None = typer.Option(
        None, "--buffer", min=1, help="buffer size (default: the tier's for the bench, 5 for BR)"
    ),
    order: str = typer.Option("shuffled", "--order", help="BR arrival order: shuffled (problem seed) | file"),
    physics: bool = typer.Option(
        True, "--physics/--no-physics", help="pybullet at every step (PackLab protocol) or geometry only"
    ),
    support: str = typer.Option(
        "com",
        "--support",
        help="stability rule: com (centre of mass over the support), area:F (com and >= F of the base "
        "supported, e.g. area:0.75) or full (the whole base)",
    ),
    seed: int = typer.Option(0, "--seed", help="seed of the random policy"),
    out: Path | None = typer.Option(None, "--out", help="write per-case rows and the summary as JSON"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar"),
) -> None:
    """Run a packing policy closed loop with physics and print success ratio, compactness, overall.

    Bench: per-tier lines and an 'average' line (overall = success ratio x compactness, PackLab
    eqs. 11-13). BR sets: volume utilisation per set. Every line names the support rule that
    produced it. Every result is also verified by the geometric checker (overlap > 1 mm, outside
    the container, unsupported, and under area:F / full an under-supported base). Exit code 1
    when it finds a violation in an episode whose placements physics all accepted (an
    inconsistency); violations after a physics-invalid placement (a tipped box) are reported only.
    2 = bad input.
    """
    from simkit.core.errors import SimkitError

    try:
        res, kind = run_packing_eval(
            policy, cases, limit, buffer, order, physics, seed, out, progress, support
        )
    except SimkitError as exc:
        fail(str(exc))
        return
    unexplained = print_packing_eval(res, kind, physics)
    if out is not None:
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps({"cases_spec": cases, **res}, indent=1))
        except OSError as exc:
            fail(f"--out {out}: cannot write ({exc})")
            return
        say(f"wrote {out}")
    raise typer.Exit(1 if unexplained else 0)


def eval_packing_overlap(
    corpus: Path = typer.Argument(..., help="a packing corpus directory (simkit generate packing --out ...)"),
    bench: Path | None = typer.Option(None, "--bench", help="bench file (default: the shipped one)"),
) -> None:
    """Check that no training episode poses a bench case (same container and box sizes). Exit 1 on overlap."""
    from simkit.core.errors import SimkitError

    try:
        from simkit.eval.packing.bench import overlap_with_corpus
        from simkit.scenes.packing.bench import load_bench

        rep = overlap_with_corpus(corpus, load_bench(bench))
    except SimkitError as exc:
        fail(str(exc))
        return
    for o in rep["overlaps"][:50]:
        typer.echo(f"OVERLAP episode {o['episode']} = bench case {o['bench_case']}")
    status = "FAIL" if rep["overlaps"] else "PASS"
    typer.echo(
        f"{status} {corpus}: {rep['episodes']} episodes vs {rep['bench_cases']} bench cases, "
        f"{len(rep['overlaps'])} overlaps"
    )
    raise typer.Exit(1 if rep["overlaps"] else 0)


def register(groups: dict) -> None:
    """Add the packing evaluation commands to the ``eval`` group."""
    groups["eval"].command("packing")(needs_extra("packing")(eval_packing))
    groups["eval"].command("packing-overlap")(needs_extra("packing")(eval_packing_overlap))
