"""Render mono sources on trajectories into first-order Ambisonics (AmbiX: ACN W,Y,Z,X / SN3D).

Synthesis (OmniEcho, sec. "FOA rendering", eq. 1; see the seed notes)::

    a(t) = sum_i  g_i / max(r_i(t), r_min) * Y(theta_i(t), phi_i(t)) * s_i(t - r_i(t) / c)

with ``Y`` the SN3D gains of :func:`~simkit.renderers.foa.encoding.sn3d_gains`, ``theta, phi``
the source direction in the *current* listener frame (+x ahead, +y left, +z up) and ``r`` the
source-listener distance. The geometry is evaluated at block edges (every ``block`` samples,
default 32 = 2 ms at 16 kHz); gains and delays are interpolated linearly between the edges
sample by sample, so direction changes are smooth (no zipper noise). The propagation delay
``r/c`` (c = 343 m/s, dry air at 20 degC) is applied with a third-order Lagrange fractional-delay
interpolator (Laakso et al., "Splitting the unit delay", IEEE SPM 13(1), 1996); a time-varying
delay is what produces the Doppler shift ``f' = f (1 - dr/dt / c)`` (the delay is evaluated at
the reception time, an approximation valid for source speeds far below c).

Room effects (:class:`~simkit.renderers.foa.room.ShoeboxRoom`): each image source is a path of
its own, encoded from its own direction with its own delay, distance gain and wall reflection
gain; static scenes are rendered through a sparse FOA impulse response and FFT convolution,
moving ones path by path. The diffuse tail is convolved with each source signal.

Plane-wave sources (``Source(plane_wave=True)``): the trajectory gives a direction (the vector
from the listener to the trajectory point); no distance gain, no delay, no room.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.renderers.foa._kernels import gains_kernel, images_kernel, path_kernel, static_kernel
from simkit.renderers.foa.geometry import ListenerPose, Trajectory
from simkit.renderers.foa.room import ShoeboxRoom, diffuse_tail, diffuse_tail_bands

#: speed of sound in m/s (dry air, 20 degC; ISO 9613-1 gives 343.2 m/s)
SPEED_OF_SOUND = 343.0


@dataclass
class Source:
    """A mono source.

    Attributes:
        signal: (N,) float mono samples at the render sample rate; sample 0 is emitted at ``onset``.
        trajectory: world-frame :class:`~simkit.renderers.foa.geometry.Trajectory`.
        gain: linear gain g (the amplitude at 1 m; ``g / max(r, r_min)`` at distance r).
        onset: emission time of ``signal[0]`` in seconds (rounded to whole samples).
        plane_wave: True for a far-field plane wave (direction only; no distance gain, delay or room).
    """

    signal: np.ndarray
    trajectory: Trajectory
    gain: float = 1.0
    onset: float = 0.0
    plane_wave: bool = False


def _lagrange_read(signal: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Read ``signal`` at fractional positions ``pos`` (N,) with 4-point (cubic) Lagrange weights.

    Positions outside ``[0, len(signal) - 1]`` read zeros (the signal is silent before and after).
    Weights for the fraction d of the sample i (Laakso et al. 1996, eq. 42, N = 3)::

        h[-1] = -d (d-1) (d-2) / 6,  h[0] = (d+1) (d-1) (d-2) / 2,
        h[1] = -(d+1) d (d-2) / 2,   h[2] = (d+1) d (d-1) / 6
    """
    pad = 4
    x = np.concatenate([np.zeros(pad), np.asarray(signal, dtype=np.float64), np.zeros(pad)])
    p = pos + pad
    i = np.floor(p)
    d = p - i
    i = np.clip(i.astype(np.int64), 1, x.size - 3)
    dm1, dp1, dm2 = d - 1.0, d + 1.0, d - 2.0
    out = x[i - 1] * (-d * dm1 * dm2 / 6.0)
    out += x[i] * (dp1 * dm1 * dm2 / 2.0)
    out += x[i + 1] * (-dp1 * d * dm2 / 2.0)
    out += x[i + 2] * (dp1 * d * dm1 / 6.0)
    return out


