"""Scene director, pinhole geometry and QA on hand-built scenes; the foa-qa generator end to end."""

import copy
import io
import subprocess
import sys
import tarfile

import numpy as np
import pytest

from simkit.core.errors import SampleRejected
from simkit.core.seeding import episode_rng
from simkit.episodes.codecs import decode, encode
from simkit.generators.foa.director import (
    DirectorParams,
    backproject,
    direct_scene,
    direction8,
    motion_of,
    project,
    render_scene,
    track_from_scene,
)
from simkit.generators.foa.generator import FoaQaConfig, FoaQaGenerator, check_qa_schema, make_qa


def _scene(sources, yaw_kf=((0.0, 0.0),), duration=3.0, mode="qa"):
    """A hand-built scene: sources given as (label, onset, offset, keyframes)."""
    kf = [list(k) for k in yaw_kf]
    turn = {"direction": "none", "angle_deg": 0.0, "t_start_s": None, "t_end_s": None}
    if len(kf) > 1 and kf[-1][1] != kf[0][1]:
        ang = kf[-1][1] - kf[0][1]
        turn = {
            "direction": "left" if ang > 0 else "right",
            "angle_deg": abs(ang),
            "t_start_s": kf[1][0],
            "t_end_s": kf[2][0],
        }
    scene = {
        "mode": mode,
        "duration_s": duration,
        "sample_rate": 16000,
        "camera": {"fov_deg": 90.0, "image_size": [640, 360], "yaw_keyframes": kf, "turn": turn},
        "sources": [],
        "ambient": None,
        "interferers": [],
        "room": None,
    }
    for i, (label, on, off, keys) in enumerate(sources):
        s = {
            "id": f"s{i}",
            "label": label,
            "role": "foreground",
            "lufs": -25.0,
            "onset_s": on,
            "offset_s": off,
            "keyframes": [list(k) for k in keys],
        }
        s["track"] = track_from_scene(s, scene)
        s["motion"] = motion_of(s, scene)["motion"]
        scene["sources"].append(s)
    return scene


def _by(qa, kind, sid):
    return next(q for q in qa if q["kind"] == kind and q["source_id"] == sid)


def test_direction_tokens():
    cases = {
        0: "front",
        22.4: "front",
        22.6: "front-left",
        90: "left",
        100: "left",
        135: "back-left",
        180: "back",
        -180: "back",
        -135: "back-right",
        -90: "right",
        -22.6: "front-right",
        359: "front",
    }
    for az, tok in cases.items():
        assert direction8(az) == tok, az


def test_pinhole_projection_round_trip_and_edges():
    az = np.array([0.0, 30.0, -40.0, 44.0])
    el = np.array([0.0, 10.0, -15.0, 5.0])
    cx, cy, vis = project(az, el, 90.0, 640, 360)
    assert cx[0] == pytest.approx(320.0) and cy[0] == pytest.approx(180.0)
    assert cx[1] < 320 and cx[2] > 320  # left of centre = positive azimuth
    a2, e2 = backproject(cx, cy, 90.0, 640, 360)
    np.testing.assert_allclose(a2, az, atol=1e-9)
    np.testing.assert_allclose(e2, el, atol=1e-9)
    # the image edge is at half the field of view; behind the camera is never visible
    cx, _, vis = project(np.array([45.0, 46.0, 180.0]), np.zeros(3), 90.0, 640, 360)
    assert cx[0] == pytest.approx(0.0, abs=1e-9) and list(vis) == [True, False, False]


def test_qa_left_to_right_motion():
    scene = _scene([("siren", 0.0, 3.0, [[0.0, 40.0, 0.0, 3.0], [3.0, -40.0, 0.0, 3.0]])])
    qa = make_qa(scene)
    assert not check_qa_schema(qa)
    m = _by(qa, "motion", "s0")["structured"]
    assert m["motion"] == "left-to-right"
    assert m["options"][ord(m["choice"]) - ord("A")] == "left-to-right"
    assert m["delta_y_m"] == pytest.approx(-2 * 3 * np.sin(np.radians(40)), abs=1e-3)
    d = _by(qa, "direction", "s0")["structured"]
    assert (
        d["time_s"] == 1.5 and d["azimuth_deg"] == pytest.approx(0.0, abs=0.1) and d["direction"] == "front"
    )
    loc = _by(qa, "localization_3d", "s0")["structured"]
    t = loc["time_s"]  # the 10 Hz track time nearest to a quarter into the activity (0.75 s)
    assert t in (0.7, 0.8) and loc["distance_m"] == pytest.approx(3.0)
    assert loc["azimuth_deg"] == pytest.approx(40 - 80 * t / 3, abs=0.1) and loc["direction"] == "front"
    assert _by(qa, "camera_rotation", None)["structured"]["rotation"] == "none"


