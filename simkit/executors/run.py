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
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from simkit._version import __version__
from simkit.core.errors import SimkitError
from simkit.core.extras import as_extra_missing
from simkit.core.fields import schema_json
from simkit.core.progress import Progress
from simkit.core.registry import load
from simkit.episodes.corpus import (
    FORMAT,
    IDENTITY_KEYS,
    MAX_EPISODES,
    CorpusLayout,
    CorpusLock,
    assemble_shard,
    fetch_shard,
    format_fault,
    identity_diff,
    load_rows,
    member_schema,
    publish_shard,
    remove_corpus,
    reopen_shard,
    shard_files,
    verify_partial,
    write_json_atomic,
    write_manifest,
)
from simkit.episodes.storage import corpus_path, is_remote, make_stage
from simkit.executors.threads import limited_threads, worker_threads
from simkit.executors.worker import (
    RunSpec,
    Worker,
    init_process,
    produce_batch,
    produce_in_process,
    produce_shard,
    write_failure,
)

__all__ = [
    "IDENTITY_KEYS",
    "RunSummary",
    "generate_corpus",
    "parse_shard",
    "plan_indices",
    "shard_bytes_from_mb",
]

#: most worker processes one machine is asked to run (a typo like --workers 10000 would fork-bomb it)
MAX_WORKERS = 1024


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
    #: the generator's corpus-level lines (:meth:`~simkit.core.generator.Generator.summary_lines`)
    notes: list[str] = field(default_factory=list)

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


def plan_shards(n: int, episodes_per_shard: int, shard: tuple[int, int]) -> range:
    """Ids of the shards selected by ``shard`` = (K, N) in a corpus of ``n`` episodes (lazy: no per-episode memory)."""
    k, m = shard
    return range(k, math.ceil(n / episodes_per_shard), m)


def shard_indices(j: int, n: int, episodes_per_shard: int) -> range:
    """Episode indices of shard ``j``: ``[j*S, min(n, (j+1)*S))``."""
    return range(j * episodes_per_shard, min(n, (j + 1) * episodes_per_shard))


def plan_indices(n: int, episodes_per_shard: int, shard: tuple[int, int]) -> dict[int, list[int]]:
    """Shard id -> episode indices of that shard, for the shards selected by ``shard`` = (K, N) (small n only)."""
    return {
        j: list(shard_indices(j, n, episodes_per_shard)) for j in plan_shards(n, episodes_per_shard, shard)
    }


def shard_bytes_from_mb(max_shard_mb: float) -> int:
    """``--max-shard-mb`` (MiB, > 0, finite) as bytes. Raises SimkitError on any other value."""
    if not math.isfinite(max_shard_mb) or max_shard_mb <= 0:
        raise SimkitError(f"--max-shard-mb must be a positive number of MiB, got {max_shard_mb}")
    return max(1, int(max_shard_mb * 2**20))


def check_run_args(
    n: int, seed: int, episodes_per_shard: int, workers: int, retries: int, max_shard_bytes: int | None
) -> None:
    """Refuse values no run can use, before anything is loaded or written. Raises SimkitError."""
    if n < 1:
        raise SimkitError(f"--n must be at least 1, got {n}")
    if n > MAX_EPISODES:
        raise SimkitError(f"--n {n}: at most {MAX_EPISODES} episodes per corpus (episode keys have 8 digits)")
    if seed < 0 or seed >= 2**63:
        raise SimkitError(f"--seed must be in [0, 2**63), got {seed}")
    if episodes_per_shard < 1:
        raise SimkitError(f"--episodes-per-shard must be at least 1, got {episodes_per_shard}")
    if not 1 <= workers <= MAX_WORKERS:
        raise SimkitError(f"--workers must be in [1, {MAX_WORKERS}], got {workers}")
    if retries < 0:
        raise SimkitError(f"--retries must be 0 or more, got {retries}")
    if max_shard_bytes is not None and max_shard_bytes < 1:
        raise SimkitError(f"--max-shard-mb must be positive, got {max_shard_bytes} bytes")


