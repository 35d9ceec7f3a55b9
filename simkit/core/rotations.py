"""Rotations: unit quaternions (w, x, y, z), as MuJoCo and the rest of simkit store them, and 3x3 matrices.

A rotation matrix ``R`` maps body-frame vectors into the parent frame, ``v_parent = R @ v_body``;
its columns are the body axes expressed in the parent frame. Right-handed frames, angles in radians.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def quaternion_to_matrix(q: Sequence[float] | np.ndarray) -> np.ndarray:
    """3x3 float64 rotation matrix of a quaternion (w, x, y, z); ``q`` is normalised first (zero -> identity).

    The standard formula for a unit quaternion (e.g. Shoemake 1985, "Animating rotation with
    quaternion curves", SIGGRAPH, sec. 2).
    """
    w, x, y, z = (float(c) for c in q)
    n = math.sqrt(w * w + x * x + y * y + z * z) or 1.0
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def matrix_to_quaternion(m: np.ndarray) -> np.ndarray:
    """Rotation matrix (3, 3) -> unit quaternion (w, x, y, z), float64 (4,), with ``w >= 0``.

    Shepperd's method (S. W. Shepperd, "Quaternion from rotation matrix", J. Guidance and Control
    1(3), 1978): the branch is chosen by the largest of trace and diagonal, which keeps it stable.
    """
    tr = np.trace(m)
    if tr > 0:
        s = np.sqrt(tr + 1.0) * 2
        q = np.array([0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s])
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        q = np.array([(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s])
    elif m[1, 1] > m[2, 2]:
        s = np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        q = np.array([(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s])
    else:
        s = np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        q = np.array([(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s])
    q = q / np.linalg.norm(q)
    return -q if q[0] < 0 else q
