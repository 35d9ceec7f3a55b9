"""The Blender backend: primitives have their declared sizes, tracks are keyed exactly, visibility comes from ray casts."""

import numpy as np
import pytest

from simkit.renderers.blender import RenderSettings, get_session
from simkit.scenes.wrop import Motion, Scene, SceneObject, Sun, Track, material, orbit_camera

T, FPS = 4, 24.0


def scene(objects):
    ground = SceneObject(
        "ground",
        "ground",
        "box",
        (20, 20, 0.2),
        material("sand"),
        Track.static(T, (0, 0, -0.1)),
        measure=False,
    )
    cam = orbit_camera((0, 0, 0.5), 7.0, 0.0, np.radians(14.0))
    return Scene(T, FPS, [ground, *objects], cam, Sun(0.3, 0.8), (0.7, 0.8, 0.9))


def render(sc, **kw):
    ses = get_session()
    ses.reset()
    ses.configure(RenderSettings(**{"width": 64, "height": 36, **kw}), T, FPS)
    ses.build(sc)
    return ses, ses.render(T), ses.measure(sc, 128)


def test_primitives_sizes_and_tracks():
    objs = [
        SceneObject("box", "target", "box", (0.4, 0.3, 0.2), material("red"), Track.static(T, (-2, 0, 0.1))),
        SceneObject("ball", "target", "sphere", (0.25,), material("blue"), Track.static(T, (-1, 0, 0.25))),
        SceneObject("cyl", "target", "cylinder", (0.2, 0.6), material("green"), Track.static(T, (0, 0, 0.3))),
        SceneObject("cup", "container", "cup", (0.3, 0.5), material("white"), Track.static(T, (1, 0, 0.25))),
        SceneObject(
            "tray", "container", "open_box", (0.5, 0.4, 0.2), material("pink"), Track.static(T, (2, 0, 0.1))
        ),
        SceneObject(
            "ramp", "support", "wedge", (0.6, 0.4, 0.3), material("teal"), Track.static(T, (0, 1.5, 0.15))
        ),
    ]
    mv = Motion(T, FPS, (0, -1, 0.25)).move(0, T - 1, (0.9, -1, 0.25))
    objs.append(SceneObject("mover", "mover", "box", (0.2, 0.2, 0.2), material("yellow"), mv.track()))
    _, frames, tr = render(scene(objs))
    assert frames.shape == (T, 36, 64, 3) and frames.dtype == np.uint8
    o = tr["objects"]
    ext = {n: np.subtract(o[n]["bbox_max"][0], o[n]["bbox_min"][0]) for n in o}
    assert ext["box"] == pytest.approx([0.4, 0.3, 0.2], abs=1e-5)
    assert ext["ball"] == pytest.approx([0.5, 0.5, 0.5], abs=0.01)  # UV sphere: vertices on the sphere
    assert ext["cyl"] == pytest.approx([0.4, 0.4, 0.6], abs=0.01)
    assert ext["cup"] == pytest.approx([0.6, 0.6, 0.5], abs=0.01)
    assert ext["tray"] == pytest.approx([0.5, 0.4, 0.2], abs=1e-5)
    assert ext["ramp"] == pytest.approx([0.6, 0.4, 0.3], abs=1e-5)
    assert np.array(o["mover"]["position"]) == pytest.approx(mv.pos, abs=1e-5)
    assert o["mover"]["rotation"][0] == pytest.approx([1, 0, 0, 0], abs=1e-6)
    assert all(v == pytest.approx(1.0, abs=0.02) for v in o["box"]["visibility"])


def test_visibility_from_ray_casts():
    # a ball behind a wall is hidden by that wall; one beside it is fully visible; one out of frame is not seen
    objs = [
        SceneObject(
            "wall", "occluder", "box", (1.2, 0.1, 1.2), material("blue"), Track.static(T, (0, 0, 0.6))
        ),
        SceneObject("hidden", "target", "sphere", (0.2,), material("red"), Track.static(T, (0, 0.5, 0.2))),
        SceneObject("shown", "target", "sphere", (0.2,), material("green"), Track.static(T, (1.5, 0.5, 0.2))),
        SceneObject("away", "target", "sphere", (0.2,), material("pink"), Track.static(T, (30, 0.5, 0.2))),
        SceneObject("half", "target", "sphere", (0.3,), material("white"), Track.static(T, (-0.6, 0.5, 0.3))),
    ]
    _, _, tr = render(scene(objs))
    o = tr["objects"]
    assert o["hidden"]["visibility"][0] == 0.0 and o["hidden"]["occluded_by"][0] == {"wall": 1.0}
    assert o["shown"]["visibility"][0] == pytest.approx(1.0, abs=0.02) and o["shown"]["occluded_by"][0] == {}
    assert o["away"]["visibility"][0] == 0.0
    assert 0.3 < o["half"]["visibility"][0] < 0.7  # straddles the wall's edge at x=-0.6
    assert 0.0 < o["shown"]["image_xy"][0][0] - 0.5 < 0.5  # right of the image centre


def test_session_reset_leaves_nothing_behind():
    ses, _, _ = render(
        scene([SceneObject("b", "target", "sphere", (0.2,), material("red"), Track.static(T, (0, 0, 0.2)))])
    )
    ses.reset()
    d = ses.bpy.data
    assert len(d.objects) == len(d.meshes) == len(d.materials) == len(d.actions) == len(d.cameras) == 0


def _child_blender_version():
    from simkit.renderers.blender.session import _import_bpy

    return _import_bpy().app.version_string


def test_spawned_worker_imports_bpy_after_the_parent_did():
    # importing bpy puts Blender's scripts/modules on sys.path; spawned workers inherit it, where the inner
    # bpy package would shadow the real module unless the session drops those folders first
    import multiprocessing as mp

    from simkit.renderers.blender import blender_version

    ses = get_session()
    with mp.get_context("spawn").Pool(1) as pool:
        assert pool.apply(_child_blender_version) == ses.version == blender_version()
