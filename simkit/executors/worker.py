"""Worker side: produce one episode, with retries and redraws, and store it in ``.partial/``.

This module is what runs inside pool processes and Ray tasks. A worker holds
one set-up generator (``setup`` once per worker process) and calls
:func:`produce` per episode.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simkit._version import __version__
from simkit.core.errors import SampleInvalid, SampleRejected, TransientError
from simkit.core.extras import as_extra_missing
from simkit.core.fields import assert_episode
from simkit.core.generator import Generator
from simkit.core.registry import load
from simkit.core.seeding import episode_rng
from simkit.episodes.codecs import dumps_json, encode
from simkit.episodes.corpus import CorpusLayout, episode_key, params_digest, sha256, write_partial
from simkit.episodes.storage import corpus_path


@dataclass(frozen=True)
class RunSpec:
    """Everything a worker needs, picklable: generator name, validated config (as JSON data), seed, paths."""

    generator: str
    config: dict[str, Any]
    seed: int
    out: str
    episodes_per_shard: int
    retries: int = 2
    extra_meta: dict[str, Any] = field(default_factory=dict)

    def shard_of(self, index: int) -> int:
        return index // self.episodes_per_shard


class Worker:
    """A set-up generator bound to one :class:`RunSpec`."""

    def __init__(self, spec: RunSpec):
        self.spec = spec
        cls = load(spec.generator)
        self.gen: Generator = cls()
        self.config = cls.Config.model_validate(spec.config)
        self.gen.setup(self.config)
        self.layout = CorpusLayout(Path(spec.out))
        self._versions: dict[str, str] | None = None

    def close(self) -> None:
        self.gen.teardown()

    def versions(self) -> dict[str, str]:
        if self._versions is None:
            self._versions = {"simkit": __version__, **self.gen.backend_versions()}
        return self._versions

    def produce(self, index: int) -> dict[str, Any]:
        """Generate, encode and store episode ``index``; returns its manifest row.

        Transient failures are retried ``spec.retries`` times with the same seed; rejected
        samples are redrawn from derived seeds up to the generator's ``max_redraws``; any
        other exception fails the episode (recorded in the row, never raised), except a missing
        optional module: :class:`~simkit.core.errors.ExtraMissing` is raised (the run stops with one
        line naming the extra; no episode is recorded as failed, so the same command resumes once the
        extra is installed).
        """
        spec, gen = self.spec, self.gen
        key = episode_key(spec.generator, index)
        t0 = time.perf_counter()
        redraw, attempts, transient = 0, 0, 0
        rejections: list[str] = []
        error = None
        members: list[tuple[str, bytes]] = []
        params: dict = {}
        while True:
            attempts += 1
            try:
                ep = gen.generate(index, episode_rng(spec.seed, spec.generator, index, redraw))
                assert_episode(spec.generator, type(gen).fields, ep.fields)  # a mismatch fails the episode
                params = ep.params
                meta = {
                    **ep.meta,
                    "generator": spec.generator,
                    "version": type(gen).version,
                    "seed": spec.seed,
                    "index": index,
                    "key": key,
                    "redraw": redraw,
                    "rejections": rejections,
                    "params": ep.params,
                    "versions": self.versions(),
                    **spec.extra_meta,
                }
                members = []
                for name in sorted(ep.fields):
                    ext, data = encode(ep.fields[name])
                    members.append((f"{key}.{name}.{ext}", data))
                members.append((f"{key}.meta.json", dumps_json(meta)))
                break
            except SampleInvalid as exc:  # no redraw can fix it: fail at once
                rejections.append(str(exc) or "rejected")
                error = f"rejected (no redraw can fix it): {exc}"
                break
            except SampleRejected as exc:
                rejections.append(str(exc) or "rejected")
                redraw += 1
                if redraw > gen.max_redraws:
                    error = f"rejected {redraw} times; last reason: {exc}"
                    break
            except TransientError as exc:
                transient += 1
                if transient > spec.retries:
                    error = f"transient failure persisted after {transient} attempts: {exc}"
                    break
            except Exception as exc:
                missing = as_extra_missing(exc, type(gen).extra or None)
                if missing is not None:  # this machine lacks a module: no episode can be made, none fails
                    if missing is exc:
                        raise
                    raise missing from exc
                tb = traceback.extract_tb(exc.__traceback__)
                where = f" at {tb[-1].filename}:{tb[-1].lineno}" if tb else ""
                error = f"{type(exc).__name__}: {exc}{where}"
                break
        if error is not None:
            members = []
        row = {
            "key": key,
            "index": index,
            "status": "failed" if error else "ok",
            "redraws": redraw,
            "attempts": attempts,
            "params_digest": params_digest(params) if not error else None,
            "members": [{"name": n, "sha256": sha256(d), "bytes": len(d)} for n, d in members],
            "error": error,
            "duration_s": round(time.perf_counter() - t0, 6),
        }
        write_partial(self.layout, spec.shard_of(index), index, members, row)
        return row


def write_failure(spec: RunSpec, index: int, error: str) -> dict[str, Any]:
    """Record episode ``index`` as failed (no members) in ``.partial/``; returns its manifest row."""
    row = {
        "key": episode_key(spec.generator, index),
        "index": index,
        "status": "failed",
        "redraws": 0,
        "attempts": 0,
        "params_digest": None,
        "members": [],
        "error": error,
        "duration_s": 0.0,
    }
    write_partial(CorpusLayout(Path(spec.out)), spec.shard_of(index), index, [], row)
    return row


def _exit_with_parent(parent: int) -> None:
    """Pool workers end themselves when the parent process ``parent`` dies (a SIGKILLed ``simkit generate``)."""
    import os
    import threading

    if os.getppid() != parent:  # the parent died while this worker was starting
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="simkit-parent-watch", daemon=True).start()


# -- process-global worker for pools ---------------------------------------------------------------
_WORKER: Worker | None = None


def init_process(spec: RunSpec, parent_pid: int, threads: int = 1) -> None:
    """Pool initializer: build and set up this process's generator; tear it down at process exit.

    ``parent_pid``: the pid of the process that owns the pool; the worker exits when it dies.
    ``threads``: threads per native pool (BLAS, OpenMP, numba) in this worker
    (:mod:`simkit.executors.threads`): one core per worker by default.
    """
    global _WORKER
    from multiprocessing.util import Finalize

    from simkit.core.verbosity import apply_env
    from simkit.executors.threads import limit_loaded, set_thread_env

    apply_env()  # log at the level of the command that started the pool
    _exit_with_parent(parent_pid)
    set_thread_env(threads)  # for the libraries the generator loads from here on
    _WORKER = Worker(spec)
    limit_loaded(threads)  # numpy's and scipy's BLAS, loaded before this initializer ran
    Finalize(_WORKER, _WORKER.close, exitpriority=10)


def produce_in_process(index: int) -> dict[str, Any]:
    assert _WORKER is not None, "init_process was not called"
    return _WORKER.produce(index)


def produce_shard(
    spec: RunSpec, shard_id: int, indices: list[int], max_shard_bytes: int | None, dest: str
) -> list[dict[str, Any]]:
    """Produce every episode of one shard and publish the shard to the object store ``dest`` (one Ray task).

    The episodes are stored and the shard assembled in a staging folder of this node
    (:func:`~simkit.episodes.storage.make_stage`: removed at the end, or by the next run on the node
    when a kill prevented that; ``spec.out`` is not used), then the tar part(s) are uploaded, then the rows object that
    marks the shard complete (:func:`~simkit.episodes.corpus.publish_shard`). ``indices`` must be the
    whole shard. Returns the shard's manifest rows.
    """
    import dataclasses
    import shutil

    from simkit.episodes.corpus import assemble_shard, publish_shard
    from simkit.episodes.storage import make_stage

    tmp = make_stage()  # named after this process: one a killed node leaves is removed by the next run there
    try:
        local = CorpusLayout(tmp)
        local.ensure()
        produce_batch(dataclasses.replace(spec, out=str(tmp)), indices)
        rows = assemble_shard(local, shard_id, indices, max_shard_bytes)
        publish_shard(local, CorpusLayout(corpus_path(dest)), shard_id)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def produce_batch(spec: RunSpec, indices: list[int]) -> list[dict[str, Any]]:
    """Set up a generator, produce ``indices``, tear down (one Ray task)."""
    worker = Worker(spec)
    try:
        return [worker.produce(i) for i in indices]
    finally:
        worker.close()
