"""Ray workers end when the driver dies: a SIGKILLed ``simkit generate --executor ray --address ...``
leaves no task running on the cluster (Ray ends a job's non-detached workers when its driver's
connection drops; simkit submits only such tasks, so a killed run does not go on writing)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from rayhelp import start_cluster

pytestmark = pytest.mark.slow


def _task_pids() -> set[int]:
    """Processes of this machine running a simkit Ray task (Ray names them ``ray::<function>``)."""
    import psutil

    out = set()
    for p in psutil.process_iter(["pid", "cmdline"]):
        cmd = " ".join(p.info["cmdline"] or [])
        if cmd.startswith(("ray::produce_batch", "ray::produce_shard")):
            out.add(p.info["pid"])
    return out


def test_killing_the_driver_ends_its_ray_tasks(tmp_path):
    pytest.importorskip("ray")
    pytest.importorskip("psutil")
    cluster, _ = start_cluster(1)
    try:
        before = _task_pids()
        driver = subprocess.Popen(
            [sys.executable, "-m", "simkit", "generate", "toy", "--n", "2", "--episodes-per-shard", "1"]
            + ["--set", "sleep_s=600", "--executor", "ray", "--address", cluster.address]
            + ["--out", str(tmp_path / "c"), "--no-progress"],
            env=os.environ.copy(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 180
        while not (_task_pids() - before) and time.monotonic() < deadline:
            assert driver.poll() is None, "the run ended before its tasks started"
            time.sleep(0.5)
        tasks = _task_pids() - before
        assert tasks, "no Ray task started within 180 s"
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        deadline = time.monotonic() + 60
        while (tasks & _task_pids()) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not (tasks & _task_pids()), "a Ray task of the killed run still runs 60 s later"
    finally:
        cluster.shutdown()
