"""The shared homes in simkit.core: rotations and image tiling."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simkit.core.images import as_rgb, tile
from simkit.core.rotations import matrix_to_quaternion, quaternion_to_matrix


def test_quarter_turn_about_z_maps_x_to_y():
    c = math.sqrt(0.5)
    R = quaternion_to_matrix((c, 0.0, 0.0, c))
    np.testing.assert_allclose(R, [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)
    np.testing.assert_allclose(quaternion_to_matrix((2.0, 0, 0, 0)), np.eye(3))  # normalised first


def test_matrix_quaternion_round_trip_with_non_negative_w():
    rng = np.random.default_rng(0)
    for q in rng.normal(size=(200, 4)):
        q /= np.linalg.norm(q)
        R = quaternion_to_matrix(q)
        np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-12)
        assert np.linalg.det(R) == pytest.approx(1.0)
        back = matrix_to_quaternion(R)
        assert back[0] >= 0
        np.testing.assert_allclose(back, q if q[0] >= 0 else -q, atol=1e-12)


def test_half_turns_take_every_shepperd_branch():
    for axis in np.eye(3):
        q = np.concatenate([[0.0], axis])  # 180 degrees about x, y, z: trace = -1
        np.testing.assert_allclose(
            quaternion_to_matrix(matrix_to_quaternion(quaternion_to_matrix(q))), quaternion_to_matrix(q)
        )


def test_tile_places_images_on_a_padded_grid():
    a = np.full((2, 3, 3), 10, np.uint8)
    b = np.full((1, 1, 3), 20, np.uint8)
    sheet = tile([a, b, a], cols=2, pad=1, bg=255)
    assert sheet.shape == (2 * 3 + 1, 2 * 4 + 1, 3)  # rows*(h+pad)+pad, cols*(w+pad)+pad
    assert (sheet[1:3, 1:4] == 10).all() and (sheet[1, 5] == 20).all() and (sheet[2, 5] == 255).all()
    assert (sheet[4:6, 1:4] == 10).all() and (sheet[0] == 255).all()
    assert tile([a], cols=8, pad=1).shape == (4, 5, 3)  # never more columns than images
    with pytest.raises(ValueError, match="no images to tile"):
        tile([], cols=2)


def test_as_rgb_stretches_non_uint8_and_rejects_non_images():
    grey = np.array([[0.0, 0.5], [1.0, 1.0]])
    rgb = as_rgb(grey)
    assert rgb is not None and rgb.dtype == np.uint8 and rgb.shape == (2, 2, 3)
    assert rgb[..., 0].tolist() == [[0, 127], [255, 255]]
    assert as_rgb(np.zeros((4, 4, 2))) is None
