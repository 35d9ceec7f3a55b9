"""Analytic correspondence labels: exact flow of a translated plane, occlusion, reprojection round trip."""

import numpy as np
import pytest

from simkit.core.scene import euler_xyz_to_matrix, look_at_matrix, matrix_to_euler_xyz
from simkit.renderers.pairs.correspondence import View, dense_correspondence
from simkit.renderers.raster import extrinsics, intrinsics, project, rasterize, transform

W, H = 64, 48


def quad(size: float, z: float = 0.0):
    """A square of side ``size`` in the plane z (two triangles)."""
    s = size / 2
    v = np.array([[-s, -s, z], [s, -s, z], [s, s, z], [-s, s, z]], float)
    return v, np.array([[0, 1, 2], [0, 2, 3]])


def cube(size: float):
    s = size / 2
    v = np.array([[x, y, z] for x in (-s, s) for y in (-s, s) for z in (-s, s)], float)
    f = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6]]
    f += [[0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return v, np.array(f)


def pose(t=(0, 0, 0), euler=(0, 0, 0), scale=1.0):
    m = np.eye(4)
    m[:3, :3] = euler_xyz_to_matrix(euler) * scale
    m[:3, 3] = t
    return m


def cv_camera(c):
    """World-to-camera of an OpenCV camera at ``c`` looking along +z (world = camera axes)."""
    e = np.eye(4)
    e[:3, 3] = -np.asarray(c, float)
    return e


def test_intrinsics_and_extrinsics_match_blender_conventions():
    K = intrinsics(35.0, 36.0, W, H)
    assert K[0, 0] == pytest.approx(35 / 36 * W) and K[0, 2] == (W - 1) / 2 and K[1, 2] == (H - 1) / 2
    # a Blender camera at (0, -5, 0) looking at the origin along +y: the origin projects to the image centre,
    # a point above it (+z world) to a smaller row (up in the image)
    c2w = np.eye(4)
    c2w[:3, :3], c2w[:3, 3] = look_at_matrix(np.array([0, -5.0, 0]), np.zeros(3)), [0, -5.0, 0]
    E = extrinsics(c2w)
    uv = project(transform(np.array([[0, 0, 0], [0, 0, 1.0], [1.0, 0, 0]]), E), K)
    assert uv[0] == pytest.approx([(W - 1) / 2, (H - 1) / 2])
    assert uv[1, 1] < uv[0, 1] and uv[2, 0] > uv[0, 0]


def test_euler_round_trip():
    for e in np.random.default_rng(0).uniform(-1.4, 1.4, (20, 3)):
        assert matrix_to_euler_xyz(euler_xyz_to_matrix(e)) == pytest.approx(e, abs=1e-12)


def test_rasterize_plane_depth_is_exact():
    K = intrinsics(35.0, 36.0, W, H)
    v, f = quad(100.0, 5.0)
    r = rasterize(v[f], K, W, H)
    assert np.all(r.triangle >= 0)
    assert np.abs(r.depth - 5.0).max() < 1e-12


def test_camera_translation_of_a_plane_gives_the_analytic_flow():
    # camera B is camera A moved 0.1 m along +x; a plane at depth 5 m shifts by f * 0.1 / 5 px
    K = intrinsics(35.0, 36.0, W, H)
    mesh = quad(100.0, 5.0)
    a = View(K, cv_camera((0, 0, 0)), [np.eye(4)], W, H)
    b = View(K, cv_camera((0.1, 0, 0)), [np.eye(4)], W, H)
    lab = dense_correspondence([mesh], a, b)
    ys, xs = np.mgrid[0:H, 0:W]
    shift = K[0, 0] * 0.1 / 5.0
    err = np.abs(lab.flow_source[..., 0] - (xs + shift)).max()
    assert err < 0.01 and np.abs(lab.flow_source[..., 1] - ys).max() < 0.01
    # covisible exactly where the source column lies inside image A
    assert np.array_equal(lab.covisible == 1, xs + shift <= W - 1)
    assert lab.depth_b == pytest.approx(5.0) and np.all(lab.object_b == 1)


@pytest.mark.parametrize("na, nb, nm", [(1, 2, 2), (2, 1, 2), (2, 2, 1), (1, 2, 1)])
def test_pose_counts_must_all_match_the_meshes(na, nb, nm):
    """One pose per mesh in both views, else a ValueError (a chained ``!=`` let (1, 2, 2) through)."""
    K = intrinsics(35.0, 36.0, W, H)
    a = View(K, cv_camera((0, 0, 0)), [np.eye(4)] * na, W, H)
    b = View(K, cv_camera((0.1, 0, 0)), [np.eye(4)] * nb, W, H)
    with pytest.raises(ValueError, match="one pose per mesh"):
        dense_correspondence([quad(100.0, 5.0)] * nm, a, b)


def test_point_hidden_behind_another_object_in_a_is_not_covisible():
    # a small card 1 m in front of a back plane hides part of it in A; in B the card has moved away
    K = intrinsics(35.0, 36.0, W, H)
    back, card = quad(100.0, 0.0), quad(0.6, 0.0)
    cam = cv_camera((0, 0, -5.0))
    a = View(K, cam, [np.eye(4), pose((0, 0, -1.0))], W, H)
    b = View(K, cam, [np.eye(4), pose((3.0, 0, -1.0))], W, H)
    lab = dense_correspondence([back, card], a, b)
    cy, cx = (H - 1) // 2, (W - 1) // 2
    assert lab.object_b[cy, cx] == 1 and lab.object_a[cy, cx] == 2  # the card covered the centre in A
    assert lab.covisible[cy, cx] == 0
    assert lab.flow_source[cy, cx] == pytest.approx([cx, cy], abs=1e-9)  # still projected, just hidden
    assert lab.covisible[2, 2] == 1  # the corner of the back plane was visible in both
    # every back-plane pixel that shows the card in A is marked not covisible, and only those
    hidden = lab.object_a[
        np.rint(lab.flow_source[..., 1]).astype(int), np.rint(lab.flow_source[..., 0]).astype(int)
    ]
    on_back = lab.object_b == 1
    assert np.array_equal(lab.covisible[on_back] == 1, hidden[on_back] == 1)
    assert lab.covisible[lab.object_b == 0].sum() == 0


def test_reprojection_round_trip_of_a_rotating_cube():
    # each covisible target pixel maps to a source location whose surface point is the same local point
    K = intrinsics(35.0, 36.0, W, H)
    mesh = cube(1.0)
    cam = cv_camera((0, 0, -4.0))
    a = View(K, cam, [pose((0.1, 0, 0), (0.3, 0.5, 0.2))], W, H)
    b = View(K, cam, [pose((-0.1, 0.05, 0), (0.3, 0.5 + np.radians(40), 0.1), 1.1)], W, H)
    lab = dense_correspondence([mesh], a, b)
    m = lab.covisible == 1
    assert m.sum() > 200
    uv = lab.flow_source[m].astype(float)
    local = lab.local_b[m].astype(float)
    pa = transform(transform(local, a.poses[0]), a.world_to_camera)
    assert project(pa, K) == pytest.approx(uv, abs=1e-3)
    # the source depth at the rounded source pixel agrees with the point's depth within a pixel footprint
    q = np.rint(uv).astype(int)
    za = lab.depth_a[q[:, 1], q[:, 0]]
    assert np.abs(za - pa[:, 2]).max() < 4.0 / K[0, 0] * 4.0 * 3
    # back faces of the cube in B are never covisible (they are hidden in B, so they are not B's pixels)
    assert lab.covisible.max() == 1 and set(np.unique(lab.object_b)) == {0, 1}


def test_surface_seed_never_moves_the_structure():
    # structure (assets, poses, cameras) comes from the structural seed alone; the surface seed changes
    # only the look (background, lights, colours)
    from simkit.scenes.pairs.compile import (
        Asset,
        Motion,
        asset_weights,
        compile_scene,
        sample_structure,
        sample_surface,
    )

    assets = [Asset(f"/m/{k}.obj", f"a{k}", k % 2 == 0) for k in range(5)]
    p = asset_weights(assets)  # 3 textured, 2 untextured: half of the mass each
    assert (
        p.sum() == pytest.approx(1.0) and p[::2].sum() == pytest.approx(0.5) and p[0] == pytest.approx(1 / 6)
    )
    s = sample_structure(np.random.default_rng(7), assets, Motion())
    scenes = [
        compile_scene(s, sample_surface(np.random.default_rng(k), s["n_objects"]), assets, 64, 36)
        for k in (1, 2)
    ]
    a, b = scenes
    assert a.background != b.background
    for sc in scenes:  # untextured objects never take the background's colour
        for o in sc.objects:
            if o.material is not None:
                assert np.abs(np.subtract(o.material.rgb, sc.background)).max() >= 0.35
    for oa, ob in zip(a.objects, b.objects):
        for f in range(2):
            assert np.array_equal(oa.pose.matrix(f), ob.pose.matrix(f))
    assert np.array_equal(a.camera.track.location, b.camera.track.location)
    assert np.array_equal(a.camera.track.quaternion, b.camera.track.quaternion)
    # the motion model's ranges hold: rotation increment 30-50 deg, scale change 0.8-1.2x, tilt <= 30 deg
    for o in s["objects"]:
        assert 30.0 <= o["rotation_increment_deg"] <= 50.0
        assert 0.8 <= o["scale"][0] <= 1.2 and 0.8 - 1e-6 <= o["scale"][1] / o["scale"][0] <= 1.2 + 1e-6
        r_a, r_b = (euler_xyz_to_matrix(e) for e in o["rotation_euler"])
        angle = np.degrees(np.arccos(np.clip((np.trace(r_b @ r_a.T) - 1) / 2, -1, 1)))
        assert angle == pytest.approx(o["rotation_increment_deg"], abs=1e-4)
        tilt = np.degrees(np.arccos(np.clip(r_a[2, 2], -1, 1)))  # angle of the local z axis from vertical
        assert tilt <= 30.0 + 1e-6
    # the camera looks at the objects' centroid in each frame
    for f in range(2):
        c = np.mean([o["position"][f] for o in s["objects"]], axis=0)
        from simkit.core.rotations import quaternion_to_matrix

        fwd = -quaternion_to_matrix(a.camera.track.quaternion[f])[:, 2]
        to_c = c - a.camera.track.location[f]
        assert np.cross(fwd, to_c / np.linalg.norm(to_c)) == pytest.approx(np.zeros(3), abs=1e-9)