def check_out_path(root: Path) -> None:
    """``--out`` must be a directory or creatable as one: no existing file at it or at any parent, and a
    folder where files can be created (:func:`simkit.core.paths.out_fault`), not inside another corpus's own
    files (``shards/``, ``.partial/``: :func:`simkit.episodes.corpus.inside_corpus_fault`). Raises SimkitError."""
    from simkit.core.paths import out_fault
    from simkit.episodes.corpus import inside_corpus_fault

    for p in [root, *root.parents]:
        if p.exists():
            if not p.is_dir():
                what = "exists and is not a directory" if p == root else f"is under {p}, which is a file"
                raise SimkitError(f"--out {root}: {what}")
            break
    why = out_fault(root, folder=True) or inside_corpus_fault(root)
    if why is not None:
        raise SimkitError(f"--out {root}: {why}")


def corpus_info(
    spec: RunSpec, n: int, gen_cls, config_model, versions: dict, rows: list[dict]
) -> dict[str, Any]:
    """The content of corpus.json (with the generator's ``summary`` when it gives one)."""
    ok = sum(r["status"] == "ok" for r in rows)
    info = {
        "format": FORMAT,
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
        "config_params": list(gen_cls.config_params),
        "schema": member_schema(rows),
        "counts": {
            "planned": n,
            "present": len(rows),
            "ok": ok,
            "failed": len(rows) - ok,
            "redraws": sum(int(r.get("redraws") or 0) for r in rows),
        },
        "versions": versions,
    }
    summary = gen_cls.corpus_summary(spec.config, rows)
    if summary:
        info["summary"] = summary
    return info