def test_qa_approaching_source():
    scene = _scene([("engine", 0.5, 2.5, [[0.5, 30.0, 10.0, 6.0], [2.5, 30.0, 10.0, 2.0]])])
    qa = make_qa(scene)
    m = _by(qa, "motion", "s0")["structured"]
    assert m["motion"] == "approaching" and m["delta_distance_m"] == pytest.approx(-4.0, abs=1e-3)
    loc = _by(qa, "localization_3d", "s0")["structured"]
    assert loc["time_s"] == 1.0 and loc["distance_m"] == pytest.approx(5.0, abs=0.01)
    assert loc["elevation_deg"] == pytest.approx(10.0, abs=0.1) and loc["direction"] == "front-left"


def test_qa_camera_turn_rotates_directions():
    # a static source straight ahead; the camera turns 60 deg to the left between 1 s and 2 s
    scene = _scene(
        [("bell", 0.0, 3.0, [[0.0, 0.0, 0.0, 2.0]]), ("dog_bark", 0.0, 3.0, [[0.0, 180.0, 0.0, 2.0]])],
        yaw_kf=[[0.0, 0.0], [1.0, 0.0], [2.0, 60.0], [3.0, 60.0]],
    )
    qa = make_qa(scene)
    cam = _by(qa, "camera_rotation", None)["structured"]
    assert cam["rotation"] == "left" and cam["angle_deg"] == 60.0
    assert cam["options"][ord(cam["choice"]) - ord("A")] == "left"
    d = _by(qa, "direction", "s0")["structured"]  # t = 1.5 s: yaw 30 -> the source is at -30
    assert d["azimuth_deg"] == pytest.approx(-30.0, abs=0.1) and d["direction"] == "front-right"
    d = _by(qa, "direction", "s1")["structured"]  # behind: 180 - 30 = 150
    assert d["azimuth_deg"] == pytest.approx(150.0, abs=0.1) and d["direction"] == "back-left"
    # a static source does not "move" although it turns in the listener frame
    assert _by(qa, "motion", "s0")["structured"]["motion"] == "stationary"
    tr = scene["sources"][0]["track"]
    assert tr["azimuth_deg"][-1] == pytest.approx(-60.0) and tr["on_screen"][-1] is False
    assert tr["on_screen"][0] is True and tr["x_px"][0] == pytest.approx(320.0)


def test_duplicate_labels_get_no_questions():
    scene = _scene([("bell", 0.0, 3.0, [[0.0, 0.0, 0.0, 2.0]]), ("bell", 0.0, 3.0, [[0.0, 90.0, 0.0, 2.0]])])
    assert [q["kind"] for q in make_qa(scene)] == ["camera_rotation"]


def test_director_constraints():
    p = DirectorParams(labels=["a", "b", "c", "d", "e", "f", "g", "h"], ambient_labels=["rain"])
    for i in range(15):
        scene = direct_scene(np.random.default_rng(i), p)
        half = scene["camera"]["fov_deg"] / 2
        roles = [s["role"] for s in scene["sources"]]
        assert 1 <= roles.count("foreground") <= 4 and 2 <= roles.count("offscreen") <= 4
        for s in scene["sources"]:
            az = np.abs(s["track"]["azimuth_deg"])
            if s["role"] == "offscreen":
                assert az.min() > half and not any(s["track"]["on_screen"])
            else:
                k = int(round(s["onset_s"] * 10))
                assert s["track"]["on_screen"][k]
            assert 0 <= s["onset_s"] < s["offset_s"] <= scene["duration_s"]
            assert s["motion"] == motion_of(s, scene)["motion"]
        room = scene["room"]
        lo = np.asarray(room["origin_m"])
        hi = lo + np.asarray(room["size_m"])
        assert np.all(lo < 0) and np.all(hi > 0)  # the listener (origin) is inside


def _roundtrip(ep):
    """Encode and decode every field as the writer and validate do."""
    return {k: decode(*encode(v)) for k, v in ep.fields.items()}


