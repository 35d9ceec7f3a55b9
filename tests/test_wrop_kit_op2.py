"""OP-2 helpers: projection, hinge turns and the predicted hidden/clear frames against analytic cases."""

import numpy as np
import pytest

from simkit.generators.wrop.kit_op2 import (
    jitter_cameras,
    occlusion_frames,
    pivot_turn,
    project,
    world_outline,
)
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.spec import Material, SceneObject, Track, orbit_camera

GREY = Material("grey", (0.5, 0.5, 0.5))


def sphere(T, x=0.0, y=0.5, r=0.15):
    return SceneObject("ball", "target", "sphere", (r,), GREY, Track.static(T, (x, y, r)))


def board(T, x, y=0.0, w=1.2, h=0.8, z=None):
    return SceneObject(
        "screen", "occluder", "box", (w, 0.08, h), GREY, Track.static(T, (x, y, h / 2 if z is None else z))
    )


def test_project_matches_the_pinhole_model():
    cam = orbit_camera((0.0, 0.0, 0.5), 7.0, 0.0, 0.0, 35.0)  # level camera at (0, -7, 0.5)
    uv, depth = project(cam, np.array([[0.0, 0.0, 0.5], [1.0, 0.0, 0.5], [0.0, 3.0, 1.5]]))
    k = 35.0 / 36.0
    assert np.allclose(uv[0], 0.0) and depth[0] == pytest.approx(7.0)
    assert uv[1, 0] == pytest.approx(k * 1.0 / 7.0) and uv[1, 1] == pytest.approx(0.0)
    assert uv[2, 1] == pytest.approx(k * 1.0 / 10.0) and depth[2] == pytest.approx(10.0)


def test_jitter_cameras_are_the_nominal_view_and_the_eight_extremes():
    cams = jitter_cameras({})
    assert len(cams) == 9
    d = [np.linalg.norm(np.subtract(c.location, c.look_at)) for c in cams]
    assert (
        d[0] == pytest.approx(7.0)
        and min(d) == pytest.approx(7.0 * 0.97)
        and max(d) == pytest.approx(7.0 * 1.03)
    )


def test_pivot_turn_keeps_the_hinge_edge_fixed():
    T, w, h = 10, 1.2, 0.8
    m = Motion(T, 24.0, (0.0, 0.0, 0.0))
    pivot_turn(m, 0, T - 1, (1.0, 0.0, 0.0), (-w / 2, 0.0, h / 2), 2, np.pi / 2, 0.0)
    door = SceneObject("door", "occluder", "box", (w, 0.08, h), GREY, m.track())
    for f in range(
        T
    ):  # the corner at local (+w/2, -, -h/2) sits on the hinge line x = 1, y = 0 (+-half thickness)
        c = world_outline(door, f)
        hinge = c[np.argmin(np.linalg.norm(c[:, :2] - [1.0, 0.0], axis=1))]
        assert np.linalg.norm(hinge[:2] - [1.0, 0.0]) <= 0.04 + 1e-9
    assert np.allclose(m.pos[0], [1.0, -w / 2, h / 2])  # open: R_z(90 deg) (-w/2, 0) = (0, -w/2)
    assert np.allclose(m.pos[-1], [1.0 - w / 2, 0.0, h / 2])  # shut: along -x from the hinge
    with pytest.raises(ValueError):
        pivot_turn(m, 0, 1, (0, 0, 0), (0, 0, 1), 1, 0.0, 1.0)


def test_hidden_behind_a_wide_screen_and_clear_when_it_is_far_away():
    T = 3
    cams = jitter_cameras({})
    hid, clr = occlusion_frames(sphere(T), [board(T, 0.0)], cams, T)
    assert hid == [0, 1, 2] and clr == []
    hid, clr = occlusion_frames(sphere(T), [board(T, 2.0)], cams, T)
    assert hid == [] and clr == [0, 1, 2]


def test_half_covered_is_neither_hidden_nor_clear():
    T = 1
    # the screen's edge at x = 0.6 - 0.6 = 0 cuts the ball (centre x = 0) in half in every camera
    hid, clr = occlusion_frames(sphere(T), [board(T, 0.6)], jitter_cameras({}), T)
    assert hid == [] and clr == []


def test_a_screen_behind_the_object_hides_nothing():
    T = 1
    hid, clr = occlusion_frames(sphere(T, y=0.5), [board(T, 0.0, y=1.5, w=3.0, h=1.5)], jitter_cameras({}), T)
    assert hid == [] and clr == [0]


def test_a_screen_sunk_below_the_floor_hides_nothing():
    T = 1
    sunk = board(T, 0.0, z=-0.45)
    hid, clr = occlusion_frames(sphere(T), [sunk], jitter_cameras({}), T)
    assert hid == [] and clr == [0]


def test_a_low_screen_hides_a_short_ball_but_not_a_tall_one():
    T, cams = 1, jitter_cameras({})
    low = board(T, 0.0, h=0.55)  # the sight line over its top reaches z = 0.43 m at the ball's depth
    assert occlusion_frames(sphere(T, r=0.15), [low], cams, T)[0] == [0]
    assert occlusion_frames(sphere(T, r=0.3), [low], cams, T)[0] == []
