"""``simkit validate``: check a corpus against its manifest and its generator's own checks.

Checks, in order: corpus.json readable; rows files and manifest agree; every
shard named by a row exists and opens; member names are safe (no absolute
path, no ``..``); every member's size and sha256 match its row; no member is
missing or extra; every ok episode has its generator's required fields; the
generator's ``check`` hook passes on each decoded sample. Never raises on a
damaged corpus: every fault becomes a line in the report.
"""

from __future__ import annotations

import json
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from simkit.core.errors import SimkitError
from simkit.core.fields import check_stored, specs_from_json
from simkit.episodes.codecs import decode
from simkit.episodes.corpus import CorpusLayout, read_manifest, sha256
from simkit.episodes.tario import UnsafeMember, iter_tar, split_member


@dataclass
class ValidationReport:
    root: Path
    episodes: int = 0
    ok: int = 0
    failed_episodes: int = 0
    shards: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


#: manifest row fields that must agree between manifest.parquet and the rows files (timing excluded)
_ROW_KEYS = {"key", "index", "shard", "status", "redraws", "attempts", "params_digest", "members", "error"}


def validate_corpus(root: str | Path, run_checks: bool = True, max_problems: int = 200) -> ValidationReport:
    """Validate the corpus at ``root``; returns a report (``report.passed``) and never raises for corrupt data."""
    layout = CorpusLayout(Path(root))
    rep = ValidationReport(root=layout.root)

    def problem(msg: str) -> None:
        if len(rep.problems) < max_problems:
            rep.problems.append(msg)

    if not layout.root.is_dir():
        problem(f"{layout.root}: no such directory")
        return rep
    try:
        info = json.loads(layout.corpus_json.read_text())
    except FileNotFoundError:
        problem(f"{layout.corpus_json}: missing (not a simkit corpus)")
        return rep
    except ValueError as exc:
        problem(f"{layout.corpus_json}: malformed JSON ({exc})")
        return rep
    if not isinstance(info, dict) or not isinstance(info.get("generator"), str):
        problem(f"{layout.corpus_json}: not a simkit corpus description (no generator)")
        return rep

    # rows: the manifest is the contract; rows files must agree with it
    rows_files: list[dict] = []
    for j in sorted(layout.complete_shards()):
        try:
            data = json.loads(layout.rows_path(j).read_text())
            if not isinstance(data, list) or not all(
                isinstance(r, dict) and set(r) >= _ROW_KEYS for r in data
            ):
                raise ValueError("not a list of manifest rows")
            rows_files.extend(data)
        except (OSError, ValueError) as exc:
            problem(f"{layout.rows_path(j)}: unreadable ({exc})")
    try:
        rows = read_manifest(layout.manifest)
    except FileNotFoundError:
        problem(f"{layout.manifest}: missing")
        rows = rows_files
    except Exception as exc:
        problem(f"{layout.manifest}: unreadable ({type(exc).__name__}: {exc})")
        rows = rows_files
    by_key_rows = {r["key"]: r for r in rows_files}
    listed = set()
    for r in rows:
        listed.add(r["key"])
        other = by_key_rows.get(r["key"])
        if other is None:
            problem(f"manifest row {r['key']}: no complete shard lists it")
            continue
        diff = sorted(k for k in _ROW_KEYS if other.get(k) != r.get(k))
        if diff:
            problem(
                f"manifest row {r['key']}: differs from the {other.get('shard')} rows file in {', '.join(diff)}"
            )
    unlisted = sorted({r["shard"] for r in rows_files if r["key"] not in listed})
    for shard in unlisted:
        problem(
            f"{shard}: complete on disk but missing from the manifest "
            f"(rebuild it with: simkit merge {layout.root} --out {layout.root})"
        )
    n_planned = info.get("n")
    if isinstance(n_planned, int) and len(rows_files) < n_planned:
        rep.notes.append(
            f"holds {len(rows_files)} of {n_planned} planned episodes "
            "(a --shard slice, or an unfinished run: re-run the same command to finish it)"
        )
    rep.episodes = len(rows)
    rep.ok = sum(r["status"] == "ok" for r in rows)
    rep.failed_episodes = rep.episodes - rep.ok
    for r in rows:
        if r["status"] != "ok":
            problem(f"episode {r['key']} failed during generation: {r.get('error')}")

    gen = None
    required: list[str] = list(info.get("required_fields") or [])
    if run_checks:
        try:
            from pydantic import ValidationError

            from simkit.core.registry import load

            gen_cls = load(info["generator"])
            gen = gen_cls()
            try:
                gen.config = gen_cls.Config.model_validate(info.get("config") or {})
            except ValidationError as exc:
                # e.g. a path in the config that exists only on the machine that generated the corpus
                gen.config = gen_cls.Config.model_construct(**(info.get("config") or {}))
                rep.notes.append(
                    f"the stored config does not validate here ({exc.errors()[0]['msg']}); "
                    "the generator's checks ran with the stored values"
                )
        except SimkitError as exc:
            problem(f"generator checks not run: {exc}")
        except Exception as exc:
            problem(f"generator checks not run: {type(exc).__name__}: {exc}")

    # members to check: the rows files describe what the shards hold (a manifest that disagrees with them
    # is reported above); episodes known only to the manifest are checked as the manifest says
    source = {r["key"]: r for r in rows}
    source.update(by_key_rows)
    expected: dict[str, dict[str, dict]] = {}
    for r in source.values():
        if r["status"] == "ok":
            expected.setdefault(r["shard"], {})
            for m in r["members"]:
                expected[r["shard"]][m["name"]] = {**m, "key": r["key"]}
    for shard, members in sorted(expected.items()):
        path = layout.shards / shard
        if not path.exists():
            problem(f"{shard}: named by the manifest but missing")
            continue
        rep.shards += 1
        seen: set[str] = set()
        samples: dict[str, dict] = {}
        damaged: set[str] = set()  # keys with a bad member: the generator's checks would only repeat it
        try:
            for name, data in iter_tar(path):
                m = members.get(name)
                if m is None:
                    problem(f"{shard}: member {name!r} is not in the manifest")
                    continue
                seen.add(name)
                key, fname, ext = split_member(name)
                if len(data) != m["bytes"] or sha256(data) != m["sha256"]:
                    problem(f"{shard}: member {name!r} checksum mismatch (edited or corrupt)")
                    damaged.add(key)
                    continue
                if gen is not None:
                    try:
                        samples.setdefault(key, {"__key__": key})[fname] = decode(ext, data)
                    except Exception as exc:
                        problem(f"{shard}: member {name!r} does not decode ({type(exc).__name__}: {exc})")
                        damaged.add(key)
        except UnsafeMember as exc:
            problem(f"{shard}: {exc}")
        except (tarfile.TarError, EOFError, OSError) as exc:
            problem(f"{shard}: cannot be read as a tar archive ({type(exc).__name__}: {exc})")
        for name in sorted(set(members) - seen):
            problem(f"{shard}: member {name!r} listed in the manifest is missing")
            damaged.add(members[name]["key"])
        keys = sorted({m["key"] for m in members.values()})
        for key in keys:
            fields = {n.split(".")[1] for n in members if n.startswith(key + ".")}
            for req in required:
                if req not in fields:
                    problem(f"{key}: required field {req!r} missing")
            if gen is not None and key in samples and key not in damaged:
                exts = {n.split(".")[1]: n.rsplit(".", 1)[1] for n in members if n.startswith(key + ".")}
                for msg in check_stored(specs_from_json(info.get("field_schema")), samples[key], exts):
                    problem(f"{key}: {msg}")
                try:
                    for msg in gen.check(samples[key]):
                        problem(f"{key}: {msg}")
                except Exception as exc:
                    problem(f"{key}: generator check crashed ({type(exc).__name__}: {exc})")
    return rep
