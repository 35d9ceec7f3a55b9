"""Run a generator into a corpus: plan, resume, execute, assemble shards, write the manifest.

The plan is fixed by (n, episodes per shard): shard ``j`` holds episodes
``[j*S, (j+1)*S)``. ``--shard K/N`` selects shards ``j`` with ``j % N == K``.
Executors only decide *where* episodes are produced; what is produced depends
only on (seed, generator, index), so every executor and worker count writes the
same bytes.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import simkit
from simkit.core.errors import SimkitError
from simkit.core.fields import schema_json
from simkit.core.registry import load
from simkit.episodes.corpus import (
    CorpusLayout,
    CorpusLock,
    assemble_shard,
    load_rows,
    verify_partial,
    write_json_atomic,
    write_manifest,
)
from simkit.executors.worker import (
    RunSpec,
    Worker,
    init_process,
    produce_batch,
    produce_in_process,
    write_failure,
)

#: corpus.json keys that must match when a run resumes into an existing directory
IDENTITY_KEYS = ("generator", "version", "seed", "n", "episodes_per_shard", "config")


@dataclass
class RunSummary:
    """What a run did. ``exit_code``: 0 all episodes ok, 3 some failed."""

    out: Path
    generator: str
    planned: int = 0
    produced: int = 0
    resumed: int = 0
    failed: int = 0
    redraws: int = 0
    shards_written: int = 0
    discarded: int = 0
    seconds: float = 0.0
    bytes_written: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 3 if self.failed else 0


def parse_shard(text: str | None) -> tuple[int, int]:
    """``"K/N"`` -> (K, N) with 0 <= K < N; ``None`` -> (0, 1)."""
    if not text:
        return 0, 1
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise SimkitError(f"--shard expects K/N (e.g. 0/4), got {text!r}") from None
    if n < 1 or not 0 <= k < n:
        raise SimkitError(f"--shard {text}: need 0 <= K < N")
    return k, n


def plan_indices(n: int, episodes_per_shard: int, shard: tuple[int, int]) -> dict[int, list[int]]:
    """Shard id -> episode indices of that shard, for the shards selected by ``shard`` = (K, N)."""
    k, m = shard
    n_shards = math.ceil(n / episodes_per_shard)
    return {
        j: list(range(j * episodes_per_shard, min(n, (j + 1) * episodes_per_shard)))
        for j in range(n_shards)
        if j % m == k
    }


def corpus_info(
    spec: RunSpec, n: int, gen_cls, config_model, versions: dict, rows: list[dict]
) -> dict[str, Any]:
    """The content of corpus.json."""
    schema: dict[str, str] = {}
    for r in rows:
        if r["status"] == "ok":
            for m in r["members"]:
                key_field_ext = m["name"].split(".", 1)[1]
                field_name, _, ext = key_field_ext.rpartition(".")
                schema.setdefault(field_name, ext)
    ok = sum(r["status"] == "ok" for r in rows)
    return {
        "format": "simkit-corpus/1",
        "generator": spec.generator,
        "version": gen_cls.version,
        "seed": spec.seed,
        "n": n,
        "episodes_per_shard": spec.episodes_per_shard,
        "config": spec.config,
        "config_schema": config_model.model_json_schema(),
        "required_fields": list(gen_cls.required_fields),
        "field_schema": schema_json(gen_cls.fields),
        "structural_params": list(gen_cls.structural_params),
        "surface_params": list(gen_cls.surface_params),
        "schema": dict(sorted(schema.items())),
        "counts": {
            "planned": n,
            "present": len(rows),
            "ok": ok,
            "failed": len(rows) - ok,
            "redraws": sum(int(r.get("redraws") or 0) for r in rows),
        },
        "versions": versions,
    }


def _check_resume(layout: CorpusLayout, identity: dict) -> None:
    import json

    if not layout.corpus_json.exists():
        if layout.shards.is_dir() and any(layout.shards.iterdir()):
            raise SimkitError(f"{layout.root}: has shards but no corpus.json; not a simkit corpus or damaged")
        return
    try:
        old = json.loads(layout.corpus_json.read_text())
    except (OSError, ValueError) as exc:
        raise SimkitError(f"{layout.corpus_json}: unreadable ({exc})") from None
    diff = [k for k in IDENTITY_KEYS if old.get(k) != identity.get(k)]
    if diff:
        raise SimkitError(
            f"{layout.root} already holds a different corpus (these settings differ: {', '.join(diff)}); "
            "choose another --out or remove it"
        )


class _Progress:
    """Progress of a run: a rich bar with episodes/s and ETA on a terminal; on a log (not a terminal),
    one line every ``log_every`` seconds; nothing when ``show`` is false."""

    def __init__(self, show: bool, total: int, label: str, log_every: float = 30.0):
        import sys

        self.show, self.total, self.label, self.done = show and total > 0, total, label, 0
        self.tty = sys.stderr.isatty()
        self.t0 = self.last = time.perf_counter()
        self.log_every = log_every
        if not self.show or not self.tty:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        class Rate(TextColumn):
            def render(self, task):
                from rich.text import Text

                speed = task.finished_speed or task.speed
                return Text(f"{speed:.2f} ep/s" if speed else "-- ep/s")

        self.p = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            Rate(""),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            transient=False,
        )
        self.p.start()
        self.task = self.p.add_task(label, total=total)

    def advance(self, n: int = 1) -> None:
        if not self.show:
            return
        self.done += n
        if self.tty:
            self.p.advance(self.task, n)
            return
        now = time.perf_counter()
        if now - self.last >= self.log_every or self.done == self.total:
            import sys

            self.last = now
            rate = self.done / max(now - self.t0, 1e-9)
            eta = (self.total - self.done) / rate if rate > 0 else float("inf")
            print(
                f"[{self.label}] {self.done}/{self.total} episodes, {rate:.2f} ep/s, ETA {eta:.0f} s",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if self.show and self.tty:
            self.p.stop()


def _pool_run(
    spec: RunSpec, indices: list[int], workers: int, on_row: Callable[[dict], None]
) -> tuple[set[int], list[int]]:
    """Run ``indices`` on a spawn pool. Returns (completed, lost): ``lost`` = in flight when the pool broke."""
    import multiprocessing as mp
    import os
    from concurrent.futures.process import BrokenProcessPool

    completed: set[int] = set()
    in_flight: dict = {}
    todo = iter(indices)
    try:
        with ProcessPoolExecutor(
            max_workers=workers,
            mp_context=mp.get_context("spawn"),
            initializer=init_process,
            initargs=(spec, os.getpid()),
        ) as pool:
            for i in todo:
                in_flight[pool.submit(produce_in_process, i)] = i
                if len(in_flight) >= workers * 4:
                    break
            while in_flight:
                done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
                for fut in done:
                    i = in_flight.pop(fut)
                    row = fut.result()
                    completed.add(i)
                    on_row(row)
                    nxt = next(todo, None)
                    if nxt is not None:
                        in_flight[pool.submit(produce_in_process, nxt)] = nxt
    except BrokenProcessPool:
        return completed, sorted(set(in_flight.values()) - completed)
    return completed, []


def execute_local(
    spec: RunSpec,
    indices: list[int],
    workers: int,
    on_row: Callable[[dict], None],
    worker: Worker | None = None,
) -> None:
    """Produce ``indices`` in this process (``workers`` <= 1, reusing ``worker`` when given) or on a spawn pool.

    A pool worker that dies (segfault in a backend, out-of-memory kill) does not end the run: the
    episodes it had in flight are retried one at a time on a fresh single-worker pool, and an episode
    that kills its worker again is recorded as failed.
    """
    if not indices:
        if worker is not None:
            worker.close()
        return
    if workers <= 1:
        worker = worker or Worker(spec)
        try:
            for i in indices:
                on_row(worker.produce(i))
        finally:
            worker.close()
        return
    remaining = list(indices)
    while remaining:
        completed, lost = _pool_run(spec, remaining, workers, on_row)
        remaining = [i for i in remaining if i not in completed]
        for i in lost:  # the suspects, one at a time: a second death pins the culprit
            done_i, lost_i = _pool_run(spec, [i], 1, on_row)
            if lost_i:
                on_row(
                    write_failure(
                        spec,
                        i,
                        "worker process died twice while producing this episode "
                        "(backend crash or out-of-memory kill)",
                    )
                )
            remaining.remove(i)


def execute_ray(
    spec: RunSpec,
    batches: list[list[int]],
    address: str | None,
    on_row: Callable[[dict], None],
    num_cpus: int | None = None,
) -> None:
    """Produce each batch of indices as one Ray task on the cluster at ``address`` (or a local Ray)."""
    from simkit.core.errors import require

    ray = require("ray", "ray")
    import simkit as _sk

    pkg_root = str(Path(_sk.__file__).resolve().parent.parent)
    started = False
    if not ray.is_initialized():
        import os

        env = {"PYTHONPATH": os.pathsep.join(filter(None, [pkg_root, os.environ.get("PYTHONPATH", "")]))}
        if os.environ.get("SIMKIT_GENERATORS"):
            env["SIMKIT_GENERATORS"] = os.environ["SIMKIT_GENERATORS"]
        kwargs: dict[str, Any] = {"runtime_env": {"env_vars": env}, "log_to_driver": False}
        if address:
            kwargs["address"] = address
        elif num_cpus:
            kwargs["num_cpus"] = num_cpus
        try:
            ray.init(**kwargs)
        except Exception as exc:
            raise SimkitError(
                f"cannot start or reach Ray{f' at {address}' if address else ''}: {type(exc).__name__}: {exc}"
            ) from None
        started = True
    try:
        task = ray.remote(produce_batch)
        pending = [task.remote(spec, b) for b in batches if b]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for row in ray.get(done[0]):
                on_row(row)
    finally:
        if started:
            ray.shutdown()


def generate_corpus(
    generator: str,
    n: int,
    out: str | Path,
    *,
    seed: int = 0,
    config: dict[str, Any] | None = None,
    workers: int = 1,
    shard: tuple[int, int] = (0, 1),
    executor: str = "local",
    address: str | None = None,
    episodes_per_shard: int = 64,
    max_shard_bytes: int | None = 1 << 30,
    retries: int = 2,
    progress: bool = False,
    ray_num_cpus: int | None = None,
) -> RunSummary:
    """Generate (or resume) a corpus of ``n`` episodes of ``generator`` under ``out``.

    Args:
        config: config data, validated against the generator's Config model.
        shard: (K, N): produce only shards ``j`` with ``j % N == K``.
        executor: ``"local"`` (process pool of ``workers``) or ``"ray"``.
    Returns:
        RunSummary (``exit_code`` 3 when some episodes failed).
    Raises:
        SimkitError: unknown generator, invalid config or arguments, the generator's setup failed,
            ``out`` holds a different corpus or cannot be written.
    """
    if n < 1:
        raise SimkitError(f"--n must be at least 1, got {n}")
    if episodes_per_shard < 1:
        raise SimkitError("episodes per shard must be at least 1")
    if workers < 1:
        raise SimkitError(f"--workers must be at least 1, got {workers}")
    if executor not in ("local", "ray"):
        raise SimkitError(f"unknown executor {executor!r}; choose local or ray")
    if address and executor != "ray":
        raise SimkitError("--address is the Ray cluster address; it needs --executor ray")
    gen_cls = load(generator)
    cfg = gen_cls.Config.model_validate(config or {})
    spec = RunSpec(
        generator=generator,
        config=cfg.model_dump(mode="json"),
        seed=int(seed),
        out=str(out),
        episodes_per_shard=episodes_per_shard,
        retries=retries,
    )
    layout = CorpusLayout(Path(out))
    if layout.root.exists() and not layout.root.is_dir():
        raise SimkitError(f"--out {layout.root}: exists and is not a directory")
    identity = {
        "generator": generator,
        "version": gen_cls.version,
        "seed": int(seed),
        "n": n,
        "episodes_per_shard": episodes_per_shard,
        "config": spec.config,
    }
    _check_resume(layout, identity)

    # set the generator up once before anything is written: a backend or input problem is one clear
    # error and leaves no half-made corpus directory behind (the in-process run reuses this worker)
    try:
        preflight = Worker(spec)
    except SimkitError:
        raise
    except Exception as exc:
        raise SimkitError(f"{generator}: setup failed: {type(exc).__name__}: {exc}") from None
    if workers > 1 or executor == "ray":
        preflight.close()
        preflight = None

    try:
        layout.ensure()
    except OSError as exc:
        raise SimkitError(
            f"--out {layout.root}: cannot create the corpus directory ({exc.strerror or exc})"
        ) from None
    layout.clean_temporaries()

    summary = RunSummary(out=layout.root, generator=generator)
    plan = plan_indices(n, episodes_per_shard, shard)
    complete = layout.complete_shards()
    pending: dict[int, set[int]] = {}
    for j, idx in plan.items():
        summary.planned += len(idx)
        if j in complete:
            summary.resumed += len(idx)
            continue
        done = set()
        for i in layout.finished_partials(j):
            if verify_partial(layout.partial_path(j, i)):
                done.add(i)
            else:  # damaged by a crash or by hand: produce it again
                layout.partial_path(j, i).unlink(missing_ok=True)
                summary.discarded += 1
        summary.resumed += len(done & set(idx))
        pending[j] = set(idx) - done

    versions = {"simkit": simkit.__version__, **(preflight.versions() if preflight else {})}
    if preflight is None:
        with contextlib.suppress(Exception):
            versions.update(gen_cls().backend_versions())

    def publish() -> list[dict]:
        with CorpusLock(layout.root):
            rows = load_rows(layout)
            write_manifest(layout, rows)
            write_json_atomic(
                layout.corpus_json, corpus_info(spec, n, gen_cls, gen_cls.Config, versions, rows)
            )
        return rows

    # corpus.json first: it marks the directory as this corpus, so a killed run can resume
    publish()
    t0 = time.perf_counter()

    def finish_shard(j: int) -> None:
        rows = assemble_shard(layout, j, plan[j], max_shard_bytes)
        summary.shards_written += 1
        for r in rows:
            if r["status"] != "ok":
                summary.errors.append(f"{r['key']}: {r['error']}")

    # shards whose episodes all finished before a kill: assemble now
    for j in [j for j, p in pending.items() if not p]:
        finish_shard(j)
        del pending[j]

    todo = sorted(i for p in pending.values() for i in p)
    bar = _Progress(progress, total=len(todo), label=generator)

    def on_row(row: dict) -> None:
        summary.produced += 1
        summary.redraws += int(row.get("redraws") or 0)
        j = spec.shard_of(row["index"])
        pending[j].discard(row["index"])
        if not pending[j]:
            finish_shard(j)
            del pending[j]
        bar.advance()

    try:
        if executor == "ray":
            batches = [sorted(p) for _, p in sorted(pending.items())]
            execute_ray(spec, batches, address, on_row, num_cpus=ray_num_cpus)
        else:
            execute_local(spec, todo, workers, on_row, worker=preflight)
    finally:
        bar.close()

    rows = publish()
    if layout.partial.is_dir() and not any(layout.partial.iterdir()):
        layout.partial.rmdir()
    summary.failed = sum(1 for r in rows if r["status"] != "ok" and spec.shard_of(r["index"]) in plan)
    summary.seconds = time.perf_counter() - t0
    summary.bytes_written = sum(p.stat().st_size for p in layout.shards.glob("*.tar"))
    return summary
