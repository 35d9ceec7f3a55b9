"""The OP-1 line-of-sight language (kit_op1): analytic checks of the ray test, the hop law, the sightline and
the hidden/clear masks, without rendering."""

import numpy as np
import pytest

from simkit.generators.wrop.kit import DEPTH
from simkit.generators.wrop.kit_op1 import (
    Sight,
    hop_z,
    jitter_cameras,
    occlusion_events,
    project,
    ray_blocked,
    sight,
    sightline_z,
)
from simkit.scenes.wrop.motion import G
from simkit.scenes.wrop.spec import SceneObject, Track


def _box(pos, dims, rot=(0.0, 0.0, 0.0), frames=1):
    return SceneObject("b", "occluder", "box", dims, None, Track.static(frames, pos, rot))


def test_ray_blocked_by_axis_aligned_and_turned_box():
    box = _box((0.0, 0.0, 0.0), (1.0, 0.2, 1.0))
    o = np.array([[0.0, -5.0, 0.0]])
    pts = np.array([[0.0, 5.0, 0.0], [0.0, -2.0, 0.0], [1.2, 5.0, 0.0], [0.49, 5.0, 0.49], [0.0, -0.1, 0.0]])
    # through the box; short of it; beside it; through a corner region; ending on its front face (t_in = 1)
    assert ray_blocked(o, pts, box, 0)[0].tolist() == [True, False, False, True, False]
    # a box turned 90 deg about z is 0.2 wide along x: the ray at x = 0.3 now misses it
    turned = _box((0.0, 0.0, 0.0), (1.0, 0.2, 1.0), rot=(0.0, 0.0, np.pi / 2))
    assert ray_blocked(o, np.array([[0.3, 5.0, 0.0], [0.05, 5.0, 0.0]]), turned, 0)[0].tolist() == [
        False,
        True,
    ]


def test_hop_law_apex_period_and_landings():
    apex = 0.4
    tau = 2 * np.sqrt(2 * apex / G)
    t = np.linspace(0.0, 3 * tau, 30001)
    z = hop_z(t, apex, 0.0)
    assert z.max() == pytest.approx(apex, rel=1e-6)
    np.testing.assert_allclose(hop_z(np.array([0.0, tau, 2 * tau]), apex, 0.0), 0.0, atol=1e-9)
    assert hop_z(np.array([tau / 2]), apex, 0.0)[0] == pytest.approx(apex)  # apex mid-flight
    assert hop_z(np.array([0.0]), apex, 0.5)[0] == pytest.approx(apex)  # half a period of phase


def test_sightline_passes_over_the_edge():
    """A point on the sightline behind an edge projects onto the edge's image row (nominal camera)."""
    cam = jitter_cameras(None)[0]
    z_edge, behind = 0.6, 0.5
    z = sightline_z(z_edge, behind)
    uv, _ = project(cam, np.array([[0.0, 0.0, z_edge], [0.0, behind, z]]))
    assert uv[0, 1] == pytest.approx(uv[1, 1], abs=1e-9)
    assert z < z_edge  # the camera looks down over the edge


def test_sight_masks_behind_beside_and_in_front():
    T = 3
    wall = _box((0.0, 0.0, 0.6), (2.0, 0.08, 1.2), frames=T)
    xs = [0.0, 2.6, 0.0]
    ys = [DEPTH, DEPTH, -1.0]  # behind the wall, beside it, in front of it
    ball = SceneObject("ball", "target", "sphere", (0.15,), None, Track.static(T, (0.0, 0.0, 0.15)))
    ball.pose.position[:, 0], ball.pose.position[:, 1] = xs, ys
    sg = sight(ball, [wall], None)
    assert sg.hidden.tolist() == [True, False, False]
    assert sg.clear.tolist() == [False, True, True]
    assert sg.covered.tolist() == [True, False, False]


def test_occlusion_events_and_onset_before_cut():
    cov = np.array([0, 0, 0, 0, 0, 1, 1, 0, 0, 0], bool)
    tch = np.array([0, 0, 0, 0, 1, 1, 1, 1, 0, 0], bool)
    sg = Sight(cov, ~tch, cov, tch)
    assert occlusion_events(sg, 4) == {
        "occlusion_onset": 4,
        "occlusion_start": 5,
        "occlusion_end": 6,
        "reappearance": 7,
    }
    with pytest.raises(ValueError, match="before the cut"):
        occlusion_events(sg, 5)
