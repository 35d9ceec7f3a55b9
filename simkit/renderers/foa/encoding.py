"""First-order Ambisonics encoding: SN3D gains, frames, rotation and FuMa conversion.

Channel convention (AmbiX, the default everywhere in simkit): ACN channel order
``[W, Y, Z, X]`` with SN3D normalisation (Nachbar, Zotter, Deleflie and Sontacchi,
"AmbiX - a suggested Ambisonics format", Ambisonics Symposium 2011). For a plane
wave from the unit direction ``u = (x, y, z)`` (listener frame) the real SN3D
spherical harmonics of order <= 1 are::

    W = 1,  Y = sin(az) cos(el) = y,  Z = sin(el) = z,  X = cos(az) cos(el) = x

Listener frame (the Ambisonics frame): right-handed, **+x straight ahead**, +y to
the left, +z up. Azimuth ``az`` is measured counter-clockwise from +x seen from
above (0 = ahead, +90 deg = left, -90 deg = right, +-180 deg = behind), elevation
``el`` is positive upwards: ``u = (cos az cos el, sin az cos el, sin el)``.

The OmniEcho paper's camera frame (seed notes) points the camera along +y with +x
to the right; :func:`seed_camera_to_listener` and :func:`listener_to_seed_camera`
convert vectors between the two (a rotation of -90 deg about z).

FuMa (Furse-Malham, first order): order ``[W, X, Y, Z]``, ``W_fuma = W_sn3d / sqrt(2)``,
X, Y, Z unchanged (Malham, "Higher order Ambisonic systems", 2003, table of maxN
weights; at first order maxN equals SN3D except the -3 dB on W).
"""

from __future__ import annotations

import numpy as np

#: ACN channel names in storage order (AmbiX)
ACN_CHANNELS = ("W", "Y", "Z", "X")
#: FuMa channel names in storage order
FUMA_CHANNELS = ("W", "X", "Y", "Z")


def direction_to_unit(az: np.ndarray | float, el: np.ndarray | float = 0.0) -> np.ndarray:
    """Unit vectors of directions.

    Args:
        az: azimuth in radians (counter-clockwise from +x, +pi/2 = left), any shape S.
        el: elevation in radians (up positive), broadcastable to S.

    Returns:
        float64 array S + (3,): ``(cos az cos el, sin az cos el, sin el)``.
    """
    az = np.asarray(az, dtype=np.float64)
    el = np.asarray(el, dtype=np.float64)
    az, el = np.broadcast_arrays(az, el)
    ce = np.cos(el)
    return np.stack([np.cos(az) * ce, np.sin(az) * ce, np.sin(el)], axis=-1)


