"""The ``simkit`` command line.

Commands: ``list``, ``config``, ``generate``, ``validate``, ``inspect``, ``merge``, and the
groups ``eval``, ``export``, ``compile``, ``convert``, ``assets`` whose
subcommands come from the generator packages (see ``COMMAND_MODULES``).
Heavy libraries are imported inside commands, the command modules only when their group is called,
and help is click's plain text (``rich_markup_mode=None``: typer's rich formatter costs more to import
than all the rest of ``simkit --help``), so ``simkit --help`` is instant.

Exit codes, the same for every command (README "Exit codes"): 0 done; 1 the data failed a check
(a damaged corpus, a physics or geometry violation); 2 bad input (a wrong flag value, a missing
file, corpus path or optional extra), one ``error:`` line on stderr; 3 done, but some items failed
(listed); 4 cannot check something on this machine; 5 ``validate --strict``: an incomplete corpus.
``--json`` on ``list``, ``validate``, ``inspect`` and ``generate`` prints exactly one JSON object
on stdout and everything else on stderr.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import typer
from typer.core import TyperGroup

from simkit.commands import LateProgress, fail, info, plural
from simkit.core import families
from simkit.core.errors import ExtraMissing, SimkitError
from simkit.core.extras import as_extra_missing, needs_extra
from simkit.core.verbosity import quiet

#: the root's verbosity flags, accepted before or after the command name (``simkit -q validate DIR`` or
#: ``simkit validate DIR -q``); ``--log-level`` takes a value
VERBOSITY_FLAGS = ("-q", "--quiet", "-v", "--verbose")


def hoist_verbosity(args: list[str]) -> list[str]:
    """``args`` with every verbosity flag (:data:`VERBOSITY_FLAGS`, ``--log-level X``, ``--log-level=X``)
    that stands before a ``--`` moved to the front, where the root callback reads it."""
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            rest.extend(args[i:])
            break
        if a in VERBOSITY_FLAGS or a.startswith("--log-level="):
            front.append(a)
        elif a == "--log-level" and i + 1 < len(args):
            front.extend(args[i : i + 2])
            i += 1
        else:
            rest.append(a)
        i += 1
    return front + rest


class SimkitGroup(TyperGroup):
    """The top-level command group: a missing optional module anywhere below it (an
    :class:`~simkit.core.errors.ExtraMissing`, or a bare ``ModuleNotFoundError`` of a module that an extra
    installs) is one line, ``error: ... pip install 'simkit[EXTRA]'``, and exit code 2, never a traceback.
    The verbosity flags may follow the command name (:func:`hoist_verbosity`)."""

    def parse_args(self, ctx, args):
        return super().parse_args(ctx, hoist_verbosity(list(args)))

    def get_command(self, ctx, cmd_name):
        """The command ``cmd_name``; a group of :data:`GROUPS` gets its subcommands first
        (:func:`ensure_command_modules`), so ``simkit --help`` and ``simkit list`` import no command module."""
        if cmd_name in GROUPS and ensure_command_modules():
            fresh = typer.main.get_command(app)  # the groups again, now with their subcommands
            assert isinstance(fresh, TyperGroup)
            self.commands.update({k: fresh.commands[k] for k in GROUPS})
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (ExtraMissing, ModuleNotFoundError) as exc:
            missing = as_extra_missing(exc)
            if missing is None:  # a module of simkit itself: an installation bug, with its traceback
                raise
            fail(str(missing))


app = typer.Typer(
    cls=SimkitGroup,
    name="simkit",
    help="simkit: generate training corpora and environments for robot learning, world models and embodied AI.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from simkit import __version__

        typer.echo(f"simkit {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print simkit's version and exit."
    ),
    quiet: bool = typer.Option(
        False, "-q", "--quiet", help="Warnings and errors only: no progress, no info lines (any command)."
    ),
    verbose: bool = typer.Option(False, "-v", "--verbose", help="Also the debug messages (any command)."),
    log_level: str | None = typer.Option(
        None,
        "--log-level",
        help="Level of the simkit.* loggers: debug | info (default) | warning (= -q) | error.",
        case_sensitive=False,
    ),
) -> None:
    """simkit: generate training corpora and environments for robot learning, world models and embodied AI.

    -q / -v / --log-level may stand before or after the command name; errors are always shown."""
    from simkit.core.verbosity import LEVELS, set_level

    picked = [x for x, on in (("warning", quiet), ("debug", verbose)) if on]
    if log_level is not None:
        if log_level.lower() not in LEVELS:
            fail(f"--log-level {log_level}: expected one of {' | '.join(LEVELS)}")
        picked.append(log_level.lower())
    if len(set(picked)) > 1:
        fail("-q, -v and --log-level disagree; give one of them")
    set_level(picked[0] if picked else "info")


def _json_out(obj: object) -> None:
    """The one JSON object of a ``--json`` command, on stdout."""
    typer.echo(json.dumps(obj, indent=2, default=str))


JSON_HELP = "Print one JSON object on stdout (messages go to stderr)."


def _group(help_text: str) -> typer.Typer:
    """A subcommand group: plain help (no rich formatter), the help when called bare."""
    return typer.Typer(help=help_text, no_args_is_help=True, rich_markup_mode=None)


# click's short help ends at the first full stop: no "e.g." in a group's first sentence
eval_app = _group("Run a benchmark or closed-loop evaluation.")
export_app = _group("Export a corpus to another format, such as SFT JSONL.")
compile_app = _group("Compile task sources (LIBERO BDDL) into task descriptors and compiled models.")
convert_app = _group("Convert assets between simulators (MJCF -> USD).")
assets_app = _group("Scan and index mesh asset sources (filter report).")
app.add_typer(eval_app, name="eval")
app.add_typer(export_app, name="export")
app.add_typer(compile_app, name="compile")
app.add_typer(convert_app, name="convert")
app.add_typer(assets_app, name="assets")

GROUPS = {
    "eval": eval_app,
    "export": export_app,
    "compile": compile_app,
    "convert": convert_app,
    "assets": assets_app,
}

#: modules that add subcommands to GROUPS through a ``register(groups)`` function (light imports only)
COMMAND_MODULES = families.command_modules()  # from the registration table


_registered: list[bool] = []  # [True] once the command modules have registered their subcommands


def register_command_modules() -> None:
    """Import every module of :data:`COMMAND_MODULES` and call its ``register(GROUPS)``.

    A listed module that does not exist is an installation bug, not an optional feature: its
    ``ModuleNotFoundError`` propagates.
    """
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(GROUPS)


def ensure_command_modules() -> bool:
    """:func:`register_command_modules` once per process (the first call of a group); True when this
    call registered them."""
    if _registered:
        return False
    register_command_modules()
    _registered.append(True)
    return True


@app.command("list")
def list_cmd(
    name: str | None = typer.Argument(None, help="A generator whose sub-generators to list (e.g. wrop)."),
    catalogue: Path | None = typer.Option(
        None,
        "--catalogue",
        help="Write the sub-generators' catalogue page (markdown; thumbnails in a folder named after it).",
    ),
    only: str = typer.Option(
        "all", "--only", help="Catalogue only these sub-generators (wrop: a family or id)."
    ),
    thumbnails: bool = typer.Option(
        True, "--thumbnails/--no-thumbnails", help="Render catalogue thumbnails."
    ),
    workers: int = typer.Option(1, "--workers", min=1, help="Processes rendering catalogue thumbnails."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """List the registered generators (name, version, extra, description), or one generator's sub-generators;
    with --catalogue, write their catalogue page instead."""
    from simkit.core.registry import available, load

    if name is None and catalogue is not None:
        fail(
            "--catalogue needs a generator whose sub-generators to catalogue (e.g. simkit list wrop --catalogue ...)"
        )
        return
    if name is not None:
        try:
            cls = load(name)
        except SimkitError as exc:
            fail(str(exc))
            return
        if catalogue is not None:
            with needs_extra(cls.extra or None):
                _write_catalogue(cls, name, catalogue, only, thumbnails, workers, as_json)
            return
        lines = getattr(cls, "list_lines", None)
        if lines is None:
            fail(f"generator {name!r} has no sub-generators to list")
            return
        if as_json:
            _json_out({"generator": name, "lines": list(lines())})
            return
        for line in lines():
            typer.echo(line)
        return
    _list_generators(available, load, as_json)


def _list_generators(available, load, as_json: bool) -> None:
    """``simkit list``: one row per registered generator (a table, or ``{"generators": [...]}``). A
    shipped generator's row comes from the registration table (no family code imported); others load."""
    from simkit.core import families, registry

    try:
        table = available()
    except SimkitError as exc:
        fail(str(exc))
        return
    shipped = families.listings()
    rows = []
    for name in sorted(table):
        item = shipped.get(name) if table[name] == registry.BUILTIN.get(name) else None
        if item is not None:
            rows.append((name, item.version, item.extra or "-", item.description))
            continue
        try:
            cls = load(name)
            rows.append((name, cls.version, cls.extra or "-", cls.description))
        except SimkitError as exc:
            rows.append((name, "?", "?", f"(cannot load: {exc})"))
    if as_json:
        keys = ("name", "version", "extra", "description")
        _json_out({"generators": [dict(zip(keys, r, strict=True)) for r in rows]})
        return
    w = max([len(r[0]) for r in rows] + [len("generator")])
    typer.echo(f"{'generator':<{w}}  {'version':<8} {'extra':<8} description")
    for r in rows:
        typer.echo(f"{r[0]:<{w}}  {r[1]:<8} {r[2]:<8} {r[3]}")


