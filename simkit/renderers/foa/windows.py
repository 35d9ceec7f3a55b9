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
    src_traj = Trajectory.static(tuple(float(v) for v in source_xyz))
    out = np.zeros((n * window, 4))
    for k in range(n):
        x, y, yaw = poses[k]
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


def intensity_direction(foa: np.ndarray) -> tuple[float, float]:
    """Broadband DirAC active-intensity direction of an FOA window (AmbiX), radians (azimuth, elevation).

    ``I = mean(W * [X, Y, Z])`` (time-domain, broadband; Pulkki, JAES 2007, with the acoustic sign
    dropped so that I points towards the source). Azimuth 0 = ahead, +pi/2 = left.
    """
    w, y, z, x = (foa[:, i] for i in range(4))
    ix, iy, iz = float(np.mean(w * x)), float(np.mean(w * y)), float(np.mean(w * z))
    return float(np.arctan2(iy, ix)), float(np.arctan2(iz, np.hypot(ix, iy)))
