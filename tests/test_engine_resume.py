"""Kill real `simkit generate` processes with SIGKILL at several points, resume, compare with an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from enginehelp import manifest_rows, shard_bytes

from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus

N, PER_SHARD, SEED = 10, 3, 11
CONFIG = {"sleep_s": 0.15}


def _start(out: Path, workers: int) -> subprocess.Popen:
    args = [
        sys.executable,
        "-m",
        "simkit",
        "generate",
        "toy",
        "--n",
        str(N),
        "--out",
        str(out),
        "--seed",
        str(SEED),
        "--episodes-per-shard",
        str(PER_SHARD),
        "--workers",
        str(workers),
        "--set",
        f"sleep_s={CONFIG['sleep_s']}",
        "--no-progress",
    ]
    return subprocess.Popen(
        args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def _kill_when(proc: subprocess.Popen, ready) -> bool:
    """SIGKILL the whole process group once ``ready()`` holds; False when the run finished first (the wait
    ends with the run: no clock)."""
    while proc.poll() is None:
        if ready():
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.005)
    return False


def _partials(out: Path) -> int:
    return len(list((out / ".partial").rglob("*.tar"))) if (out / ".partial").exists() else 0


def _rows_files(out: Path) -> int:
    return len(list((out / "shards").glob("*.rows.json"))) if (out / "shards").exists() else 0


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "c"
    generate_corpus("toy", N, out, seed=SEED, episodes_per_shard=PER_SHARD, config=CONFIG)
    return shard_bytes(out), manifest_rows(out)


KILL_POINTS = {
    "while_first_episode_runs": lambda out: (out / "corpus.json").exists(),
    "after_first_partial": lambda out: _partials(out) >= 1,
    "after_first_shard": lambda out: _rows_files(out) >= 1,
    "mid_corpus": lambda out: _rows_files(out) >= 2 and _partials(out) >= 1,
}


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_sigkill_then_resume_gives_the_uninterrupted_corpus(tmp_path, reference, point, workers):
    out = tmp_path / "c"
    killed = _kill_when(_start(out, workers), lambda: KILL_POINTS[point](out))
    assert killed, "the run finished before the kill point; slow the toy generator down"
    # a second kill, a little later, on the resumed run
    proc = _start(out, workers)
    time.sleep(0.4)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    proc = _start(out, workers)
    assert proc.wait(timeout=120) == 0
    want_bytes, want_rows = reference
    assert shard_bytes(out) == want_bytes
    assert manifest_rows(out) == want_rows
    assert not list(out.rglob("*.tmp"))
    assert validate_corpus(out).passed


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def _is_pool_worker(pid: int) -> bool:
    """Whether process ``pid`` is alive and a spawn pool worker (its pid not reused by another process)."""
    try:
        return "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return False


@pytest.mark.slow
def test_a_dead_pool_worker_does_not_end_the_run(tmp_path, reference):
    out = tmp_path / "c"
    proc = _start(out, 2)
    victims = []
    while proc.poll() is None and not victims:
        victims = [c for c in _children(proc.pid) if _is_pool_worker(c)] if _partials(out) >= 1 else []
        time.sleep(0.01)
    assert victims, "no pool worker seen"
    os.kill(victims[0], signal.SIGKILL)
    assert proc.wait(timeout=120) == 0
    want_bytes, want_rows = reference
    assert shard_bytes(out) == want_bytes and manifest_rows(out) == want_rows


@pytest.mark.slow
@pytest.mark.timeout(600)  # a hang guard (workers that never exit), not a speed bound
def test_pool_workers_exit_when_the_parent_is_killed(tmp_path):
    out = tmp_path / "c"
    proc = _start(out, 2)
    kids: list[int] = []
    while proc.poll() is None and len(kids) < 2:
        kids = [c for c in _children(proc.pid) if _is_pool_worker(c)]
        time.sleep(0.05)
    assert len(kids) == 2
    proc.kill()  # the parent only; not its process group
    proc.wait()
    while any(_is_pool_worker(k) for k in kids):  # each worker ends itself once it sees its parent gone
        time.sleep(0.2)