def _write_catalogue(
    cls, name: str, path: Path, only: str, thumbnails: bool, workers: int, as_json: bool = False
) -> None:
    """``simkit list NAME --catalogue PATH``: one progress step per sub-generator, exit 3 when a thumbnail
    failed (the page is written without it)."""
    from simkit.commands import check_out, progress_bar

    ids_of, writer = getattr(cls, "catalogue_ids", None), getattr(cls, "write_catalogue", None)
    if ids_of is None or writer is None:
        fail(f"generator {name!r} has no catalogue")
        return
    check_out(path, flag="--catalogue")
    try:
        ids = ids_of(only)
    except ValueError as exc:
        fail(f"--only {only}: {exc}")
        return
    with progress_bar(f"catalogue of {len(ids)} {name} generators", len(ids)) as advance:
        out, problems = writer(path, only, thumbnails, workers, advance)
    if as_json:
        _json_out(
            {"catalogue": str(out), "generators": len(ids), "thumbnails": thumbnails, "problems": problems}
        )
    elif not quiet():
        typer.echo(f"wrote {out} ({len(ids)} generators" + (", with thumbnails)" if thumbnails else ")"))
    for p in problems:
        typer.echo(f"warning: {p}", err=True)
    if problems:
        raise typer.Exit(3)