def _ramp(edge_values: np.ndarray, n: int, block: int) -> np.ndarray:
    """Linear per-sample interpolation of values given at block edges: (nb+1, D) -> (n, D)."""
    nb = edge_values.shape[0] - 1
    frac = (np.arange(block) / block)[None, :, None]
    a = edge_values[:-1, None, :]
    b = edge_values[1:, None, :]
    return (a + (b - a) * frac).reshape(nb * block, -1)[:n]


def _gains(v: np.ndarray, amp: np.ndarray, r_min: float) -> tuple[np.ndarray, np.ndarray]:
    """Listener-frame vectors (..., 3) -> (SN3D gains (..., 4) x amp / max(r, r_min), r (...))."""
    r = np.linalg.norm(v, axis=-1)
    safe = np.where(r > 1e-12, r, 1.0)
    u = np.where((r > 1e-12)[..., None], v / safe[..., None], np.array([1.0, 0.0, 0.0]))
    g = np.empty(v.shape[:-1] + (4,))
    scale = amp / np.maximum(r, r_min)
    g[..., 0] = scale
    g[..., 1] = u[..., 1] * scale
    g[..., 2] = u[..., 2] * scale
    g[..., 3] = u[..., 0] * scale
    return g, r


class _PathMixer:
    """Accumulates time-varying paths and mixes them with one batched matrix product per chunk.

    Each path is a signal already read at the output's sample times (n,) and its gains at block
    edges (nb+1, 4). Inside block k the output is ``seg * (a_k + (j / block) (a_{k+1} - a_k))``,
    i.e. ``[seg, seg * j / block] @ [a_k; a_{k+1} - a_k]``; stacking the paths gives a single
    (nb, block, 2P) @ (nb, 2P, 4) product.
    """

    def __init__(self, out: np.ndarray, block: int, chunk: int = 16):
        self.kernel = path_kernel()
        self.static_kernel = static_kernel() if self.kernel is not None else None
        self.queued: list[tuple] = []
        self.out, self.block, self.chunk = out, block, chunk
        self.n = out.shape[0]
        self.nb = -(-self.n // block)
        self.frac = np.arange(block) / block
        self.segs: list[np.ndarray] = []
        self.gains: list[np.ndarray] = []

    def add(self, seg: np.ndarray, gains: np.ndarray) -> None:
        self.segs.append(seg)
        self.gains.append(gains)
        if len(self.segs) >= self.chunk:
            self.flush()

    def queue(self, sig: np.ndarray, start: int, gains: np.ndarray, delays: np.ndarray | None) -> None:
        """Queue a path for the compiled kernel (signal, start sample, edge gains, edge delays)."""
        d = np.zeros((1, self.nb + 1)) if delays is None else np.asarray(delays, dtype=np.float64)[None]
        self.queue_paths(
            sig, start, np.asarray(gains, dtype=np.float64)[None], d, np.array([delays is not None])
        )

    def queue_paths(
        self, sig: np.ndarray, start: int, gains: np.ndarray, delays: np.ndarray, use_delay: np.ndarray
    ) -> None:
        """Queue P paths of one signal: edge gains (P, nb+1, 4), edge delays (P, nb+1) in samples
        (ignored where ``use_delay`` (P,) is False)."""
        self.queued.append((sig, start, gains, delays, use_delay))

    def queue_static(self, sig: np.ndarray, start: int, gains: np.ndarray, delays: np.ndarray) -> None:
        """Queue P static paths of one signal for the compiled static kernel: gains (P, 4), delays (P,)
        in samples; the same 4-tap Lagrange taps as :func:`_add_static_rir`, applied in the time domain."""
        base, rows, w = _static_taps(delays)
        r_lo, r_hi = int(rows.min()), int(rows.max())
        shift = start + base + r_hi + 3  # xp[u] = sig[u - shift]: every read of every path lies in xp
        xp = np.zeros(self.n + r_hi - r_lo + 3)
        lo, hi = max(shift, 0), min(shift + sig.size, xp.size)
        if hi > lo:
            xp[lo:hi] = sig[lo - shift : hi - shift]
        self.queued.append((xp, (r_hi - rows).astype(np.int64), w, np.ascontiguousarray(gains)))

    def _run_kernel(self) -> None:
        # one call per queued signal, in queue order: every output sample receives the paths'
        # contributions in the same order as a single call over all paths would add them, and
        # no signal, gain or delay array is copied; the kernel adds into channel-major rows: the
        # output itself where it is the (T, 4) view of a channel-major buffer (render_foa's),
        # else a copy, copied back unchanged in value
        out_t = self.out.T
        copied = not out_t.flags.c_contiguous
        if copied:
            out_t = np.ascontiguousarray(out_t)
        for item in self.queued:
            if len(item) == 4:  # static paths (queue_static, only queued where the kernel exists)
                assert self.static_kernel is not None
                self.static_kernel(out_t, *item, 512)
                continue
            sig, start, gains, delays, use = item
            p = gains.shape[0]
            self.kernel(
                out_t,
                np.ascontiguousarray(sig, dtype=np.float64),
                np.zeros(p, np.int64),
                np.full(p, sig.size, np.int64),
                np.full(p, start, np.int64),
                np.ascontiguousarray(gains.transpose(1, 0, 2)),  # edge-major: no copy from _path_gains
                np.ascontiguousarray(delays.T),
                use,
                self.block,
            )
        if copied:
            self.out[:] = out_t.T
        self.queued = []

    def flush(self) -> None:
        if self.queued:
            self._run_kernel()
        if not self.segs:
            return
        p, nb, block = len(self.segs), self.nb, self.block
        seg = np.zeros((p, nb * block))
        for k, s in enumerate(self.segs):
            seg[k, : s.size] = s
        seg = seg.reshape(p, nb, block).transpose(1, 2, 0)  # (nb, block, P)
        a = np.concatenate([seg, seg * self.frac[None, :, None]], axis=2)  # (nb, block, 2P)
        g = np.stack(self.gains, axis=1)  # (nb+1, P, 4)
        mat = np.concatenate([g[:-1], g[1:] - g[:-1]], axis=1)  # (nb, 2P, 4)
        self.out += np.matmul(a, mat).reshape(nb * block, 4)[: self.n]
        self.segs.clear()
        self.gains.clear()


def _read_path(signal: np.ndarray, start: int, n: int, delays: np.ndarray | None, block: int) -> np.ndarray:
    """The signal as it arrives at output samples 0..n-1 (emitted from sample ``start``).

    ``delays`` (nb+1,) in samples at block edges (linearly ramped in between), or None.
    """
    if delays is None or bool(np.all(delays == 0.0)):
        seg = np.zeros(n)
        lo, hi = max(start, 0), min(start + signal.size, n)
        if hi > lo:
            seg[lo:hi] = signal[lo - start : hi - start]
        return seg
    if bool(np.all(delays == delays[0])):
        pos = np.arange(n, dtype=np.float64) - (start + delays[0])
    else:
        pos = np.arange(n, dtype=np.float64) - start - _ramp(delays[:, None], n, block)[:, 0]
    return _lagrange_read(signal, pos)


def render_foa(
    sources: list[Source],
    fs: int,
    n_samples: int,
    listener: ListenerPose | None = None,
    room: ShoeboxRoom | None = None,
    *,
    delay: bool = True,
    r_min: float = 0.3,
    speed_of_sound: float = SPEED_OF_SOUND,
    block: int = 32,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """Render sources into first-order Ambisonics for a (possibly moving, turning) listener.

    Args:
        sources: the :class:`Source` list (mono signals at ``fs``).
        fs: sample rate in Hz.
        n_samples: output length T in samples.
        listener: the :class:`~simkit.renderers.foa.geometry.ListenerPose` (default: static at the
            world origin, looking along +x).
        room: optional shoebox room (image sources up to ``room.max_order``; diffuse tail when
            ``room.rt60`` is set). Sources and listener should lie inside it.
        delay: apply the propagation delay r/c to the direct path (and hence Doppler). When False
            the direct path is instantaneous and reflections keep only their *excess* delay
            ``(r_image - r_direct) / c``.
        r_min: distance floor of the 1/r law in metres (0.3 m as in the OmniEcho navigation data).
        speed_of_sound: c in m/s.
        block: geometry update interval in samples (gains and delays ramp linearly in between).
        rng: numpy Generator, required when the room has a diffuse tail (noise of the tail).

    Returns:
        float64 array (T, 4), ACN order W, Y, Z, X, SN3D; not normalised (1/r gains kept).

    Raises:
        ValueError: bad arguments (non-positive rate/length/block, a tail without ``rng``).
    """
    if fs <= 0 or n_samples < 0 or block < 1:
        raise ValueError("fs and block must be positive and n_samples non-negative")
    listener = listener or ListenerPose()
    n_samples = int(n_samples)
    if n_samples == 0 or not sources:
        return np.zeros((n_samples, 4))
    if room is not None and room.rt60 is not None and rng is None:
        raise ValueError("a room with a diffuse tail (rt60) needs rng")
    nb = -(-int(n_samples) // block)
    t_edges = np.arange(nb + 1) * (block / fs)
    lis_static = listener.is_static
    if lis_static:
        lis_pos = listener.position.positions([0.0])
        rot_t = listener.rotation([0.0])[0].T
    else:
        lis_pos = listener.position.positions(t_edges)
        rot_t = np.swapaxes(listener.rotation(t_edges), -1, -2)

    if room is not None:
        _, sign, offset, amp_img = room.image_transform()
    else:
        sign, offset, amp_img = np.ones((1, 3)), np.zeros((1, 3)), np.ones(1)

    out = np.zeros((4, n_samples)).T  # channel-major rows, what the compiled kernels add into
    mixer = _PathMixer(out, block)
    gk = gains_kernel() if mixer.kernel is not None else None
    ik = images_kernel() if mixer.kernel is not None else None
    for src in sources:
        sig = np.asarray(src.signal, dtype=np.float64).reshape(-1)
        start = int(round(src.onset * fs))
        static = src.trajectory.is_static and lis_static
        pts = src.trajectory.positions([0.0] if static else t_edges)  # (E, 3) world
        if src.plane_wave:
            v = _to_listener(pts - lis_pos, rot_t)
            r = np.linalg.norm(v, axis=-1, keepdims=True)
            g, _ = _gains(v / np.where(r > 0, r, 1.0), np.asarray(src.gain, dtype=np.float64), 0.0)
            _add(out, mixer, sig, start, g, None, nb, block, static)
            continue
        m_paths = 1 if room is None else amp_img.size
        v = _to_listener(_image_offsets(sign, offset, pts, lis_pos, ik), rot_t)
        g, d, r0 = _path_gains(v, src.gain * amp_img, r_min, speed_of_sound, fs, gk)
        if not delay:
            d = d - d[0:1]
        _mix_paths(out, mixer, sig, start, g, d, delay, static, m_paths, nb, block)
        if room is not None and room.rt60 is not None:
            assert rng is not None  # checked above: a room with a tail needs rng
            _add_tail(out, room, sig, start, r0, delay, speed_of_sound, fs, src.gain, rng)
    mixer.flush()
    return np.ascontiguousarray(out)


def _image_offsets(
    sign: np.ndarray, offset: np.ndarray, pts: np.ndarray, lis_pos: np.ndarray, ik
) -> np.ndarray:
    """Image-source positions minus the listener, (M, E, 3) m, world frame.

    ``sign`` (M, 3) and ``offset`` (M, 3) map a source point to its M images (the shoebox image
    transform); ``pts`` (E, 3) are the source's positions at the E block edges, ``lis_pos`` (E, 3) or
    (1, 3) the listener's. ``ik`` is the compiled kernel (or None: numpy computes with the long edge
    axis last, since inner loops over an axis of 3 are slow; both give the same values).
    """
    if ik is not None:
        rel = np.empty((sign.shape[0], pts.shape[0], 3))
        ik(sign, offset, pts, lis_pos, rel)
        return rel
    rel = (sign[:, :, None] * pts.T[None] + offset[:, :, None]) - lis_pos.T[None]  # (M, 3, E)
    return np.ascontiguousarray(rel.transpose(0, 2, 1))


def _path_gains(
    v: np.ndarray, amp: np.ndarray, r_min: float, speed_of_sound: float, fs: int, gk
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-path SN3D gains (M, E, 4), delays (M, E) in samples and each path's length at the first
    block edge (M,) m (what the diffuse tail is timed from). With the kernel, gains and delays are
    views of edge-major (E, M, ...) arrays (what :func:`~simkit.renderers.foa._kernels.path_kernel`
    reads); the values are the same either way.

    ``v`` (M, E, 3) are the paths' arrival vectors in the listener frame, ``amp`` (M,) their
    amplitudes (source gain times wall reflection); ``gk`` the compiled kernel or None (numpy).
    """
    if gk is not None:  # compiled: same operations, no temporaries
        m, e = v.shape[0], v.shape[1]
        # (M, E) views of edge-major buffers: the path kernel reads one edge's paths side by side
        g = np.empty((e, m, 4)).transpose(1, 0, 2)
        d = np.empty((e, m)).T
        gk(np.ascontiguousarray(v), amp, float(r_min), float(speed_of_sound), float(fs), g, d)
        return g, d, np.linalg.norm(v[:, :1], axis=-1)[:, 0]
    g, r = _gains(v, amp[:, None], r_min)
    return g, r / speed_of_sound * fs, r[:, 0]


def _mix_paths(
    out: np.ndarray,
    mixer: _PathMixer,
    sig: np.ndarray,
    start: int,
    g: np.ndarray,
    d: np.ndarray,
    delay: bool,
    static: bool,
    m_paths: int,
    nb: int,
    block: int,
) -> None:
    """Add one source's M paths into ``out``: one convolution for a static scene with reflections,
    the compiled mixer's batch where it exists, else path by path (the direct path undelayed when
    ``delay`` is False)."""
    if static and m_paths > 1 and mixer.static_kernel is not None:
        mixer.queue_static(sig, start, g[:, 0], d[:, 0])
    elif static and m_paths > 1:
        _add_static_rir(out, sig, start, g[:, 0], d[:, 0])
    elif mixer.kernel is not None:  # all paths of this source in one batch, no copies
        use = np.ones(m_paths, dtype=bool)
        use[0] = delay
        if static:
            g, d = np.repeat(g, nb + 1, axis=1), np.repeat(d, nb + 1, axis=1)
        mixer.queue_paths(sig, start, g, d, use)
    else:
        for k in range(m_paths):
            dk = None if (not delay and k == 0) else d[k]
            _add(out, mixer, sig, start, g[k], dk, nb, block, static)


def _add_tail(
    out: np.ndarray,
    room: ShoeboxRoom,
    sig: np.ndarray,
    start: int,
    r_paths: np.ndarray,
    delay: bool,
    speed_of_sound: float,
    fs: int,
    gain: float,
    rng: np.random.Generator,
) -> None:
    """Convolve one source with the room's diffuse tail (broadband or per octave band), starting after
    its last modelled reflection; ``r_paths`` (M,) = the path lengths (m) at t = 0, direct path first."""
    t_dir = float(r_paths[0] / speed_of_sound)
    t_start = float(r_paths.max() / speed_of_sound)
    if not delay:
        t_dir, t_start = 0.0, t_start - float(r_paths[0] / speed_of_sound)
    t_ref = 0.0 if not delay else t_dir
    if room.rt60_bands is not None:
        e_b = room.tail_band_energies(t_start, t_ref) * gain**2
        h = diffuse_tail_bands(fs, room.rt60_bands, e_b, int(round(t_start * fs)), rng)
    else:
        energy = room.tail_energy(t_start, t_ref) * gain**2
        h = diffuse_tail(fs, float(room.rt60 or 0.0), energy, int(round(t_start * fs)), rng)
    _add_convolved(out, sig, start, h)


def _add(
    out: np.ndarray,
    mixer: _PathMixer,
    sig: np.ndarray,
    start: int,
    g: np.ndarray,
    d: np.ndarray | None,
    nb: int,
    block: int,
    static: bool,
) -> None:
    """Add one path with gains ``g`` and delays ``d`` (samples, or None) given at block edges
    ((1, 4) and (1,) when ``static``, else (nb+1, 4) and (nb+1,)).

    With the compiled kernel (:mod:`simkit.renderers.foa._kernels`) the path is queued on the
    mixer and rendered with all others in one pass; with numpy, constant gains go straight into
    ``out`` and time-varying ones through the batched mixer.
    """
    if mixer.kernel is not None:
        mixer.queue(sig, start, _edges(g, nb, static), None if d is None else np.broadcast_to(d, (nb + 1,)))
        return
    seg = _read_path(
        sig, start, out.shape[0], None if d is None else _edges(d[:, None], nb, static)[:, 0], block
    )
    if static:
        out += seg[:, None] * g[0]
    else:
        mixer.add(seg, _edges(g, nb, static))


def _to_listener(v_world: np.ndarray, rot_t: np.ndarray) -> np.ndarray:
    """World-frame vectors (..., E, 3) -> listener frame with R^T (3, 3) or per-edge (E, 3, 3)."""
    if rot_t.ndim == 2:
        return v_world @ rot_t.T
    return np.einsum("eij,...ej->...ei", rot_t, v_world)


def _edges(values: np.ndarray, nb: int, static: bool) -> np.ndarray:
    """Values at block edges (E, D): broadcast a static (1, D) row to (nb+1, D)."""
    return np.broadcast_to(values, (nb + 1, values.shape[-1])) if static else values


def _static_taps(delays: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """The 4 Lagrange taps of static paths with ``delays`` (M,) samples (the weights of
    :func:`_lagrange_read`, Laakso et al. 1996): ``(base, rows (M,) int, weights (M, 4))``, path m's
    tap t at sample ``base + rows[m] + t`` of the impulse response (first tap at floor(delay) - 1)."""
    base = int(np.floor(delays.min())) - 1
    x = delays - base
    i = np.floor(x)
    d = x - i
    w = np.stack(
        [
            -d * (d - 1) * (d - 2) / 6,
            (d + 1) * (d - 1) * (d - 2) / 2,
            -(d + 1) * d * (d - 2) / 2,
            (d + 1) * d * (d - 1) / 6,
        ],
        axis=1,
    )  # (M, 4)
    return base, i.astype(np.int64) - 1, w


def _add_static_rir(
    out: np.ndarray, signal: np.ndarray, start: int, gains: np.ndarray, delays: np.ndarray
) -> None:
    """Static geometry: build the sparse FOA impulse response of all paths and convolve once."""
    base, first, w = _static_taps(delays)
    length = int(np.ceil(delays.max())) - base + 3
    h = np.zeros((length, 4))
    # np.add.at adds the taps of all paths in path order, as a loop would
    rows = first[:, None] + np.arange(4)[None, :]
    np.add.at(h, rows.ravel(), (w[:, :, None] * gains[:, None, :]).reshape(-1, 4))
    _add_convolved(out, signal, start + base, h)


def _add_convolved(out: np.ndarray, signal: np.ndarray, start: int, h: np.ndarray) -> None:
    """Add ``signal`` (emitted at output sample ``start``) convolved with ``h`` (L, 4) to ``out``."""
    from scipy.signal import oaconvolve

    n = out.shape[0]
    lo = max(start, 0)
    if lo >= n:
        return
    skip = lo - start  # signal samples emitted before sample 0 still ring into the output
    first = max(0, skip - h.shape[0] + 1)
    seg = signal[first : min(signal.size, n - start)]
    if seg.size == 0:
        return
    y = oaconvolve(seg[:, None], h, axes=0)
    y_start = start + first
    a = max(0, -y_start) if y_start < 0 else 0
    a = max(a, lo - y_start)
    b = min(y.shape[0], n - y_start)
    if b > a:
        out[y_start + a : y_start + b] += y[a:b]
