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
            out[k * window : (k + 1) * window] = direct.render(
                seg, fs, (x, y, listener_height), yaw, src_xyz, g
            )
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

    The same IEEE operations in the same order as the compiled path of ``render_foa``: the shared
    distance-gain kernel, then :func:`~simkit.renderers.foa._kernels.path_kernel` itself over the kept
    samples only (at a constant delay and gain, starting ``pad`` samples into the signal; its interior
    and edge reads depend on the sample, not on where the blocks fall), so the samples are bit-identical to ``render_foa`` of one static
    :class:`~simkit.renderers.foa.Source` and a static :class:`~simkit.renderers.foa.ListenerPose`
    (tests/test_foa_windows.py). The listener rotation is ``Rz(yaw)`` written out: the entries of
    :func:`~simkit.renderers.foa.encoding.rotation_matrix` at zero pitch and roll, up to the sign of its
    zeros (which no output sample carries). ``enabled`` is False when numba is disabled
    (``SIMKIT_FOA_NUMBA=0``): callers then take ``render_foa``, whose numpy path has its own rounding.

    Args:
        window: samples kept per window. pad: samples rendered before the window and dropped.
        r_min: distance floor of the 1/r law, metres.
    """

    def __init__(self, window: int, pad: int, r_min: float = 0.3):
        from simkit.renderers.foa._kernels import gains_kernel, path_kernel
        from simkit.renderers.foa.render import SPEED_OF_SOUND

        self.c = float(SPEED_OF_SOUND)
        self.window, self.pad, self.r_min = int(window), int(pad), float(r_min)
        self.kernel = path_kernel()
        self.gk = gains_kernel() if self.kernel is not None else None
        self.enabled = self.gk is not None
        self._v = np.empty((1, 1, 3))
        self._rot = np.zeros((3, 3))
        self._rot[2, 2] = 1.0
        self._yaw = np.empty(1)
        self._amp = np.empty(1)
        self._g = np.empty((1, 1, 4))
        self._d = np.empty((1, 1))
        self.block = 32  # render_foa's block: the kernel's scratch stays in L1 (2x faster than one block)
        nb = -(-self.window // self.block)
        self._gains = np.empty((nb + 1, 1, 4))  # the path kernel's edge-major layout
        self._delays = np.empty((nb + 1, 1))
        self._ints = np.array([0, self.window + self.pad, -self.pad], dtype=np.int64)  # offset, length, start
        self._use = np.ones(1, dtype=bool)

    def render(
        self, signal: np.ndarray, fs: int, listener_xyz, yaw: float, source_xyz, gain: float
    ) -> np.ndarray:
        """The kept ``window`` samples, float64 (window, 4) AmbiX / SN3D in the listener frame.

        Args:
            signal: float64 (window + pad,) the source samples emitted from output sample -pad.
            fs: Hz. listener_xyz, source_xyz: world positions, metres. yaw: listener yaw, radians
                (counter-clockwise about +z, 0 along world +x). gain: linear source gain at 1 m.

        Raises:
            ValueError: ``signal`` not of ``window + pad`` samples.
            RuntimeError: numba disabled (``enabled`` is False).
        """
        if self.gk is None or self.kernel is None:
            raise RuntimeError("DirectWindow needs the compiled kernels (numba); use render_windows")
        xs = np.ascontiguousarray(signal, dtype=np.float64).reshape(-1)
        if xs.size != self.window + self.pad:
            raise ValueError(
                f"signal must have window + pad = {self.window + self.pad} samples, got {xs.size}"
            )
        self._yaw[0] = yaw
        cy, sy = np.cos(self._yaw)[0], np.sin(self._yaw)[0]  # the (1,)-array ufunc loops of rotation_matrix
        r = self._rot
        r[0, 0], r[0, 1], r[1, 0], r[1, 1] = cy, -sy, sy, cy
        for c in range(3):  # (sign * pts + offset) - lis of the images kernel with one identity image
            self._v[0, 0, c] = (1.0 * float(source_xyz[c]) + 0.0) - float(listener_xyz[c])
        v = self._v @ r  # render_foa's _to_listener: v_world @ (R^T)^T
        self._amp[0] = float(gain) * 1.0
        self.gk(v, self._amp, self.r_min, self.c, float(fs), self._g, self._d)
        self._gains[:, 0] = self._g[0, 0]  # constant along the window: every block edge alike
        self._delays[:, 0] = self._d[0, 0]
        out = np.zeros((4, self.window))  # the kernel adds into channel-major rows
        o, n, s0 = self._ints[0:1], self._ints[1:2], self._ints[2:3]
        self.kernel(out, xs, o, n, s0, self._gains, self._delays, self._use, self.block)
        return np.ascontiguousarray(out.T)


def intensity_direction(foa: np.ndarray) -> tuple[float, float]:
    """Broadband DirAC active-intensity direction of an FOA window (AmbiX), radians (azimuth, elevation).

    ``I = mean(W * [X, Y, Z])`` (time-domain, broadband; Pulkki, JAES 2007, with the acoustic sign
    dropped so that I points towards the source). Azimuth 0 = ahead, +pi/2 = left.
    """
    w, y, z, x = (foa[:, i] for i in range(4))
    ix, iy, iz = float(np.mean(w * x)), float(np.mean(w * y)), float(np.mean(w * z))
    return float(np.arctan2(iy, ix)), float(np.arctan2(iz, np.hypot(ix, iy)))