@app.command("config")
def config_cmd(
    name: str = typer.Argument(..., help="Generator name (see `simkit list`)."),
    yaml_out: Path | None = typer.Option(
        None, "--yaml", help="Write a starter config (every key at its default, commented) to this new file."
    ),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace the --yaml file if it exists (as convert's --overwrite)."
    ),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Show a generator's config keys (type, default, range, description) and its episode fields.

    With --json: ``{"generator", "version", "config": [{key, type, default, range, description}],
    "fields": [the field declarations as corpus.json stores them]}``."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from simkit.core.config import config_keys, starter_yaml
    from simkit.core.fields import shape_text
    from simkit.core.registry import load

    try:
        cls = load(name)
    except SimkitError as exc:
        fail(str(exc))
        return
    if yaml_out is not None:
        from simkit.commands import check_out

        check_out(yaml_out, flag="--yaml", overwrite=overwrite)
        try:
            yaml_out.write_text(starter_yaml(cls.Config, f"simkit {name} config"), encoding="utf-8")
        except OSError as exc:
            fail(f"{yaml_out}: cannot write ({exc.strerror or exc})")
        if not quiet():
            typer.echo(f"wrote {yaml_out} (use: simkit generate {name} --config {yaml_out} ...)")
        return
    if as_json:
        _json_out(_config_dict(name, cls))
        return
    con = Console(width=160)
    keys = Table("key", "type", "default", "range", "description", title=f"{name} config (--set KEY=VALUE)")
    for k in config_keys(cls.Config):
        keys.add_row(*(escape(c) for c in (k.key, k.type, json.dumps(k.default), k.range, k.description)))
    con.print(keys)
    fields = Table(
        "field", "codec", "dtype", "shape", "units", "frame", "description", title=f"{name} episode fields"
    )
    for f in cls.fields:
        shape = shape_text(f.shape)
        desc = f.description + ("" if f.required else " (optional)")
        fields.add_row(*(escape(c) for c in (f.name, f.codec, f.dtype or "", shape, f.units, f.frame, desc)))
    con.print(fields)


def _config_dict(name: str, cls) -> dict:
    """The ``config --json`` object: the keys of ``simkit config NAME`` and the episode fields."""
    from dataclasses import asdict

    from simkit.core.config import config_keys
    from simkit.core.fields import schema_json

    keys = [asdict(k) for k in config_keys(cls.Config)]
    return {"generator": name, "version": cls.version, "config": keys, "fields": schema_json(cls.fields)}


@app.command()
def generate(
    name: str = typer.Argument(..., help="Generator name (see `simkit list`)."),
    n: int = typer.Option(..., "--n", help="Number of episodes in the corpus."),
    out: str = typer.Option(
        ...,
        "--out",
        help="Output corpus: a directory (created), or an object-store URL (s3://BUCKET/PATH, gs://..., "
        "credentials and endpoint from the standard environment, e.g. AWS_ENDPOINT_URL); re-run to resume.",
    ),
    seed: int = typer.Option(
        0, "--seed", help="Master seed; episode i depends only on (seed, generator, i)."
    ),
    workers: int = typer.Option(
        1,
        "--workers",
        help="Worker processes (local executor), one BLAS/OpenMP thread each (SIMKIT_WORKER_THREADS).",
    ),
    shard: str | None = typer.Option(None, "--shard", help="K/N: produce only shards j with j % N == K."),
    executor: str = typer.Option("local", "--executor", help="local | ray"),
    address: str | None = typer.Option(None, "--address", help="Ray cluster address (with --executor ray)."),
    config: Path | None = typer.Option(None, "--config", help="YAML config file for the generator."),
    set_: list[str] = typer.Option([], "--set", help="Config override key=value (repeatable)."),
    sub: str | None = typer.Option(
        None,
        "--generator",
        help="Sub-generator, for generators that have them (wrop: FAMILY/NAME, a "
        "family, or all); the same as --set generator=...",
    ),
    split: str | None = typer.Option(
        None,
        "--split",
        help="Split, for generators that have one (wrop: train | exam); the same as --set split=...",
    ),
    sounds: Path | None = typer.Option(
        None,
        "--sounds",
        help="Folder of real recordings (one sub-folder per "
        "label, or an ESC-50-style CSV), for audio "
        "generators; the same as --set sounds=...",
    ),
    episodes_per_shard: int = typer.Option(64, "--episodes-per-shard", help="Episodes per shard tar."),
    max_shard_mb: float = typer.Option(
        1024.0, "--max-shard-mb", help="Split a shard into parts above this size."
    ),
    retries: int = typer.Option(2, "--retries", help="Retries of a transient backend failure per episode."),
    progress: bool = typer.Option(
        True, "--progress/--no-progress", help="Progress bar on a terminal; a log line every 30 s otherwise."
    ),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Remove the corpus already in OUT and start over (other files stay)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON object on stdout."),
) -> None:
    """Generate a corpus of N episodes. Re-run to resume; a larger --n with the same settings grows the corpus.

    Exit code: 0 all episodes ok, 3 some episodes failed (listed in the manifest), 2 bad input.
    """
    from simkit.core.config import build_config
    from simkit.core.registry import load
    from simkit.episodes.storage import store_errors
    from simkit.executors.run import generate_corpus, parse_shard, shard_bytes_from_mb

    try:
        max_shard_bytes = shard_bytes_from_mb(max_shard_mb)
        cls = load(name)
        sets = list(set_) + _flag_sets({"generator": sub, "split": split, "sounds": sounds}, set_)
        cfg = build_config(cls.Config, config, sets)
        with store_errors(out), needs_extra(cls.extra or None):
            summary = generate_corpus(
                name,
                n,
                out,
                seed=seed,
                config=cfg.model_dump(mode="json"),
                workers=workers,
                shard=parse_shard(shard),
                executor=executor,
                address=address,
                episodes_per_shard=episodes_per_shard,
                max_shard_bytes=max_shard_bytes,
                retries=retries,
                progress=progress,
                overwrite=overwrite,
            )
    except SimkitError as exc:
        fail(str(exc))
        return
    except OSError as exc:
        fail(f"{getattr(exc, 'filename', None) or out}: {exc.strerror or exc}")
        return
    except KeyboardInterrupt:  # Ctrl-C: the finished episodes stay; the same command resumes
        typer.echo(
            f"interrupted: {out} keeps the finished episodes; run the same command again to resume", err=True
        )
        raise typer.Exit(130) from None
    _report_run(summary, as_json)


def _report_run(summary, as_json: bool) -> None:
    """``generate``'s end: the summary (a table, or JSON; errors alone when quiet), then its exit code."""
    if as_json:
        _json_out(_summary_dict(summary))
    elif quiet():
        for e in summary.errors:  # errors are always shown
            typer.echo(f"failed {e}", err=True)
    else:
        _print_summary(summary)
    raise typer.Exit(summary.exit_code)


def _flag_sets(flags: dict, sets: list[str]) -> list[str]:
    """``--generator``/``--split``/``--sounds`` as ``--set key=value`` items. Raises SimkitError when a flag
    and a ``--set`` of the same key are both given with different values (neither may silently win)."""
    from simkit.core.config import parse_overrides

    given = parse_overrides([x for x in sets if x.partition("=")[0].strip() in flags])
    out = []
    for k, v in flags.items():
        if v is None:
            continue
        if k in given and str(given[k]) != str(v):
            raise SimkitError(f"--{k} {v} and --set {k}={given[k]} disagree; give one of them")
        out.append(f"{k}={v}")
    return out


def _summary_dict(s) -> dict:
    """The ``generate --json`` object: the counts of the summary table, the failures, the exit code."""
    keys = ("generator", "planned", "produced", "resumed", "failed", "redraws", "shards_written", "seconds")
    out = {k: getattr(s, k) for k in keys}
    out.update(
        out_dir=str(s.out), bytes_written=s.bytes_written, errors=list(s.errors), exit_code=s.exit_code
    )
    return out


def _print_summary(s) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"simkit generate {s.generator} -> {s.out}", show_header=True)
    for col in ("planned", "produced", "resumed", "failed", "redraws", "shards", "seconds", "ep/s", "MB"):
        t.add_column(col, justify="right")
    rate = s.produced / s.seconds if s.seconds > 0 else 0.0
    t.add_row(
        str(s.planned),
        str(s.produced),
        str(s.resumed),
        str(s.failed),
        str(s.redraws),
        str(s.shards_written),
        f"{s.seconds:.1f}",
        f"{rate:.2f}",
        f"{s.bytes_written / 2**20:.1f}",
    )
    con = Console(stderr=False, width=max(110, Console().width))
    con.print(t)
    from rich.markup import escape

    for line in s.notes:
        con.print(escape(line), soft_wrap=True)  # one line each, whole task names (grep-able)
    for e in s.errors[:10]:
        con.print(f"[red]failed[/red] {escape(e)}")
    if len(s.errors) > 10:
        con.print(f"... and {len(s.errors) - 10} more (see manifest.parquet)")