def unit_to_direction(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Azimuth and elevation (radians) of vectors ``v`` (shape S + (3,), any non-zero length).

    Returns:
        ``(az, el)``, each of shape S; az in (-pi, pi], el in [-pi/2, pi/2].
    """
    v = np.asarray(v, dtype=np.float64)
    az = np.arctan2(v[..., 1], v[..., 0])
    el = np.arctan2(v[..., 2], np.hypot(v[..., 0], v[..., 1]))
    return az, el


def sn3d_gains_from_unit(u: np.ndarray) -> np.ndarray:
    """ACN/SN3D first-order gains of unit vectors ``u`` (shape S + (3,)) -> S + (4,) ``[1, y, z, x]``.

    ``u`` must be unit length (not checked, for speed); see the module docstring for the source.
    """
    u = np.asarray(u, dtype=np.float64)
    out = np.empty(u.shape[:-1] + (4,), dtype=np.float64)
    out[..., 0] = 1.0
    out[..., 1] = u[..., 1]
    out[..., 2] = u[..., 2]
    out[..., 3] = u[..., 0]
    return out


def sn3d_gains(az: np.ndarray | float, el: np.ndarray | float = 0.0) -> np.ndarray:
    """ACN/SN3D first-order encoding gains ``[W, Y, Z, X]`` of a plane wave from ``(az, el)`` (radians).

    Returns:
        float64 array S + (4,) with ``W = 1, Y = sin az cos el, Z = sin el, X = cos az cos el``
        (AmbiX; Nachbar et al. 2011).
    """
    return sn3d_gains_from_unit(direction_to_unit(az, el))


def acn_sn3d_to_fuma(foa: np.ndarray) -> np.ndarray:
    """Convert first-order AmbiX (ACN W,Y,Z,X; SN3D) to FuMa (W,X,Y,Z; W at -3 dB).

    Args:
        foa: array (..., 4) in ACN order, last axis = channels.

    Returns:
        array (..., 4) in FuMa order, same dtype.

    Raises:
        ValueError: the last axis is not 4 channels.
    """
    foa = np.asarray(foa)
    if foa.shape[-1] != 4:
        raise ValueError(f"first-order Ambisonics has 4 channels, got last axis {foa.shape[-1]}")
    w, y, z, x = (foa[..., i] for i in range(4))
    return np.stack([w / np.sqrt(2.0), x, y, z], axis=-1).astype(foa.dtype, copy=False)


#: the FLAC ``comment`` of a first-order file in each channel format (read back by ``soundfile``'s
#: ``SoundFile(...).comment``): AmbiX is ACN order / SN3D (Nachbar et al., "AmbiX - a suggested
#: ambisonics format", Ambisonics Symposium 2011); FuMa is Furse-Malham order and weights (W -3 dB)
AMBISONICS_COMMENTS = {
    "ambix": "ambisonics: order 1, AmbiX, channel order ACN (W, Y, Z, X), normalisation SN3D",
    "fuma": "ambisonics: order 1, FuMa, channel order FuMa (W, X, Y, Z), normalisation FuMa (W at -3 dB)",
}


def ambisonics_comment(channel_format: str = "ambix") -> str:
    """The marker written into every FOA FLAC simkit stores (its Vorbis comment ``comment``).

    Args:
        channel_format: ``"ambix"`` (ACN/SN3D) or ``"fuma"``.

    Raises:
        ValueError: another channel format.
    """
    if channel_format not in AMBISONICS_COMMENTS:
        raise ValueError(
            f"channel_format must be one of {sorted(AMBISONICS_COMMENTS)}, got {channel_format!r}"
        )
    return AMBISONICS_COMMENTS[channel_format]


def fuma_to_acn_sn3d(foa: np.ndarray) -> np.ndarray:
    """Inverse of :func:`acn_sn3d_to_fuma`: FuMa (W,X,Y,Z) -> AmbiX (W,Y,Z,X; SN3D). Shape (..., 4)."""
    foa = np.asarray(foa)
    if foa.shape[-1] != 4:
        raise ValueError(f"first-order Ambisonics has 4 channels, got last axis {foa.shape[-1]}")
    w, x, y, z = (foa[..., i] for i in range(4))
    return np.stack([w * np.sqrt(2.0), y, z, x], axis=-1).astype(foa.dtype, copy=False)


# -- rotations ------------------------------------------------------------------------------------
def rotation_matrix(
    yaw: np.ndarray | float, pitch: np.ndarray | float = 0.0, roll: np.ndarray | float = 0.0
) -> np.ndarray:
    """Orientation matrices ``R = Rz(yaw) @ Ry(-pitch) @ Rx(roll)`` (intrinsic z-y'-x'' Tait-Bryan).

    The columns of ``R`` are the listener's axes (ahead, left, up) expressed in the parent frame,
    so ``v_parent = R @ v_listener``. Angles in radians, broadcast to a common shape S:

    - yaw: counter-clockwise about +z seen from above (+yaw turns the listener to the left);
    - pitch: nose up positive (rotation about the listener's +y axis by ``-pitch``);
    - roll: about the listener's +x (ahead) axis, right-hand rule (+roll lifts the left ear).

    Returns:
        float64 array S + (3, 3).
    """
    yaw, pitch, roll = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (yaw, pitch, roll)))
    cy, sy = np.cos(yaw), np.sin(yaw)
    cp, sp = np.cos(-pitch), np.sin(-pitch)
    cr, sr = np.cos(roll), np.sin(roll)
    # Rz @ Ry @ Rx written out (standard ZYX composition)
    r = np.empty(yaw.shape + (3, 3))
    r[..., 0, 0] = cy * cp
    r[..., 0, 1] = cy * sp * sr - sy * cr
    r[..., 0, 2] = cy * sp * cr + sy * sr
    r[..., 1, 0] = sy * cp
    r[..., 1, 1] = sy * sp * sr + cy * cr
    r[..., 1, 2] = sy * sp * cr - cy * sr
    r[..., 2, 0] = -sp
    r[..., 2, 1] = cp * sr
    r[..., 2, 2] = cp * cr
    return r


def rotate_foa(foa: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """Apply a rotation to the sound field of a first-order ACN/SN3D signal.

    A plane wave from unit direction ``u`` moves to ``rotation @ u``. W is invariant; the
    first-order channels form the vector ``(X, Y, Z)`` which rotates like a direction (the
    first-order SH rotation matrix is the Cartesian rotation matrix in the (x, y, z) basis;
    e.g. Zotter and Frank, "Ambisonics", Springer 2019, sec. 5.2).

    Args:
        foa: array (T, 4), ACN order.
        rotation: (3, 3) matrix, or (T, 3, 3) per-sample matrices (time-varying rotation).

    Returns:
        float64 array (T, 4), ACN order.

    Raises:
        ValueError: on shape mismatch.
    """
    foa = np.asarray(foa, dtype=np.float64)
    rot = np.asarray(rotation, dtype=np.float64)
    if foa.ndim != 2 or foa.shape[1] != 4:
        raise ValueError(f"foa must be (T, 4), got {foa.shape}")
    xyz = foa[:, [3, 1, 2]]
    if rot.shape == (3, 3):
        new = xyz @ rot.T
    elif rot.shape == (foa.shape[0], 3, 3):
        new = np.einsum("tij,tj->ti", rot, xyz)
    else:
        raise ValueError(f"rotation must be (3, 3) or ({foa.shape[0]}, 3, 3), got {rot.shape}")
    out = np.empty_like(foa)
    out[:, 0] = foa[:, 0]
    out[:, 3] = new[:, 0]
    out[:, 1] = new[:, 1]
    out[:, 2] = new[:, 2]
    return out


def rotate_listener(
    foa: np.ndarray, yaw: np.ndarray | float, pitch: np.ndarray | float = 0.0, roll: np.ndarray | float = 0.0
) -> np.ndarray:
    """The FOA signal heard by a listener that turns by (yaw, pitch, roll) radians (scalars or (T,) arrays).

    Turning the listener by ``R`` rotates the field by ``R^T``: with yaw = +90 deg (turn left),
    a source straight ahead ends up at azimuth -90 deg (to the right). Shapes as in :func:`rotate_foa`.
    """
    r = rotation_matrix(yaw, pitch, roll)
    return rotate_foa(foa, np.swapaxes(r, -1, -2))


def seed_camera_to_listener(v: np.ndarray) -> np.ndarray:
    """Vectors (..., 3) from the seed's camera frame (+x right, +y ahead, +z up) to the listener frame.

    listener = (ahead, left, up) = (y_cam, -x_cam, z_cam).
    """
    v = np.asarray(v, dtype=np.float64)
    return np.stack([v[..., 1], -v[..., 0], v[..., 2]], axis=-1)


def listener_to_seed_camera(v: np.ndarray) -> np.ndarray:
    """Inverse of :func:`seed_camera_to_listener`: (ahead, left, up) -> (right, ahead, up)."""
    v = np.asarray(v, dtype=np.float64)
    return np.stack([-v[..., 1], v[..., 0], v[..., 2]], axis=-1)
