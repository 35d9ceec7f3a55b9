"""Task language features that need the renderer: clear (see-through) occluders and moving cameras.

Each label is checked against the rendered image as well: an object seen through a clear pane changes the
pixels behind the pane, one behind an opaque pane does not; a panning camera moves a static object's pixels
to where the pinhole projection puts it.
"""

import numpy as np
import pytest

from simkit.core.scene import CLEAR_ALPHA, Camera, CameraTrack, Material
from simkit.core.seeding import episode_rng
from simkit.eval.wrop.evidence import project
from simkit.generators.wrop import WropConfig, WropGenerator
from simkit.generators.wrop.base import SURFACE, Composition, Look, Task
from simkit.generators.wrop.kit import X, clear
from simkit.renderers.blender import RenderSettings, get_session
from simkit.scenes.wrop import Scene, SceneObject, Sun, Track, ViewPath, material, orbit_camera
from simkit.scenes.wrop.expect import evaluate
from simkit.scenes.wrop.params import Uniform

FPS = 24.0
W, H = 96, 54


def _render(objects, frames, camera, engine="workbench", samples=4):
    ground = SceneObject(
        "ground",
        "ground",
        "box",
        (30, 30, 0.2),
        material("sand"),
        Track.static(frames, (0, 0, -0.1)),
        measure=False,
    )
    sc = Scene(frames, FPS, [ground, *objects], camera, Sun(0.3, 0.8), (0.7, 0.8, 0.9))
    ses = get_session()
    ses.reset()
    ses.configure(RenderSettings(engine, W, H, samples=samples, denoise=False), frames, FPS)
    ses.build(sc)
    return ses.render(frames), ses.measure(sc, 128)


def _pane_scene(alpha, with_ball):
    pane = SceneObject(
        "pane",
        "occluder",
        "box",
        (1.2, 0.08, 1.2),
        Material("blue", (0.3, 0.5, 0.9), 0.1, 0.0, alpha=alpha),
        Track.static(1, (0, 0, 0.6)),
    )
    ball = SceneObject("ball", "target", "sphere", (0.3,), material("red"), Track.static(1, (0, 0.5, 0.3)))
    return [pane, ball] if with_ball else [pane]


def _ball_box(tr):
    """Pixel window (rows, cols) around the ball's projected centre (image_xy origin bottom-left)."""
    u, v = tr["objects"]["ball"]["image_xy"][0]
    r, c = int(round((1 - v) * H)), int(round(u * W))
    return slice(r - 3, r + 3), slice(c - 3, c + 3)


@pytest.mark.parametrize("engine", ["workbench", "cycles"])
def test_ball_behind_clear_pane_stays_visible_and_behind_opaque_pane_is_hidden(engine):
    cam = orbit_camera((0, 0, 0.5), 7.0, 0.0, np.radians(14.0))
    seen = {}
    for alpha in (1.0, 0.25):
        img, tr = _render(_pane_scene(alpha, True), 1, cam, engine)
        empty, _ = _render(_pane_scene(alpha, False), 1, cam, engine)
        rows, cols = _ball_box(tr)
        # independent evidence: how much the ball changes the pixels where it projects, behind the pane
        diff = np.abs(img[0][rows, cols].astype(int) - empty[0][rows, cols].astype(int)).mean()
        seen[alpha] = (tr["objects"]["ball"], diff)
    opaque, d_opaque = seen[1.0]
    clear, d_clear = seen[0.25]
    assert opaque["visibility"][0] == 0.0 and opaque["occluded_by"][0] == {"pane": 1.0}
    assert "seen_through" not in opaque  # scenes without clear objects keep their layout
    assert d_opaque < 2.0  # nothing of the ball shows through an opaque pane
    assert clear["visibility"][0] == pytest.approx(1.0, abs=0.02) and clear["occluded_by"][0] == {}
    assert clear["seen_through"][0] == {"pane": pytest.approx(1.0, abs=0.02)}
    assert d_clear > 15.0  # the ball shows through the clear pane


def test_clear_pane_does_not_hide_an_opaque_wall_behind_it():
    # the ray continues through the clear pane and is stopped by the opaque wall between pane and ball
    cam = orbit_camera((0, 0, 0.5), 7.0, 0.0, np.radians(14.0))
    wall = SceneObject(
        "wall", "wall", "box", (1.2, 0.08, 1.2), material("green"), Track.static(1, (0, 0.12, 0.6))
    )
    _, tr = _render([*_pane_scene(0.25, True), wall], 1, cam)
    ball = tr["objects"]["ball"]
    assert ball["visibility"][0] == 0.0 and ball["occluded_by"][0] == {"wall": 1.0}
    w = tr["objects"]["wall"]
    assert w["visibility"][0] == pytest.approx(1.0, abs=0.02) and w["seen_through"][0]["pane"] > 0.9


