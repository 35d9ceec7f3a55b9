"""Corpora on an object store: a real S3 endpoint (moto's server on loopback) through the real s3fs client.

Generating to ``s3://`` must give the bytes a local run gives; validate, the readers, resume after
SIGKILL, growth and merge must work on the store as on a disk; corruption there must be caught.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from enginehelp import manifest_rows, shard_bytes, simkit_cli
from s3help import make_bucket, moto_s3, s3_names, s3_shard_bytes, s3fs

from simkit.adapters.reader import CorpusReader
from simkit.core.errors import SimkitError
from simkit.episodes.corpus import read_manifest
from simkit.episodes.merge import merge_corpora
from simkit.episodes.reader import CorpusDamaged
from simkit.episodes.storage import STAGE_PREFIX
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus

EASY = {"tier_mix": {"easy": 1.0, "medium": 0.0, "hard": 0.0}}
TOY = {"n": 10, "episodes_per_shard": 3, "seed": 11}


@pytest.fixture(scope="module")
def s3():
    with moto_s3() as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def toy_ref(tmp_path_factory):
    out = tmp_path_factory.mktemp("toyref") / "c"
    generate_corpus("toy", out=out, **TOY)
    return out


def _rows(url_or_dir) -> list[dict]:
    rows = read_manifest(str(url_or_dir) + "/manifest.parquet")
    for r in rows:
        r.pop("duration_s")
    return rows


@pytest.mark.slow
def test_packing_cli_to_s3_gives_the_local_bytes_and_reads_back(s3, tmp_path):
    """The issue's acceptance command, against the local endpoint: same shard bytes as --out DIR."""
    make_bucket("bucket")
    cfg = tmp_path / "easy.yaml"
    cfg.write_text("tier_mix: {easy: 1.0, medium: 0.0, hard: 0.0}\n")
    common = ["--n", "64", "--config", str(cfg), "--episodes-per-shard", "16", "--no-progress"]
    simkit_cli("generate", "packing", "--out", "s3://bucket/run", *common, check=True)
    local = tmp_path / "local"
    generate_corpus("packing", 64, local, config=EASY, episodes_per_shard=16)
    assert s3_shard_bytes("s3://bucket/run") == shard_bytes(local)
    assert len(shard_bytes(local)) == 4
    assert _rows("s3://bucket/run") == manifest_rows(local)
    assert s3_names("s3://bucket/run") == sorted(
        ["corpus.json", "manifest.parquet"]
        + [f"shards/shard-{j:06d}.{ext}" for j in range(4) for ext in ("rows.json", "tar")]
    )  # nothing else: no .partial/, no temporaries, no lock
    proc = simkit_cli("validate", "s3://bucket/run", check=True)
    assert "PASS s3://bucket/run: 64 episodes (64 ok, 0 failed), 4 shards, 0 problems" in proc.stdout
    remote = list(CorpusReader(["s3://bucket/run"], fields=["heightmaps", "meta"]))
    here = list(CorpusReader([local], fields=["heightmaps", "meta"]))
    assert [s["__key__"] for s in remote] == [s["__key__"] for s in here]
    for a, b in zip(remote, here, strict=True):
        assert (a["heightmaps"] == b["heightmaps"]).all() and a["meta"] == b["meta"]


@pytest.mark.slow
def test_torch_dataset_reads_an_s3_corpus_with_workers(s3, toy_ref):
    torch = pytest.importorskip("torch")
    from simkit.adapters.torch import CorpusDataset

    make_bucket("torchb")
    generate_corpus("toy", out="s3://torchb/c", **TOY)
    ds = CorpusDataset(["s3://torchb/c"], fields=["values"])
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2)
    keys = sorted(s["__key__"] for s in loader)
    want = sorted(s["__key__"] for s in CorpusReader(toy_ref))
    assert keys == want and len(keys) == TOY["n"]


@pytest.mark.slow
def test_corruption_on_s3_is_detected_and_a_lost_shard_comes_back(s3, toy_ref):
    make_bucket("corrupt")
    url = "s3://corrupt/c"
    generate_corpus("toy", out=url, **TOY)
    fs = s3fs()
    key = "corrupt/c/shards/shard-000001.tar"
    good = fs.cat(key)
    bad = bytearray(good)
    bad[1024] ^= 0xFF  # inside the first member's data
    fs.pipe(key, bytes(bad))
    rep = validate_corpus(url)
    assert not rep.passed and any("shard-000001.tar" in p and "checksum mismatch" in p for p in rep.problems)
    with pytest.raises(CorpusDamaged, match=r"shard-000001\.tar"):
        list(CorpusReader(url))
    # a lost shard object (its rows object still there) is produced again by the same command
    fs.rm(key)
    summary = generate_corpus("toy", out=url, **TOY)
    assert summary.discarded == 3 and summary.produced == 3
    assert s3_shard_bytes(url) == shard_bytes(toy_ref)
    assert validate_corpus(url).passed


