"""OP-3 choreography helpers (kit_op3) against their analytic definitions, without Blender."""

import itertools

import numpy as np
import pytest

from simkit.generators.wrop.kit_op3 import (
    LID_T,
    column_top,
    cover_expectations,
    hinge,
    lid_closed,
    lid_open,
    rising_column,
    shuffle_pairs,
    swap_arc,
)
from simkit.scenes.wrop.motion import Motion


def test_hinge_is_a_rigid_rotation_about_the_pivot():
    pivot = np.array([0.5, 0.0, 0.0])
    m = Motion(20, 24.0, (0.14, 0.0, 0.31), rotation=(np.pi, 0.0, 0.0))
    hinge(m, 4, 12, pivot, np.pi / 2)  # about +y: x' = c x + s z, z' = -s x + c z (relative to the pivot)
    r0 = np.linalg.norm(np.array([0.14, 0.0, 0.31]) - pivot)
    assert np.allclose(np.linalg.norm(m.pos - pivot, axis=1), r0)  # distance to the pivot is kept
    assert np.allclose(m.pos[12], pivot + [0.31, 0.0, 0.36])  # a quarter turn: (-0.36, 0.31) -> (0.31, 0.36)
    assert np.allclose(m.pos[13:], m.pos[12]) and np.allclose(m.pos[:5], [0.14, 0.0, 0.31])
    assert m.rot[12, 1] == pytest.approx(np.pi / 2) and m.rot[12, 0] == pytest.approx(np.pi)
    lid = Motion(5, 24.0, (0.0, 0.0, 0.5))
    hinge(lid, 0, 0, (0.0, 0.4, 0.5), -np.pi / 2, axis=0)  # f0 == f1: the whole turn at once
    assert np.allclose(lid.pos[0], [0.0, 0.4, 0.9]) and lid.rot[4, 0] == pytest.approx(-np.pi / 2)
    with pytest.raises(ValueError):
        hinge(lid, 0, 2, (0, 0, 0), 1.0, axis=2)


def test_shuffle_pairs_decodes_digits_and_never_repeats_a_swap():
    # 3 slots -> pairs (0,1), (0,2), (1,2); code 5 = digits 2, 1 (base 3)
    assert shuffle_pairs(5, 3, 2) == [(1, 2), (0, 2)]
    assert shuffle_pairs(0, 3, 3) == [
        (0, 1),
        (0, 2),
        (0, 1),
    ]  # digit 0 twice: the second becomes the next pair
    for code in range(27):
        seq = shuffle_pairs(code, 3, 3)
        assert all(a != b for a, b in itertools.pairwise(seq))


def test_swap_arc_exchanges_places_without_meeting():
    a, b = Motion(30, 24.0, (-0.6, 0.0, 0.31)), Motion(30, 24.0, (0.6, 0.0, 0.31))
    swap_arc(a, b, 5, 20, 0.8)
    assert np.allclose(a.pos[20:], [0.6, 0.0, 0.31]) and np.allclose(b.pos[20:], [-0.6, 0.0, 0.31])
    # centre distance at eased progress e: sqrt((1.2 (1 - 2e))^2 + (2 x 0.8 sin(pi e))^2); its minimum over e
    e = np.linspace(0.0, 1.0, 100001)
    d_min = np.sqrt((1.2 * (1 - 2 * e)) ** 2 + (1.6 * np.sin(np.pi * e)) ** 2).min()
    assert np.linalg.norm(a.pos - b.pos, axis=1).min() >= d_min - 1e-9
    assert d_min > 2 * 0.36  # two cups of radius 0.36 m never touch
    assert np.allclose(a.pos[:, 1].min(), -0.8, atol=0.02) and np.allclose(b.pos[:, 1].max(), 0.8, atol=0.02)


def test_rising_column_carries_its_top():
    m = rising_column(24, 24.0, (0.3, 0.0), 0.1, 0.9, 12, 18)
    top = column_top(m)
    assert top[0] == pytest.approx(0.1) and top[-1] == pytest.approx(0.9)
    assert np.allclose(m.pos[:, 2], top / 2)  # bottom stays on the floor
    assert np.all(np.diff(top) >= 0)
    with pytest.raises(ValueError):
        rising_column(24, 24.0, (0, 0), 0.0, 1.0, 2, 5)


def test_lid_state_and_cover_expectations():
    h = 0.4
    box = Motion(10, 24.0, (0.0, 0.0, h / 2))
    lid = (
        Motion(10, 24.0, (0.0, 1.2, 1.3))
        .move(2, 4, (0.0, 0.0, h + LID_T / 2))
        .move(7, 8, (0.0, 0.0, h + 0.7))
    )
    assert lid_closed(box, lid, h).tolist() == [False] * 4 + [True] * 4 + [False] * 2  # lifts from frame 7
    assert lid_open(box, lid, h, 0.9)[[0, 1, 5, 8, 9]].tolist() == [True, True, False, True, True]
    rim = np.array([1.0, 0.5, 0.0, 0.0, 0.005, 0.3, 1.0])
    exps, hid, vis = cover_expectations(7, "ball", 0.3, {"cup": rim, "other": np.ones(7)}, "cup")
    assert hid == [2, 3, 4] and vis == [0, 6]
    assert exps[2].to_dict() == {
        "kind": "bound",
        "object": "ball",
        "reference": "cup",
        "frames": [2, 3],
        "tol": 0.005,
    }
