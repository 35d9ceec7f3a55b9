"""Ray without a shared disk: a real multi-node Ray cluster on this machine writing to a local S3 endpoint.

Each node is a separate raylet with its own worker processes (``ray.cluster_utils.Cluster``); the
corpus goes to moto's S3 server through s3fs, so no node reads another's files. A node is removed
while it produces a shard: the run must still end byte-identical to a local run.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from enginehelp import manifest_rows, shard_bytes
from rayhelp import start_cluster
from s3help import make_bucket, moto_s3, s3_shard_bytes, s3fs

from simkit.episodes.corpus import read_manifest
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus

pytestmark = pytest.mark.slow

EASY = {"tier_mix": {"easy": 1.0, "medium": 0.0, "hard": 0.0}}
N, PER_SHARD = 64, 16
RECIPES = Path(__file__).resolve().parent.parent / "docs" / "recipes"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3():
    with moto_s3() as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def cluster(s3):
    """A head and two worker nodes of one CPU each (started after the AWS variables are set: nodes inherit them)."""
    pytest.importorskip("ray")
    dashboard = _free_port()
    c, workers = start_cluster(
        3, include_dashboard=True, dashboard_host="127.0.0.1", dashboard_port=dashboard
    )
    c.dashboard_url = f"http://127.0.0.1:{dashboard}"  # type: ignore[attr-defined]
    c.simkit_workers = workers  # type: ignore[attr-defined]
    yield c
    c.shutdown()


@pytest.fixture(scope="module")
def local_ref(tmp_path_factory):
    out = tmp_path_factory.mktemp("packref") / "c"
    generate_corpus("packing", N, out, config=EASY, episodes_per_shard=PER_SHARD)
    return out


def _cli_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    cfg = tmp_path / "easy.yaml"
    cfg.write_text("tier_mix: {easy: 1.0, medium: 0.0, hard: 0.0}\n")
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return {**os.environ, "PATH": path}, cfg


def test_ray_job_recipe_writes_the_corpus_to_s3(cluster, local_ref, tmp_path):
    """docs/recipes/ray-job.sh submitted to the cluster's job server: the first shard of a 16-episode run is
    the first shard of the local 64-episode run (episode i depends only on the seed)."""
    make_bucket("rayjob")
    env, cfg = _cli_env(tmp_path)
    env.update(RAY_API_SERVER_ADDRESS=cluster.dashboard_url, OUT="s3://rayjob/run", N=str(PER_SHARD))
    proc = subprocess.run(
        ["bash", str(RECIPES / "ray-job.sh"), "--config", str(cfg), "--episodes-per-shard", str(PER_SHARD)],
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "PASS s3://rayjob/run: 16 episodes (16 ok, 0 failed), 1 shard, 0 problems" in proc.stdout
    assert s3_shard_bytes("s3://rayjob/run") == {
        "shard-000000.tar": shard_bytes(local_ref)["shard-000000.tar"]
    }


def test_node_killed_mid_run_ends_byte_identical_to_a_local_run(cluster, local_ref, tmp_path):
    """`simkit generate packing --n 64 --out s3://... --executor ray --address CLUSTER`; a worker node is removed
    as soon as the first shard is published (the others are still being produced)."""
    make_bucket("raykill")
    url = "s3://raykill/run"
    env, cfg = _cli_env(tmp_path)
    args = ["generate", "packing", "--n", str(N), "--out", url, "--config", str(cfg)]
    args += ["--episodes-per-shard", str(PER_SHARD), "--executor", "ray", "--address", cluster.address]
    args += ["--no-progress"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "simkit", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    fs = s3fs()
    while not fs.glob("raykill/run/shards/*.rows.json"):  # the wait ends with the run: no clock
        assert proc.poll() is None, proc.communicate()[0][-3000:]
        time.sleep(0.05)
    assert len(fs.glob("raykill/run/shards/*.rows.json")) < N // PER_SHARD, "the run ended before the kill"
    cluster.remove_node(cluster.simkit_workers[0])
    out = proc.communicate(timeout=400)[0]
    if proc.returncode != 0:  # Ray gave the shard up: the same command resumes
        out += subprocess.run(
            [sys.executable, "-m", "simkit", *args], env=env, capture_output=True, text=True, timeout=400
        ).stdout
    assert s3_shard_bytes(url) == shard_bytes(local_ref), out[-3000:]
    rows = read_manifest(url + "/manifest.parquet")
    for r in rows:
        r.pop("duration_s")
    assert rows == manifest_rows(local_ref)
    assert validate_corpus(url).passed
