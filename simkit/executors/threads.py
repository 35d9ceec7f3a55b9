"""One core per worker: the native thread pools (BLAS, OpenMP, numba, numexpr) of a worker held to one thread.

A local run of ``--workers N`` starts N producers; each one is meant to use one core. Left alone, the BLAS
libraries that numpy and scipy load (OpenBLAS, MKL) start one thread per core and use them inside every
matrix product, so N workers would compete for N x cores threads. Two mechanisms hold a producer to
:func:`worker_threads` threads (``SIMKIT_WORKER_THREADS``, default 1):

* the environment variables of :data:`THREAD_ENV`, read by a library when it is loaded (the libraries a
  generator loads while it runs);
* ``threadpoolctl.threadpool_limits``, which sets the thread count of the libraries already loaded (numpy's
  and scipy's OpenBLAS are loaded before a pool worker's initializer runs).

In a pool worker both are set for the life of the process (:func:`set_thread_env` before the generator is
set up, :func:`limit_loaded` after); in the process that
runs ``--workers 1`` itself, both hold for the run and are restored afterwards (:func:`limited_threads`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from simkit.core.errors import SimkitError

#: environment variables that set a native thread pool's size when its library loads
THREAD_ENV = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)

#: the variable that sets the threads per worker (default 1)
WORKER_THREADS_ENV = "SIMKIT_WORKER_THREADS"


def worker_threads() -> int:
    """Threads each producer may use: ``$SIMKIT_WORKER_THREADS`` (a positive integer), default 1.

    Raises:
        SimkitError: the variable is set to anything but a positive integer.
    """
    text = os.environ.get(WORKER_THREADS_ENV, "").strip()
    if not text:
        return 1
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise SimkitError(f"{WORKER_THREADS_ENV}={text!r}: expected a positive integer (threads per worker)")
    return n


def _thread_vars(threads: int) -> dict[str, str]:
    """The :data:`THREAD_ENV` values for ``threads``; numba's is left out once numba is imported (numba
    refuses a NUMBA_NUM_THREADS that differs from the one its threads were launched with)."""
    return {k: str(threads) for k in THREAD_ENV if not (k == "NUMBA_NUM_THREADS" and "numba" in sys.modules)}


def set_thread_env(threads: int) -> None:
    """Set :data:`THREAD_ENV` to ``threads`` in this process, for the libraries it loads from now on."""
    os.environ.update(_thread_vars(threads))


def limit_loaded(threads: int) -> None:
    """Hold the native pools of the libraries this process has loaded to ``threads`` threads, for the rest
    of its life (threadpoolctl)."""
    import threadpoolctl

    threadpoolctl.threadpool_limits(limits=threads)


@contextmanager
def limited_threads(threads: int) -> Iterator[None]:
    """Within the block, this process's native pools use ``threads`` threads (loaded libraries through
    threadpoolctl, later ones through :data:`THREAD_ENV`); both are restored on exit."""
    import threadpoolctl

    saved = {k: os.environ.get(k) for k in THREAD_ENV}
    os.environ.update(_thread_vars(threads))
    try:
        with threadpoolctl.threadpool_limits(limits=threads):
            yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
