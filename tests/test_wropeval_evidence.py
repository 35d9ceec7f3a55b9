"""Projection, object masks, presence and inpainting on synthetic frames (simkit.eval.wrop.evidence/corrupt)."""

import numpy as np
import pytest

from simkit.eval.wrop.corrupt import inpaint, paste
from simkit.eval.wrop.evidence import (
    TAU_MATCH,
    object_boxes,
    object_mask,
    presence,
    project,
    quat_matrix,
)


def _frame(square_at=(20, 30), colour=(200, 40, 40), size=10):
    """A 64 x 96 frame: a vertical grey gradient (the floor) with a red square."""
    f = np.zeros((64, 96, 3), np.uint8)
    f[:] = (np.linspace(60, 110, 64)[:, None, None] * np.ones((1, 96, 3))).astype(np.uint8)
    y, x = square_at
    if colour is not None:
        f[y : y + size, x : x + size] = colour
    return f


def test_quaternion_and_pinhole_projection():
    np.testing.assert_allclose(quat_matrix([1, 0, 0, 0]), np.eye(3))
    c, s = np.cos(np.pi / 4), np.sin(np.pi / 4)  # 90 deg about z
    np.testing.assert_allclose(quat_matrix([c, 0, 0, s]) @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    # identity camera at the origin looks along -z; lens/sensor = 1, W/H = 2
    traj = {
        "camera": {"position": [0, 0, 0], "rotation": [1, 0, 0, 0], "lens_mm": 36.0, "sensor_mm": 36.0},
        "resolution": [200, 100],
    }
    uv = project(traj, np.array([[0.0, 0.0, -5.0], [1.0, 0.5, -2.0]]))
    np.testing.assert_allclose(uv, [[0.5, 0.5], [0.5 + 1 / 2, 0.5 + 2 * 0.5 / 2]])
    traj["objects"] = {"cube": {"bbox_min": [[-0.5, -0.5, -4.5]], "bbox_max": [[0.5, 0.5, -3.5]]}}
    box = object_boxes(traj, "cube", 200, 100)[0]
    # nearest face (z = -3.5) spans x in [-0.5, 0.5] -> u = 0.5 +- 0.5 / 3.5; y origin at the top
    np.testing.assert_allclose(box[[0, 2]], 200 * (0.5 + np.array([-1, 1]) * 0.5 / 3.5))
    np.testing.assert_allclose(box[[1, 3]], 100 * (0.5 + np.array([-1, 1]) * 2 * 0.5 / 3.5))


def test_mask_finds_the_object_and_presence_separates_it_from_the_background():
    gt = _frame()
    box = np.array([28.0, 18.0, 42.0, 32.0])  # a loose box around the 10 x 10 square at (30, 20)
    om = object_mask(gt, box)
    assert om is not None and om.pixels == 100
    assert presence(gt, om) == 1.0
    assert presence(_frame(colour=None), om) == 0.0  # the square deleted
    assert presence(_frame(square_at=(20, 60)), om) == 0.0  # moved elsewhere
    assert presence(_frame(colour=(40, 200, 40)), om) == 0.0  # changed colour
    half = _frame()
    half[20:25, 30:40] = half[10, 10]  # upper half hidden
    assert presence(half, om) == pytest.approx(0.5)
    shade = int(255 * TAU_MATCH / np.sqrt(3)) - 1  # a grey shift just inside the tolerance
    assert presence(np.clip(gt.astype(int) + shade, 0, 255).astype(np.uint8), om) == 1.0
    # a box on plain background has no object pixels; a ring pixel of another object's box is ignored
    assert object_mask(gt, np.array([70.0, 40.0, 80.0, 50.0])) is None
    two = _frame()
    two[20:30, 43:53] = (200, 40, 40)  # a same-coloured neighbour just right of the box
    assert object_mask(two, box) is None  # the neighbour's colour is background...
    om2 = object_mask(two, box, others=[np.array([43.0, 20.0, 53.0, 30.0])])
    assert om2 is not None and om2.pixels == 100  # ...unless it is declared as another object


def test_inpaint_removes_and_paste_moves_an_object():
    gt = _frame()
    om = object_mask(gt, np.array([28.0, 18.0, 42.0, 32.0]))
    full = np.zeros(gt.shape[:2], bool)
    full[20:30, 30:40] = True
    gone = inpaint(gt, full)
    assert presence(gone, om) == 0.0
    bg = _frame(colour=None)
    assert np.abs(gone.astype(int) - bg).max() <= 2  # the gradient is harmonic: filled almost exactly
    moved = paste(gone, gt, full, 30, 0)
    np.testing.assert_array_equal(moved[20:30, 60:70], gt[20:30, 30:40])
    edge = paste(gone, gt, full, 60, 0)  # clipped at the border, no wrap-around
    np.testing.assert_array_equal(edge[:, :30], gone[:, :30])
