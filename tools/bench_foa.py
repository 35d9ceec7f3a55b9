"""Benchmark the FOA renderer against pyroomacoustics doing equal work.

For 1, 4 and 8 sources, static and moving, direct path and image-source order 1 and 2, both
render the same shoebox scene at 16 kHz:

- simkit: :func:`simkit.renderers.foa.render_foa` to 4 FOA channels (ACN/SN3D);
- pyroomacoustics: the same room, absorption and order rendered to a 4-microphone tetrahedral
  array (4 output channels, like FOA) with ``room.simulate()`` for static sources; for moving
  sources its usual workaround: one RIR per source position at 10 positions per second, each
  0.1 s segment convolved with its RIR and overlap-added (time-varying convolution).
- masp (``--masp``; the ``bench`` extra): the shoebox simulator behind DCASE's spatial-audio data
  synthesis renders first-order ambisonic RIRs (4 channels) with one absorption band equal to ours;
  it stops images by time, so its limit is the arrival time of the farthest image of the order
  compared (it then computes at least those images); the RIRs are convolved with the signals, and
  moving sources use the same 10-positions-per-second overlap-add as pyroomacoustics. masp 0.1
  predates scipy 1.15: :func:`_masp` restores the two scipy.special names it imports.

The C allocator is set to keep freed memory (see :func:`_steady_malloc`; ``--default-malloc``
turns that off) so that a configuration's time does not depend on the runs before it.

Reported: the real-time factor per core (seconds of audio per second of CPU time of this process
(``time.process_time``), one thread, best of ``--repeats``) and the speed ratio. Usage::

    python tools/bench_foa.py [--seconds 4] [--repeats 3] [--markdown out.md]
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

FS = 16000
ROOM = (7.0, 5.5, 3.2)
ALPHA = 0.3
LISTENER = np.array([3.2, 2.6, 1.5])


def _sources(n_src: int, seconds: float, moving: bool, rng):
    """Source signals and their start/end positions inside the room."""
    sig = [rng.standard_normal(int(seconds * FS)) for _ in range(n_src)]
    a = np.column_stack(
        [
            rng.uniform(0.7, ROOM[0] - 0.7, n_src),
            rng.uniform(0.7, ROOM[1] - 0.7, n_src),
            rng.uniform(0.8, 2.2, n_src),
        ]
    )
    b = (
        np.column_stack(
            [
                rng.uniform(0.7, ROOM[0] - 0.7, n_src),
                rng.uniform(0.7, ROOM[1] - 0.7, n_src),
                rng.uniform(0.8, 2.2, n_src),
            ]
        )
        if moving
        else a.copy()
    )
    return sig, a, b


def run_simkit(sig, a, b, order, seconds, moving):
    from simkit.renderers.foa import ListenerPose, ShoeboxRoom, Source, Trajectory, render_foa

    n = int(seconds * FS)
    lis = ListenerPose(position=Trajectory.static(LISTENER))
    room = ShoeboxRoom(ROOM, ALPHA, order) if order > 0 else None
    srcs = [
        Source(s, Trajectory([0.0, seconds], [pa, pb]) if moving else Trajectory.static(pa))
        for s, pa, pb in zip(sig, a, b)
    ]
    return render_foa(srcs, FS, n, lis, room)


def _mic_array():
    r = 0.0147  # a typical first-order tetrahedral microphone radius
    d = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]]) / np.sqrt(3)
    return (LISTENER + r * d).T  # (3, 4)


def run_pra(sig, a, b, order, seconds, moving):
    import pyroomacoustics as pra

    n = int(seconds * FS)
    mics = _mic_array()
    if not moving:
        room = pra.ShoeBox(ROOM, fs=FS, materials=pra.Material(ALPHA), max_order=order)
        for s, p in zip(sig, a):
            room.add_source(p, signal=s)
        room.add_microphone_array(mics)
        room.simulate()
        return room.mic_array.signals[:, :n]
    from scipy.signal import oaconvolve

    out = np.zeros((4, n + FS))
    seg = FS // 10  # 10 positions per second
    room = pra.ShoeBox(ROOM, fs=FS, materials=pra.Material(ALPHA), max_order=order)
    room.add_microphone_array(mics)
    for s, pa, pb in zip(sig, a, b):
        for k in range(0, n, seg):
            t = (k + seg / 2) / FS
            p = pa + (pb - pa) * min(t / seconds, 1.0)
            room.sources = [pra.SoundSource(p)]
            room.image_source_model()
            room.compute_rir()
            chunk = s[k : k + seg]
            for m in range(4):
                y = oaconvolve(chunk, room.rir[m][0])
                end = min(out.shape[1], k + y.size)
                out[m, k:end] += y[: end - k]
    return out[:, :n]


def _masp():
    """masp's shoebox module; masp 0.1 imports ``sph_harm`` and ``lpmn``, removed from scipy.special in
    1.15-1.17: the first is restored from ``sph_harm_y`` (same function, arguments reordered), the second
    (used only by masp's scatterer, which is not run here) as a stub that raises."""
    import scipy.special as sps

    if not hasattr(sps, "sph_harm"):
        sps.sph_harm = lambda m, n, az, pol: sps.sph_harm_y(n, m, pol, az)
    if not hasattr(sps, "lpmn"):

        def _lpmn(*_a, **_k):
            raise NotImplementedError("scipy.special.lpmn is not available")

        sps.lpmn = _lpmn
    from masp import shoebox_room_sim as srs

    return srs


def _masp_rirs(srs, positions: np.ndarray, order: int) -> np.ndarray:
    """First-order ambisonic RIRs (L, 4, nSrc) of sources at ``positions`` (nSrc, 3), images up to the
    arrival time of the farthest image of ``order`` (one absorption band = ALPHA)."""
    from simkit.renderers.foa import ShoeboxRoom

    horizon = 0.0
    for p in positions:
        img, _, orders = ShoeboxRoom(ROOM, ALPHA, order).image_sources(p)
        horizon = max(horizon, float(np.linalg.norm(img[orders <= order] - LISTENER, axis=1).max()) / 343.0)
    ech = srs.compute_echograms_sh(
        np.array(ROOM),
        np.atleast_2d(positions),
        LISTENER[None],
        np.full((1, 6), ALPHA),
        np.array([horizon + 2 / FS]),
        1,
    )
    return srs.render_rirs_sh(ech, np.array([1000.0]), FS)[:, :, 0, :]


def run_masp(sig, a, b, order, seconds, moving):
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):  # masp prints its progress and SH matrices
        return _run_masp(sig, a, b, order, seconds, moving)


