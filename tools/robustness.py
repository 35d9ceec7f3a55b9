#!/usr/bin/env python
"""Robustness campaign: random kills with resume, bad inputs to every command, injected corruption, readers.

Four parts, each counted and summarised (a JSON report on stdout, a markdown table with ``--md``):

1. kills: ``simkit generate`` is SIGKILLed at random moments (and again while resuming), then
   re-run to completion; the corpus must equal, byte for byte, an uninterrupted run's, with no
   ``.partial`` or ``*.tmp`` left behind. ``simkit merge`` of two slices likewise (the sources must stay
   untouched), and ``simkit validate`` (the corpus must stay byte-identical and pass afterwards).
2. bad inputs: every command of ``simkit --help`` (each subcommand of a group counted; one without a case
   fails the campaign) gets malformed values, missing/odd paths and damaged corpora, each
   in a fresh sandbox (inputs, an output folder, an empty working directory) under a memory limit.
   Each run must end with the expected outcome and one clear line, never a traceback; inputs
   must be unchanged and nothing may appear outside the output folder.
3. corruption: every kind in ``tests/corruptions.py`` (the toy catalogue and the packing one) is injected
   into a copy of a good corpus; ``simkit validate`` must exit 1 naming it, and the readers
   (``CorpusReader``, torch ``CorpusDataset``) must refuse it, except the kinds it lists as reader-blind
   (every checksum and parameter consistent: only the generator's check sees them), which they must yield.
4. readers: ``on_error="skip"`` drops exactly the damaged episodes with one warning per shard,
   and a one-shard corpus feeds both DataLoader workers.

Usage:  python tools/robustness.py [--kills 12] [--merge-kills 6] [--validate-kills 5] [--seed 0]
        [--work /tmp/simkit-robustness] [--parts kills,...] [--only TEXT] [--md]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
sys.path.insert(0, str(TESTS))
os.environ["SIMKIT_GENERATORS"] = "toy=toygen:ToyGenerator,media=toygen:MediaGenerator"
os.environ["PYTHONPATH"] = os.pathsep.join(
    filter(None, [str(TESTS), str(ROOT), os.environ.get("PYTHONPATH", "")])
)

from corruptions import CORRUPTIONS, PACKING_CORRUPTIONS, READER_BLIND  # noqa: E402

MEMORY_LIMIT = 6 << 30  # bytes of address space per command: a runaway allocation fails instead of swapping


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def simkit(
    args: list[str], cwd: Path, timeout: float = 300, path: Path | None = None
) -> subprocess.CompletedProcess:
    """Run ``simkit ARGS``; a run past ``timeout`` seconds is killed and reported as exit 124 (not clear).
    ``path``: a folder put first on the command's PYTHONPATH (a user's policy module)."""
    env = None
    if path is not None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), os.environ.get("PYTHONPATH", "")])}
    try:
        return subprocess.run(
            [sys.executable, "-m", "simkit", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=_limit_memory,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        return subprocess.CompletedProcess(exc.cmd, 124, out, f"timed out after {timeout:.0f} s (killed)")


def tree_digest(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``root`` (directories as '<dir>')."""
    out = {}
    if root.exists():
        for p in sorted(root.rglob("*")):
            rel = str(p.relative_to(root))
            out[rel] = "<dir>" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def corpus_bytes(root: Path) -> dict[str, str]:
    """What defines a corpus: digests of its shard tars, and its rows files without the timing column."""
    out = {k: v for k, v in tree_digest(root / "shards").items() if k.endswith(".tar")}
    for p in sorted((root / "shards").glob("*.rows.json")):
        rows = [{k: v for k, v in r.items() if k != "duration_s"} for r in json.loads(p.read_text())]
        out[p.name] = json.dumps(rows, sort_keys=True)
    return out