def _draw(g, seed, index):
    """Episode ``index`` as the engine makes it: a rejected sample is redrawn from a derived seed."""
    for redraw in range(g.max_redraws + 1):
        try:
            return g.generate(index, episode_rng(seed, "foa-qa", index, redraw))
        except SampleRejected:
            continue
    raise AssertionError(f"episode {index} rejected {g.max_redraws + 1} times")


@pytest.fixture(scope="module")
def gen():
    g = FoaQaGenerator()
    g.setup(FoaQaConfig())
    return g


def test_generator_episode_passes_check_and_tampering_is_caught(gen):
    ep = _draw(gen, 0, 0)
    sample = _roundtrip(ep)
    x, sr = sample["foa"]
    assert x.shape == (48000, 4) and sr == 16000
    assert sample["features"].shape == (5, 128, 301)
    assert gen.check(sample) == []
    kinds = {q["kind"] for q in sample["qa"]}
    assert {"direction", "localization_3d", "motion", "camera_rotation"} == kinds
    bad = copy.deepcopy(sample)
    q = next(q for q in bad["qa"] if q["kind"] == "direction")
    q["structured"]["azimuth_deg"] += 90.0
    assert any("qa disagrees" in p for p in gen.check(bad))
    bad = copy.deepcopy(sample)
    bad["scene"]["sources"][0]["track"]["azimuth_deg"][3] += 5.0
    assert any("track disagrees" in p for p in gen.check(bad))
    bad = copy.deepcopy(sample)
    bad["foa"] = (x[:, :3], sr)
    assert any("expected (T, 4)" in p for p in gen.check(bad))
    bad = copy.deepcopy(sample)
    bad["foa"] = (x, 48000)
    assert any("sample rate" in p for p in gen.check(bad))
    bad = copy.deepcopy(sample)
    next(q for q in bad["qa"] if q["kind"] == "direction")["structured"].pop("direction")
    assert any("structured answer needs keys" in p for p in gen.check(bad))


def test_generator_is_deterministic(gen):
    a = _draw(gen, 7, 3)
    b = _draw(gen, 7, 3)
    assert encode(a.fields["foa"]) == encode(b.fields["foa"])
    assert a.fields["scene"] == b.fields["scene"] and a.fields["qa"] == b.fields["qa"]


def test_static_mode_scenes():
    g = FoaQaGenerator()
    g.setup(FoaQaConfig(mode="foa-static", static_duration_s=(2.0, 3.0), features=False))
    for i in range(3):
        ep = _draw(g, 0, i)
        sc = ep.fields["scene"]
        assert 2.0 <= sc["duration_s"] <= 3.0 and 1 <= len(sc["sources"]) <= 4
        assert all(s["role"] == "source" and len(s["keyframes"]) == 1 for s in sc["sources"])
        assert {q["kind"] for q in ep.fields["qa"]} <= {"direction", "localization_3d"}
        assert "features" not in ep.fields
        assert g.check(_roundtrip(ep)) == []


def test_48k_and_interferers_at_target_snr():
    g = FoaQaGenerator()
    g.setup(
        FoaQaConfig(
            sample_rate=48000,
            n_interferers=(1, 1),
            snr_choices_db=[5.0],
            ambient=False,
            n_offscreen=(2, 2),
            n_sources=(1, 1),
            duration_s=2.0,
        )
    )
    ep = _draw(g, 1, 0)
    s = _roundtrip(ep)
    assert s["foa"][1] == 48000 and s["foa"][0].shape == (96000, 4)
    assert s["features"].shape == (5, 128, 201)
    assert g.check(s) == []
    # independent SNR check: render the same scene without its interferer; the difference is the interferer
    scene = copy.deepcopy(ep.fields["scene"])
    with_i, _ = render_scene(scene, g.bank, 48000, np.random.default_rng(5), block=32)
    scene["interferers"] = []
    without, _ = render_scene(scene, g.bank, 48000, np.random.default_rng(5), block=32)
    # undo each mix's peak limiting before comparing
    g1 = 10 ** (
        render_scene(ep.fields["scene"], g.bank, 48000, np.random.default_rng(5))[1]["mix_gain_db"] / 20
    )
    g0 = 10 ** (render_scene(scene, g.bank, 48000, np.random.default_rng(5))[1]["mix_gain_db"] / 20)
    target = without / g0
    itf = with_i / g1 - target
    snr = 10 * np.log10(np.mean(target[:, 0] ** 2) / np.mean(itf[:, 0] ** 2))
    assert snr == pytest.approx(5.0, abs=0.1)


