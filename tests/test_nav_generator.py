"""The foa-nav generator: labels checked against the audio and geometry, determinism, the CLI."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from enginehelp import shard_bytes, simkit_cli

from simkit.core.seeding import episode_rng
from simkit.episodes.codecs import decode, encode
from simkit.generators.nav.generator import FoaNavConfig, FoaNavGenerator
from simkit.renderers.foa.windows import intensity_direction, render_windows
from simkit.sims.nav.episodes import direction_bucket, waypoint_targets


def _roundtrip(ep):
    return {k: decode(*encode(v)) for k, v in ep.fields.items()}


@pytest.fixture(scope="module")
def gen():
    g = FoaNavGenerator()
    g.setup(FoaNavConfig(**FoaNavGenerator.smoke_config))
    return g


def test_foa_points_to_the_source_after_each_turn():
    """Free field, agent turning in place by 15 deg steps at (0, 0): the DirAC direction of every
    window equals the source's egocentric azimuth (world azimuth - yaw)."""
    fs, win = 16000, 1600
    stem = np.random.default_rng(0).standard_normal(30 * win + 800)
    yaw = np.radians(15.0 * np.arange(25))
    poses = np.stack([np.zeros(25), np.zeros(25), yaw], axis=1)
    src = (2.0 * math.cos(0.7), 2.0 * math.sin(0.7), 1.5)  # 40.1 deg left of +x, ear height
    foa = render_windows(stem, fs, poses, src, win, pad=800)
    for k in range(25):
        az, el = intensity_direction(foa[k * win : (k + 1) * win])
        want = (0.7 - yaw[k] + math.pi) % (2 * math.pi) - math.pi
        assert abs((az - want + math.pi) % (2 * math.pi) - math.pi) < math.radians(2.0), k
        assert abs(el) < math.radians(2.0)
    # 1/r law without normalisation: W power at 2 m is a quarter of the one at 1 m (the r_min = 0.3 m floor aside)
    tone = np.sin(2 * np.pi * 500.0 * np.arange(2 * win + 800) / fs)  # stationary: window power = 1/2
    near = render_windows(tone, fs, poses[:1], (1.0, 0.0, 1.5), win, pad=800)
    far = render_windows(tone, fs, poses[:1], (2.0, 0.0, 1.5), win, pad=800)
    assert np.mean(far[:, 0] ** 2) / np.mean(near[:, 0] ** 2) == pytest.approx(0.25, rel=0.01)


def test_episode_labels_agree_with_audio_and_geometry_and_tampering_is_caught(gen):
    import io

    import soundfile as sf

    episode = gen.generate(0, episode_rng(0, "foa-nav", 0))
    with sf.SoundFile(io.BytesIO(encode(episode.fields["foa"])[1])) as f:  # the FLAC names its format
        assert f.comment == "ambisonics: order 1, AmbiX, channel order ACN (W, Y, Z, X), normalisation SN3D"
    sample = _roundtrip(episode)
    assert gen.check(sample) == []
    ep, n = sample["episode"], len(sample["poses"])
    x, sr = sample["foa"]
    assert sr == 16000 and x.shape == (n * ep["window_samples"], 4) and ep["window_samples"] == 1600
    assert sample["actions"][-1] == 0 and sample["stop"][-1].all()
    # the last step stands at the source: distance small; a source straight ahead has positive x_fwd
    src = sample["source"]
    assert src[-1, 2] < 1.6 and src[0, 3] == pytest.approx(ep["geodesic_m"], abs=1e-3)
    ahead = np.flatnonzero(np.abs(src[:, 0]) < math.radians(5))
    assert ahead.size > 0
    np.testing.assert_array_equal(direction_bucket(src[:, 0]), sample["buckets"][:, 0])
    # a source straight ahead with a forward step next: the first waypoint is ahead (x_fwd > 0, y_left = 0)
    fwd = [k for k in ahead if sample["actions"][k] == 1]
    assert fwd and all(
        sample["waypoints"][k, 0, 0] > 0.2 and abs(sample["waypoints"][k, 0, 1]) < 1e-5 for k in fwd
    )
    for name, mutate, msg in [
        ("waypoints", lambda s: s["waypoints"].__setitem__((0, 0, 1), 0.3), "waypoints"),
        ("source", lambda s: s["source"].__setitem__((2, 0), s["source"][2, 0] + 0.5), "source direction"),
        ("buckets", lambda s: s["buckets"].__setitem__((1, 1), 1 - s["buckets"][1, 1]), "buckets"),
        ("poses", lambda s: s["poses"].__setitem__((3, 2), s["poses"][3, 2] + 0.2), "disagrees"),
    ]:
        bad = copy.deepcopy(sample)
        mutate(bad)
        assert any(msg in p for p in gen.check(bad)), name
    bad = copy.deepcopy(sample)
    bad["foa"] = (x * np.array([1, -1, 1, -1], np.float32), sr)  # mirrored field: DOA 180 deg off
    assert any("direction of arrival" in p for p in gen.check(bad))
    bad = copy.deepcopy(sample)
    bad["foa"] = (x[: -ep["window_samples"]], sr)
    assert any("windows of" in p for p in gen.check(bad))
    bad = copy.deepcopy(sample)
    bad["episode"]["geodesic_m"] += 0.5
    assert any("geodesic" in p for p in gen.check(bad))
    bad = copy.deepcopy(sample)
    bad["scene"]["size_m"][0] += 1.0
    assert any("mesh bounds" in p for p in gen.check(bad))