def _run_masp(sig, a, b, order, seconds, moving):
    from scipy.signal import oaconvolve

    srs = _masp()
    n = int(seconds * FS)
    out = np.zeros((n + FS, 4))
    if not moving:
        h = _masp_rirs(srs, a, order)
        for k, s in enumerate(sig):
            y = oaconvolve(s[:, None], h[:, :, k], axes=0)[: out.shape[0]]
            out[: y.shape[0]] += y
        return out[:n]
    seg = FS // 10
    for s, pa, pb in zip(sig, a, b):
        for k in range(0, n, seg):
            t = (k + seg / 2) / FS
            h = _masp_rirs(srs, (pa + (pb - pa) * min(t / seconds, 1.0))[None], order)[:, :, 0]
            y = oaconvolve(s[k : k + seg, None], h, axes=0)
            end = min(out.shape[0], k + y.shape[0])
            out[k:end] += y[: end - k]
    return out[:n]


def _steady_malloc() -> str:
    """Keep freed memory in the process (glibc ``mallopt``), for simkit and pyroomacoustics alike.

    With glibc's default, adaptive thresholds, whether a large temporary array is served from
    the heap or from fresh pages (page faults, counted as CPU time) depends on what the process
    did before, so the same configuration measured alone or after others differed by up to 2.5x.
    Fixed thresholds of 256 MiB give the steady state of a long-running process every time.
    Returns a note for the report.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
        ok = libc.mallopt(m_mmap_threshold, 256 << 20) and libc.mallopt(m_trim_threshold, 256 << 20)
    except (OSError, AttributeError):
        ok = 0
    return "glibc mmap/trim thresholds fixed at 256 MiB" if ok else "default allocator settings"


def best_time(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t = time.process_time()  # CPU time of this process: per-core, robust to other load
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sources", type=int, nargs="+", default=[1, 4, 8])
    ap.add_argument("--orders", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--markdown", type=str, default="")
    ap.add_argument("--masp", action="store_true", help="also time masp (the bench extra)")
    ap.add_argument(
        "--default-malloc",
        action="store_true",
        help="leave glibc's adaptive malloc thresholds alone (results then depend on run order)",
    )
    args = ap.parse_args()
    malloc_note = "default allocator settings" if args.default_malloc else _steady_malloc()
    warnings.filterwarnings("ignore")
    import pyroomacoustics as pra

    rows = []
    warm = _sources(2, 0.5, True, np.random.default_rng(0))  # imports and caches outside the timings
    for order in (0, 1):
        for mv in (False, True):
            run_simkit(*warm, order, 0.5, mv)
            run_pra(*warm, order, 0.5, mv)
            if args.masp:
                run_masp(*warm, order, 0.5, mv)
    for moving in (False, True):
        for order in args.orders:
            for n_src in args.sources:
                rng = np.random.default_rng(n_src * 10 + order)
                sig, a, b = _sources(n_src, args.seconds, moving, rng)
                ts = best_time(
                    lambda sig=sig, a=a, b=b, order=order, moving=moving: run_simkit(
                        sig, a, b, order, args.seconds, moving
                    ),
                    args.repeats,
                )
                tp = best_time(
                    lambda sig=sig, a=a, b=b, order=order, moving=moving: run_pra(
                        sig, a, b, order, args.seconds, moving
                    ),
                    max(1, args.repeats - 1),
                )
                tm = float("nan")
                if args.masp:
                    tm = best_time(
                        lambda sig=sig, a=a, b=b, order=order, moving=moving: run_masp(
                            sig, a, b, order, args.seconds, moving
                        ),
                        max(1, args.repeats - 1),
                    )
                row = (
                    "moving" if moving else "static",
                    "direct" if order == 0 else f"order {order}",
                    n_src,
                    args.seconds / ts,
                    args.seconds / tp,
                    tp / ts,
                    args.seconds / tm,
                    tm / ts,
                )
                rows.append(row)
                print(
                    f"{row[0]:<7} {row[1]:<8} {row[2]:2d} src  simkit {row[3]:8.1f}x RT  "
                    f"pyroomacoustics {row[4]:8.1f}x RT  speed-up {row[5]:6.1f}x  "
                    f"masp {row[6]:8.1f}x RT  speed-up {row[7]:6.1f}x",
                    flush=True,
                )
    head = (
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs, one thread; "
        f"Python {platform.python_version()}, numpy {np.__version__}, pyroomacoustics {pra.__version__}; "
        f"{args.seconds:.0f} s of 16 kHz audio, best of {args.repeats}; {malloc_note}.\n\n"
        "| motion | path | sources | simkit (x real time) | pyroomacoustics (x real time) | speed-up "
        "| masp (x real time) | speed-up |\n"
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    )
    table = head + "".join(
        f"| {m} | {p} | {n} | {s:.0f} | {q:.1f} | {r:.1f} | {mq:.1f} | {mr:.1f} |\n"
        for m, p, n, s, q, r, mq, mr in rows
    )
    print(table)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as fh:
            fh.write(table)


if __name__ == "__main__":
    main()
