"""Episode writer, executors, determinism, failures and merge on the toy generator."""

from __future__ import annotations

import json

import pytest
from enginehelp import corpus_json, manifest_rows, shard_bytes, simkit_cli, tar_members

from simkit.core.errors import SimkitError
from simkit.episodes.corpus import shard_sort_key
from simkit.episodes.merge import merge_corpora
from simkit.episodes.reader import iter_corpus
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus, parse_shard, plan_indices


def test_plan_is_independent_of_workers():
    assert plan_indices(10, 4, (0, 1)) == {0: [0, 1, 2, 3], 1: [4, 5, 6, 7], 2: [8, 9]}
    assert plan_indices(10, 4, (1, 2)) == {1: [4, 5, 6, 7]}
    assert parse_shard("3/4") == (3, 4)
    for bad in ("4/4", "x", "1/0", "-1/2"):
        with pytest.raises(SimkitError):
            parse_shard(bad)


def test_layout_members_meta_and_manifest(tmp_path):
    s = generate_corpus("toy", 7, tmp_path / "c", seed=3, episodes_per_shard=3)
    assert (s.planned, s.produced, s.failed, s.shards_written, s.exit_code) == (7, 7, 0, 3, 0)
    members = tar_members(tmp_path / "c")
    assert len(members) == 7 * 4  # image, info, values, meta
    assert "toy_00000004.image.png" in members
    meta = json.loads(members["toy_00000004.meta.json"])
    assert meta["generator"] == "toy" and meta["index"] == 4 and meta["seed"] == 3
    assert meta["params"]["structural"]["n_values"] == json.loads(members["toy_00000004.info.json"])["n_values"]
    assert "simkit" in meta["versions"] and "duration" not in json.dumps(meta)
    rows = manifest_rows(tmp_path / "c")
    assert [r["index"] for r in rows] == list(range(7))
    assert rows[4]["shard"] == "shard-000001.tar" and rows[4]["status"] == "ok"
    assert {m["name"] for m in rows[4]["members"]} == {n for n in members if n.startswith("toy_00000004.")}
    info = corpus_json(tmp_path / "c")
    assert info["counts"]["ok"] == 7 and info["schema"] == {"image": "png", "info": "json", "meta": "json",
                                                           "values": "npy"}
    assert not (tmp_path / "c" / ".partial").exists()
    assert validate_corpus(tmp_path / "c").passed
    keys = [s["__key__"] for s in iter_corpus(tmp_path / "c")]
    assert keys == [f"toy_{i:08d}" for i in range(7)]


@pytest.mark.slow
def test_same_corpus_from_any_worker_count_shard_split_and_ray(tmp_path):
    ref = tmp_path / "w1"
    generate_corpus("toy", 11, ref, seed=5, episodes_per_shard=2, workers=1)
    generate_corpus("toy", 11, tmp_path / "w2", seed=5, episodes_per_shard=2, workers=2)
    generate_corpus("toy", 11, tmp_path / "s0", seed=5, episodes_per_shard=2, shard=(0, 2))
    generate_corpus("toy", 11, tmp_path / "s1", seed=5, episodes_per_shard=2, shard=(1, 2))
    merge_corpora([tmp_path / "s0", tmp_path / "s1"], tmp_path / "merged")
    generate_corpus("toy", 11, tmp_path / "ray", seed=5, episodes_per_shard=2, executor="ray", ray_num_cpus=2)
    want_bytes, want_rows = shard_bytes(ref), manifest_rows(ref)
    assert len(want_bytes) == 6
    for other in ("w2", "merged", "ray"):
        assert shard_bytes(tmp_path / other) == want_bytes, other
        assert manifest_rows(tmp_path / other) == want_rows, other
        assert validate_corpus(tmp_path / other).passed
    # a slice alone holds only its shards
    assert set(shard_bytes(tmp_path / "s1")) == {"shard-000001.tar", "shard-000003.tar", "shard-000005.tar"}


def test_different_seed_gives_different_corpus(tmp_path):
    generate_corpus("toy", 3, tmp_path / "a", seed=1)
    generate_corpus("toy", 3, tmp_path / "b", seed=2)
    assert tar_members(tmp_path / "a") != tar_members(tmp_path / "b")


