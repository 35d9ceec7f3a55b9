"""Bad input to the object-store and GPU-backend surfaces, as a new user types it: one clear line, no traceback."""

from __future__ import annotations

import pytest
from enginehelp import simkit_cli

from simkit.core.errors import SimkitError
from simkit.episodes.storage import corpus_path


@pytest.mark.parametrize("url", ["s3://", "s3:///x", "gs://"])
def test_an_object_store_url_without_a_bucket_is_one_line(url):
    if url.startswith("s3"):
        with pytest.raises(SimkitError, match=r"no bucket in the URL; write s3://BUCKET/PATH"):
            corpus_path(url)
    for cmd in (["generate", "toy", "--n", "1", "--out", url], ["validate", url]):
        proc = simkit_cli(*cmd)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr
        assert proc.stderr.startswith(f"error: {url}: "), proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_a_ray_shard_task_works_in_a_stage_folder_a_later_run_can_clean(tmp_path, monkeypatch):
    """A node killed mid-shard cannot remove its own working folder: the next run on that machine must."""
    import tempfile

    from s3help import make_bucket, moto_s3, s3_names

    from simkit.episodes.storage import STAGE_PREFIX
    from simkit.executors.worker import RunSpec, produce_shard

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale = tmp_path / f"{STAGE_PREFIX}999999999-dead"  # left by a process that no longer exists
    (stale / "shards").mkdir(parents=True)
    spec = RunSpec(generator="toy", config={}, seed=11, out="unused", episodes_per_shard=3)
    with moto_s3():
        make_bucket("nodes")
        rows = produce_shard(spec, 1, [3, 4, 5], None, "s3://nodes/run")
        assert s3_names("s3://nodes/run") == ["shards/shard-000001.rows.json", "shards/shard-000001.tar"]
    assert [r["key"] for r in rows] == ["toy_00000003", "toy_00000004", "toy_00000005"]
    assert list(tmp_path.iterdir()) == []  # the stale folder removed, this task's own folder too


def test_an_unknown_warp_knob_is_one_line_before_any_compile(tmp_path, monkeypatch):
    """``warp={...}`` with a typo: one InputError line, before minutes of layout-group compilation."""
    pytest.importorskip("torch")
    import simkit.envs.hebero.warp as hw
    import simkit.sims.hebero.layout_models as lm
    import simkit.sims.hebero.warp_batch as mwb
    from simkit.core.errors import InputError

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled the layout groups before checking the warp keys")

    monkeypatch.setattr(mwb, "require_gpu", lambda: None)  # stands in for a GPU machine
    monkeypatch.setattr(lm, "export_groups", no_compile)
    with pytest.raises(InputError, match=r"^Hebero warp config bogus, nconmx: unknown; known: autoreset, "):
        hw.make_warp_vector_env(num_envs=4, suite="goal", cache_dir=tmp_path, warp={"nconmx": 9, "bogus": 1})
    assert list(tmp_path.iterdir()) == []


def test_merge_into_a_bucket_that_does_not_exist_is_one_line(tmp_path):
    from s3help import moto_s3

    from simkit.executors.run import generate_corpus

    generate_corpus("toy", out=tmp_path / "slice", n=4, episodes_per_shard=2, seed=11)
    with moto_s3():
        proc = simkit_cli("merge", str(tmp_path / "slice"), "--out", "s3://no-such-bucket/x")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip() == "error: --out s3://no-such-bucket/x: The specified bucket does not exist"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slice"]  # nothing written beside it


def test_a_ray_address_nobody_listens_on_is_one_line_not_a_hang(tmp_path):
    """``ray.init`` retries a closed GCS port for many minutes; simkit says so at once."""
    import socket

    pytest.importorskip("ray")
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens on it
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = ["--n", "2", "--out", str(tmp_path / "c"), "--executor", "ray", "--address", f"127.0.0.1:{port}"]
    proc = simkit_cli("generate", "toy", *args, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip() == f"error: cannot reach Ray at 127.0.0.1:{port}: Connection refused"