def test_fuma_channel_format():
    cfg = {
        "n_sources": (1, 1),
        "n_offscreen": (2, 2),
        "room": False,
        "ambient": False,
        "camera_turn_prob": 0.0,
    }
    a, f = FoaQaGenerator(), FoaQaGenerator()
    a.setup(FoaQaConfig(**cfg))
    f.setup(FoaQaConfig(channel_format="fuma", **cfg))
    ea = _draw(a, 0, 0)
    ef = _draw(f, 0, 0)
    x = ea.fields["foa"].samples
    y = ef.fields["foa"].samples
    np.testing.assert_allclose(y[:, 0], x[:, 0] / np.sqrt(2), atol=1e-7)  # W at -3 dB
    np.testing.assert_allclose(y[:, 1:], x[:, [3, 1, 2]], atol=1e-7)  # X, Y, Z
    np.testing.assert_array_equal(ea.fields["features"], ef.fields["features"])
    assert f.check(_roundtrip(ef)) == [] and ef.fields["scene"]["channel_format"] == "fuma"
    assert any("channel format" in p for p in a.check(_roundtrip(ef)))


def test_flac_files_name_their_ambisonics_format():
    """The stored FLAC says AmbiX (order 1, ACN, SN3D) or FuMa in its Vorbis comment, read by soundfile."""
    import soundfile as sf

    cfg = {"n_sources": (1, 1), "n_offscreen": (2, 2), "room": False, "ambient": False, "features": False}
    comments = {}
    for fmt in ("ambix", "fuma"):
        g = FoaQaGenerator()
        g.setup(FoaQaConfig(channel_format=fmt, **cfg))
        ext, data = encode(_draw(g, 1, 0).fields["foa"])
        with sf.SoundFile(io.BytesIO(data)) as f:
            assert ext == "flac" and f.channels == 4
            comments[fmt] = f.comment
    assert (
        comments["ambix"] == "ambisonics: order 1, AmbiX, channel order ACN (W, Y, Z, X), normalisation SN3D"
    )
    assert comments["fuma"].startswith("ambisonics: order 1, FuMa, channel order FuMa (W, X, Y, Z)")


def test_config_rejects_bad_ranges():
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=r"n_sources: min 3 > max 1"):
        FoaQaConfig(n_sources=(3, 1))
    with pytest.raises(ValidationError, match=r"n_sources must lie within \[1, 4\]"):
        FoaQaConfig(n_sources=(1, 6))
    with pytest.raises(ValidationError, match=r"sample_rate\n  Input should be 16000 or 48000"):
        FoaQaConfig(sample_rate=1000)