def test_a_shard_without_its_rows_object_is_not_trusted(s3, toy_ref):
    """A tar object whose rows object never came (a kill between the two PUTs) is an unfinished shard."""
    make_bucket("marker")
    url = "s3://marker/c"
    generate_corpus("toy", out=url, shard=(0, 3), **TOY)  # shards 0 and 3: episodes 0, 1, 2 and 9
    s3fs().pipe("marker/c/shards/shard-000002.tar", b"half an upload")
    assert sorted(s["__key__"] for s in CorpusReader(url)) == [f"toy_{i:08d}" for i in (0, 1, 2, 9)]
    rep = validate_corpus(url)
    assert rep.incomplete and any("shard-000002.tar: a shard of an unfinished run" in n for n in rep.notes)
    summary = generate_corpus("toy", out=url, **TOY)
    assert summary.resumed == 4 and summary.produced == 6
    assert s3_shard_bytes(url) == shard_bytes(toy_ref)
    assert _rows(url) == manifest_rows(toy_ref)


def _start(url: str) -> subprocess.Popen:
    args = ["generate", "toy", "--n", str(TOY["n"]), "--out", url, "--seed", str(TOY["seed"])]
    args += ["--episodes-per-shard", str(TOY["episodes_per_shard"]), "--set", "sleep_s=0.2", "--no-progress"]
    return subprocess.Popen(
        [sys.executable, "-m", "simkit", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _kill_after(proc: subprocess.Popen, url: str, shards: int) -> None:
    """SIGKILL the run's process group once ``shards`` shards are published (the wait ends with the run)."""
    fs, prefix = s3fs(), url.removeprefix("s3://") + "/shards/*.rows.json"
    while len(fs.glob(prefix)) < shards:
        assert proc.poll() is None, "the run finished before the kill point"
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@pytest.mark.slow
def test_sigkill_on_s3_then_resume_gives_the_uninterrupted_corpus(s3, toy_ref):
    make_bucket("killed")
    url = "s3://killed/c"
    cfg = {"sleep_s": 0.2}
    proc = _start(url)
    _kill_after(proc, url, 1)
    stale = list(Path(tempfile.gettempdir()).glob(f"{STAGE_PREFIX}{proc.pid}-*"))
    assert stale, "the killed run kept its unfinished episodes in a staging folder"
    proc = _start(url)  # killed again, later
    _kill_after(proc, url, 2)
    summary = generate_corpus("toy", out=url, config=cfg, **TOY)
    assert summary.resumed >= 6 and summary.produced + summary.resumed == TOY["n"]
    assert s3_shard_bytes(url) == shard_bytes(toy_ref)
    assert _rows(url) == manifest_rows(toy_ref)
    assert validate_corpus(url).passed
    assert not any(p.exists() for p in stale), "a stale staging folder of a dead run was left behind"


def test_grow_on_s3_gives_the_larger_fresh_corpus(s3, toy_ref):
    make_bucket("grow")
    url = "s3://grow/c"
    generate_corpus("toy", 7, url, seed=11, episodes_per_shard=3)
    summary = generate_corpus("toy", out=url, **TOY)
    assert summary.resumed == 7 and summary.produced == 3  # the short last shard is reopened and refilled
    assert s3_shard_bytes(url) == shard_bytes(toy_ref)
    assert _rows(url) == manifest_rows(toy_ref)
    stage = Path(tempfile.gettempdir())
    assert not list(stage.glob(f"{STAGE_PREFIX}{os.getpid()}-*")), "a finished run left its staging folder"


def test_another_corpus_at_the_url_is_refused_and_overwrite_starts_over(s3, toy_ref):
    make_bucket("overwrite")
    url = "s3://overwrite/c"
    generate_corpus("toy", out=url, **{**TOY, "seed": 12})
    with pytest.raises(
        SimkitError, match=r"already holds a different corpus \(these settings differ: seed \(12 -> 11\)"
    ):
        generate_corpus("toy", out=url, **TOY)
    s3fs().pipe("overwrite/c/notes.txt", b"not the corpus's")
    generate_corpus("toy", out=url, overwrite=True, **TOY)
    assert s3_shard_bytes(url) == shard_bytes(toy_ref)
    assert "notes.txt" in s3_names(url)  # --overwrite removes the corpus, nothing else


def test_inspect_stats_of_an_s3_corpus(s3, toy_ref):
    from simkit.episodes.inspect import corpus_stats, inspect_corpus

    make_bucket("inspect")
    generate_corpus("toy", out="s3://inspect/c", **TOY)
    stats, local = corpus_stats("s3://inspect/c"), corpus_stats(toy_ref)
    assert stats["bytes"] == local["bytes"] == sum(len(b) for b in shard_bytes(toy_ref).values())
    assert {k: stats[k] for k in ("ok", "shards", "fields")} == {
        k: local[k] for k in ("ok", "shards", "fields")
    }
    with pytest.raises(SimkitError, match="a corpus URL needs --out"):
        inspect_corpus("s3://inspect/c")


@pytest.mark.slow
def test_merge_slices_from_several_urls(s3, toy_ref, tmp_path):
    make_bucket("slices")
    for k in range(2):
        generate_corpus("toy", out=f"s3://slices/part{k}", shard=(k, 2), **TOY)
    merge_corpora(["s3://slices/part0", "s3://slices/part1"], "s3://slices/all")
    assert s3_shard_bytes("s3://slices/all") == shard_bytes(toy_ref)
    assert validate_corpus("s3://slices/all").passed
    # and from the store to a local directory
    merge_corpora(["s3://slices/part0", "s3://slices/part1"], tmp_path / "m")
    assert shard_bytes(tmp_path / "m") == shard_bytes(toy_ref)
    assert manifest_rows(tmp_path / "m") == manifest_rows(toy_ref)


def test_bad_urls_are_one_clear_line(s3, tmp_path):
    proc = simkit_cli("generate", "toy", "--n", "2", "--out", "nosuchproto://b/c")
    assert proc.returncode == 2 and "unknown storage protocol nosuchproto://" in proc.stderr
    assert "Traceback" not in proc.stderr
    rep = validate_corpus("s3://no-such-bucket/c")
    assert rep.problems == ["s3://no-such-bucket/c: no such corpus directory"]
    with pytest.raises(SimkitError, match="no such corpus directory"):
        CorpusReader("s3://no-such-bucket/c")
    env = {k: v for k, v in os.environ.items() if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
    proc = subprocess.run(
        [sys.executable, "-m", "simkit", "validate", "s3://bucket/run"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: s3://bucket/run: object store error: NoCredentialsError")


RECIPES = Path(__file__).resolve().parent.parent / "docs" / "recipes"


def _recipe_env(**extra: str) -> dict[str, str]:
    """The test's environment (AWS_* pointing at the local endpoint) with this venv's ``simkit`` on PATH."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return {**os.environ, "PATH": path, **extra}


@pytest.mark.slow
def test_slurm_array_recipe_then_merge_gives_the_whole_corpus(s3, toy_ref):
    """docs/recipes/slurm-array.sh and slurm-merge.sh as a farm runs them, the array variables set by hand."""
    make_bucket("farm")
    env = _recipe_env(OUT="s3://farm/run", GENERATOR="toy", N=str(TOY["n"]))
    args = ["--seed", str(TOY["seed"]), "--episodes-per-shard", str(TOY["episodes_per_shard"])]
    for k in range(2):
        task = {"SLURM_ARRAY_TASK_ID": str(k), "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_CPUS_PER_TASK": "1"}
        proc = subprocess.run(
            ["bash", str(RECIPES / "slurm-array.sh"), *args],
            env={**env, **task},
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
    assert sorted(s3_shard_bytes("s3://farm/run/slice-1")) == ["shard-000001.tar", "shard-000003.tar"]
    proc = subprocess.run(
        ["bash", str(RECIPES / "slurm-merge.sh")], env={**env, "SLICES": "2"}, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS s3://farm/run/corpus: 10 episodes (10 ok, 0 failed), 4 shards, 0 problems" in proc.stdout
    assert s3_shard_bytes("s3://farm/run/corpus") == shard_bytes(toy_ref)
    assert _rows("s3://farm/run/corpus") == manifest_rows(toy_ref)
