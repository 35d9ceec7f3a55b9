"""Corpora that grow: a larger --n with the same settings extends a corpus; anything else is refused by name."""

from __future__ import annotations

import pytest
from enginehelp import corpus_json, manifest_rows, shard_bytes, simkit_cli, tar_members

from simkit.core.errors import SimkitError
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus


def test_growing_gives_the_corpus_a_fresh_run_of_the_larger_n_gives(tmp_path):
    grown, fresh = tmp_path / "grown", tmp_path / "fresh"
    generate_corpus("toy", 10, grown, seed=7, episodes_per_shard=4)
    first = tar_members(grown)
    s = generate_corpus("toy", 25, grown, seed=7, episodes_per_shard=4)
    assert (s.planned, s.produced, s.resumed) == (25, 15, 10)
    generate_corpus("toy", 25, fresh, seed=7, episodes_per_shard=4)
    after = tar_members(grown)
    assert {k: after[k] for k in first} == first  # the first 10 episodes are byte-identical
    assert shard_bytes(grown) == shard_bytes(fresh)  # and the shards are those of a fresh 25-episode run
    assert [r["index"] for r in manifest_rows(grown)] == list(range(25))
    assert corpus_json(grown)["n"] == 25 and corpus_json(grown)["counts"]["ok"] == 25
    assert validate_corpus(grown).passed and not (grown / ".partial").exists()


@pytest.mark.slow
def test_growing_by_cli_and_refusals_name_the_differing_keys(tmp_path):
    out = tmp_path / "c"
    simkit_cli("generate", "toy", "--n", "3", "--out", str(out), "--set", "size=8", check=True)
    p = simkit_cli("generate", "toy", "--n", "5", "--out", str(out), "--set", "size=8", check=True)
    assert corpus_json(out)["n"] == 5 and len(manifest_rows(out)) == 5
    p = simkit_cli("generate", "toy", "--n", "5", "--out", str(out), "--set", "size=12", "--seed", "4")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "seed (0 -> 4)" in p.stderr and "config.size (8 -> 12)" in p.stderr
    p = simkit_cli("generate", "toy", "--n", "2", "--out", str(out), "--set", "size=8")
    assert p.returncode == 2 and "would shrink it" in p.stderr
    (out / "notes.txt").write_text("mine")
    simkit_cli(
        "generate", "toy", "--n", "2", "--out", str(out), "--set", "size=12", "--overwrite", check=True
    )
    info = corpus_json(out)
    assert info["n"] == 2 and info["config"]["size"] == 12 and len(manifest_rows(out)) == 2
    assert (out / "notes.txt").read_text() == "mine"  # --overwrite removes the corpus, nothing else


def test_other_differences_are_refused(tmp_path):
    out = tmp_path / "c"
    generate_corpus("toy", 4, out, seed=1, episodes_per_shard=2)
    with pytest.raises(SimkitError, match=r"episodes_per_shard \(2 -> 3\)"):
        generate_corpus("toy", 8, out, seed=1, episodes_per_shard=3)
    with pytest.raises(SimkitError, match=r"config\.payload_bytes \(0 -> 5\)"):
        generate_corpus("toy", 8, out, seed=1, episodes_per_shard=2, config={"payload_bytes": 5})


def test_a_resumed_run_leaves_no_partial_files(tmp_path):
    """A run killed after a shard was assembled but before its .partial folder was removed."""
    from simkit.episodes.corpus import CorpusLayout, write_partial

    out = tmp_path / "c"
    generate_corpus("toy", 4, out, seed=1, episodes_per_shard=2)
    layout = CorpusLayout(out)
    write_partial(layout, 0, 1, [], {"index": 1, "members": []})  # left over from the kill
    generate_corpus("toy", 4, out, seed=1, episodes_per_shard=2)
    assert not (out / ".partial").exists()
    assert validate_corpus(out).passed


def test_resume_produces_a_deleted_shard_again(tmp_path):
    out = tmp_path / "c"
    generate_corpus("toy", 6, out, seed=1, episodes_per_shard=2)
    before = shard_bytes(out)
    (out / "shards" / "shard-000001.tar").unlink()
    s = generate_corpus("toy", 6, out, seed=1, episodes_per_shard=2)
    assert (s.produced, s.discarded) == (2, 2)
    assert shard_bytes(out) == before and validate_corpus(out).passed


def test_resume_produces_a_truncated_shard_again_and_says_so(tmp_path):
    out = tmp_path / "c"
    generate_corpus("toy", 6, out, seed=1, episodes_per_shard=2)
    before = shard_bytes(out)
    tar = out / "shards" / "shard-000001.tar"
    tar.write_bytes(tar.read_bytes()[: tar.stat().st_size // 2])  # a copy cut off half way
    s = generate_corpus("toy", 6, out, seed=1, episodes_per_shard=2)
    assert (s.produced, s.discarded) == (2, 2)
    assert s.notes[0] == "shards/shard-000001.tar: missing or damaged; its 2 episodes were produced again"
    assert shard_bytes(out) == before and validate_corpus(out).passed
    s = generate_corpus("toy", 6, out, seed=1, episodes_per_shard=2)  # intact now: nothing to redo
    assert (s.produced, s.discarded, s.notes) == (0, 0, [])


def test_ctrl_c_says_how_to_resume_and_the_same_command_finishes_the_same_corpus(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    def cli(out):
        args = [
            "generate",
            "toy",
            "--n",
            "12",
            "--out",
            str(out),
            "--episodes-per-shard",
            "2",
            "--set",
            "sleep_s=0.1",
        ]
        return subprocess.Popen(
            [sys.executable, "-m", "simkit", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's Ctrl-C
        )

    p = cli(tmp_path / "c")
    deadline = time.monotonic() + 60
    while not list((tmp_path / "c").glob("shards/*.tar")) and time.monotonic() < deadline:
        time.sleep(0.05)  # interrupt once a shard is complete, mid-run
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert err.strip().splitlines()[-1] == (
        f"interrupted: {tmp_path / 'c'} keeps the finished episodes; run the same command again to resume"
    )
    assert 0 < len(list((tmp_path / "c").glob("shards/*.tar"))) < 6
    for out in ("c", "ref"):  # the same command again, and an uninterrupted run
        q = cli(tmp_path / out)
        assert q.wait(timeout=120) == 0
    assert shard_bytes(tmp_path / "c") == shard_bytes(tmp_path / "ref")