@pytest.mark.parametrize(
    "kw, msg",
    [
        ({"duration_s": 0.6}, "duration_s must lie within [1, 60] s"),
        ({"duration_s": 61}, "duration_s must lie within [1, 60] s"),
        ({"distance_m": (0.01, 0.02)}, "distance_m must lie within [0.3, inf)"),
        ({"elevation_deg": (80.0, 89.0)}, "must overlap [-24.4, 24.4]"),
        ({"elevation_deg": (-95.0, 0.0)}, "within [-90, 90]"),
        ({"turn_deg": (30.0, 200.0)}, "within [0, 180]"),
        ({"turn_deg": (30.0, 180.0), "fov_deg": 100.0}, "must be <= 270"),
        ({"static_duration_s": (0.4, 2.0)}, "within (0.5, 60]"),
        ({"sample_rate": 22050}, "16000 or 48000"),
        ({"sample_rate": 8000}, "16000 or 48000"),
    ],
)
def test_config_rejects_unusable_values(kw, msg):
    """Values that would make every episode fail are refused up front, naming the usable range."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as err:
        FoaQaConfig(**kw)
    assert msg in str(err.value)


def test_foreground_elevation_limit_is_the_pinhole_edge():
    from simkit.generators.foa.director import foreground_elevation_limit

    lim = foreground_elevation_limit(90.0, 640, 360)
    # at the foreground azimuth edge (0.8 x 45 deg) a source at the limit projects just inside the top edge
    cx, cy, vis = project(np.array([36.0, -36.0, 36.0]), np.array([lim, -lim, lim + 0.2]), 90.0, 640, 360)
    assert vis.tolist() == [True, True, False] and 0 < cy[0] < 1.5 and 358.5 < cy[1] < 360
    # the usable config space: these pass validation
    FoaQaConfig(elevation_deg=(lim - 0.01, 89.0))
    FoaQaConfig(mode="foa-static", elevation_deg=(80.0, 89.0))  # mode foa-static ignores elevation_deg
    FoaQaConfig(turn_deg=(0.0, 180.0), fov_deg=90.0, sample_rate=48000)
    FoaQaConfig(turn_deg=(0.0, 180.0), fov_deg=160.0, n_offscreen=(0, 0))


BOUNDARY_CONFIGS = [
    {"duration_s": 1.0},
    {"duration_s": 1.2, "distance_m": (0.3, 0.3)},
    {"distance_m": (0.3, 1.2), "elevation_deg": (24.0, 89.0)},
    {
        "elevation_deg": (-90.0, -24.0),
        "turn_deg": (180.0, 180.0),
        "camera_turn_prob": 1.0,
        "n_offscreen": (6, 6),
    },
    {"fov_deg": 169.0, "turn_deg": (100.0, 100.0), "camera_turn_prob": 1.0, "image_height": 16},
    {"mode": "foa-static", "static_duration_s": (0.51, 0.51)},
]


@pytest.mark.parametrize("kw", BOUNDARY_CONFIGS)
def test_boundary_configs_generate(kw):
    """Every config at the edge of the valid space generates, and its scenes honour the config."""
    g = FoaQaGenerator()
    g.setup(FoaQaConfig(**kw, features=False, room=False, n_sources=(1, 2), max_concurrent=None))
    c = g.config
    for i in range(3):
        sample = _roundtrip(_draw(g, 11, i))
        assert g.check(sample) == []
        sc = sample["scene"]
        if c.mode == "qa":
            assert sc["duration_s"] == c.duration_s
        else:
            assert c.static_duration_s[0] - 0.005 <= sc["duration_s"] <= c.static_duration_s[1] + 0.005
        for s in sc["sources"]:
            assert 0 <= s["onset_s"] < s["offset_s"] <= sc["duration_s"]
            kf = np.asarray(s["keyframes"])
            assert np.all(kf[:, 3] >= c.distance_m[0] - 1e-3) and np.all(kf[:, 3] <= c.distance_m[1] + 1e-3)
            if c.mode == "qa":
                assert s["offset_s"] - s["onset_s"] >= 1.0 - 1e-9
                assert np.all(
                    (kf[:, 2] >= c.elevation_deg[0] - 0.01) & (kf[:, 2] <= c.elevation_deg[1] + 0.01)
                )
                if s["role"] == "foreground":
                    assert s["track"]["on_screen"][int(round(s["onset_s"] * 10))]


@pytest.mark.slow
def test_cli_boundary_config_generates_and_bad_values_exit_2(tmp_path):
    """A boundary config generates with two workers and a user bank whose broken file is reported
    once per run (not once per worker); bad values exit 2 before anything is written."""
    import os

    import soundfile as sf

    bank = tmp_path / "bank"
    for k, label in enumerate(("cat", "dog")):
        (bank / label).mkdir(parents=True)
        sf.write(str(bank / label / "x.wav"), 0.2 * np.random.default_rng(k).standard_normal(16000), 16000)
    (bank / "dog" / "broken.wav").write_bytes(b"RIFF not really a wave file")
    env = {k: v for k, v in os.environ.items() if k != "SIMKIT_SOUNDS_REPORTED"}
    run = [
        sys.executable,
        "-m",
        "simkit",
        "generate",
        "foa-qa",
        "--n",
        "4",
        "--no-progress",
        "--workers",
        "2",
    ]
    out = tmp_path / "edge"
    r = subprocess.run(
        run
        + [
            "--out",
            str(out),
            "--set",
            "duration_s=1.0",
            "--set",
            "max_concurrent=null",
            "--set",
            "distance_m=[0.3,0.8]",
            "--set",
            "elevation_deg=[20,89]",
            "--set",
            "features=false",
            "--set",
            f"sounds={bank}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in (r.stdout + r.stderr).splitlines() if "skipping" in ln and "broken.wav" in ln]
    assert len(lines) == 1, r.stdout + r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "simkit", "validate", str(out)], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0 and "PASS" in r.stdout, r.stdout + r.stderr
    bad = tmp_path / "bad"
    for setting, msg in (
        ("duration_s=0.6", "duration_s"),
        ("sounds=" + str(tmp_path / "missing"), "does not exist"),
    ):
        r = subprocess.run(
            run + ["--out", str(bad), "--set", setting], capture_output=True, text=True, timeout=300
        )
        assert r.returncode == 2 and msg in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert not bad.exists()  # refused during config validation, before anything is written


def test_check_compares_duration_with_the_config():
    """validate: the scene (and so the audio) length must match the config, not only the stored scene."""
    g2 = FoaQaGenerator()
    g2.setup(FoaQaConfig(duration_s=2.0, features=False, room=False, n_sources=(1, 1), n_offscreen=(0, 0)))
    sample = _roundtrip(_draw(g2, 0, 0))
    assert sample["foa"][0].shape[0] == 32000 and g2.check(sample) == []
    g3 = FoaQaGenerator()
    g3.config = FoaQaConfig(duration_s=3.0, features=False)  # what validate does with an edited corpus.json
    assert any("config duration_s 3.0" in p for p in g3.check(sample))
    gs = FoaQaGenerator()
    gs.setup(FoaQaConfig(mode="foa-static", static_duration_s=(1.0, 1.5), features=False, room=False))
    st = _roundtrip(_draw(gs, 0, 1))
    assert gs.check(st) == []
    gs.config = FoaQaConfig(mode="foa-static", static_duration_s=(2.0, 3.0), features=False)
    assert any("outside config static_duration_s [2.0, 3.0]" in p for p in gs.check(st))
    gs.config = FoaQaConfig(features=False)
    assert any("scene mode 'foa-static', config 'qa'" in p for p in gs.check(st))


@pytest.mark.slow
def test_cli_generate_validate_inspect(tmp_path):
    import soundfile as sf

    out = tmp_path / "foa"
    run = [sys.executable, "-m", "simkit"]
    r = subprocess.run(
        run + ["generate", "foa-qa", "--n", "3", "--out", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    r = subprocess.run(run + ["validate", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "PASS" in r.stdout, r.stdout + r.stderr
    tars = sorted((out / "shards").glob("*.tar"))
    with tarfile.open(tars[0]) as tf:
        flac = [m for m in tf.getmembers() if m.name.endswith(".foa.flac")]
        assert len(flac) == 3
        x, sr = sf.read(io.BytesIO(tf.extractfile(flac[0]).read()))
    assert x.shape == (48000, 4) and sr == 16000
    r = subprocess.run(
        run + ["inspect", str(out), "--samples", "2"], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    pngs = sorted((out / "inspect").glob("azimuth_*.png"))
    assert len(pngs) == 2 and pngs[0].stat().st_size > 10000


def test_motion_question_agrees_with_plural_sound_names():
    from simkit.generators.foa.generator import is_plural

    plural = ["footsteps", "church bells", "chirping birds", "brushing teeth", "sea waves", "insects"]
    singular = ["dog", "glass breaking", "sneezing", "siren", "bus", "clock tick", "rain"]
    assert all(map(is_plural, plural)) and not any(map(is_plural, singular))
    keys = [[0.0, 40.0, 0.0, 3.0], [3.0, -40.0, 0.0, 3.0]]
    qa = make_qa(_scene([("footsteps", 0.0, 3.0, keys), ("dog", 0.0, 3.0, keys)]))
    motion = {sid: _by(qa, "motion", sid)["question"] for sid in ("s0", "s1")}
    assert motion["s0"].startswith("How do the footsteps move while they are sounding? A. ")
    assert motion["s1"].startswith("How does the dog move while it is sounding? A. ")
    # the options and the answer agree too: "They move ..." for footsteps, "It moves ..." for the dog
    steps, dog = _by(qa, "motion", "s0"), _by(qa, "motion", "s1")
    assert steps["question"].count(" They ") == 4 and " It " not in steps["question"]
    assert steps["answer"] == f"{steps['structured']['choice']}. They move from left to right."
    assert dog["question"].count(" It ") == 4 and dog["answer"].endswith(". It moves from left to right.")
    where = _by(qa, "localization_3d", "s0")["question"]
    assert where.startswith("Where are the footsteps at ") and "Give their direction" in where
    assert _by(qa, "localization_3d", "s1")["question"].startswith("Where is the dog at ")