def test_half_opaque_materials_are_refused():
    assert Material("glass", (1, 1, 1), alpha=CLEAR_ALPHA).clear and not Material("x", (1, 1, 1)).clear
    pane = clear(material("blue"))
    assert pane.clear and pane.rgb == material("blue").rgb and pane.name == "clear blue"
    with pytest.raises(ValueError, match="neither opaque"):
        Material("smoke", (0.2, 0.2, 0.2), alpha=0.7)


def test_panning_camera_moves_the_image_of_a_static_ball_as_the_pinhole_predicts():
    # the camera stays at (0, -7, 0.5) and turns (yaws) left by theta_f; a ball straight ahead then projects
    # to u = 1/2 + (lens/sensor) tan(theta_f) (it drifts right), v = 1/2
    T = 6
    theta = np.radians(np.linspace(0.0, 20.0, T))
    eye = np.array([0.0, -7.0, 0.5])
    # orientation: look along +y (Rx(+90 deg)), then yaw theta about world z: q = qz(theta) * qx(90)
    qx = np.array([np.cos(np.pi / 4), np.sin(np.pi / 4), 0.0, 0.0])
    q = np.stack([_qmul(np.array([np.cos(t / 2), 0.0, 0.0, np.sin(t / 2)]), qx) for t in theta])
    cam = Camera(tuple(eye), (0.0, 0.0, 0.5), track=CameraTrack(np.tile(eye, (T, 1)), q))
    ball = SceneObject("ball", "target", "sphere", (0.25,), material("red"), Track.static(T, (0, 0, 0.5)))
    frames, tr = _render([ball], T, cam)
    k = cam.lens_mm / cam.sensor_mm
    xy = np.array(tr["objects"]["ball"]["image_xy"])
    assert xy[:, 0] == pytest.approx(0.5 + k * np.tan(theta), abs=1e-4)
    assert xy[:, 1] == pytest.approx(0.5, abs=1e-4)
    assert np.array(tr["camera"]["track"]["position"]) == pytest.approx(np.tile(eye, (T, 1)), abs=1e-5)
    # independent evidence: the column centroid of the red pixels follows the prediction within 1.5 px
    for f in range(T):
        img = frames[f].astype(int)
        red = (img[..., 0] > 120) & (img[..., 1] < 80) & (img[..., 2] < 80)
        assert red.sum() > 10
        col = np.nonzero(red)[1].mean() + 0.5
        assert col == pytest.approx((0.5 + k * np.tan(theta[f])) * W, abs=1.5)


def _qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array(
        [
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        ]
    )


def test_view_path_pan_brings_a_wall_between_camera_and_ball():
    # a camera orbiting from azimuth 0 to 90 deg ends on the +x side, where a wall at x = 1.2 hides the ball
    T = 8
    path = ViewPath.hold(T, {"target": (0.0, 0.0, 0.5)}).move(2, T - 2, azimuth_deg=90.0)
    assert path.azimuth_deg[:3].tolist() == [0.0, 0.0, 0.0] and path.azimuth_deg[-2:].tolist() == [90.0, 90.0]
    values = {k: (v.lo + v.hi) / 2 if hasattr(v, "lo") else v.values[0] for k, v in SURFACE.items()}
    values.update(camera_azimuth_jitter_deg=0.0, camera_elevation_jitter_deg=0.0, camera_distance_scale=1.0)
    cam = Look(values, {}).camera_path(path)
    ball = SceneObject("ball", "target", "sphere", (0.3,), material("red"), Track.static(T, (0, 0, 0.3)))
    wall = SceneObject(
        "wall", "wall", "box", (0.1, 1.5, 1.2), material("blue"), Track.static(T, (1.2, 0, 0.6))
    )
    _, tr = _render([ball, wall], T, cam)
    b = tr["objects"]["ball"]
    assert b["visibility"][0] == pytest.approx(1.0, abs=0.02)
    assert b["visibility"][-1] == 0.0 and b["occluded_by"][-1] == {"wall": 1.0}
    # the measured image positions follow the path's nominal projection on every frame
    for f in range(T):
        u = path.image_x(f, [[1.2, 0.0, 0.6]])[0]
        assert tr["objects"]["wall"]["image_xy"][f][0] == pytest.approx(u, abs=1e-4)
    # the checker's projection (exam evidence) follows the moving camera frame by frame
    pos = np.array(tr["objects"]["wall"]["position"])
    uv = project(tr, pos[:, None, :])[:, 0]
    assert uv == pytest.approx(np.array(tr["objects"]["wall"]["image_xy"]), abs=1e-4)
    static = {**tr, "camera": {k: v for k, v in tr["camera"].items() if k != "track"}}
    assert project(static, pos[:1])[0] != pytest.approx(uv[0], abs=0.05)  # the static record is the last pose
    loc = np.array(tr["camera"]["track"]["position"])
    assert loc[-1][:2] == pytest.approx([7.0 * np.cos(np.radians(14.0)), 0.0], abs=1e-4)


