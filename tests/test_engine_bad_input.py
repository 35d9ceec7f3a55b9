"""Every command survives bad input and damaged corpora with one clear line (never a traceback)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tracemalloc

import pytest
from corruptions import CORRUPTIONS
from typer.testing import CliRunner

from simkit.cli import app
from simkit.episodes.corpus import MAX_EPISODES
from simkit.executors.run import generate_corpus

runner = CliRunner()


def cli(*args: str):
    """Run the CLI in-process; returns (exit code, stdout, stderr) and fails on any traceback."""
    r = runner.invoke(app, [str(a) for a in args])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.stdout + r.stderr
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    out = tmp_path_factory.mktemp("good") / "c"
    generate_corpus("toy", 6, out, seed=2, episodes_per_shard=3)
    return out


@pytest.fixture
def corpus(good, tmp_path):
    shutil.copytree(good, tmp_path / "c")
    return tmp_path / "c"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--seed", "-1"], "--seed must be in [0, 2**63)"),
        (["--retries", "-1"], "--retries must be 0 or more"),
        (["--max-shard-mb", "0"], "--max-shard-mb must be a positive number"),
        (["--max-shard-mb", "nan"], "--max-shard-mb must be a positive number"),
        (["--episodes-per-shard", "0"], "--episodes-per-shard must be at least 1"),
        (["--n", str(10**15)], f"at most {MAX_EPISODES} episodes"),
        (["--n", "0"], "--n must be at least 1"),
        (["--workers", "0"], "--workers must be in [1,"),
        (["--workers", "100000"], "--workers must be in [1,"),
        (["--shard", "5/2"], "need 0 <= K < N"),
    ],
)
def test_generate_checks_values_before_any_work(tmp_path, args, needle):
    out = tmp_path / "c"
    full = ["generate", "toy", "--n", "2", "--out", out, *args]
    code, _, err = cli(*full)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_generate_refuses_an_output_path_under_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    code, _, err = cli("generate", "toy", "--n", "2", "--out", tmp_path / "f" / "sub")
    assert code == 2 and "which is a file" in err
    assert (tmp_path / "f").read_text() == "x"


def test_planning_a_huge_corpus_does_not_allocate_per_episode(tmp_path):
    from simkit.episodes.corpus import CorpusLayout
    from simkit.executors.run import _Run
    from simkit.executors.worker import RunSpec

    spec = RunSpec("toy", {}, 0, str(tmp_path), 64)
    tracemalloc.start()
    run = _Run(spec, CorpusLayout(tmp_path), MAX_EPISODES, (0, 1), None)
    planned, resumed = run.count()
    first = next(run.todo())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert (planned, resumed, first) == (MAX_EPISODES, 0, 0)
    assert peak < 2 << 20  # bytes: per-episode planning of 1e8 episodes would need gigabytes


def test_merge_refuses_rows_that_point_outside_and_writes_nothing_there(corpus, tmp_path):
    CORRUPTIONS["rows_shard_traversal"][0](corpus)
    out = tmp_path / "deep" / "m"
    code, _, err = cli("merge", corpus, "--out", out)
    assert code == 2 and "not a file of this shard" in err
    assert not (tmp_path / "deep").exists() and not (tmp_path / "outside.tar").exists()


def test_merge_refuses_sources_whose_settings_disagree_naming_them(tmp_path):
    generate_corpus("toy", 4, tmp_path / "a", seed=1, episodes_per_shard=2, shard=(0, 2))
    generate_corpus("toy", 4, tmp_path / "b", seed=1, episodes_per_shard=2, shard=(1, 2), config={"size": 8})
    code, _, err = cli("merge", tmp_path / "a", tmp_path / "b", "--out", tmp_path / "m")
    assert code == 2 and "config.size (16 -> 8)" in err and not (tmp_path / "m").exists()


@pytest.mark.parametrize(
    "kind", ["flipped_png_byte", "duplicate_member", "trailing_garbage", "rows_file_garbage"]
)
def test_merge_on_a_damaged_corpus_is_one_line(corpus, tmp_path, kind):
    CORRUPTIONS[kind][0](corpus)
    code, _, err = cli("merge", corpus, "--out", tmp_path / "m")
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_inspect_reports_damaged_members_and_goes_on(corpus, tmp_path):
    CORRUPTIONS["flipped_png_byte"][0](corpus)
    code, out, err = cli("inspect", corpus, "--out", tmp_path / "pics")
    assert code == 0 and "shard-000000.tar" in err and "toy_00000000.image.png" in err
    stats = json.loads(out[: out.rindex("}") + 1])
    assert stats["pictured_episodes"] == 5  # 6 episodes, the damaged one skipped
    CORRUPTIONS["manifest_garbage"][0](corpus)
    code, _, err = cli("inspect", corpus)
    assert code == 2 and "manifest.parquet" in err


@pytest.fixture(scope="module")
def packing(tmp_path_factory):
    out = tmp_path_factory.mktemp("pk") / "c"
    generate_corpus("packing", 2, out, seed=5, config={"tier_mix": {"easy": 1, "medium": 0, "hard": 0}})
    return out


def test_export_and_eval_on_a_damaged_corpus_stop_with_one_line(packing, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(packing, bad)
    p = bad / "shards" / "shard-000000.tar"
    b = bytearray(p.read_bytes())
    i = b.index(b'"container"')
    b[i + 2] ^= 1  # inside packing_00000000.case.json
    p.write_bytes(bytes(b))
    code, _, err = cli("export", "packing-sft", bad, "--out", tmp_path / "x" / "t.jsonl")
    assert code == 2 and "packing_00000000.case.json" in err and "sha256" in err
    assert not (tmp_path / "x" / "t.jsonl").exists()
    code, _, err = cli("eval", "packing-overlap", bad)
    assert code == 2 and "packing_00000000.case.json" in err


def test_validate_environment_problem_is_not_damage(tmp_path):
    out = tmp_path / "m"
    generate_corpus("media", 2, out, seed=1)
    code = "import sys; sys.modules['soundfile'] = None; from simkit.cli import main; sys.argv[1:] = sys.argv[1:]; main()"
    p = subprocess.run([sys.executable, "-c", code, "validate", str(out)], capture_output=True, text=True)
    assert p.returncode == 4, p.stdout + p.stderr
    assert "FAIL" not in p.stdout.replace("INCOMPLETE-CHECK", "") and "Traceback" not in p.stderr
    assert "NOTE (environment, not damage)" in p.stdout and "simkit[audio]" in p.stdout


def test_strict_fails_a_slice_and_plain_validate_notes_it(tmp_path):
    generate_corpus("toy", 4, tmp_path / "s", seed=1, episodes_per_shard=2, shard=(0, 2))
    code, out, _ = cli("validate", tmp_path / "s")
    assert code == 0 and "NOTE holds 2 of 4 planned episodes" in out
    code, out, _ = cli("validate", tmp_path / "s", "--strict")
    assert code == 5 and "--strict" in out.splitlines()[-1]


def test_lazy_plan_counts_match_the_listed_plan(tmp_path):
    from simkit.episodes.corpus import CorpusLayout
    from simkit.executors.run import _Run, plan_indices
    from simkit.executors.worker import RunSpec

    for n in range(1, 23):
        for eps in (1, 3, 4, 7, 30):
            for shard in ((0, 1), (0, 2), (1, 2), (2, 3)):
                run = _Run(RunSpec("toy", {}, 0, str(tmp_path), eps), CorpusLayout(tmp_path), n, shard, None)
                listed = plan_indices(n, eps, shard)
                assert run.count() == (sum(len(v) for v in listed.values()), 0)
                assert list(run.todo()) == [i for j in sorted(listed) for i in listed[j]]


def test_validate_without_the_generator_installed_is_an_environment_note(good):
    import os

    env = {**os.environ, "SIMKIT_GENERATORS": ""}
    p = subprocess.run(
        [sys.executable, "-m", "simkit", "validate", str(good)], capture_output=True, text=True, env=env
    )
    assert p.returncode == 4, p.stdout + p.stderr
    assert "NOTE (environment, not damage) generator checks not run: unknown generator 'toy'" in p.stdout
    assert not any(line.startswith("FAIL ") for line in p.stdout.splitlines())


def test_generate_into_a_corpus_of_another_generator_names_only_the_generator(good, tmp_path):
    shutil.copytree(good, tmp_path / "c")
    code, _, err = cli("generate", "packing", "--n", "2", "--out", tmp_path / "c")
    assert code == 2 and "generator ('toy' -> 'packing')" in err
    assert "config." not in err and "version" not in err


@pytest.mark.parametrize("command", ["validate", "inspect"])
def test_a_file_given_as_corpus_is_named_not_a_directory(command, tmp_path):
    (tmp_path / "f").write_text("x")
    code, out, err = cli(command, tmp_path / "f")
    assert code in (1, 2) and "not a directory" in out + err and "no such" not in out + err