def test_rerun_skips_finished_and_refuses_other_corpus(tmp_path):
    out = tmp_path / "c"
    generate_corpus("toy", 5, out, seed=1, episodes_per_shard=2)
    before = shard_bytes(out)
    s = generate_corpus("toy", 5, out, seed=1, episodes_per_shard=2)
    assert (s.produced, s.resumed) == (0, 5)
    assert shard_bytes(out) == before
    with pytest.raises(SimkitError, match="different corpus"):
        generate_corpus("toy", 5, out, seed=2, episodes_per_shard=2)


def test_transient_retry_rejection_redraw_and_permanent_failure(tmp_path):
    flaky = tmp_path / "flaky"
    flaky.mkdir()
    s = generate_corpus("toy", 6, tmp_path / "c", seed=0,
                        config={"reject_below": 0.5, "fail_index": 4, "flaky_dir": str(flaky)})
    assert s.failed == 1 and s.exit_code == 3
    rows = {r["index"]: r for r in manifest_rows(tmp_path / "c")}
    assert rows[4]["status"] == "failed" and "deliberate permanent failure" in rows[4]["error"]
    assert rows[4]["members"] == []
    members = tar_members(tmp_path / "c")
    assert not any(n.startswith("toy_00000004.") for n in members)
    redrawn = 0
    for i in (0, 1, 2, 3, 5):
        assert rows[i]["status"] == "ok"
        meta = json.loads(members[f"toy_{i:08d}.meta.json"])
        info = json.loads(members[f"toy_{i:08d}.info.json"])
        assert info["first"] >= 0.5  # rejection rule honoured
        assert meta["redraw"] == rows[i]["redraws"] == len(meta["rejections"])
        assert rows[i]["attempts"] == 1 + rows[i]["redraws"] + 1  # one transient failure retried
        redrawn += meta["redraw"] > 0
    assert redrawn >= 1  # with p=0.5 per draw, 5 episodes without any redraw has p=1/32 -- seed 0 has some
    rep = validate_corpus(tmp_path / "c")
    assert not rep.passed and any("toy_00000004" in p for p in rep.problems)


def test_transient_failure_exhausts_retries(tmp_path):
    flaky = tmp_path / "flaky"
    flaky.mkdir()
    s = generate_corpus("toy", 2, tmp_path / "c", config={"flaky_dir": str(flaky)}, retries=0)
    assert s.failed == 2
    assert all("transient" in r["error"] for r in manifest_rows(tmp_path / "c"))


def test_max_shard_bytes_splits_into_parts(tmp_path):
    generate_corpus("toy", 6, tmp_path / "c", episodes_per_shard=6, max_shard_bytes=3000,
                    config={"payload_bytes": 1000})
    names = sorted(shard_bytes(tmp_path / "c"), key=shard_sort_key)
    assert len(names) >= 3 and names[0] == "shard-000000.tar" and names[1] == "shard-000000-01.tar"
    assert [s["__key__"] for s in iter_corpus(tmp_path / "c")] == [f"toy_{i:08d}" for i in range(6)]
    assert validate_corpus(tmp_path / "c").passed


def test_cli_generate_validate_inspect_exit_codes(tmp_path):
    out = tmp_path / "c"
    p = simkit_cli("generate", "toy", "--n", "4", "--out", str(out), "--set", "size=12", check=True)
    assert "planned" in p.stdout
    assert simkit_cli("validate", str(out), check=True).stdout.strip().endswith("0 problems")
    p = simkit_cli("inspect", str(out), check=True)
    assert (out / "inspect" / "contact_sheet.png").exists() and '"ok": 4' in p.stdout
    p = simkit_cli("generate", "toy", "--n", "2", "--out", str(tmp_path / "f"), "--set", "fail_index=1")
    assert p.returncode == 3
    p = simkit_cli("generate", "toy", "--n", "2", "--out", str(tmp_path / "g"), "--set", "bogus=1")
    assert p.returncode == 2 and "unknown key 'bogus'" in p.stderr and "Traceback" not in p.stderr
    p = simkit_cli("generate", "nope", "--n", "2", "--out", str(tmp_path / "h"))
    assert p.returncode == 2 and "unknown generator 'nope'" in p.stderr