class _PanPastGlass(Task):
    """A probe task (not registered): a ball behind a clear pane; the camera then pans to the +x side, where
    an opaque wall hides it."""

    family, name = "OP-2", "probe_pan_past_glass"
    structural = {"radius": Uniform(0.2, 0.25)}
    colour_slots = ("target", "screen", "wall")

    def compose(self, s, clip, look):
        T, r = clip.frames, s["radius"]
        ball = SceneObject(
            "target", "target", "sphere", (r,), look.mat("target"), Track.static(T, (0, 0.5, r))
        )
        pane = SceneObject(
            "pane",
            "occluder",
            "box",
            (1.2, 0.08, 1.2),
            clear(look.mat("screen")),
            Track.static(T, (0, 0, 0.6)),
        )
        wall = SceneObject(
            "wall", "wall", "box", (0.1, 2.0, 1.4), look.mat("wall"), Track.static(T, (1.2, 0.3, 0.7))
        )
        path = ViewPath.hold(T, {"target": (0.0, 0.3, 0.5)}).move(clip.cut, T - 4, azimuth_deg=90.0)
        return Composition(
            [look.ground(T), ball, pane, wall],
            {"pan_start": clip.cut},
            "pan_start",
            [X.visible("target", range(clip.cut)), X.hidden("target", range(T - 3, T))],
            "A ball behind a glass pane.",
            "the ball stays where it is",
            camera=path,
        )


def test_a_task_with_a_clear_pane_and_a_camera_pan_renders_through_the_generator():
    import json

    g = WropGenerator()
    g.setup(WropConfig(frames=24, width=64, height=36, visibility_points=64))
    g.tasks = [_PanPastGlass]
    eps = [g.generate(0, episode_rng(0, "wrop", 0)) for _ in range(2)]
    tr = eps[0].fields["trajectory"]
    assert evaluate(eps[0].meta["expectations"], tr) == []
    ball = tr["objects"]["target"]
    assert ball["seen_through"][0] == {"pane": pytest.approx(1.0, abs=0.02)} and ball["occluded_by"][0] == {}
    assert ball["occluded_by"][-1] == {"wall": 1.0}
    cam = np.array(tr["camera"]["track"]["position"])
    assert (
        cam.shape == (24, 3) and np.allclose(cam[0], cam[11]) and cam[-1][0] > 6.0
    )  # still, then panned to +x
    # the same seed gives the same trajectory and frames in a reused session
    assert json.dumps(tr, sort_keys=True) == json.dumps(eps[1].fields["trajectory"], sort_keys=True)
    assert np.array_equal(eps[0].fields["target_video"].frames, eps[1].fields["target_video"].frames)


def test_view_path_keys_every_orbit_value_and_holds_it():
    p = ViewPath.hold(11, {"distance": 6.0}).move(2, 6, "linear", target=(1.0, 2.0, 0.5), distance=8.0)
    assert p.target[0].tolist() == [0.0, 0.0, 0.5] and p.distance[0] == 6.0 and p.elevation_deg[5] == 14.0
    assert p.target[4] == pytest.approx([0.5, 1.0, 0.5]) and p.distance[4] == pytest.approx(7.0)
    assert p.target[6:].tolist() == [[1.0, 2.0, 0.5]] * 5 and p.distance[6:].tolist() == [8.0] * 5
    cam = p.camera(10)  # the nominal orbit of the last frame: 8 m from the target, 14 deg up, azimuth 0
    off = np.subtract(cam.location, (1.0, 2.0, 0.5))
    assert np.linalg.norm(off) == pytest.approx(8.0) and off[2] == pytest.approx(
        8.0 * np.sin(np.radians(14.0))
    )
    with pytest.raises(ValueError, match="unknown view keys"):
        p.move(0, 3, roll_deg=5.0)
    with pytest.raises(ValueError, match="outside"):
        p.move(5, 11, azimuth_deg=5.0)