def prepare_out(layout: CorpusLayout, identity: dict, overwrite: bool) -> list[int]:
    """Check ``OUT`` before a run: new, the same corpus (resume), or the same corpus with more episodes (grow).

    Returns the complete shards to reopen because the corpus grows past them. ``overwrite`` removes
    an existing corpus (only the files a run writes) and starts over.

    Raises:
        SimkitError: OUT holds another corpus (naming each differing setting), fewer episodes are asked
            than it holds, or it holds shards but no corpus.json.
    """
    import json

    if not layout.corpus_json.exists():
        if layout.shards.is_dir() and any(layout.shards.iterdir()):
            raise SimkitError(f"{layout.root}: has shards but no corpus.json; not a simkit corpus or damaged")
        return []
    try:
        old = json.loads(layout.corpus_json.read_text())
        if not isinstance(old, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        raise SimkitError(
            f"{layout.corpus_json}: unreadable ({exc}); use --overwrite to start over"
        ) from None
    if overwrite:
        remove_corpus(layout)
        return []
    fault = format_fault(old)
    if fault:
        raise SimkitError(f"{layout.root}: {fault}; choose another --out, or --overwrite to start over")
    diff = identity_diff(old, identity, tuple(k for k in IDENTITY_KEYS if k != "n"))
    if diff:
        raise SimkitError(
            f"{layout.root} already holds a different corpus (these settings differ: {'; '.join(diff)}); "
            "choose another --out, or --overwrite to start over"
        )
    old_n, n = old.get("n"), identity["n"]
    if not isinstance(old_n, int) or old_n == n:
        return []
    if n < old_n:
        raise SimkitError(
            f"{layout.root} holds a corpus of {old_n} episodes; --n {n} would shrink it "
            "(readers can take a subset; or --overwrite to start over)"
        )
    eps = identity["episodes_per_shard"]
    last = (old_n - 1) // eps  # the only shard that can hold fewer than eps episodes
    return [last] if old_n % eps and last in layout.complete_shards() else []


def _progress(show: bool, total: int, label: str, log_every: float = 30.0) -> Progress:
    """The episodes' progress (:class:`~simkit.core.progress.Progress`): a live bar with episodes/s and ETA
    on a terminal (left as its last state), else one line every ``log_every`` seconds; nothing when
    ``show`` is false or under ``simkit -q``."""
    return Progress(label, total, unit="episodes", enabled=show, log_every=log_every, transient=False)


def _pool_run(
    spec: RunSpec, todo: Iterator[int], workers: int, on_row: Callable[[dict], None]
) -> tuple[bool, list[int]]:
    """Run the indices of ``todo`` on a spawn pool, at most ``4 * workers`` in flight.

    Returns (broken, lost): ``broken`` when a worker died, ``lost`` = the indices in flight then
    (``todo`` is left where it was, so a new pool can go on with it).
    """
    import multiprocessing as mp
    import os
    from concurrent.futures.process import BrokenProcessPool

    in_flight: dict = {}
    try:
        with ProcessPoolExecutor(
            max_workers=workers,
            mp_context=mp.get_context("spawn"),
            initializer=init_process,
            initargs=(spec, os.getpid(), worker_threads()),
        ) as pool:
            for i in todo:
                in_flight[pool.submit(produce_in_process, i)] = i
                if len(in_flight) >= workers * 4:
                    break
            while in_flight:
                done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
                for fut in done:
                    row = fut.result()
                    del in_flight[fut]
                    on_row(row)
                    nxt = next(todo, None)
                    if nxt is not None:
                        in_flight[pool.submit(produce_in_process, nxt)] = nxt
    except BrokenProcessPool:
        return True, sorted(in_flight.values())
    return False, []


def execute_local(
    spec: RunSpec,
    indices: Iterable[int],
    workers: int,
    on_row: Callable[[dict], None],
    worker: Worker | None = None,
) -> None:
    """Produce ``indices`` in this process (``workers`` <= 1, reusing ``worker`` when given) or on a spawn pool.

    ``indices`` may be a lazy iterator: at most ``4 * workers`` episodes are in flight at a time. A pool
    worker that dies (segfault in a backend, out-of-memory kill) does not end the run: the episodes it
    had in flight are retried one at a time on a fresh single-worker pool, and an episode that kills its
    worker again is recorded as failed.

    Each producer uses :func:`~simkit.executors.threads.worker_threads` threads per native pool (BLAS,
    OpenMP, numba; one by default): in each pool worker for its life, in this process for the run (then
    restored).
    """
    if workers <= 1:
        with limited_threads(worker_threads()):
            worker = worker or Worker(spec)
            try:
                for i in indices:
                    on_row(worker.produce(i))
            finally:
                worker.close()
        return
    todo = iter(indices)
    broken = True
    while broken:
        broken, lost = _pool_run(spec, todo, workers, on_row)
        for i in lost:  # the suspects, one at a time: a second death pins the culprit
            again, _ = _pool_run(spec, iter([i]), 1, on_row)
            if again:
                msg = "worker process died twice while producing this episode (backend crash or out-of-memory kill)"
                on_row(write_failure(spec, i, msg))


def _check_reachable(address: str, timeout_s: float = 10.0) -> None:
    """Fail fast when ``--address HOST:PORT`` (or ``ray://HOST:PORT``) accepts no TCP connection.

    ``ray.init`` retries an unreachable GCS address for a very long time without a word; one TCP connect
    with ``timeout_s`` tells a typo or a stopped cluster at once. ``auto``/``local`` are left to Ray.

    Raises:
        SimkitError: ``"cannot reach Ray at 127.0.0.1:1: Connection refused"``.
    """
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit() or "/" in host:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise SimkitError(f"cannot reach Ray at {address}: {exc.strerror or exc}") from None


@contextlib.contextmanager
def _ray_session(address: str | None, num_cpus: int | None) -> Iterator[Any]:
    """``ray`` connected to the cluster at ``address`` (or a local Ray started here and shut down after).

    Raises:
        SimkitError: Ray is not installed (naming the extra) or cannot be started or reached.
    """
    from simkit.core.errors import require

    ray = require("ray", "ray")
    from simkit import _version

    pkg_root = str(Path(_version.__file__).resolve().parent.parent)
    started = False
    if not ray.is_initialized():
        import os

        env = {"PYTHONPATH": os.pathsep.join(filter(None, [pkg_root, os.environ.get("PYTHONPATH", "")]))}
        if os.environ.get("SIMKIT_GENERATORS"):
            env["SIMKIT_GENERATORS"] = os.environ["SIMKIT_GENERATORS"]
        kwargs: dict[str, Any] = {"runtime_env": {"env_vars": env}, "log_to_driver": False}
        if address:
            _check_reachable(address)
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
        yield ray
    finally:
        if started:
            ray.shutdown()


def execute_ray(
    spec: RunSpec,
    batches: list[list[int]],
    address: str | None,
    on_row: Callable[[dict], None],
    num_cpus: int | None = None,
) -> None:
    """Produce each batch of indices as one Ray task on the cluster at ``address`` (or a local Ray).

    The tasks store finished episodes under ``spec.out`` (which every node must see: a shared disk);
    this process assembles the shards. Without a shared disk, see :func:`execute_ray_shards`.
    """
    with _ray_session(address, num_cpus) as ray:
        task = ray.remote(produce_batch)
        pending = [task.remote(spec, b) for b in batches if b]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for row in ray.get(done[0]):
                on_row(row)


def execute_ray_shards(
    spec: RunSpec,
    shards: list[tuple[int, list[int]]],
    dest: str,
    max_shard_bytes: int | None,
    address: str | None,
    on_shard: Callable[[int, list[dict]], None],
    num_cpus: int | None = None,
) -> None:
    """Produce whole shards as Ray tasks that write them straight to the object store ``dest`` (no shared disk).

    Each task (:func:`~simkit.executors.worker.produce_shard`) produces the episodes of one shard in a
    temporary folder of its node, assembles the shard and uploads its tar part(s), then its rows
    object (the completion marker). Ray re-runs a task whose node died (the same bytes: episode ``i``
    depends only on the seed). ``on_shard(shard_id, rows)`` is called as each task ends.

    Raises:
        SimkitError: Ray cannot be reached, or a task failed for good (the shards finished so far are
            kept: running the same command again resumes).
    """
    with _ray_session(address, num_cpus) as ray:
        task = ray.remote(produce_shard).options(max_retries=3, retry_exceptions=False)
        pending = {task.remote(spec, j, idx, max_shard_bytes, dest): j for j, idx in shards if idx}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            j = pending.pop(done[0])
            try:
                rows = ray.get(done[0])
            except Exception as exc:
                raise SimkitError(
                    f"Ray task of shard {j} failed ({type(exc).__name__}: {str(exc).splitlines()[0]}); "
                    "the shards already finished are kept: run the same command again to resume"
                ) from None
            on_shard(j, rows)


def _preflight(spec: RunSpec, parallel: bool) -> Worker | None:
    """Set the generator up once before anything is written: a backend or input problem is one clear error
    and leaves no half-made corpus directory behind. The in-process run reuses the returned worker."""
    try:
        worker = Worker(spec)
    except Exception as exc:
        missing = as_extra_missing(exc, load(spec.generator).extra or None)
        if missing is not None and missing is not exc:  # named by the generator's extra when it installs it
            raise missing from exc
        if isinstance(exc, SimkitError):
            raise
        raise SimkitError(f"{spec.generator}: setup failed: {type(exc).__name__}: {exc}") from None
    if parallel:
        worker.close()
        return None
    return worker


class _Run:
    """One run's state: the lazy plan, the shards still waiting for episodes, the summary."""

    def __init__(
        self,
        spec: RunSpec,
        layout: CorpusLayout,
        n: int,
        shard: tuple[int, int],
        max_shard_bytes,
        dest: CorpusLayout | None = None,
    ):
        """``layout``: where episodes are stored and shards assembled; ``dest``: the object store each
        assembled shard is then moved to (``None``: ``layout`` is the corpus itself)."""
        self.spec, self.layout, self.n, self.max_shard_bytes = spec, layout, n, max_shard_bytes
        self.dest = dest
        self.shards = plan_shards(n, spec.episodes_per_shard, shard)
        self.summary = RunSummary(out=(dest or layout).root, generator=spec.generator)
        self.pending: dict[int, set[int]] = {}
        self.complete = (dest or layout).complete_shards()
        self.bar: Progress | None = None

    def indices(self, j: int) -> range:
        return shard_indices(j, self.n, self.spec.episodes_per_shard)

    def count(self) -> tuple[int, int]:
        """(planned episodes, of which in complete shards), without listing episodes."""
        eps, shards = self.spec.episodes_per_shard, self.shards
        planned = len(shards) * eps
        last = math.ceil(self.n / eps) - 1  # the only shard that may be short
        if last in shards:
            planned -= eps - len(self.indices(last))
        resumed = 0
        for j in self.complete:
            if j in self.shards:
                resumed += len(self.indices(j))
        return planned, resumed

    def open_shard(self, j: int) -> set[int]:
        """Episodes of shard ``j`` still to produce; verified partial files count as done."""
        layout, idx = self.layout, self.indices(j)
        done = set()
        for i in layout.finished_partials(j):
            if i in idx and verify_partial(layout.partial_path(j, i)):
                done.add(i)
            else:  # damaged by a crash or by hand, or not of this plan: produce it again
                layout.partial_path(j, i).unlink(missing_ok=True)
                self.summary.discarded += 1
        self.summary.resumed += len(done)
        return set(idx) - done

    def todo_shards(self) -> Iterator[tuple[int, list[int]]]:
        """(shard id, episode indices still to produce) of each unfinished shard, in order; a shard
        whose episodes are all in ``.partial/`` is assembled on the way."""
        for j in self.shards:
            if j in self.complete:
                continue
            left = self.open_shard(j)
            if not left:
                self.finish_shard(j)
                continue
            yield j, sorted(left)

    def todo(self) -> Iterator[int]:
        """Episode indices to produce, shard by shard (memory: the shards in flight only)."""
        for j, left in self.todo_shards():
            self.pending[j] = set(left)
            yield from left

    def finish_shard(self, j: int) -> None:
        rows = assemble_shard(self.layout, j, list(self.indices(j)), self.max_shard_bytes)
        if self.dest is not None:
            publish_shard(self.layout, self.dest, j)
        self.shard_done(rows)

    def shard_done(self, rows: list[dict]) -> None:
        self.summary.shards_written += 1
        self.summary.errors.extend(f"{r['key']}: {r['error']}" for r in rows if r["status"] != "ok")

    def on_shard(self, j: int, rows: list[dict]) -> None:
        """A whole shard was produced and published elsewhere (a Ray task): count its episodes."""
        self.summary.produced += len(rows)
        self.summary.redraws += sum(int(r.get("redraws") or 0) for r in rows)
        self.shard_done(rows)
        if self.bar is not None:
            self.bar.advance(len(rows))

    def on_row(self, row: dict) -> None:
        self.summary.produced += 1
        self.summary.redraws += int(row.get("redraws") or 0)
        j = self.spec.shard_of(row["index"])
        self.pending[j].discard(row["index"])
        if not self.pending[j]:
            self.finish_shard(j)
            del self.pending[j]
        if self.bar is not None:
            self.bar.advance()


def _open_dir(layout: CorpusLayout, reopen: list[int], shards: range) -> tuple[int, list[str]]:
    """Create OUT and bring it to a state a run can continue from: no ``*.tmp``, grown shards reopened,
    lost or truncated shards re-planned, no ``.partial/`` folder of a complete shard. Returns the
    episodes re-planned and a line per shard re-planned."""
    try:
        layout.ensure()
    except OSError as exc:
        raise SimkitError(
            f"--out {layout.root}: cannot create the corpus directory ({exc.strerror or exc})"
        ) from None
    layout.clean_temporaries()
    for j in reopen:
        reopen_shard(layout, j)
    lost = _drop_lost_shards(layout, shards)
    for j in layout.complete_shards():  # left by a run killed after the shard was assembled
        if layout.partial_dir(j).is_dir():
            shutil.rmtree(layout.partial_dir(j), ignore_errors=True)
    return lost


def _open_remote(
    layout: CorpusLayout, work: CorpusLayout, reopen: list[int], shards: range
) -> tuple[int, list[str]]:
    """Bring an object-store corpus to a state a run can continue from; episodes are stored in the local
    ``work`` layout until their shard is published. Grown shards are fetched into ``work`` and reopened
    there, then removed from the store (rows object first: the shard stops being complete before its
    parts go). Lost shards are re-planned as on a disk. Returns the episodes re-planned and a line per
    shard re-planned."""
    work.ensure()
    for j in reopen:
        fetch_shard(layout, work, j)
        reopen_shard(work, j)
        layout.rows_path(j).unlink()
        for p in shard_files(layout, j):
            p.unlink()
    return _drop_lost_shards(layout, shards)


def _drop_lost_shards(layout: CorpusLayout, shards: range) -> tuple[int, list[str]]:
    """Mark complete shards of this plan whose tar files are gone or, on a disk, fail the reader's
    structure check (:func:`~simkit.episodes.reader.index_shard`: truncated by a full disk or an
    interrupted copy, a damaged header) as incomplete, so they are produced again (episode i depends
    only on the seed: the same bytes come back). Returns how many episodes that re-plans and one line
    per shard re-planned."""
    import json

    lost, notes = 0, []
    # on an object store one listing answers for every shard (a request per tar object would not)
    listed = {p.name for p in layout.shards.glob("*.tar")} if is_remote(layout.root) else None
    for j in sorted(layout.complete_shards()):
        if j not in shards:
            continue
        rows = json.loads(layout.rows_path(j).read_text())  # checked by load_rows before
        names = sorted({r["shard"] for r in rows if r["members"]})
        bad = [n for n in names if not _shard_intact(layout, n, listed)]
        if not bad:
            continue
        for p in layout.shards.glob(f"shard-{j:06d}*.tar"):
            p.unlink()
        layout.rows_path(j).unlink()
        lost += len(rows)
        notes.append(f"shards/{bad[0]}: missing or damaged; its {len(rows)} episodes were produced again")
    return lost, notes


def _shard_intact(layout: CorpusLayout, name: str, listed: set[str] | None) -> bool:
    """Whether shard tar ``name`` is in the object store's listing or, on a disk, reads as a whole
    tar archive (its headers only; the members' checksums are ``simkit validate``'s)."""
    from simkit.episodes.reader import index_shard

    if listed is not None:
        return name in listed
    return index_shard(layout.shards / name).problem is None


def _versions(gen_cls, preflight: Worker | None) -> dict[str, str]:
    versions = {"simkit": __version__, **(preflight.versions() if preflight else {})}
    if preflight is None:
        with contextlib.suppress(Exception):
            versions.update(gen_cls().backend_versions())
    return versions


def _execute(
    run: _Run, executor: str, workers: int, address, preflight, ray_num_cpus, progress: bool
) -> None:
    planned, resumed = run.count()
    run.bar = _progress(progress, planned - resumed, run.spec.generator)
    try:
        if executor == "ray" and run.dest is not None:
            shards = list(run.todo_shards())
            dest = str(run.dest.root)
            execute_ray_shards(
                run.spec, shards, dest, run.max_shard_bytes, address, run.on_shard, num_cpus=ray_num_cpus
            )
        elif executor == "ray":
            batches: list[list[int]] = []
            for i in run.todo():  # Ray batches: one per shard
                if not batches or run.spec.shard_of(batches[-1][-1]) != run.spec.shard_of(i):
                    batches.append([])
                batches[-1].append(i)
            execute_ray(run.spec, batches, address, run.on_row, num_cpus=ray_num_cpus)
        else:
            execute_local(run.spec, run.todo(), workers, run.on_row, worker=preflight)
    finally:
        run.bar.close()


def _holds_episodes(layout: CorpusLayout) -> bool:
    """Whether ``layout`` holds any shard, rows file or partial episode (something a re-run resumes)."""
    return any(
        p.is_file() for base in (layout.shards, layout.partial) if base.is_dir() for p in base.rglob("*")
    )


@contextlib.contextmanager
def _removed_on_failure(layout: CorpusLayout, created: bool) -> Iterator[None]:
    """Remove the corpus directory this run ``created`` when the run fails before any episode is kept."""
    try:
        yield
    except BaseException:
        if created and layout.root.is_dir() and not _holds_episodes(layout):
            shutil.rmtree(layout.root, ignore_errors=True)
        raise


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
    overwrite: bool = False,
) -> RunSummary:
    """Generate, resume or grow a corpus of ``n`` episodes of ``generator`` under ``out``.

    A directory holding this corpus (same generator, version, seed, episodes per shard and config)
    is resumed; holding fewer than ``n`` episodes of it, it grows to ``n`` (episode i depends only on
    the seed, so the episodes already there stay byte-identical). ``overwrite`` starts over.

    Args:
        config: config data, validated against the generator's Config model.
        shard: (K, N): produce only shards ``j`` with ``j % N == K``.
        executor: ``"local"`` (process pool of ``workers``) or ``"ray"``.
    Returns:
        RunSummary (``exit_code`` 3 when some episodes failed).
    Raises:
        SimkitError: unknown generator, invalid config or arguments, the generator's setup failed,
            ``out`` holds a different corpus (each differing setting named) or cannot be written.
    """
    check_run_args(n, seed, episodes_per_shard, workers, retries, max_shard_bytes)
    worker_threads()  # a bad SIMKIT_WORKER_THREADS is one clear error before anything is written
    if executor not in ("local", "ray"):
        raise SimkitError(f"unknown executor {executor!r}; choose local or ray")
    if address and executor != "ray":
        raise SimkitError("--address is the Ray cluster address; it needs --executor ray")
    layout = CorpusLayout(corpus_path(out))
    remote = is_remote(layout.root)
    if not remote:
        check_out_path(layout.root)
    gen_cls = load(generator)
    cfg = gen_cls.Config.model_validate(config or {})
    spec = RunSpec(
        generator, cfg.model_dump(mode="json"), int(seed), str(layout.root), episodes_per_shard, retries
    )
    identity = {"generator": generator, "version": gen_cls.version, "seed": int(seed), "n": n}
    identity.update(episodes_per_shard=episodes_per_shard, config=spec.config)
    created = not remote and not layout.root.exists()
    with _removed_on_failure(layout, created):  # a failed new run leaves no empty corpus folder
        reopen = prepare_out(layout, identity, overwrite)
        if layout.corpus_json.exists():
            load_rows(layout)  # a damaged rows file is one clear error before anything is written
        # an object store has no rename: episodes wait in a local staging folder until their shard is published
        work = CorpusLayout(make_stage()) if remote else layout
        try:
            spec = replace(spec, out=str(work.root))
            preflight = _preflight(spec, parallel=workers > 1 or executor == "ray")
            try:
                plan = plan_shards(n, episodes_per_shard, shard)
                opened = (
                    _open_remote(layout, work, reopen, plan) if remote else _open_dir(layout, reopen, plan)
                )
            except BaseException:
                if preflight is not None:
                    preflight.close()
                raise
            run = _Run(spec, work, n, shard, max_shard_bytes, dest=layout if remote else None)
            run.summary.discarded += opened[0]
            versions = _versions(gen_cls, preflight)

            def publish() -> list[dict]:
                with CorpusLock(layout.root):
                    rows = load_rows(layout)
                    write_manifest(layout, rows)
                    info = corpus_info(spec, n, gen_cls, gen_cls.Config, versions, rows)
                    write_json_atomic(layout.corpus_json, info)
                return rows

            publish()  # corpus.json first: it marks the directory as this corpus, so a killed run can resume
            t0 = time.perf_counter()
            run.summary.planned, run.summary.resumed = run.count()
            _execute(run, executor, workers, address, preflight, ray_num_cpus, progress)
            rows = publish()
        finally:
            if remote:
                shutil.rmtree(work.root, ignore_errors=True)
        if not remote and layout.partial.is_dir() and not any(layout.partial.iterdir()):
            layout.partial.rmdir()
    summary = run.summary
    summary.failed = sum(1 for r in rows if r["status"] != "ok" and spec.shard_of(r["index"]) in run.shards)
    summary.seconds = time.perf_counter() - t0
    summary.bytes_written = sum(p.stat().st_size for p in layout.shards.glob("*.tar"))
    summary.notes = opened[1] + gen_cls.summary_lines(gen_cls.corpus_summary(spec.config, rows))
    return summary