@app.command()
def validate(
    corpus: str = typer.Argument(..., help="Corpus directory or object-store URL (s3://BUCKET/PATH ...)."),
    no_checks: bool = typer.Option(False, "--no-checks", help="Skip the generator's own checks (faster)."),
    strict: bool = typer.Option(
        False, "--strict", help="Also fail a corpus that is a --shard slice or an unfinished run (exit 5)."
    ),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Check every shard, member checksum, required field and the generator's own checks.

    Exit code: 0 pass, 1 the corpus is damaged or inconsistent, 2 bad input (no such corpus path),
    4 this machine cannot check something (an optional package is missing: install the extra named),
    5 a slice or unfinished corpus (--strict).
    """
    from simkit.episodes.storage import store_errors
    from simkit.episodes.validate import validate_corpus

    try:
        with store_errors(corpus), LateProgress() as progress:
            rep = validate_corpus(corpus, run_checks=not no_checks, progress=progress)
    except SimkitError as exc:
        fail(str(exc))
        return
    code = rep.exit_code(strict)
    if rep.bad_input:
        fail(rep.bad_input)
    status = {0: "PASS", 1: "FAIL", 4: "INCOMPLETE-CHECK", 5: "FAIL (--strict: incomplete)"}[code]
    if as_json:
        _json_out(
            {"corpus": corpus, "status": status.split(" ")[0], "exit_code": code, "episodes": rep.episodes}
            | {
                "ok": rep.ok,
                "failed": rep.failed_episodes,
                "shards": rep.shards,
                "incomplete": rep.incomplete,
            }
            | {"problems": rep.problems, "environment": rep.environment, "notes": rep.notes}
        )
        raise typer.Exit(code)
    for p in rep.problems:
        typer.echo(f"FAIL {p}")
    for e in rep.environment:
        typer.echo(f"NOTE (environment, not damage) {e}")
    if quiet() and code in (0, 4):  # -q: the problems and environment notes only
        raise typer.Exit(code)
    for note in rep.notes:
        typer.echo(f"NOTE {note}")
    typer.echo(
        f"{status} {corpus}: {plural(rep.episodes, 'episode')} ({rep.ok} ok, {rep.failed_episodes} failed), "
        f"{plural(rep.shards, 'shard')}, {plural(len(rep.problems), 'problem')}"
    )
    raise typer.Exit(code)


@app.command()
def inspect(
    corpus: str = typer.Argument(..., help="Corpus directory or object-store URL (s3://BUCKET/PATH ...)."),
    out: Path | None = typer.Option(
        None, "--out", help="Where to write pictures (default CORPUS/inspect; needed for a URL)."
    ),
    samples: int = typer.Option(
        16, "--samples", min=1, help="How many episodes to draw pictures of (stats always cover all)."
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print one JSON object (the stats, and the pictures under 'wrote') on stdout."
    ),
) -> None:
    """Print summary stats and write pictures (contact sheet, plots) a person can look at."""
    import json

    from simkit.episodes.inspect import inspect_corpus
    from simkit.episodes.storage import store_errors

    try:
        with store_errors(corpus), LateProgress() as progress:
            stats, paths = inspect_corpus(corpus, out, samples, progress=progress)
    except SimkitError as exc:
        fail(str(exc))
        return
    for line in stats.get("damaged", []):
        typer.echo(f"warning: {line}", err=True)
    if as_json:
        _json_out({**stats, "wrote": [str(p) for p in paths]})
        return
    typer.echo(json.dumps(stats, indent=2, default=str))
    for p in paths:  # on stderr: stdout stays one JSON document (json.load reads it)
        info(f"wrote {p}")


@app.command()
def merge(
    sources: list[str] = typer.Argument(
        ..., help="Corpus directories or object-store URLs (slices of one corpus)."
    ),
    out: str = typer.Option(..., "--out", help="Merged corpus directory or object-store URL."),
) -> None:
    """Merge corpus slices produced with --shard K/N (or on several machines) into one corpus."""
    from simkit.episodes.merge import merge_corpora
    from simkit.episodes.storage import store_errors

    try:
        with store_errors(*sources, out):
            merged = merge_corpora(list(sources), out)
    except SimkitError as exc:
        fail(str(exc))
        return
    except OSError as exc:
        fail(f"--out {out}: {exc.strerror or exc}")
        return
    c = merged["counts"]
    if not quiet():
        typer.echo(
            f"merged {plural(len(sources), 'source')} -> {out}: {c['present']} of {c['planned']} episodes "
            f"({c['ok']} ok, {c['failed']} failed)"
        )


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