def test_user_scene_mesh(tmp_path):
    """An L-shaped room given as an OBJ (z up): episodes stay on its walkable area and pass their checks."""
    import trimesh

    floor = trimesh.creation.box(extents=(6.0, 6.0, 0.05))
    floor.apply_translation((3.0, 3.0, -0.025))
    block = trimesh.creation.box(extents=(3.0, 3.0, 2.5))
    block.apply_translation((4.5, 4.5, 1.25))
    trimesh.util.concatenate([floor, block]).export(tmp_path / "l_room.obj")
    g = FoaNavGenerator()
    g.setup(FoaNavConfig(scene=str(tmp_path / "l_room.obj"), geodesic_m=(3.0, 8.0), window_s=0.1))
    sample = _roundtrip(g.generate(0, episode_rng(1, "foa-nav", 0)))
    assert g.check(sample) == []
    assert sample["scene"] == {"mesh": str(tmp_path / "l_room.obj")} and "mesh" not in sample
    xy = sample["poses"][:, :2]
    assert not np.any((xy[:, 0] > 2.9) & (xy[:, 1] > 2.9))  # never inside the block


def test_generator_is_deterministic_and_waypoints_follow_the_poses(gen):
    a = _roundtrip(gen.generate(3, episode_rng(5, "foa-nav", 3)))
    b = _roundtrip(gen.generate(3, episode_rng(5, "foa-nav", 3)))
    for k in ("poses", "waypoints", "source", "buckets"):
        np.testing.assert_array_equal(a[k], b[k])
    np.testing.assert_array_equal(a["foa"][0], b["foa"][0])
    wp, _ = waypoint_targets(a["poses"])
    np.testing.assert_allclose(wp, a["waypoints"], atol=1e-6)


def test_reflections_cross_room_and_interferers_pass_their_checks():
    g = FoaNavGenerator()
    cfg = dict(FoaNavGenerator.smoke_config, reflections=True, n_interferers=[1, 2], wall_loss_db=20.0)
    g.setup(FoaNavConfig(**cfg))
    sample = _roundtrip(g.generate(1, episode_rng(2, "foa-nav", 1)))
    assert g.check(sample) == []
    ep = sample["episode"]
    assert 1 <= len(ep["interferers"]) <= 2 and ep["absorption"] is not None
    assert all(i["snr_db"] in (20.0, 15.0, 10.0, 5.0, 0.0) for i in ep["interferers"])
    gains = np.asarray(ep["cross_room_gain"])
    assert set(np.round(20 * np.log10(gains), 6)) <= {0.0, -20.0, -40.0, -60.0}


def test_bad_config_is_one_clear_error():
    with pytest.raises(ValueError, match=r"geodesic_m: min 5\.0 > max 2\.0"):
        FoaNavConfig(geodesic_m=(5.0, 2.0))
    with pytest.raises(ValueError, match="sample_rate must be 16000 or 48000"):
        FoaNavConfig(sample_rate=22050)
    with pytest.raises(ValueError, match="does not exist"):
        FoaNavConfig(scene="/nonexistent/scene.glb")
    with pytest.raises(ValueError, match="frames: true renders procedural plans only"):
        FoaNavConfig(frames=True, backend="habitat", navmesh="x.navmesh")


@pytest.mark.slow
def test_cli_generate_validate_inspect_and_worker_determinism(tmp_path):
    sets = [
        "--set",
        "width_m=[5,6]",
        "--set",
        "depth_m=[4,5]",
        "--set",
        "n_rooms=[2,2]",
        "--set",
        "window_s=0.1",
    ]
    simkit_cli("generate", "foa-nav", "--n", "3", "--out", str(tmp_path / "a"), *sets, check=True)
    simkit_cli(
        "generate", "foa-nav", "--n", "3", "--out", str(tmp_path / "b"), "--workers", "2", *sets, check=True
    )
    assert shard_bytes(tmp_path / "a") == shard_bytes(tmp_path / "b")
    out = simkit_cli("validate", str(tmp_path / "a"), check=True)
    assert "0 problems" in out.stdout
    simkit_cli("inspect", str(tmp_path / "a"), "--out", str(tmp_path / "pics"), "--samples", "1", check=True)
    assert len(list((tmp_path / "pics").glob("nav_*.png"))) == 1


@pytest.mark.slow
def test_frames_depth_agrees_with_ray_casting_in_the_plan():
    g = FoaNavGenerator()
    g.setup(FoaNavConfig(**FoaNavGenerator.smoke_config, frames=True, image_width=32, image_height=24))
    sample = _roundtrip(g.generate(0, episode_rng(0, "foa-nav", 0)))
    n = len(sample["poses"])
    assert sample["rgb"].shape == (n, 24, 32, 3) and sample["depth"].shape == (n, 24, 32)
    assert g.check(sample) == []
    bad = copy.deepcopy(sample)
    bad["depth"] = bad["depth"] * np.float16(1.2)
    assert any("ray-cast" in p for p in g.check(bad))
    bad = copy.deepcopy(sample)
    bad["rgb"] = bad["rgb"][:-1]
    assert any("frames, expected" in p for p in g.check(bad))


def test_habitat_backend_is_one_clear_line_without_habitat_sim(tmp_path):
    from simkit.core.errors import SimkitError
    from simkit.sims.nav.habitat import habitat_available

    if habitat_available():  # pragma: no cover - only where habitat-sim is installed (conda)
        pytest.skip("habitat-sim is importable here; this checks the message when it is not")
    (tmp_path / "s.navmesh").write_bytes(b"")
    g = FoaNavGenerator()
    with pytest.raises(SimkitError, match="conda install habitat-sim"):
        g.setup(FoaNavConfig(backend="habitat", navmesh=str(tmp_path / "s.navmesh")))
    with pytest.raises(ValueError, match="backend habitat needs navmesh"):
        FoaNavConfig(backend="habitat")