# -- 1. kills ------------------------------------------------------------------------------------------
def campaign_kills(work: Path, kills: int, rng: random.Random) -> dict:
    args = ["generate", "toy", "--n", "24", "--episodes-per-shard", "4", "--seed", "3", "--no-progress"]
    args += ["--set", "sleep_s=0.03", "--set", "payload_bytes=20000"]
    ref = work / "kills-ref"
    t0 = time.perf_counter()
    p = simkit([*args, "--out", str(ref)], work)
    t_full = time.perf_counter() - t0  # seconds of an uninterrupted run (start-up included)
    assert p.returncode == 0, p.stderr
    want = corpus_bytes(ref)
    results = {"runs": 0, "kills": 0, "kills_with_partial_output": 0, "identical": 0, "leftovers": 0}
    results["tracebacks"] = results["kills_while_resuming"] = 0
    for k in range(kills):
        out = work / f"kill-{k}"
        workers = rng.choice(["1", "2"])
        first_killed = False
        for attempt in range(3):  # up to two kills, then run to the end
            proc = subprocess.Popen(
                [sys.executable, "-m", "simkit", *args, "--workers", workers, "--out", str(out)],
                cwd=work,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            if attempt < 2:
                time.sleep(rng.uniform(0.3, 1.0) * t_full)
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    results["kills"] += 1
                    results["kills_with_partial_output"] += (out / ".partial").is_dir()
                    results["kills_while_resuming"] += attempt == 1 and first_killed
                    first_killed = first_killed or attempt == 0
            _, err = proc.communicate()
            results["tracebacks"] += b"Traceback" in err
        p = simkit([*args, "--workers", workers, "--out", str(out)], work)
        results["tracebacks"] += "Traceback" in p.stderr
        results["runs"] += 1
        results["identical"] += corpus_bytes(out) == want
        left = [q for q in out.rglob("*") if q.name.endswith(".tmp") or ".partial" in q.parts]
        results["leftovers"] += bool(left)
    return results


def _killed_run(argv: list[str], cwd: Path, after_s: float) -> tuple[bool, bool]:
    """Start ``simkit ARGV`` in its own process group and SIGKILL the group after ``after_s`` seconds, unless
    it ended first; returns (killed, a traceback was printed)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "simkit", *argv],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    time.sleep(after_s)
    killed = proc.poll() is None
    if killed:
        os.killpg(proc.pid, signal.SIGKILL)
    _, err = proc.communicate()
    return killed, b"Traceback" in err


def _leftovers(root: Path) -> list[Path]:
    return [q for q in root.rglob("*") if q.name.endswith(".tmp") or ".partial" in q.parts]


def campaign_merge_kills(work: Path, kills: int, rng: random.Random) -> dict:
    """``simkit merge`` of two ``--shard`` slices SIGKILLed at random moments (up to twice, the second time
    while it resumes), then re-run: the merged corpus must equal an uninterrupted merge's, the sources stay
    untouched, no ``.tmp`` or ``.partial`` is left."""
    gen = ["generate", "toy", "--n", "24", "--episodes-per-shard", "2", "--seed", "5", "--no-progress"]
    gen += ["--set", "payload_bytes=400000"]
    srcs = [work / "merge-a", work / "merge-b"]
    for k, src in enumerate(srcs):
        p = simkit([*gen, "--shard", f"{k}/2", "--out", str(src)], work)
        assert p.returncode == 0, p.stderr
    before = {str(s): tree_digest(s) for s in srcs}
    ref = work / "merge-ref"
    t0 = time.perf_counter()
    p = simkit(["merge", *map(str, srcs), "--out", str(ref)], work)
    t_full = time.perf_counter() - t0
    assert p.returncode == 0, p.stderr
    want = corpus_bytes(ref)
    res = {"runs": 0, "kills": 0, "kills_after_writing_began": 0, "kills_while_resuming": 0}
    res.update(identical=0, leftovers=0, tracebacks=0, sources_changed=0)
    for k in range(kills):
        out = work / f"merge-kill-{k}"
        argv = ["merge", *map(str, srcs), "--out", str(out)]
        for attempt in range(2):
            killed, tb = _killed_run(argv, work, rng.uniform(0.2, 1.0) * t_full)
            res["kills"] += killed
            res["kills_after_writing_began"] += killed and out.exists()
            res["kills_while_resuming"] += killed and attempt == 1
            res["tracebacks"] += tb
        p = simkit(argv, work)
        res["tracebacks"] += "Traceback" in p.stderr
        res["runs"] += 1
        res["identical"] += p.returncode == 0 and corpus_bytes(out) == want
        res["leftovers"] += bool(_leftovers(out))
    res["sources_changed"] = sum(tree_digest(s) != before[str(s)] for s in srcs)
    return res


def campaign_validate_kills(work: Path, kills: int, rng: random.Random) -> dict:
    """``simkit validate`` SIGKILLed at random moments: the corpus must be unchanged, byte for byte, and pass
    a validate run to the end afterwards."""
    c = work / "kills-ref"  # the uninterrupted corpus of the generate kills
    before = tree_digest(c)
    t0 = time.perf_counter()
    p = simkit(["validate", str(c)], work)
    t_full = time.perf_counter() - t0
    assert p.returncode == 0, p.stdout + p.stderr
    res = {"runs": kills, "kills": 0, "tracebacks": 0}
    for _ in range(kills):
        killed, tb = _killed_run(["validate", str(c)], work, rng.uniform(0.2, 1.0) * t_full)
        res["kills"] += killed
        res["tracebacks"] += tb
    res["corpus_unchanged"] = tree_digest(c) == before
    res["passes_afterwards"] = simkit(["validate", str(c)], work).returncode == 0
    return res


# -- 2. bad inputs -------------------------------------------------------------------------------------
@dataclass
class Case:
    """One command run: ``setup(sandbox)`` prepares inputs under sandbox/in and returns the argv."""

    name: str
    setup: Callable[[Path], list[str]]
    #: "error": exit != 0 with one 'error:' line; "fail": validate's FAIL; "fail_json": validate --json's exit 1
    #: with one JSON object; "rejected": exit 1 with 'rejected' lines; "warn": exit 0 + warning; "ok": exit 0
    expect: str = "error"
    needle: str = ""
    outcome: dict = field(default_factory=dict)
    #: what must hold after the run (user files kept, no leftovers): ``after(sandbox)`` -> a problem or ""
    after: Callable[[Path], str] | None = None
    path_in: bool = False  # sandbox/in first on PYTHONPATH (a user's module)


def _good(sb: Path, name: str = "c", **kw) -> Path:
    from simkit.executors.run import generate_corpus

    out = sb / "in" / name
    generate_corpus("toy", kw.pop("n", 6), out, seed=kw.pop("seed", 2), episodes_per_shard=3, **kw)
    return out


def _damaged(kind: str, name: str = "c") -> Callable[[Path], Path]:
    def make(sb: Path) -> Path:
        c = _good(sb, name)
        CORRUPTIONS[kind][0](c)
        return c

    return make


def _malformed_rows(sb: Path) -> Path:
    c = _good(sb)
    p = c / "shards" / "shard-000000.rows.json"
    rows = json.loads(p.read_text())
    rows[0]["members"] = "not a list"
    p.write_text(json.dumps(rows))
    return c


def _file(sb: Path, name: str, data: bytes | str) -> Path:
    p = sb / "in" / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def _merge_damaged(kind: str) -> Callable[[Path], list[str]]:
    return lambda sb: ["merge", str(_damaged(kind)(sb)), "--out", str(sb / "out" / "m")]


def _resume(corpus: Callable[[Path], Path], n: str = "6") -> Callable[[Path], list[str]]:
    """argv re-running the command that made the sandbox corpus (seed 2, 3 episodes per shard) on ``corpus(sb)``."""
    return lambda sb: [
        "generate",
        "toy",
        "--n",
        n,
        "--seed",
        "2",
        "--episodes-per-shard",
        "3",
        "--out",
        str(corpus(sb)),
    ]


def _gen(*extra: str, n: str = "3") -> Callable[[Path], list[str]]:
    return lambda sb: ["generate", "toy", "--n", n, "--out", str(sb / "out" / "c"), "--no-progress", *extra]


#: the bad inputs: every command, malformed values, odd paths, damaged corpora
BAD_INPUTS: list[Case] = [
    Case("generate --seed -1", _gen("--seed", "-1"), needle="--seed"),
    Case("generate --seed 2**64", _gen("--seed", str(2**64)), needle="--seed"),
    Case("generate --retries -1", _gen("--retries", "-1"), needle="--retries"),
    Case("generate --max-shard-mb 0", _gen("--max-shard-mb", "0"), needle="--max-shard-mb"),
    Case("generate --max-shard-mb -5", _gen("--max-shard-mb", "-5"), needle="--max-shard-mb"),
    Case("generate --max-shard-mb nan", _gen("--max-shard-mb", "nan"), needle="--max-shard-mb"),
    Case("generate --max-shard-mb inf", _gen("--max-shard-mb", "inf"), needle="--max-shard-mb"),
    Case(
        "generate --episodes-per-shard 0",
        _gen("--episodes-per-shard", "0"),
        needle="--episodes-per-shard",
    ),
    Case(
        "generate --episodes-per-shard -3",
        _gen("--episodes-per-shard", "-3"),
        needle="--episodes-per-shard",
    ),
    Case("generate --n 0", _gen(n="0"), needle="--n"),
    Case("generate --n -5", _gen(n="-5"), needle="--n"),
    Case("generate --n 10**15", _gen(n=str(10**15)), needle="at most"),
    Case("generate --n 10**30", _gen(n=str(10**30)), needle="at most"),
    Case("generate --n abc", _gen(n="abc"), needle="--n"),
    Case("generate --workers 0", _gen("--workers", "0"), needle="--workers"),
    Case("generate --workers 10**6", _gen("--workers", str(10**6)), needle="--workers"),
    Case("generate --shard 3/2", _gen("--shard", "3/2"), needle="--shard"),
    Case("generate --shard x", _gen("--shard", "x"), needle="--shard"),
    Case("generate --shard 1/0", _gen("--shard", "1/0"), needle="--shard"),
    Case("generate --executor nope", _gen("--executor", "nope"), needle="executor"),
    Case("generate --address without ray", _gen("--address", "x:1"), needle="--address"),
    Case(
        "generate unknown generator",
        lambda sb: ["generate", "nope", "--n", "1", "--out", str(sb / "out")],
        needle="unknown generator",
    ),
    Case("generate --set unknown key", _gen("--set", "bogus=1"), needle="bogus"),
    Case("generate --set bad value", _gen("--set", "size=-4"), needle="size"),
    Case("generate --set no '='", _gen("--set", "size"), needle="key=value"),
    Case("generate --config missing", _gen("--config", "/nonexistent/c.yaml"), needle="c.yaml"),
    Case(
        "generate --config malformed YAML",
        lambda sb: _gen("--config", str(_file(sb, "c.yaml", "size: [1,\n")))(sb),
        needle="c.yaml",
    ),
    Case(
        "generate --config not a mapping",
        lambda sb: _gen("--config", str(_file(sb, "c.yaml", "- 1\n- 2\n")))(sb),
        needle="mapping",
    ),
    Case(
        "generate --config binary",
        lambda sb: _gen("--config", str(_file(sb, "c.yaml", b"\xff\xfe\x00\x01")))(sb),
        needle="c.yaml",
    ),
    Case("generate --config a directory", lambda sb: _gen("--config", str(sb / "in"))(sb), needle="in"),
    Case(
        "generate --out under a file",
        lambda sb: ["generate", "toy", "--n", "1", "--out", str(_file(sb, "f", "x") / "sub")],
        needle="is a file",
    ),
    Case(
        "generate --out is a file",
        lambda sb: ["generate", "toy", "--n", "1", "--out", str(_file(sb, "f", "x"))],
        needle="not a directory",
    ),
    Case(
        "generate into another corpus",
        lambda sb: ["generate", "toy", "--n", "6", "--seed", "9", "--out", str(_good(sb))],
        needle="seed (2 -> 9)",
    ),
    Case(
        "generate shrinking a corpus",
        _resume(_good, n="2"),
        needle="shrink",
    ),
    Case(
        "generate into a corpus with garbage corpus.json",
        lambda sb: ["generate", "toy", "--n", "6", "--out", str(_damaged("corpus_json_garbage")(sb))],
        needle="corpus.json",
    ),
    Case(
        "generate resuming a corpus with a garbage rows file",
        _resume(_damaged("rows_file_garbage"), n="6"),
        needle="rows file",
    ),
    Case(
        "generate resuming a corpus with malformed rows",
        _resume(_malformed_rows, n="6"),
        needle="malformed members list",
    ),
    Case(
        "validate missing dir",
        lambda sb: ["validate", str(sb / "in" / "nope")],
        "error",  # bad input (exit 2), as for inspect, not a damaged corpus
        "no such corpus directory",
    ),
    Case("validate a file", lambda sb: ["validate", str(_file(sb, "f", "x"))], "error", "not a directory"),
    Case(
        "validate an empty dir",
        lambda sb: ["validate", str(_file(sb, "d/x", "").parent)],
        "fail",
        "corpus.json",
    ),
    Case(
        "inspect missing dir",
        lambda sb: ["inspect", str(sb / "in" / "nope"), "--out", str(sb / "out")],
        needle="no such corpus",
    ),
    Case(
        "inspect garbage manifest",
        lambda sb: ["inspect", str(_damaged("manifest_garbage")(sb)), "--out", str(sb / "out")],
        needle="manifest.parquet",
    ),
    Case(
        "inspect missing manifest",
        lambda sb: ["inspect", str(_damaged("manifest_missing")(sb)), "--out", str(sb / "out")],
        needle="manifest.parquet",
    ),
    Case(
        "inspect garbage corpus.json",
        lambda sb: ["inspect", str(_damaged("corpus_json_garbage")(sb)), "--out", str(sb / "out")],
        needle="corpus.json",
    ),
    Case(
        "inspect flipped PNG byte",
        lambda sb: ["inspect", str(_damaged("flipped_png_byte")(sb)), "--out", str(sb / "out")],
        "warn",
        "toy_00000000.image.png",
    ),
    Case(
        "inspect not-a-tar shard",
        lambda sb: ["inspect", str(_damaged("not_a_tar")(sb)), "--out", str(sb / "out")],
        "warn",
        "shard-000000.tar",
    ),
    Case(
        "inspect dotdot member",
        lambda sb: ["inspect", str(_damaged("dotdot_member")(sb)), "--out", str(sb / "out")],
        "warn",
        "unsafe member name",
    ),
    Case(
        "inspect --out under a file",
        lambda sb: ["inspect", str(_good(sb)), "--out", str(_file(sb, "f", "x") / "pics")],
        needle="f",
    ),
    Case("inspect --samples 0", lambda sb: ["inspect", str(_good(sb)), "--samples", "0"], needle="samples"),
    Case(
        "merge no such source",
        lambda sb: ["merge", str(sb / "in" / "nope"), "--out", str(sb / "out" / "m")],
        needle="nope",
    ),
    Case("merge rows shard '../'", _merge_damaged("rows_shard_traversal"), needle="shard"),
    Case("merge rows shard absolute", _merge_damaged("rows_and_manifest_absolute_shard"), needle="shard"),
    Case("merge dotdot member", _merge_damaged("dotdot_member"), needle="unsafe"),
    Case("merge symlink member", _merge_damaged("symlink_member"), needle="regular"),
    Case("merge duplicate member", _merge_damaged("duplicate_member"), needle="duplicate"),
    Case("merge trailing garbage", _merge_damaged("trailing_garbage"), needle="trailing"),
    Case("merge flipped byte", _merge_damaged("flipped_json_byte"), needle="differ"),
    Case(
        "merge sources that disagree",
        lambda sb: [
            "merge",
            str(_good(sb, "a")),
            str(_good(sb, "b", seed=5)),
            "--out",
            str(sb / "out" / "m"),
        ],
        needle="seed (2 -> 5)",
    ),
    Case(
        "merge --out under a file",
        lambda sb: ["merge", str(_good(sb)), "--out", str(_file(sb, "f", "x") / "m")],
        needle="f",
    ),
    Case("merge garbage corpus.json", _merge_damaged("corpus_json_garbage"), needle="corpus.json"),
    Case(
        "export packing-sft on a toy corpus",
        lambda sb: ["export", "packing-sft", str(_good(sb)), "--out", str(sb / "out" / "t.jsonl")],
        needle="packing",
    ),
    Case(
        "export packing-sft missing corpus",
        lambda sb: [
            "export",
            "packing-sft",
            str(sb / "in" / "nope"),
            "--out",
            str(sb / "out" / "t.jsonl"),
        ],
        needle="nope",
    ),
    Case(
        "export packing-sft --px 0",
        lambda sb: [
            "export",
            "packing-sft",
            str(sb / "in"),
            "--out",
            str(sb / "out" / "t.jsonl"),
            "--px",
            "0",
        ],
        needle="--px",
    ),
    Case(
        "export packing-sft --limit -1",
        lambda sb: [
            "export",
            "packing-sft",
            str(sb / "in"),
            "--out",
            str(sb / "out" / "t.jsonl"),
            "--limit",
            "-1",
        ],
        needle="--limit",
    ),
    Case(
        "eval packing-overlap garbage manifest",
        lambda sb: ["eval", "packing-overlap", str(_damaged("manifest_garbage")(sb))],
        needle="manifest",
    ),
    Case(
        "eval packing-overlap missing corpus",
        lambda sb: ["eval", "packing-overlap", str(sb / "in" / "nope")],
        needle="nope",
    ),
    Case(
        "eval packing-overlap --bench missing",
        lambda sb: ["eval", "packing-overlap", str(_good(sb)), "--bench", str(sb / "in" / "b.json")],
        needle="b.json",
    ),
    Case(
        "eval packing --order nope",
        lambda sb: ["eval", "packing", "--order", "nope", "--no-progress"],
        needle="--order",
    ),
    Case(
        "eval packing --out under a file",
        lambda sb: [
            "eval",
            "packing",
            "--limit",
            "1",
            "--no-progress",
            "--out",
            str(_file(sb, "f", "x") / "r.json"),
        ],
        needle="f",
    ),
    Case(
        "compile hebero missing LIBERO root",
        lambda sb: [
            "compile",
            "hebero",
            "--libero-root",
            str(sb / "in" / "nope"),
            "--out",
            str(sb / "out"),
        ],
        needle="nope",
    ),
    Case(
        "convert mjcf2usd missing file",
        lambda sb: ["convert", "mjcf2usd", str(sb / "in" / "x.xml"), str(sb / "out" / "x.usda")],
        needle="x.xml",
    ),
    Case(
        "convert mjcf2usd malformed XML",
        lambda sb: [
            "convert",
            "mjcf2usd",
            str(_file(sb, "x.xml", "<mujoco><body")),
            str(sb / "out" / "x.usda"),
        ],
        needle="x.xml",
    ),
    Case("list unknown generator", lambda sb: ["list", "nope"], needle="nope"),
    Case("config unknown generator", lambda sb: ["config", "nope"], needle="nope"),
    Case(
        "config --yaml under a file",
        lambda sb: ["config", "toy", "--yaml", str(_file(sb, "f", "x") / "c.yaml")],
        needle="f",
    ),
    Case("eval pairs on a toy corpus", lambda sb: ["eval", "pairs", "--gt", str(_good(sb))], needle="pairs"),
    Case(
        "eval pairs damaged corpus",
        lambda sb: ["eval", "pairs", "--gt", str(_damaged("manifest_garbage")(sb))],
        needle="manifest",
    ),
    Case("eval nav --episodes 0", lambda sb: ["eval", "nav", "--episodes", "0"], needle="--episodes"),
    Case(
        "eval wrop-check missing exam",
        lambda sb: ["eval", "wrop-check", "--exam", str(sb / "in" / "nope"), "--pred", str(sb / "in")],
        needle="nope",
    ),
    Case(
        "eval wrop-fit damaged exam",
        lambda sb: ["eval", "wrop-fit", "--exam", str(_damaged("not_a_tar")(sb)), "--pred", str(sb / "in")],
        needle="c",
    ),
    Case(
        "eval wrop-elo missing votes",
        lambda sb: ["eval", "wrop-elo", "--votes", str(sb / "in" / "v.csv")],
        needle="v.csv",
    ),
    Case(
        "eval wrop-elo malformed votes",
        lambda sb: ["eval", "wrop-elo", "--votes", str(_file(sb, "v.csv", "a,b\n1"))],
        needle="v.csv",
    ),
    Case("eval hebero unknown policy", lambda sb: ["eval", "hebero", "--policy", "nope"], needle="nope"),
    Case(
        "export hebero-hdf5 on a toy corpus",
        lambda sb: ["export", "hebero-hdf5", str(_good(sb)), str(sb / "out" / "d")],
        needle="hebero",
    ),
    Case(
        "export hebero-hdf5 damaged corpus",
        lambda sb: [
            "export",
            "hebero-hdf5",
            str(_damaged("corpus_json_garbage")(sb)),
            str(sb / "out" / "d"),
        ],
        needle="corpus.json",
    ),
    Case(
        "export wrop-baselines missing exam",
        lambda sb: ["export", "wrop-baselines", "--exam", str(sb / "in" / "nope"), "--out", str(sb / "out")],
        needle="nope",
    ),
]

SPECIAL = "/proc/simkit-robustness"  # a folder of a special file system: nobody can create files there


def _alias_bomb(sb: Path) -> Path:
    lines = ["l0: &l0 [" + ", ".join(["0"] * 9) + "]"]
    lines += [f"l{k}: &l{k} [" + ", ".join([f"*l{k - 1}"] * 9) + "]" for k in range(1, 8)]
    return _file(sb, "bomb.yaml", "\n".join([*lines, "snr_choices_db: *l7", ""]))


def _votes_unbeaten(sb: Path) -> Path:
    rows = ["rater,sample,model_a,model_b,winner"]
    rows += [f"r{k % 3},s,champ,{o},a" for k in range(12) for o in ("x", "y")] + ["r0,s,x,y,a", "r0,s,x,y,b"]
    return _file(sb, "votes.csv", "\n".join(rows) + "\n")


def _other_generator(sb: Path) -> Path:
    c = _good(sb)
    info = json.loads((c / "corpus.json").read_text())
    info["generator"] = "media"
    (c / "corpus.json").write_text(json.dumps(info))
    return c


#: the cases of the reliability round: bounded messages, output paths, explicit policies, no silent outcomes
BAD_INPUTS += [
    Case(
        "generate --config YAML alias bomb",
        lambda sb: [
            "generate",
            "foa-qa",
            "--n",
            "1",
            "--out",
            str(sb / "out" / "c"),
            "--config",
            str(_alias_bomb(sb)),
        ],
        needle="aliases",
    ),
    Case(
        "generate --set value of 20000 characters",
        _gen("--set", "size=" + "x" * 20000),
        needle="(20000 characters)",
    ),
    Case("generate --set 20000 nested [", _gen("--set", "size=" + "[" * 20000), needle="levels deep"),
    Case(
        "generate foa-nav --set lufs=[nan,nan]",
        lambda sb: [
            "generate",
            "foa-nav",
            "--n",
            "1",
            "--out",
            str(sb / "out" / "c"),
            "--set",
            "lufs=[nan,nan]",
        ],
        needle="finite",
    ),
    Case(
        "generate wrop --generator and --set generator disagree",
        lambda sb: [
            "generate",
            "wrop",
            "--generator",
            "OP-1/ball_behind_screen",
            "--set",
            "generator=OP-2/nope",
            "--n",
            "1",
            "--out",
            str(sb / "out" / "c"),
        ],
        needle="disagree",
    ),
    Case(
        "generate --out in a folder nobody can write",
        lambda sb: ["generate", "toy", "--n", "1", "--out", SPECIAL + "/c"],
        needle="cannot write in /proc",
    ),
    Case(
        "merge --out in a folder nobody can write",
        lambda sb: ["merge", str(_good(sb)), "--out", SPECIAL + "/m"],
        needle="cannot write in /proc",
    ),
    Case(
        "merge a corpus.json naming another generator",
        lambda sb: ["merge", str(_other_generator(sb)), "--out", str(sb / "out" / "m")],
        needle="generator 'media'",
    ),
    Case(
        "merge an unknown format",
        lambda sb: ["merge", str(_damaged("corpus_json_unknown_format")(sb)), "--out", str(sb / "out" / "m")],
        needle="unknown format",
    ),
    Case(
        "convert mjcf2usd OUT under a file",
        lambda sb: [
            "convert",
            "mjcf2usd",
            str(_file(sb, "g.xml", "<mujoco/>")),
            str(_file(sb, "afile", "x") / "sub" / "o.usda"),
        ],
        needle="which is a file",
    ),
    Case(
        "convert mjcf2usd OUT == IN",
        lambda sb: [
            "convert",
            "mjcf2usd",
            str(_file(sb, "a.usda", "#usda 1.0\n")),
            str(sb / "in" / "a.usda"),
            "--overwrite",
        ],
        needle="is the input",
    ),
    Case(
        "convert mjcf2usd OUT exists",
        lambda sb: [
            "convert",
            "mjcf2usd",
            str(_file(sb, "g.xml", "<mujoco/>")),
            str(_file(sb, "o.usda", "mine")),
        ],
        needle="--overwrite",
    ),
    Case(
        "config --yaml exists",
        lambda sb: ["config", "toy", "--yaml", str(_file(sb, "c.yaml", "mine"))],
        needle="--overwrite",
    ),
    Case(
        "export hebero-hdf5 OUT in a folder nobody can write",
        lambda sb: ["export", "hebero-hdf5", str(_good(sb)), SPECIAL + "/d"],
        needle="cannot write in /proc",
    ),
    Case(
        "list wrop --catalogue in a folder nobody can write",
        lambda sb: ["list", "wrop", "--catalogue", SPECIAL + "/c.md", "--no-thumbnails"],
        needle="cannot write in /proc",
    ),
    Case(
        "eval wrop-elo --prior-sd 0 with an unbeaten model",
        lambda sb: [
            "eval",
            "wrop-elo",
            "--votes",
            str(_votes_unbeaten(sb)),
            "--prior-sd",
            "0",
            "--bootstrap",
            "5",
        ],
        needle="no maximum-likelihood",
    ),
    Case(
        "eval nav --policy a non-callable factory",
        lambda sb: ["eval", "nav", "--policy", "math:pi()", "--episodes", "1"],
        needle="not callable",
    ),
    Case(
        "eval hebero --checkpoints with a built-in policy",
        lambda sb: ["eval", "hebero", "--policy", "random", "--checkpoints", str(sb / "in" / "nope")],
        needle="--checkpoints",
    ),
    Case(
        "eval hebero --checkpoints missing folder",
        lambda sb: ["eval", "hebero", "--policy", "os.path:join", "--checkpoints", str(sb / "in" / "nope")],
        needle="no such folder",
    ),
]


def _user_files(sb: Path) -> list[str]:
    """A good corpus under out/ with a user's files in shards/ and .partial/; argv of ``--overwrite``."""
    from simkit.executors.run import generate_corpus

    c = sb / "out" / "c"
    generate_corpus("toy", 2, c, seed=1, episodes_per_shard=1)
    (c / "shards" / "notes.txt").write_text("mine")
    (c / ".partial").mkdir(exist_ok=True)
    (c / ".partial" / "keep.bin").write_text("mine")
    return ["generate", "toy", "--n", "2", "--seed", "2", "--out", str(c), "--overwrite", "--no-progress"]


def _user_files_kept(sb: Path) -> str:
    c = sb / "out" / "c"
    lost = [str(q) for q in (c / "shards" / "notes.txt", c / ".partial" / "keep.bin") if not q.is_file()]
    return f"--overwrite removed a user's file: {', '.join(lost)}" if lost else ""


def _no_partial(sb: Path) -> str:
    return ".partial/ left in the merged corpus" if (sb / "out" / "m" / ".partial").exists() else ""


def _two_parameter_policy(sb: Path) -> list[str]:
    _file(sb, "mypol.py", "def pol(obs, info=None):\n    return 3\n")
    return ["eval", "nav", "--policy", "mypol:pol", "--episodes", "1", "--max-decisions", "5"]


BAD_INPUTS += [
    Case(
        "generate --overwrite over a user's files in shards/ and .partial/",
        _user_files,
        expect="ok",
        after=_user_files_kept,
    ),
    Case(
        "merge leaves no .partial/",
        lambda sb: ["merge", str(_good(sb)), "--out", str(sb / "out" / "m")],
        expect="ok",
        after=_no_partial,
    ),
    Case(
        "eval nav --policy with def pol(obs, info=None)",
        _two_parameter_policy,
        expect="ok",
        needle="SR",
        path_in=True,
    ),
]


def _fake_wrop(sb: Path, name: str = "exam") -> Path:
    """A toy corpus whose corpus.json names wrop: what the wrop commands read before any ``--out``."""
    c = _good(sb, name)
    info = json.loads((c / "corpus.json").read_text())
    (c / "corpus.json").write_text(json.dumps({**info, "generator": "wrop"}))
    return c


def _preds(sb: Path, *names: str) -> list[str]:
    out = []
    for n in names:
        (sb / "in" / n).mkdir(parents=True, exist_ok=True)
        out += ["--pred", str(sb / "in" / n)]
    return out


def _packing(sb: Path, name: str = "pk") -> Path:
    """A copy of a 2-episode packing corpus (made once per campaign)."""
    from simkit.executors.run import generate_corpus

    cache = sb.parent.parent / "packing-good"
    if not cache.is_dir():
        generate_corpus("packing", 2, cache, seed=0, episodes_per_shard=1, config={})
    shutil.copytree(cache, sb / "in" / name)
    return sb / "in" / name


def _meshes(sb: Path) -> Path:
    import trimesh

    d = sb / "in" / "meshes"
    d.mkdir(parents=True, exist_ok=True)
    trimesh.creation.box((1.0, 1.0, 1.0)).export(d / "a.obj")
    trimesh.creation.box((1.0, 0.6, 0.8)).export(d / "b.ply")
    return d


def _user_images(sb: Path) -> list[str]:
    c = _packing(sb)
    _file(sb, "t_images/holiday.png", b"mine")
    return ["export", "packing-sft", str(c), "--out", str(sb / "in" / "t.jsonl")]


def _user_images_kept(sb: Path) -> str:
    p = sb / "in" / "t_images" / "holiday.png"
    return "" if p.is_file() and p.read_bytes() == b"mine" else "export packing-sft removed a user's folder"


def _corpus_valid(name: str) -> Callable[[Path], str]:
    """An ``after`` check: the sandbox corpus ``in/NAME`` still passes validate (nothing written into it)."""

    def check(sb: Path) -> str:
        from simkit.episodes.validate import validate_corpus

        rep = validate_corpus(sb / "in" / name)
        return "" if rep.passed else f"in/{name} no longer passes validate: {rep.problems[:2]}"

    return check


def _votes_file(sb: Path, name: str = "v.csv") -> Path:
    return _file(sb, name, "rater,sample,model_a,model_b,winner\nr0,s,a,b,a\nr1,s,a,b,b\nr1,s,a,b,a\n")


def _forest_written(sb: Path) -> str:
    return "" if (sb / "out" / "e" / "elo_forest.png").is_file() else "no elo_forest.png"


def _bomb_set(sb: Path) -> list[str]:
    """``--set`` with an inline alias bomb (9 levels of 9 aliases each)."""
    levels = ["&a0 [" + ", ".join(["0"] * 9) + "]"]
    levels += [f"&a{k} [" + ", ".join([f"*a{k - 1}"] * 9) + "]" for k in range(1, 9)]
    return _gen("--set", "size=[" + ", ".join(levels) + "]")(sb)


#: the cases that bring every command of the CLI into the campaign: each output path kind (under a file, a
#: folder nobody can write, inside a corpus's own files, equal to an input), missing and malformed inputs
BAD_INPUTS += [
    Case(
        "generate --config /dev/zero (never ends)",
        _gen("--config", "/dev/zero"),
        needle="config refused",
    ),
    Case("generate --config a FIFO-like /dev/null (empty)", _gen("--config", "/dev/null"), expect="ok"),
    Case("generate --set inline alias bomb", _bomb_set, needle="aliases"),
    Case(
        "generate --config alias bomb (toy)",
        lambda sb: _gen("--config", str(_alias_bomb(sb)))(sb),
        needle="aliases",
    ),
    Case(
        "generate --out inside another corpus's shards/",
        lambda sb: ["generate", "toy", "--n", "1", "--out", str(_good(sb) / "shards" / "g")],
        needle="inside the corpus's own shards",
        after=_corpus_valid("c"),
    ),
    Case(
        "generate --out inside another corpus's .partial/",
        lambda sb: ["generate", "toy", "--n", "1", "--out", str(_good(sb) / ".partial" / "g")],
        needle="inside the corpus's own .partial",
        after=_corpus_valid("c"),
    ),
    Case(
        "merge --out inside a source's shards/",
        lambda sb: ["merge", str(_good(sb)), "--out", str(sb / "in" / "c" / "shards" / "m")],
        needle="inside the corpus's own shards",
        after=_corpus_valid("c"),
    ),
    Case(
        "merge --out is a file",
        lambda sb: ["merge", str(_good(sb)), "--out", str(_file(sb, "f", "x"))],
        needle="exists and is not a folder",
    ),
    Case(
        "inspect --out inside the corpus's shards/",
        lambda sb: ["inspect", str(_good(sb)), "--out", str(sb / "in" / "c" / "shards")],
        needle="inside the corpus's own shards",
        after=_corpus_valid("c"),
    ),
    Case(
        "inspect --out in a folder nobody can write",
        lambda sb: ["inspect", str(_good(sb)), "--out", SPECIAL + "/pics"],
        needle="cannot write in /proc",
    ),
    Case(
        "validate --json of a damaged corpus",
        lambda sb: ["validate", str(_damaged("flipped_json_byte")(sb)), "--json"],
        expect="fail_json",
        needle="checksum mismatch",
    ),
    Case("validate a special file", lambda sb: ["validate", "/dev/null"], needle="not a directory"),
    Case(
        "list toy --catalogue (no catalogue)",
        lambda sb: ["list", "toy", "--catalogue", str(sb / "out" / "x.md")],
        needle="no catalogue",
    ),
    Case(
        "list wrop --only nope --catalogue",
        lambda sb: ["list", "wrop", "--only", "nope", "--catalogue", str(sb / "out" / "c.md")],
        needle="--only nope",
    ),
    Case(
        "list wrop --catalogue under a file",
        lambda sb: ["list", "wrop", "--catalogue", str(_file(sb, "f", "x") / "c.md"), "--no-thumbnails"],
        needle="which is a file",
    ),
    Case("list --workers 0", lambda sb: ["list", "wrop", "--workers", "0"], needle="--workers"),
    Case(
        "config --yaml a folder",
        lambda sb: ["config", "toy", "--yaml", str(sb / "in")],
        needle="is a folder",
    ),
    Case(
        "config --yaml inside a corpus's shards/",
        lambda sb: ["config", "toy", "--yaml", str(_good(sb) / "shards" / "toy.yaml")],
        needle="inside the corpus's own shards",
        after=_corpus_valid("c"),
    ),
    Case(
        "export packing-sft --out inside the corpus's shards/",
        lambda sb: [
            "export",
            "packing-sft",
            str(_packing(sb)),
            "--out",
            str(sb / "in" / "pk" / "shards" / "t.jsonl"),
        ],
        needle="inside the corpus's own shards",
        after=_corpus_valid("pk"),
    ),
    Case(
        "export packing-sft over a user's <stem>_images/ folder",
        _user_images,
        needle="no earlier export wrote it",
        after=_user_images_kept,
    ),
    Case(
        "export packing-sft --out in a folder nobody can write",
        lambda sb: ["export", "packing-sft", str(_packing(sb)), "--out", SPECIAL + "/t.jsonl"],
        needle="cannot write in /proc",
    ),
    Case(
        "export packing-sft --history -2",
        lambda sb: [
            "export",
            "packing-sft",
            str(_packing(sb)),
            "--out",
            str(sb / "out" / "t.jsonl"),
            "--history",
            "-2",
        ],
        needle="--history",
    ),
    Case(
        "export hebero-lerobot on a toy corpus",
        lambda sb: ["export", "hebero-lerobot", str(_good(sb)), str(sb / "out" / "l")],
        needle="hebero",
    ),
    Case(
        "export hebero-lerobot missing corpus",
        lambda sb: ["export", "hebero-lerobot", str(sb / "in" / "nope"), str(sb / "out" / "l")],
        needle="nope",
    ),
    Case(
        "export hebero-lerobot OUT == CORPUS",
        lambda sb: ["export", "hebero-lerobot", str(_good(sb)), str(sb / "in" / "c")],
        needle="is the input",
    ),
    Case(
        "export hebero-lerobot OUT inside the corpus's shards/",
        lambda sb: ["export", "hebero-lerobot", str(_good(sb)), str(sb / "in" / "c" / "shards" / "l")],
        needle="inside the corpus's own shards",
        after=_corpus_valid("c"),
    ),
    Case(
        "export hebero-lerobot OUT under a file",
        lambda sb: ["export", "hebero-lerobot", str(_good(sb)), str(_file(sb, "f", "x") / "l")],
        needle="which is a file",
    ),
    Case(
        "export hebero-lerobot OUT in a folder nobody can write",
        lambda sb: ["export", "hebero-lerobot", str(_good(sb)), SPECIAL + "/l"],
        needle="cannot write in /proc",
    ),
    Case(
        "export hebero-hdf5 OUT == CORPUS",
        lambda sb: ["export", "hebero-hdf5", str(_good(sb)), str(sb / "in" / "c")],
        needle="is the input",
    ),
    Case(
        "export hebero-hdf5 OUT a .hdf5 file name",
        lambda sb: ["export", "hebero-hdf5", str(_good(sb)), str(sb / "out" / "d.hdf5")],
        needle="folder of datasets",
    ),
    Case(
        "export wrop-pairs missing exam",
        lambda sb: [
            "export",
            "wrop-pairs",
            "--exam",
            str(sb / "in" / "nope"),
            *_preds(sb, "m1", "m2"),
            "--out",
            str(sb / "out" / "p"),
        ],
        needle="nope",
    ),
    Case(
        "export wrop-pairs on a toy corpus",
        lambda sb: [
            "export",
            "wrop-pairs",
            "--exam",
            str(_good(sb)),
            *_preds(sb, "m1", "m2"),
            "--out",
            str(sb / "out" / "p"),
        ],
        needle="not a wrop exam",
    ),
    Case(
        "export wrop-pairs --out in a folder nobody can write",
        lambda sb: [
            "export",
            "wrop-pairs",
            "--exam",
            str(_fake_wrop(sb)),
            *_preds(sb, "m1", "m2"),
            "--out",
            SPECIAL + "/p",
        ],
        needle="cannot write in /proc",
    ),
    Case(
        "export wrop-pairs --out inside the exam's shards/",
        lambda sb: [
            "export",
            "wrop-pairs",
            "--exam",
            str(_fake_wrop(sb)),
            *_preds(sb, "m1", "m2"),
            "--out",
            str(sb / "in" / "exam" / "shards" / "p"),
        ],
        needle="inside the corpus's own shards",
    ),
    Case(
        "export wrop-pairs --out under a file",
        lambda sb: [
            "export",
            "wrop-pairs",
            "--exam",
            str(_fake_wrop(sb)),
            *_preds(sb, "m1", "m2"),
            "--out",
            str(_file(sb, "f", "x") / "p"),
        ],
        needle="which is a file",
    ),
    Case(
        "export wrop-pairs --max-pairs 0",
        lambda sb: [
            "export",
            "wrop-pairs",
            "--exam",
            str(sb / "in"),
            *_preds(sb, "m1"),
            "--out",
            str(sb / "out"),
            "--max-pairs",
            "0",
        ],
        needle="--max-pairs",
    ),
    Case(
        "export wrop-baselines --kinds nope",
        lambda sb: [
            "export",
            "wrop-baselines",
            "--exam",
            str(_fake_wrop(sb)),
            "--out",
            str(sb / "out" / "b"),
            "--kinds",
            "nope",
        ],
        needle="--kinds",
    ),
    Case(
        "export wrop-baselines --out inside the exam's shards/",
        lambda sb: [
            "export",
            "wrop-baselines",
            "--exam",
            str(_fake_wrop(sb)),
            "--out",
            str(sb / "in" / "exam" / "shards"),
        ],
        needle="inside the corpus's own shards",
    ),
    Case(
        "export wrop-baselines --out in a folder nobody can write",
        lambda sb: ["export", "wrop-baselines", "--exam", str(_fake_wrop(sb)), "--out", SPECIAL + "/b"],
        needle="cannot write in /proc",
    ),
    Case(
        "eval wrop-fit --pred missing",
        lambda sb: ["eval", "wrop-fit", "--exam", str(_fake_wrop(sb)), "--pred", str(sb / "in" / "nope")],
        needle="no such directory",
    ),
    Case(
        "eval wrop-fit --out inside the exam's shards/",
        lambda sb: [
            "eval",
            "wrop-fit",
            "--exam",
            str(_fake_wrop(sb)),
            *_preds(sb, "m1"),
            "--out",
            str(sb / "in" / "exam" / "shards" / "r"),
        ],
        needle="inside the corpus's own shards",
    ),
    Case(
        "eval wrop-check --out in a folder nobody can write",
        lambda sb: [
            "eval",
            "wrop-check",
            "--exam",
            str(_fake_wrop(sb)),
            *_preds(sb, "m1"),
            "--out",
            SPECIAL + "/r",
        ],
        needle="cannot write in /proc",
    ),
    Case(
        "eval wrop-check --pred is a file",
        lambda sb: ["eval", "wrop-check", "--exam", str(_fake_wrop(sb)), "--pred", str(_file(sb, "f", "x"))],
        needle="not a directory",
    ),
    Case(
        "eval wrop-elo --out holding the votes as elo.csv",
        lambda sb: ["eval", "wrop-elo", "--votes", str(_votes_file(sb, "elo.csv")), "--out", str(sb / "in")],
        needle="would replace the --votes file",
    ),
    Case(
        "eval wrop-elo --out under a file",
        lambda sb: [
            "eval",
            "wrop-elo",
            "--votes",
            str(_votes_file(sb)),
            "--out",
            str(_file(sb, "f", "x") / "e"),
        ],
        needle="which is a file",
    ),
    Case(
        "eval wrop-elo --exam not a wrop corpus",
        lambda sb: ["eval", "wrop-elo", "--votes", str(_votes_file(sb)), "--exam", str(_good(sb))],
        needle="not a wrop exam",
    ),
    Case(
        "eval wrop-elo --bootstrap 0",
        lambda sb: ["eval", "wrop-elo", "--votes", str(_votes_file(sb)), "--bootstrap", "0"],
        needle="--bootstrap",
    ),
    Case(
        "eval wrop-elo 3 votes, 3 resamples, forest plot",
        lambda sb: [
            "eval",
            "wrop-elo",
            "--votes",
            str(_votes_file(sb)),
            "--bootstrap",
            "3",
            "--out",
            str(sb / "out" / "e"),
        ],
        expect="ok",
        after=_forest_written,
    ),
    Case(
        "eval pairs --out in a folder nobody can write",
        lambda sb: ["eval", "pairs", "--gt", str(_good(sb)), "--out", SPECIAL + "/r.json"],
        needle="cannot write in /proc",
    ),
    Case(
        "eval pairs --out inside the corpus's shards/",
        lambda sb: [
            "eval",
            "pairs",
            "--gt",
            str(_good(sb)),
            "--out",
            str(sb / "in" / "c" / "shards" / "r.json"),
        ],
        needle="inside the corpus's own shards",
    ),
    Case(
        "eval pairs --pred missing",
        lambda sb: ["eval", "pairs", "--gt", str(_good(sb)), "--pred", str(sb / "in" / "nope")],
        needle="--pred",
    ),
    Case(
        "eval packing --out in a folder nobody can write",
        lambda sb: ["eval", "packing", "--limit", "1", "--no-progress", "--out", SPECIAL + "/r.json"],
        needle="cannot write in /proc",
    ),
    Case(
        "eval packing --support nope",
        lambda sb: ["eval", "packing", "--support", "nope", "--no-progress"],
        needle="--support",
    ),
    Case(
        "eval packing-overlap --bench malformed",
        lambda sb: [
            "eval",
            "packing-overlap",
            str(_packing(sb)),
            "--bench",
            str(_file(sb, "b.json", "{not json")),
        ],
        needle="b.json",
    ),
    Case(
        "eval nav --scene missing",
        lambda sb: ["eval", "nav", "--scene", str(sb / "in" / "nope.glb"), "--episodes", "1"],
        needle="nope.glb",
    ),
    Case(
        "eval nav --out under a file",
        lambda sb: ["eval", "nav", "--episodes", "1", "--out", str(_file(sb, "f", "x") / "r.json")],
        needle="which is a file",
    ),
    Case("eval nav --window-s 5", lambda sb: ["eval", "nav", "--window-s", "5"], needle="--window-s"),
    Case(
        "eval hebero --out in a folder nobody can write",
        lambda sb: ["eval", "hebero", "--policy", "zero", "--out", SPECIAL + "/h"],
        needle="cannot write in /proc",
    ),
    Case(
        "eval hebero --out inside the demos corpus's shards/",
        lambda sb: [
            "eval",
            "hebero",
            "--policy",
            "zero",
            "--demos",
            str(_good(sb)),
            "--out",
            str(sb / "in" / "c" / "shards" / "h"),
        ],
        needle="inside the corpus's own shards",
    ),
    Case(
        "eval hebero --suite nope",
        lambda sb: ["eval", "hebero", "--policy", "zero", "--suite", "nope"],
        needle="suite",
    ),
    Case(
        "eval hebero --episodes 0",
        lambda sb: ["eval", "hebero", "--policy", "zero", "--episodes", "0"],
        needle="--episodes",
    ),
    Case(
        "eval hebero --demos a toy corpus",
        lambda sb: ["eval", "hebero", "--policy", "zero", "--demos", str(_good(sb)), "--episodes", "1"],
        needle="not a hebero-demos corpus",
    ),
    Case(
        "compile hebero --out under a file",
        lambda sb: ["compile", "hebero", "--suite", "goal", "--out", str(_file(sb, "f", "x") / "d")],
        needle="which is a file",
    ),
    Case(
        "compile hebero --out in a folder nobody can write",
        lambda sb: ["compile", "hebero", "--suite", "goal", "--out", SPECIAL + "/d"],
        needle="cannot write in /proc",
    ),
    Case(
        "compile hebero --suite nope",
        lambda sb: ["compile", "hebero", "--suite", "nope", "--out", str(sb / "out")],
        needle="--suite",
    ),
    Case("compile hebero without --out or --models", lambda sb: ["compile", "hebero"], needle="--out"),
    Case(
        "convert render-task missing descriptors",
        lambda sb: ["convert", "render-task", str(sb / "in" / "nope")],
        needle="no descriptors here",
    ),
    Case(
        "convert render-task --out exists",
        lambda sb: ["convert", "render-task", str(sb / "in"), "--out", str(_file(sb, "s.png", "mine"))],
        needle="--overwrite",
    ),
    Case(
        "convert render-task --out in a folder nobody can write",
        lambda sb: ["convert", "render-task", str(sb / "in"), "--out", SPECIAL + "/s.png"],
        needle="cannot write in /proc",
    ),
    Case(
        "convert render-task --out under a file",
        lambda sb: ["convert", "render-task", str(sb / "in"), "--out", str(_file(sb, "f", "x") / "s.png")],
        needle="which is a file",
    ),
    Case(
        "convert mjcf2usd OUT in a folder nobody can write",
        lambda sb: ["convert", "mjcf2usd", str(_file(sb, "g.xml", "<mujoco/>")), SPECIAL + "/o.usda"],
        needle="cannot write in /proc",
    ),
    Case(
        "convert mjcf2usd binary input",
        lambda sb: [
            "convert",
            "mjcf2usd",
            str(_file(sb, "b.xml", b"\xff\xfe\x00\x01" * 64)),
            str(sb / "out" / "o.usda"),
        ],
        needle="b.xml",
    ),
    Case(
        "assets scan missing folder",
        lambda sb: ["assets", "scan", str(sb / "in" / "nope")],
        needle="does not exist",
    ),
    Case(
        "assets scan an empty folder",
        lambda sb: ["assets", "scan", str(_file(sb, "e/readme.txt", "x").parent)],
        needle="no mesh files",
    ),
    Case(
        "assets scan --out over an input mesh",
        lambda sb: ["assets", "scan", str(_meshes(sb)), "--out", str(sb / "in" / "meshes" / "a.obj")],
        needle="a mesh file name",
    ),
    Case(
        "assets scan --out in a folder nobody can write",
        lambda sb: ["assets", "scan", str(_meshes(sb)), "--out", SPECIAL + "/i.json"],
        needle="cannot write in /proc",
    ),
    Case(
        "assets scan --out under a file",
        lambda sb: ["assets", "scan", str(_meshes(sb)), "--out", str(_file(sb, "f", "x") / "i.json")],
        needle="which is a file",
    ),
    Case(
        "assets scan a corrupt mesh",
        lambda sb: ["assets", "scan", str(_file(sb, "bad/x.glb", b"glTF" + b"\x00" * 40).parent)],
        expect="rejected",
        needle="rejected x",
    ),
]


def _json_doc(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _run_case(case: Case, work: Path, idx: int) -> dict:
    sb = work / "bad" / f"{idx:03d}"
    (sb / "in").mkdir(parents=True)
    (sb / "out").mkdir()
    (sb / "cwd").mkdir()
    argv = case.setup(sb)
    inputs = tree_digest(sb / "in")
    t0 = time.perf_counter()
    p = simkit(argv, sb / "cwd", path=sb / "in" if case.path_in else None)
    text = p.stdout + p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    r = {"case": case.name, "rc": p.returncode, "seconds": round(time.perf_counter() - t0, 2)}
    r["traceback"] = "Traceback" in text or p.returncode < 0  # negative: killed by a signal (e.g. memory)
    if case.expect == "error":
        ok = (
            p.returncode not in (0, 1)
            and len(lines) == 1
            and lines[0].startswith(("error:", "Error:", "Usage:"))
        )
        ok = ok or (
            p.returncode == 2 and "Usage:" in p.stderr and "Traceback" not in p.stderr
        )  # typer usage error
    elif case.expect == "fail":
        ok = p.returncode == 1 and p.stdout.splitlines()[-1].startswith("FAIL")
    elif case.expect == "fail_json":  # validate --json: exit 1, one JSON object on stdout naming the fault
        ok = p.returncode == 1 and _json_doc(p.stdout) and "Traceback" not in text
    elif case.expect == "rejected":  # assets scan: exit 1, each rejected mesh one line with its reason
        ok = (
            p.returncode == 1
            and "Traceback" not in text
            and any(ln.startswith("rejected ") for ln in p.stdout.splitlines())
        )
    elif case.expect == "ok":
        ok = p.returncode == 0 and "Traceback" not in text
    else:
        ok = p.returncode == 0 and any("warning:" in ln for ln in lines)
    r["after"] = case.after(sb) if case.after is not None else ""
    r["clear"] = ok and (not case.needle or case.needle in text) and not r["after"]
    r["silent_bad_output"] = p.returncode == 0 and case.expect not in ("warn", "ok")
    outside = sorted(set(os.listdir(sb)) - {"in", "out", "cwd"}) + [
        f"cwd/{x}" for x in os.listdir(sb / "cwd")
    ]
    changed = (
        tree_digest(sb / "in") != inputs and case.expect != "ok"
    )  # an "ok" run may edit in/ (after checks)
    r["outside_writes"] = outside + (["in/ (inputs changed)"] if changed else [])
    if not r["clear"]:
        r["output"] = text[-600:]
    shutil.rmtree(sb, ignore_errors=True)
    return r


GROUPS = ("eval", "export", "compile", "convert", "assets")  #: CLI groups whose subcommands are the commands


def command_of(case_name: str) -> str:
    """The CLI command a case runs: ``"eval nav"`` for a subcommand of a group, else the first word."""
    words = case_name.split()
    return " ".join(words[:2]) if words[0] in GROUPS else words[0]


def cli_commands() -> list[str]:
    """Every visible command of ``simkit --help`` (subcommands of a group as ``"group sub"``)."""
    import typer

    from simkit.cli import app  # importing it registers every command module

    root = typer.main.get_command(app)
    out = []
    for name, cmd in root.commands.items():  # type: ignore[attr-defined]
        if getattr(cmd, "hidden", False):
            continue
        subs = getattr(cmd, "commands", None)
        if subs is None:
            out.append(name)
        else:
            out += [f"{name} {s}" for s, c in subs.items() if not getattr(c, "hidden", False)]
    return sorted(out)


def campaign_bad_inputs(work: Path, only: str = "") -> dict:
    rows = [_run_case(c, work, i) for i, c in enumerate(BAD_INPUTS) if only in c.name]
    commands = sorted({command_of(r["case"]) for r in rows})
    return {
        "cases": len(rows),
        "commands": commands,
        "cli_commands_without_a_case": [] if only else sorted(set(cli_commands()) - set(commands)),
        "clear": sum(r["clear"] for r in rows),
        "tracebacks": sum(r["traceback"] for r in rows),
        "silent_bad_outputs": sum(r["silent_bad_output"] for r in rows),
        "outside_writes": sum(bool(r["outside_writes"]) for r in rows),
        "unclear": [r for r in rows if not r["clear"] or r["traceback"] or r["outside_writes"]],
    }


# -- 3. corruption ---------------------------------------------------------------------------------------
def campaign_corruption(work: Path) -> dict:
    from simkit.adapters.reader import CorpusReader
    from simkit.adapters.torch import CorpusDataset
    from simkit.core.errors import SimkitError
    from simkit.executors.run import generate_corpus

    good, pk = work / "corr-good", work / "corr-packing"
    generate_corpus("toy", 6, good, seed=2, episodes_per_shard=3)
    generate_corpus("packing", 2, pk, seed=0, episodes_per_shard=1, config={})
    catalogue = [(k, v, good) for k, v in sorted(CORRUPTIONS.items())]
    catalogue += [(k, v, pk) for k, v in sorted(PACKING_CORRUPTIONS.items())]
    rows = []
    for kind, (inject, needle), base in catalogue:
        c = work / "corr" / kind
        shutil.copytree(base, c)
        inject(c)
        p = simkit(["validate", str(c)], work)
        r = {"kind": kind, "validate_rc": p.returncode, "validate_named": needle in p.stdout}
        r["traceback"] = "Traceback" in p.stdout + p.stderr
        for name, make in (("reader", lambda c=c: CorpusReader(c)), ("torch", lambda c=c: CorpusDataset(c))):
            try:
                list(make())
                r[name] = "yielded"
            except SimkitError:
                r[name] = "refused"
            except Exception as exc:  # a reader must never fail any other way
                r[name] = f"crashed: {type(exc).__name__}: {exc}"
        r["reader_blind"] = kind in READER_BLIND  # consistent to a reader: a reader must yield it, not crash
        want = "yielded" if r["reader_blind"] else "refused"
        r["readers_as_expected"] = r["reader"] == want and r["torch"] == want
        rows.append(r)
    visible = [r for r in rows if not r["reader_blind"]]
    return {
        "kinds": len(rows),
        "packing_kinds": len(PACKING_CORRUPTIONS),
        "validate_caught": sum(r["validate_rc"] == 1 and r["validate_named"] for r in rows),
        "reader_visible_kinds": len(visible),
        "readers_caught": sum(r["reader"] == "refused" and r["torch"] == "refused" for r in visible),
        "tracebacks": sum(r["traceback"] for r in rows),
        "missed": [
            r
            for r in rows
            if not (r["validate_rc"] == 1 and r["validate_named"] and r["readers_as_expected"])
        ],
    }


# -- 4. readers ------------------------------------------------------------------------------------------
def campaign_readers(work: Path) -> dict:
    import torch
    from corruptions import retar

    from simkit.adapters.reader import CorpusReader
    from simkit.adapters.torch import CorpusDataset
    from simkit.episodes.reader import CorpusWarning
    from simkit.executors.run import generate_corpus

    c = work / "readers"
    generate_corpus("toy", 6, c, seed=2, episodes_per_shard=3)
    retar(
        c / "shards" / "shard-000000.tar",
        lambda items: [(i, d + b" " if i.name.endswith("00000001.info.json") else d) for i, d in items],
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        keys = [s["__key__"] for s in CorpusReader(c, on_error="skip")]
    n_warn = sum(issubclass(w.category, CorpusWarning) for w in caught)
    one = work / "one-shard"
    generate_corpus("toy", 7, one, seed=4, episodes_per_shard=64)
    ds = CorpusDataset(one, fields=["info"], transform=lambda s: torch.utils.data.get_worker_info().id)
    workers = sorted(torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2))
    return {
        "skip_keeps_undamaged": keys == [f"toy_{i:08d}" for i in (0, 2, 3, 4, 5)],
        "skip_warnings_per_damaged_shard": n_warn,
        "one_shard_two_workers_shares": [workers.count(0), workers.count(1)],
    }


def to_markdown(rep: dict) -> str:
    k, b, c, r = rep["kills"], rep["bad_inputs"], rep["corruption"], rep["readers"]
    m, v = rep["merge_kills"], rep["validate_kills"]
    lines = [
        f"Machine: {rep['machine']}; date {rep['date']}; load average {rep['load']};",
        f"`python tools/robustness.py --kills {k['runs']} --merge-kills {m['runs']} --validate-kills {v['runs']}`.",
        "",
        "| part | runs | result |",
        "| --- | ---: | --- |",
        f"| `generate` SIGKILLed + resumed | {k['runs']} runs, {k['kills']} kills ({k['kills_with_partial_output']} "
        f"after writing began, {k['kills_while_resuming']} while resuming) | {k['identical']} byte-identical to the "
        f"uninterrupted run, {k['leftovers']} with leftovers, {k['tracebacks']} tracebacks |",
        f"| `merge` SIGKILLed + rerun | {m['runs']} runs, {m['kills']} kills ({m['kills_after_writing_began']} after "
        f"writing began, {m['kills_while_resuming']} while resuming) | {m['identical']} identical to the "
        f"uninterrupted merge, {m['leftovers']} with leftovers, {m['sources_changed']} sources changed, "
        f"{m['tracebacks']} tracebacks |",
        f"| `validate` SIGKILLed | {v['runs']} runs, {v['kills']} kills | corpus unchanged: {v['corpus_unchanged']}, "
        f"passes afterwards: {v['passes_afterwards']}, {v['tracebacks']} tracebacks |",
        f"| bad inputs ({len(b['commands'])} commands; without a case: "
        f"{', '.join(b['cli_commands_without_a_case']) or 'none'}) | {b['cases']} | {b['clear']} "
        f"clear one-line outcomes, {b['tracebacks']} tracebacks, {b['silent_bad_outputs']} silent bad outputs, "
        f"{b['outside_writes']} writes outside the output folder |",
        f"| injected corruption | {c['kinds']} kinds ({c['packing_kinds']} of packing) | validate caught "
        f"{c['validate_caught']}; of the {c['reader_visible_kinds']} a reader can see, readers (plain and torch) "
        f"refused {c['readers_caught']}, the other {c['kinds'] - c['reader_visible_kinds']} were yielded as "
        f"consistent; {c['tracebacks']} tracebacks |",
        f"| readers | - | skip mode kept the undamaged episodes: {r['skip_keeps_undamaged']}, "
        f"{r['skip_warnings_per_damaged_shard']} warning for 1 damaged shard; one-shard corpus over 2 DataLoader "
        f"workers: {r['one_shard_two_workers_shares'][0]} + {r['one_shard_two_workers_shares'][1]} episodes |",
    ]
    return "\n".join(lines)


PARTS = ("kills", "merge_kills", "validate_kills", "bad_inputs", "corruption", "readers")


def _passed(rep: dict) -> bool:
    kills, bad, corr = rep.get("kills"), rep.get("bad_inputs"), rep.get("corruption")
    mk, vk = rep.get("merge_kills"), rep.get("validate_kills")
    return (
        (
            kills is None
            or (kills["identical"] == kills["runs"] and not kills["leftovers"] and not kills["tracebacks"])
        )
        and (mk is None or (mk["identical"] == mk["runs"] and not mk["leftovers"] and not mk["tracebacks"]))
        and (mk is None or not mk["sources_changed"])
        and (vk is None or (vk["corpus_unchanged"] and vk["passes_afterwards"] and not vk["tracebacks"]))
        and (bad is None or (not bad["unclear"] and not bad["silent_bad_outputs"]))
        and (bad is None or not bad["cli_commands_without_a_case"])
        and (corr is None or (not corr["missed"] and not corr["tracebacks"]))
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=12, help="killed-and-resumed generate runs")
    ap.add_argument("--merge-kills", type=int, default=6, help="killed-and-rerun merge runs")
    ap.add_argument("--validate-kills", type=int, default=5, help="killed validate runs")
    ap.add_argument("--seed", type=int, default=0, help="seed of the kill times")
    ap.add_argument(
        "--work", type=Path, default=Path("/tmp/simkit-robustness"), help="scratch folder (emptied)"
    )
    ap.add_argument("--md", action="store_true", help="also print a markdown table for docs/benchmarks.md")
    ap.add_argument("--only", default="", help="run only the bad-input cases whose name contains this")
    ap.add_argument("--parts", default=",".join(PARTS), help="comma-separated parts to run")
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    rng = random.Random(args.seed)
    rep = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
    }
    loads = [os.getloadavg()[0]]
    parts = args.parts.split(",")
    if "validate_kills" in parts and "kills" not in parts:
        parts.insert(0, "kills")  # validate is killed on the generate kills' reference corpus
    for name, fn in (
        ("kills", lambda: campaign_kills(args.work, args.kills, rng)),
        ("merge_kills", lambda: campaign_merge_kills(args.work, args.merge_kills, rng)),
        ("validate_kills", lambda: campaign_validate_kills(args.work, args.validate_kills, rng)),
        ("bad_inputs", lambda: campaign_bad_inputs(args.work, args.only)),
        ("corruption", lambda: campaign_corruption(args.work)),
        ("readers", lambda: campaign_readers(args.work)),
    ):
        if name not in parts:
            continue
        t0 = time.perf_counter()
        rep[name] = fn()
        rep[name]["seconds"] = round(time.perf_counter() - t0, 1)
        loads.append(os.getloadavg()[0])
        print(f"[{name}] done in {rep[name]['seconds']} s", file=sys.stderr, flush=True)
    rep["load"] = f"{min(loads):.1f} to {max(loads):.1f} (1-minute, sampled between parts)"
    print(json.dumps(rep, indent=2, default=str))
    if args.md and all(k in rep for k in PARTS):
        print(to_markdown(rep))
    return 0 if _passed(rep) else 1


if __name__ == "__main__":
    raise SystemExit(main())
