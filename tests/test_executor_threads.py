"""One core per worker: pool workers and the --workers 1 process hold BLAS/OpenMP to one thread."""

from __future__ import annotations

import multiprocessing as mp
import os
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
import scipy.linalg  # noqa: F401  (loads scipy's own OpenBLAS, a second pool to hold)
import threadpoolctl

from simkit.core.errors import SimkitError
from simkit.executors.run import execute_local, generate_corpus
from simkit.executors.threads import THREAD_ENV, WORKER_THREADS_ENV, worker_threads
from simkit.executors.worker import RunSpec, init_process


def _pools() -> dict[str, int]:
    """Loaded native thread pools (library path -> threads)."""
    return {p["filepath"]: p["num_threads"] for p in threadpoolctl.threadpool_info()}


def _probe() -> tuple[dict[str, int], dict[str, str | None]]:
    """Run inside a pool worker: its native pools and thread variables (after a BLAS call)."""
    import scipy.linalg as sl

    a = np.eye(64) + 0.01
    sl.solve(a, np.ones(64))
    return _pools(), {k: os.environ.get(k) for k in THREAD_ENV}


def _spec(tmp_path) -> RunSpec:
    return RunSpec("toy", {"size": 8}, 0, str(tmp_path / "c"), 4)


@pytest.mark.parametrize("threads", [1, 2])
def test_pool_worker_holds_blas_and_env_to_its_threads(tmp_path, threads):
    """A pool worker started by init_process reports ``threads`` threads for every loaded pool (numpy's and
    scipy's OpenBLAS at least) and the thread variables set; the parent's pools and environment stay."""
    before_pools, before_env = _pools(), {k: os.environ.get(k) for k in THREAD_ENV}
    with ProcessPoolExecutor(
        1,
        mp_context=mp.get_context("spawn"),
        initializer=init_process,
        initargs=(_spec(tmp_path), os.getpid(), threads),
    ) as pool:
        pools, env = pool.submit(_probe).result(timeout=120)
    blas = [path for path in pools if "openblas" in os.path.basename(path).lower()]
    assert len(blas) >= 2, pools  # numpy's and scipy's
    assert set(pools.values()) == {threads}, pools
    assert env["OPENBLAS_NUM_THREADS"] == env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == str(threads)
    assert _pools() == before_pools
    assert {k: os.environ.get(k) for k in THREAD_ENV} == before_env


def test_in_process_run_limits_then_restores(tmp_path, monkeypatch):
    """``--workers 1`` produces in this process: one thread per pool during the run; after it, the pools
    and the thread variables are as before (a variable the user set keeps its value, an unset one stays unset)."""
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    seen: list[tuple[dict[str, int], str | None, str | None]] = []
    spec = _spec(tmp_path)
    (tmp_path / "c").mkdir()
    with threadpoolctl.threadpool_limits(limits=2):
        before = _pools()
        assert set(before.values()) == {2}

        def on_row(row):
            assert row["status"] == "ok", row
            seen.append((_pools(), os.environ.get("OMP_NUM_THREADS"), os.environ.get("OPENBLAS_NUM_THREADS")))

        execute_local(spec, range(2), 1, on_row)
        assert _pools() == before
    assert len(seen) == 2
    for pools, omp, openblas in seen:
        assert set(pools.values()) == {1}, pools
        assert omp == openblas == "1"
    assert os.environ["OMP_NUM_THREADS"] == "3" and "OPENBLAS_NUM_THREADS" not in os.environ


def test_worker_threads_reads_the_variable(monkeypatch, tmp_path):
    monkeypatch.delenv(WORKER_THREADS_ENV, raising=False)
    assert worker_threads() == 1
    monkeypatch.setenv(WORKER_THREADS_ENV, "4")
    assert worker_threads() == 4
    for bad in ("0", "-2", "two", "1.5"):
        monkeypatch.setenv(WORKER_THREADS_ENV, bad)
        with pytest.raises(SimkitError, match=f"{WORKER_THREADS_ENV}=.*positive integer"):
            worker_threads()
    with pytest.raises(SimkitError, match="positive integer"):  # refused before anything is written
        generate_corpus("toy", 2, tmp_path / "c")
    assert not (tmp_path / "c").exists()
