"""FOA heard by a stepping agent: one window of audio per agent pose (sound-guided navigation).

A navigating agent holds pose k (position, yaw) for one window of ``window`` samples, then jumps
to pose k + 1 (Habitat's actions are discrete). :func:`render_windows` renders, for every pose, the
window with a static listener at that pose through :func:`simkit.renderers.foa.render_foa`
(AmbiX ACN W, Y, Z, X / SN3D, egocentric listener frame: +x ahead, +y left, +z up), and joins the
windows into one stream ``(N * window, 4)``.

Continuity: window k plays the stem's samples ``[k * window, (k + 1) * window + pad)`` and keeps
the last ``window`` rendered samples, so the propagation delay and early reflections are already
running when the window starts (``pad`` covers ``pad / fs * c`` metres of path), and the source
signal is continuous across windows. The listener's pose changes at window boundaries only.

Per-window gain: ``gains[k]`` multiplies the source (the caller's cross-room attenuation). Rooms:
``rooms[k]`` is the :class:`~simkit.renderers.foa.ShoeboxRoom` whose image sources are rendered
for window k (or None: free field).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simkit.renderers.foa import ListenerPose, ShoeboxRoom, Source, Trajectory, render_foa


def render_windows(
    stem: np.ndarray,
    fs: int,
    poses: np.ndarray,
    source_xyz: Sequence[float] | np.ndarray,
    window: int,
    *,
    listener_height: float = 1.5,
    gains: Sequence[float] | None = None,
    rooms: Sequence[ShoeboxRoom | None] | None = None,
    plane_wave: bool = False,
    pad: int = 800,
    r_min: float = 0.3,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """Render one FOA window per agent pose (module docstring).

    Args:
        stem: mono source signal, float (>= N * window + pad,) at ``fs`` Hz (zero-padded when shorter).
        fs: sample rate, Hz.
        poses: (N, 3) agent poses ``[x, y, yaw]`` (metres, radians; world frame, z up).
        source_xyz: the source position (metres, world); for ``plane_wave`` a point far along the
            arrival direction.
        window: samples per pose.
        listener_height: ear (microphone) height above the floor, metres.
        gains: (N,) linear gains per window (default 1).
        rooms: (N,) rooms per window (default free field).
        plane_wave: render a plane wave (direction only: no distance gain, delay or room).
        pad: samples rendered before each window and dropped (default 50 ms at 16 kHz).
        r_min: distance floor of the 1/r law, metres (0.3 m as in OmniEcho's navigation data).
        rng: needed when a room has a diffuse tail.

    Returns:
        float64 (N * window, 4), AmbiX, not normalised.

    Raises:
        ValueError: ``poses`` not (N, 3), non-positive ``window``.
    """
    poses = np.asarray(poses, dtype=np.float64)
    if poses.ndim != 2 or poses.shape[1] != 3 or window <= 0:
        raise ValueError(f"poses must be (N, 3) and window > 0, got {poses.shape} and {window}")
    n = poses.shape[0]
    need = n * window + pad
    s = np.asarray(stem, dtype=np.float64)
    if s.size < need:
        s = np.concatenate([s, np.zeros(need - s.size)])
    src_xyz = tuple(float(v) for v in source_xyz)
    src_traj = Trajectory.static(src_xyz)
    out = np.zeros((n * window, 4))
    direct = None if plane_wave else DirectWindow(window, pad, r_min)
    for k in range(n):
        x, y, yaw = poses[k]
        if direct is not None and direct.enabled and (rooms is None or rooms[k] is None):
            g = 1.0 if gains is None else float(gains[k])
            seg = s[k * window : (k + 1) * window + pad]
            out[k * window : (k + 1) * window] = direct.render(seg, fs, (x, y, listener_height), yaw, src_xyz, g)
            continue
        lis = ListenerPose(position=Trajectory.static((x, y, listener_height)), yaw=np.array([yaw]))
        src = Source(
            s[k * window : (k + 1) * window + pad],
            src_traj,
            gain=1.0 if gains is None else float(gains[k]),
            plane_wave=plane_wave,
        )
        room = None if rooms is None or plane_wave else rooms[k]
        w = render_foa([src], fs, window + pad, lis, room, r_min=r_min, rng=rng)
        out[k * window : (k + 1) * window] = w[pad:]
    return out


class DirectWindow:
    """One window of a static free-field source heard by a static listener: the direct path of
    :func:`~simkit.renderers.foa.render_foa` without its general machinery (trajectories, block
    edges, path mixer), for the per-step observation of a navigating agent.

    The same IEEE operations in the same order as the compiled path of ``render_foa`` (the shared
    distance-gain kernel, then the 4-tap Lagrange read of :func:`~simkit.renderers.foa._kernels.path_kernel`
    at a constant delay, with its interior and edge forms), so the samples are bit-identical to
    ``render_foa`` of one static :class:`~simkit.renderers.foa.Source` and a static
    :class:`~simkit.renderers.foa.ListenerPose` (tests/test_foa_windows.py checks it). ``enabled`` is
    False when numba is disabled (``SIMKIT_FOA_NUMBA=0``): callers then take ``render_foa``, whose numpy
    path has its own rounding.

    Args:
        window: samples kept per window. pad: samples rendered before the window and dropped.
        r_min: distance floor of the 1/r law, metres.
    """

    def __init__(self, window: int, pad: int, r_min: float = 0.3):
        from simkit.renderers.foa._kernels import gains_kernel, path_kernel

        self.window, self.pad, self.r_min = int(window), int(pad), float(r_min)
        self.gk = gains_kernel() if path_kernel() is not None else None
        self.enabled = self.gk is not None
        self.j = np.arange(self.pad, self.pad + self.window, dtype=np.float64)  # kept output samples
        self._v = np.empty((1, 1, 3))
        self._g = np.empty((1, 1, 4))
        self._d = np.empty((1, 1))

    def render(self, signal: np.ndarray, fs: int, listener_xyz, yaw: float, source_xyz, gain: float) -> np.ndarray:
        """The kept ``window`` samples, float64 (window, 4) AmbiX / SN3D in the listener frame.

        Args:
            signal: float64 (window + pad,) the source samples emitted from output sample 0.
            fs: Hz. listener_xyz, source_xyz: world positions, metres. yaw: listener yaw, radians
                (counter-clockwise about +z, 0 along world +x). gain: linear source gain at 1 m.
        """
        from simkit.renderers.foa.encoding import rotation_matrix
        from simkit.renderers.foa.render import SPEED_OF_SOUND

        rot = rotation_matrix(np.full(1, yaw, dtype=np.float64), 0.0, 0.0)[0]
        for c in range(3):  # (sign * pts + offset) - lis of the images kernel with one identity image
            self._v[0, 0, c] = (1.0 * float(source_xyz[c]) + 0.0) - float(listener_xyz[c])
        v = self._v @ rot  # render_foa's _to_listener: v_world @ (R^T)^T
        self.gk(np.ascontiguousarray(v), np.full(1, float(gain)), self.r_min, float(SPEED_OF_SOUND), float(fs),
                self._g, self._d)  # fmt: skip
        xs = np.ascontiguousarray(signal, dtype=np.float64)
        s = _lagrange_kernel_read(xs, self.j, float(self._d[0, 0]))
        return s[:, None] * self._g[0, 0][None, :] + 0.0  # the mixer adds into zeros


def _lagrange_kernel_read(xs: np.ndarray, j: np.ndarray, delay: float) -> np.ndarray:
    """``xs`` read at output samples ``j`` (float) delayed by ``delay`` samples, as the compiled path
    kernel does it (Laakso et al. 1996 cubic Lagrange; interior form where all 4 taps lie in ``xs``,
    the edge form with silent taps elsewhere)."""
    m = xs.size
    pos = j - (delay + 0.0 * 0.0)
    fi = np.floor(pos)
    i = fi.astype(np.int64)
    d = pos - fi
    inside = (i >= 1) & (i + 2 < m)
    q = np.clip(i, 1, max(m - 3, 1))
    dm1, dp1, dm2 = d - 1.0, d + 1.0, d - 2.0
    a, b = d * dm1, dp1 * dm2
    if m >= 4:
        s = (xs[q - 1] * (-a * dm2) + xs[q + 2] * (a * dp1)) * (1.0 / 6.0) + (xs[q] * (b * dm1) - xs[q + 1] * (b * d)) * 0.5
    else:
        s = np.zeros(j.size)
    if not inside.all():
        edge = np.flatnonzero(~inside)
        ie, de = i[edge], d[edge]
        em1, ep1, em2 = de - 1.0, de + 1.0, de - 2.0
        acc = np.zeros(edge.size)
        for t, w in ((-1, -de * em1 * em2 / 6.0), (0, ep1 * em1 * em2 / 2.0), (1, -ep1 * de * em2 / 2.0),
                     (2, ep1 * de * em1 / 6.0)):  # fmt: skip
            k = ie + t
            ok = (k >= 0) & (k < m)
            acc = np.where(ok, acc + xs[np.clip(k, 0, m - 1)] * w, acc)
        s[edge] = acc  # taps all outside the signal read silence (0.0)
    return s


def intensity_direction(foa: np.ndarray) -> tuple[float, float]:
    """Broadband DirAC active-intensity direction of an FOA window (AmbiX), radians (azimuth, elevation).

    ``I = mean(W * [X, Y, Z])`` (time-domain, broadband; Pulkki, JAES 2007, with the acoustic sign
    dropped so that I points towards the source). Azimuth 0 = ahead, +pi/2 = left.
    """
    w, y, z, x = (foa[:, i] for i in range(4))
    ix, iy, iz = float(np.mean(w * x)), float(np.mean(w * y)), float(np.mean(w * z))
    return float(np.arctan2(iy, ix)), float(np.arctan2(iz, np.hypot(ix, iy)))
