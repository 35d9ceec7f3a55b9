"""``simkit validate``: check a corpus against its manifest and its generator's own checks.

Checks, in order: corpus.json readable; every rows file and manifest row well formed, with a
shard that is a plain shard file name (nothing can point outside ``shards/``); rows files and
manifest agree; corpus.json agrees with the manifest (counts, schema, episodes per shard);
no shard file is missing or extra; every shard is a well-formed tar with nothing after its
end-of-archive marker and only safe, regular members; every member's size and sha256 match
its row; no member is missing, extra or duplicated; every ok episode has its generator's
required fields; members decode; the generator's ``check`` hook passes on each decoded sample.

Findings fall in three kinds, with distinct exit codes (:attr:`ValidationReport.exit_code`):
``problems`` (the corpus is damaged or inconsistent: exit 1), ``environment`` (this machine
cannot check something, e.g. an optional package is missing: exit 4, never reported as damage)
and ``notes`` (facts worth knowing: a ``--shard`` slice, an unfinished run; exit 5 under
``strict``). Never raises on a damaged corpus: every fault becomes a line naming shard and member.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simkit.core.errors import ExtraMissing, SimkitError
from simkit.core.extras import as_extra_missing, needs_extra
from simkit.core.fields import FieldSpec, check_stored, specs_from_json
from simkit.episodes.codecs import decode
from simkit.episodes.corpus import (
    ROW_KEYS,
    CorpusLayout,
    config_fault,
    echoed_config,
    episode_key,
    format_fault,
    member_schema,
    params_digest,
    planned_shards,
    read_manifest,
    row_fault,
    safe_shard_name,
    sha256,
    shard_sort_key,
)
from simkit.episodes.reader import META_IDENTITY, index_shard, meta_fault
from simkit.episodes.storage import corpus_path
from simkit.episodes.tario import split_member

log = logging.getLogger("simkit.validate")

#: exit codes of ``simkit validate`` (the README's table: 2 is bad input, a path that is no corpus directory)
EXIT_PASS, EXIT_DAMAGED, EXIT_BAD_INPUT, EXIT_ENVIRONMENT, EXIT_INCOMPLETE = 0, 1, 2, 4, 5


@dataclass
class ValidationReport:
    """What ``validate_corpus`` found. ``problems``: damage; ``environment``: cannot check here; ``notes``: facts;
    ``bad_input``: the line saying why ``root`` is no corpus to check (no such path, not a directory)."""

    root: Path
    episodes: int = 0
    ok: int = 0
    failed_episodes: int = 0
    shards: int = 0
    problems: list[str] = field(default_factory=list)
    environment: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    incomplete: bool = False
    bad_input: str = ""
    max_problems: int = 200
    #: called as ``progress(done, total, what)`` after each episode checked (the CLI's progress bar)
    progress: Callable[[int, int, str], None] | None = field(default=None, repr=False, compare=False)
    checked: int = field(default=0, repr=False)
    to_check: int = field(default=0, repr=False)

    def tick(self) -> None:
        """One more episode checked: tell :attr:`progress`."""
        self.checked += 1
        if self.progress is not None:
            self.progress(self.checked, self.to_check, "validating episodes")

    @property
    def passed(self) -> bool:
        return not self.problems

    def exit_code(self, strict: bool = False) -> int:
        """0 pass, 1 damaged, 2 bad input, 4 environment problem only, 5 incomplete (a slice or unfinished) under ``strict``."""
        if self.bad_input:
            return EXIT_BAD_INPUT
        if self.problems:
            return EXIT_DAMAGED
        if self.environment:
            return EXIT_ENVIRONMENT
        if strict and self.incomplete:
            return EXIT_INCOMPLETE
        return EXIT_PASS

    def problem(self, msg: str) -> None:
        if len(self.problems) < self.max_problems:
            self.problems.append(msg)

    def env(self, msg: str) -> None:
        if msg not in self.environment:
            self.environment.append(msg)


def _load_info(layout: CorpusLayout, rep: ValidationReport) -> dict | None:
    if not layout.root.is_dir():
        what = "not a directory" if layout.root.exists() else "no such corpus directory"
        rep.bad_input = f"{layout.root}: {what}"
        rep.problem(rep.bad_input)
        return None
    try:
        info = json.loads(layout.corpus_json.read_text())
    except FileNotFoundError:
        rep.problem(f"{layout.corpus_json}: missing (not a simkit corpus)")
        return None
    except (OSError, ValueError) as exc:
        rep.problem(f"{layout.corpus_json}: malformed JSON ({exc})")
        return None
    if not isinstance(info, dict) or not isinstance(info.get("generator"), str):
        rep.problem(f"{layout.corpus_json}: not a simkit corpus description (no generator)")
        return None
    fault = format_fault(info)
    if fault:  # another layout: nothing else can be checked against it
        rep.problem(f"{fault}; not checked further")
        return None
    return info


def _load_rows_files(layout: CorpusLayout, rep: ValidationReport) -> list[dict]:
    """Rows of every rows file; a malformed file or row is a problem (and its rows are dropped)."""
    out: list[dict] = []
    for j in sorted(layout.complete_shards()):
        path = layout.rows_path(j)
        try:
            data = json.loads(path.read_text())
            if not isinstance(data, list):
                raise ValueError("not a list of manifest rows")
        except (OSError, ValueError) as exc:
            rep.problem(f"{path.name}: unreadable ({exc})")
            continue
        for r in data:
            fault = row_fault(r)
            if fault is None and not r["shard"].startswith(path.name[:12]):
                fault = f"shard {r['shard']!r} does not belong to this rows file"
            if fault:
                rep.problem(f"{path.name}: row {r.get('key') if isinstance(r, dict) else r!r}: {fault}")
            else:
                out.append(r)
    return out


def _load_manifest(layout: CorpusLayout, rep: ValidationReport, rows_files: list[dict]) -> list[dict]:
    """Manifest rows (the rows files' when the manifest is missing or unreadable); checks they agree."""
    try:
        raw = read_manifest(layout.manifest)
    except FileNotFoundError:
        rep.problem(f"{layout.manifest.name}: missing")
        return rows_files
    except Exception as exc:
        rep.problem(f"{layout.manifest.name}: unreadable ({type(exc).__name__}: {exc})")
        return rows_files
    rows = []
    for r in raw:
        fault = row_fault(r)
        if fault:
            rep.problem(f"manifest row {r.get('key')}: {fault}")
        else:
            rows.append(r)
    by_key = {r["key"]: r for r in rows_files}
    listed = set()
    for r in rows:
        listed.add(r["key"])
        other = by_key.get(r["key"])
        if other is None:
            rep.problem(f"manifest row {r['key']}: no complete shard lists it")
            continue
        diff = sorted(k for k in ROW_KEYS if other.get(k) != r.get(k))
        if diff:
            rep.problem(
                f"manifest row {r['key']}: differs from the {other['shard']} rows file in {', '.join(diff)}"
            )
    in_manifest = {r["shard"] for r in rows}
    running = layout.partial.is_dir() and any(layout.partial.iterdir())
    for shard in sorted({r["shard"] for r in rows_files if r["key"] not in listed}):
        if shard not in in_manifest and running:  # a run in progress publishes its manifest when it ends
            rep.incomplete = True
            rep.notes.append(f"{shard}: complete on disk, not yet in the manifest (a run in progress)")
            continue
        rep.problem(
            f"{shard}: complete on disk but missing from the manifest "
            f"(rebuild it with: simkit merge {layout.root} --out {layout.root})"
        )
    return rows


def _check_info(info: dict, rows: list[dict], rep: ValidationReport) -> None:
    """corpus.json must describe what the manifest holds: counts, schema, keys and shard plan."""
    counts: dict = info["counts"] if isinstance(info.get("counts"), dict) else {}
    ok = sum(r["status"] == "ok" for r in rows)
    for name, value in (("present", len(rows)), ("ok", ok), ("failed", len(rows) - ok)):
        if counts.get(name) != value:
            rep.problem(f"corpus.json: counts.{name} is {counts.get(name)!r} but the manifest has {value}")
    schema: dict = info["schema"] if isinstance(info.get("schema"), dict) else {}
    stored = member_schema(rows)
    if stored and schema != stored:
        rep.problem(f"corpus.json: schema {schema} differs from the manifest's members {stored}")
    eps = info.get("episodes_per_shard")
    for r in rows:
        if r["key"] != episode_key(info["generator"], r["index"]):
            rep.problem(f"manifest row {r['key']}: key does not match index {r['index']}")
        elif isinstance(eps, int) and eps > 0 and shard_sort_key(r["shard"])[0] != r["index"] // eps:
            rep.problem(f"manifest row {r['key']}: episode {r['index']} cannot be in {r['shard']}")
    n = info.get("n")
    if isinstance(n, int) and len(rows) < n:
        rep.incomplete = True
        rep.notes.append(
            f"holds {len(rows)} of {n} planned episodes "
            "(a --shard slice, or an unfinished run: re-run the same command to finish it)"
        )


def _load_generator(info: dict, rep: ValidationReport) -> Any:
    """The corpus's generator with its stored config, or ``None`` (an environment finding) when unavailable."""
    from pydantic import ValidationError

    from simkit.core.registry import load

    try:
        gen_cls = load(info["generator"])
        gen = gen_cls()
    except SimkitError as exc:
        rep.env(f"generator checks not run: {exc}")
        return None
    except Exception as exc:
        missing = as_extra_missing(exc)
        if missing is not None:
            rep.env(f"generator checks not run: {missing}")
            return None
        rep.problem(f"generator checks not run: {type(exc).__name__}: {exc}")
        return None
    try:
        gen.config = gen_cls.Config.model_validate(info.get("config") or {})
    except ValidationError as exc:
        # e.g. a path in the config that exists only on the machine that generated the corpus
        gen.config = gen_cls.Config.model_construct(**(info.get("config") or {}))
        rep.notes.append(
            f"the stored config does not validate here ({exc.errors()[0]['msg']}); "
            "the generator's checks ran with the stored values"
        )
    return gen


def unfinished_shard_file(name: str, complete: set[int], planned: int | None) -> bool:
    """True when ``name`` in shards/ can be a shard an unfinished run is still writing: a shard file (or its
    ``.tmp``) of a planned shard id (below ``planned``) whose rows file is not written yet. Any other
    file no row names is extra, however it is named (a copied shard, a stray file)."""
    base = name.removesuffix(".tmp")
    if not safe_shard_name(base):
        return False
    j = shard_sort_key(base)[0]
    return j not in complete and (planned is None or j < planned)


def _check_shard_files(layout: CorpusLayout, rows: list[dict], info: dict, rep: ValidationReport) -> None:
    """Files in shards/ that no row names: a shard of an unfinished run (a note) or an extra file (damage)."""
    named = {r["shard"] for r in rows}
    if not layout.shards.is_dir():
        if rows:
            rep.problem(f"{layout.shards}: missing")
        return
    complete = layout.complete_shards()
    planned = planned_shards(info)
    rows_names = {layout.rows_path(j).name for j in complete}
    for p in sorted(layout.shards.iterdir(), key=lambda p: p.name):
        if p.name in rows_names or p.name in named:
            continue
        if unfinished_shard_file(p.name, complete, planned) or (
            p.name.endswith(".rows.json.tmp")
            and unfinished_shard_file(p.name[:12] + ".tar", complete, planned)
        ):
            rep.incomplete = True
            rep.notes.append(f"shards/{p.name}: a shard of an unfinished run (re-run the same command)")
        else:
            rep.problem(f"{p.name}: extra file in shards/ that no manifest row names")


def _decode_member(name: str, ext: str, data: bytes, shard: str, rep: ValidationReport) -> tuple[str, Any]:
    """("ok", value), ("env", None) when an optional package is missing here (not damage), or ("bad", None)."""
    try:
        return "ok", decode(ext, data)
    except ExtraMissing as exc:
        rep.env(f"members .{ext} not decoded on this machine: {exc}")
        return "env", None
    except Exception as exc:
        rep.problem(f"{shard}: member {name!r} does not decode ({type(exc).__name__}: {exc})")
        return "bad", None


def _check_shard(
    layout: CorpusLayout,
    shard: str,
    rows: list[dict],
    required: list[str],
    specs: tuple[FieldSpec, ...],
    gen: Any,
    rep: ValidationReport,
    ident: tuple[tuple[str, Any], ...] = (),
    config: Any = None,
) -> None:
    """Check one shard file against the rows that name it (``ident``: what each meta.json must repeat;
    ``config``: corpus.json's config, which the parameters each meta.json records must agree with)."""
    idx = index_shard(layout.shards / shard)
    if idx.problem is not None:
        member, reason = idx.problem
        if reason == "shard file is missing":
            reason = "named by the manifest but missing"
        rep.problem(f"{shard}: " + (f"member {member!r}: " if member else "") + reason)
        if not idx.members:
            return
    rep.shards += 1
    want = {m["name"]: (m, r["key"]) for r in rows for m in r["members"]}
    row_of = {r["key"]: r for r in rows}
    for name in sorted(set(idx.members) - set(want)):
        rep.problem(f"{shard}: member {name!r} is not in the manifest")
    for name in sorted(idx.duplicates):
        rep.problem(f"{shard}: member {name!r} is stored more than once (duplicate)")
    damaged = {want[n][1] for n in idx.duplicates if n in want}
    samples: dict[str, dict] = {}
    with idx.path.open("rb") as fh:
        for name, (m, key) in sorted(want.items()):
            if name not in idx.members:
                rep.problem(f"{shard}: member {name!r} listed in the manifest is missing")
                damaged.add(key)
                continue
            offset, size = idx.members[name]
            fh.seek(offset)
            data = fh.read(size)
            if len(data) != m["bytes"] or sha256(data) != m.get("sha256"):
                rep.problem(f"{shard}: member {name!r} checksum mismatch (edited or corrupt)")
                damaged.add(key)
                continue
            _, fname, ext = split_member(name)
            if fname == "meta" and ident:
                _check_meta(shard, name, data, (ident, config), row_of[key], rep)
            if gen is not None:
                status, value = _decode_member(name, ext, data, shard, rep)
                if status == "ok":
                    samples.setdefault(key, {"__key__": key})[fname] = value
                elif status == "bad":
                    damaged.add(key)
    _check_episodes(rows, required, specs, gen, samples, damaged, rep)


def _check_meta(shard: str, name: str, data: bytes, ctx: tuple, row: dict, rep: ValidationReport) -> None:
    """meta.json repeats corpus.json's identity (``ctx[0]``), the row's index, key and params digest, and
    records parameters that agree with corpus.json's config (``ctx[1]``)."""
    ident, config = ctx
    try:
        meta = json.loads(data)
    except ValueError as exc:
        rep.problem(f"{shard}: member {name!r} does not decode ({exc})")
        return
    why = meta_fault(meta, ident, row["index"], row["key"])
    digest = row.get("params_digest")
    if why is None and digest is not None and params_digest(meta.get("params")) != digest:
        why = "its params do not match the manifest row's params_digest (another episode's meta.json?)"
    why = why or config_fault(meta, config)
    if why:
        rep.problem(f"{shard}: member {name!r}: {why}")


def _check_episodes(
    rows: list[dict],
    required: list[str],
    specs: tuple[FieldSpec, ...],
    gen: Any,
    samples: dict,
    damaged: set[str],
    rep: ValidationReport,
) -> None:
    """Required fields, the stored field declaration and the generator's own checks, per episode (not on
    damaged ones)."""
    for r in rows:
        rep.tick()
        key = r["key"]
        exts = {fname: ext for _, fname, ext in (split_member(m["name"]) for m in r["members"])}
        for req in required:
            if req not in exts:
                rep.problem(f"{key}: required field {req!r} missing")
        if gen is None or key in damaged or key not in samples:
            continue
        if set(exts) - set(samples[key]):
            continue  # some member could not be decoded here (environment): the checks need all of them
        for msg in check_stored(specs, samples[key], exts):
            rep.problem(f"{key}: {msg}")
        try:
            for msg in gen.check(samples[key]):
                rep.problem(f"{key}: {msg}")
        except Exception as exc:
            missing = as_extra_missing(exc)
            if missing is not None:  # this machine cannot run the checks: not damage (one note for all)
                rep.env(f"generator checks not run on this machine: {missing}")
                continue
            rep.problem(f"{key}: generator check crashed ({type(exc).__name__}: {exc})")


def validate_corpus(
    root: str | Path,
    run_checks: bool = True,
    max_problems: int = 200,
    progress: Callable[[int, int, str], None] | None = None,
) -> ValidationReport:
    """Validate the corpus at ``root``; returns a report and never raises for corrupt data.

    ``report.passed``: no damage found; ``report.exit_code(strict)`` gives the CLI's exit code.
    ``progress(done, total, what)``: called after each episode checked (``total``: the ok episodes).
    """
    layout = CorpusLayout(corpus_path(root))
    rep = ValidationReport(root=layout.root, max_problems=max_problems, progress=progress)
    info = _load_info(layout, rep)
    if info is None:
        return rep
    with needs_extra(_generator_extra(info)):  # a module missing here names the corpus's extra
        _check_corpus(layout, info, rep, run_checks)
    return rep


def _generator_extra(info: dict) -> str | None:
    """The pip extra of the corpus's generator, or ``None`` when it has none or cannot be loaded here."""
    from simkit.core.registry import load

    try:
        return load(info["generator"]).extra or None
    except Exception:
        return None


def _check_corpus(layout: CorpusLayout, info: dict, rep: ValidationReport, run_checks: bool) -> None:
    """Everything :func:`validate_corpus` checks once corpus.json is read, into ``rep``."""
    rows_files = _load_rows_files(layout, rep)
    rows = _load_manifest(layout, rep, rows_files)
    _check_info(info, rows, rep)
    rep.episodes = len(rows)
    rep.ok = sum(r["status"] == "ok" for r in rows)
    rep.failed_episodes = rep.episodes - rep.ok
    for r in rows:
        if r["status"] != "ok":
            rep.problem(f"episode {r['key']} failed during generation: {r.get('error')}")
    if layout.partial.is_dir() and any(layout.partial.iterdir()):
        rep.incomplete = True
        rep.notes.append(f"{layout.partial.name}/ holds episodes of an unfinished run")
    gen = _load_generator(info, rep) if run_checks else None
    ident = tuple((k, info.get(k)) for k in META_IDENTITY)
    required: list[str] = list(info.get("required_fields") or [])
    try:
        specs = specs_from_json(info.get("field_schema"))
    except SimkitError as exc:
        rep.problem(str(exc))
        specs = ()
    except Exception as exc:  # not even a list of entries
        rep.problem(f"corpus.json field_schema: malformed ({type(exc).__name__}: {exc})")
        specs = ()
    # members to check: the rows files describe what the shards hold (a manifest that disagrees with them
    # is reported above); episodes known only to the manifest are checked as the manifest says
    source = {r["key"]: r for r in rows}
    source.update({r["key"]: r for r in rows_files})
    by_shard: dict[str, list[dict]] = {}
    for r in sorted(source.values(), key=lambda r: r["index"]):
        if r["status"] == "ok":
            by_shard.setdefault(r["shard"], []).append(r)
    _check_shard_files(layout, list(source.values()), info, rep)
    rep.to_check = sum(len(v) for v in by_shard.values())
    log.debug("%s: checking %d episodes in %d shards", layout.root, rep.to_check, len(by_shard))
    for shard, shard_rows in sorted(by_shard.items()):
        _check_shard(layout, shard, shard_rows, required, specs, gen, rep, ident, echoed_config(info))
    if gen is not None:
        rep.notes.extend(gen.check_summary())
