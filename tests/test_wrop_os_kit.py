"""OS-2/OS-3 task-language helpers against analytic answers: ballistic flight, bounces, hinges, oriented gaps,
ramps, 2-D impulses, piecewise paths and the velocity expectation (no rendering)."""

import numpy as np
import pytest

from simkit.generators.wrop.kit_os2 import ROLL_FACTOR, drop_time, ramp_descent, rest_between
from simkit.generators.wrop.kit_os3 import impulse, path
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import G, Motion, flight_drop


def test_projectile_lands_on_the_frame_and_keeps_horizontal_speed():
    fps, k, vz = 24.0, 9, 1.2
    h = flight_drop(vz, k, fps)
    m = Motion(20, fps, (0.0, 0.0, h + 0.1)).projectile(3, 3 + k, (2.0, 0.0, vz), 0.1)
    t = (np.arange(3, 13) - 3) / fps
    np.testing.assert_allclose(m.pos[3:13, 2], h + 0.1 + vz * t - 0.5 * G * t * t, atol=1e-12)
    np.testing.assert_allclose(np.diff(m.pos[3:13, 0]), 2.0 / fps)
    assert m.pos[12, 2] == 0.1 and m.pos[19, 0] == m.pos[12, 0]
    with pytest.raises(ValueError):
        Motion(20, fps, (0.0, 0.0, 1.0)).projectile(3, 3 + k, (2.0, 0.0, vz), 0.1)


def test_bounce_apex_is_e_squared_of_the_drop():
    fps, e, z0 = 240.0, 0.6, 0.1
    m = Motion(800, fps, (0.0, 0.0, z0)).bounce(0, 4.0, e, z0)
    first = m.pos[: int(2 * e * 4.0 / G * fps), 2]
    assert first.max() - z0 == pytest.approx((e * 4.0) ** 2 / (2 * G), rel=1e-3)
    assert m.pos[:, 2].min() >= z0 - 1e-12 and m.pos[-1, 2] == z0


def test_hinge_keeps_the_distance_to_the_pivot():
    m = Motion(10, 24.0, (0.5, 0.0, 1.0)).hinge(2, 8, (0.0, 0.0, 1.0), -np.pi / 2, axis=1)
    np.testing.assert_allclose(np.linalg.norm(m.pos - [0.0, 0.0, 1.0], axis=1), 0.5)
    np.testing.assert_allclose(m.pos[8], [0.0, 0.0, 1.5], atol=1e-12)  # Ry(-90 deg) turns +x into +z
    assert m.rot[8, 1] == pytest.approx(-np.pi / 2)


def _traj(objs):
    return {"fps": 24.0, "objects": objs}


def test_solid_gap_of_a_ball_and_a_tilted_plate_and_a_wedge():
    c45 = np.cos(np.pi / 8), 0.0, np.sin(np.pi / 8), 0.0  # quaternion of +45 deg about y
    plate = {"kind": "box", "dims": [1.0, 1.0, 0.1], "position": [[0, 0, 0]], "rotation": [list(c45)]}
    n = np.array([np.sin(np.pi / 4), 0.0, np.cos(np.pi / 4)])  # the plate's top normal after Ry(45 deg)
    sphere = {"kind": "sphere", "dims": [0.2], "position": [list(n * 0.35)]}
    assert X.solid_gap({"s": sphere, "p": plate}, "s", "p")[0] == pytest.approx(0.35 - 0.05 - 0.2)
    # the AABB of the tilted plate reaches much higher than its surface
    plate_aabb = {**plate, "bbox_min": [[-0.39, -0.5, -0.39]], "bbox_max": [[0.39, 0.5, 0.39]]}
    assert X.pair_gap({"s": sphere, "p": plate_aabb}, "s", "p")[0] < 0
    wedge = {
        "kind": "wedge",
        "dims": [2.0, 1.0, 1.0],
        "position": [[0, 0, 0]] * 3,
        "rotation": [[1, 0, 0, 0]] * 3,
    }
    slope_n = np.array([-1.0, 0.0, 2.0]) / np.sqrt(5)  # outward normal of z = x / 2
    centres = [
        slope_n * 0.1,
        slope_n * 0.05,
        -slope_n * 0.05,
    ]  # resting on the slope, sunk 5 cm, centre inside
    g = X.solid_gap({"s": {"kind": "sphere", "dims": [0.1], "position": centres}, "w": wedge}, "s", "w")
    np.testing.assert_allclose(g, [0.0, -0.05, -0.15], atol=1e-12)


def test_ramp_descent_accelerates_at_five_sevenths_g_sin_theta_on_the_slope():
    fps, th, r, m = 240.0, np.radians(30.0), 0.1, 120
    pos, v_b, k_x = ramp_descent(400, fps, r, th, 0.0, 0.5, 1, 300, m)
    u = (k_x - pos[:301, 0]) / np.cos(th)
    acc = np.diff(u, 2)[190:298] * fps * fps
    np.testing.assert_allclose(acc, ROLL_FACTOR * G * np.sin(th), rtol=1e-9)
    assert v_b == pytest.approx(ROLL_FACTOR * G * np.sin(th) * m / fps)
    wedge = {
        "kind": "wedge",
        "dims": [0.5 / np.tan(th), 0.8, 0.5],
        "position": [[-0.25 / np.tan(th), 0.0, 0.75]] * 301,
        "rotation": [[0.0, 0.0, 0.0, 1.0]] * 301,  # pi about z: the ramp descends toward +x
    }
    gap = X.solid_gap({"s": {"kind": "sphere", "dims": [r], "position": pos[:301]}, "w": wedge}, "s", "w")
    np.testing.assert_allclose(gap, 0.0, atol=1e-9)


def test_rest_between_and_drop_time():
    assert rest_between(0.2, 0.32) == pytest.approx(0.12)
    from simkit.generators.wrop.base import Clip

    k, h = drop_time(Clip(120, 24.0), 60, 0.8)
    assert k == 10 and h == pytest.approx(0.5 * G * (10 / 24) ** 2)
    with pytest.raises(ValueError):
        drop_time(Clip(24, 24.0), 20, 0.8)


def test_impulse_conserves_momentum_and_gives_right_angles_for_equal_elastic_balls():
    n = np.array([np.cos(0.6), np.sin(0.6)])
    va, vb = impulse(1.0, (2.0, 0.0), 1.0, (0.0, 0.0), n, 1.0)
    np.testing.assert_allclose(va + vb, [2.0, 0.0], atol=1e-12)
    assert va @ vb == pytest.approx(0.0, abs=1e-12) and va @ va + vb @ vb == pytest.approx(4.0)
    wa, wb = impulse(1.0, (2.0,), 3.0, (0.0,), (1.0,), 0.0)
    assert wa[0] == pytest.approx(0.5) and wb[0] == pytest.approx(0.5)


def test_path_and_velocity_expectation():
    x = path(30, 24.0, [(0, (1.0,)), (10, (-0.5,))], 10, (2.0,), decel=0.5)
    assert x[10, 0] == 2.0 and x[9, 0] == pytest.approx(2.0 - 1.0 / 24)
    tr = _traj({"a": {"position": np.c_[x, np.zeros((30, 2))]}})
    assert X.evaluate([X.velocity("a", 10, -0.5), X.velocity("a", 10, 1.0, side="before")], tr) == []
    assert X.evaluate([X.velocity("a", 10, 0.5)], tr) != []
