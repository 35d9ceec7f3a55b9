"""foa-qa label audibility: octave-band reverberation, DRR labels against the rendered audio, concurrency,
the onset-weighted DOA check on a small default corpus, and the unwrapped azimuth plot."""

import re
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("scipy")

from simkit.generators.foa.director import (
    DirectorFailed,
    DirectorParams,
    _draw_counts,
    _draw_room,
    direct_scene,
    measure_audibility,
    motion_of,
    timeline_capacity,
    track_from_scene,
)
from simkit.renderers.foa import (
    OCTAVE_BANDS_HZ,
    ListenerPose,
    PolarTrajectory,
    ShoeboxRoom,
    Source,
    estimate_direction,
    render_foa,
)
from simkit.renderers.foa.room import band_shares

FS = 16000


def _band_rt60(h: np.ndarray, fs: int) -> list[float]:
    """RT60 per octave band of an impulse response: 6th-order Butterworth octave band-pass (IEC 61260 style),
    Schroeder backward integration, decay from -5 to -20 dB extrapolated to 60 dB (ISO 3382 T15)."""
    from scipy.signal import butter, sosfilt

    out = []
    for fc in OCTAVE_BANDS_HZ:
        sos = butter(6, [fc / np.sqrt(2), fc * np.sqrt(2)], btype="bandpass", fs=fs, output="sos")
        x = sosfilt(sos, h)
        edc = np.cumsum(x[::-1] ** 2)[::-1]
        edc_db = 10 * np.log10(edc / edc[0] + 1e-30)
        i5, i20 = np.argmax(edc_db <= -5), np.argmax(edc_db <= -20)
        out.append(4.0 * (i20 - i5) / fs)
    return out


def test_octave_band_tail_decays_with_each_bands_rt60():
    """An impulse through a tail-only room: the W response's RT60 per octave band (ISO 3382 T15 estimate)
    falls with frequency as the room's ``rt60_bands`` do and lies within 20 % of them (the crossovers are
    an octave wide, so a band's measured decay borrows a little of its slower neighbour's), and its energy
    matches Sabine per band within 5 %."""
    bands = (0.9, 0.7, 0.5, 0.4, 0.3, 0.25)
    room = ShoeboxRoom((6.0, 5.0, 3.0), 0.2, 0, None, (-3.0, -2.5, -1.5), rt60_bands=bands)
    assert room.rt60 == pytest.approx(0.45)
    imp = np.zeros(FS)
    imp[0] = 1.0
    src = Source(imp, PolarTrajectory([0.0], [0.0], [0.0], [1.0]), plane_wave=False)
    out = render_foa([src], FS, 2 * FS, ListenerPose(), room, delay=False, rng=np.random.default_rng(0))
    tail = out[1:, 0]  # the direct sound is sample 0 (no delay)
    got = _band_rt60(tail, FS)
    for b, (g, want) in enumerate(zip(got, bands)):
        assert g == pytest.approx(want, rel=0.2), (OCTAVE_BANDS_HZ[b], g, want)
    assert all(np.diff(got) < 0), got
    want_energy = float(np.sum(room.tail_band_energies(0.0, 0.0) * band_shares(FS)))
    assert float(np.sum(tail**2)) == pytest.approx(want_energy, rel=0.05)
    assert room.critical_distance() == pytest.approx(np.sqrt(0.161 * room.volume / 0.45 / (16 * np.pi)))


def test_room_materials_hit_the_drawn_mid_band_rt60():
    p = DirectorParams(materials=True, rt60_s=(0.2, 0.4), max_distance_rc=2.0)
    for i in range(20):
        rm = _draw_room(np.random.default_rng(i), p)
        bands = np.asarray(rm["rt60_bands_s"])
        assert 0.2 - 1e-3 <= rm["rt60_s"] <= 0.4 + 1e-3
        assert rm["rt60_s"] == pytest.approx(bands[2:4].mean(), abs=2e-3)
        assert np.ptp(bands) > 0.005  # frequency dependent
        size = np.asarray(rm["size_m"])
        assert rm["critical_distance_m"] == pytest.approx(
            np.sqrt(0.161 * np.prod(size) / rm["rt60_s"] / (16 * np.pi)), rel=2e-3
        )
        assert set(rm["materials"]) == {"x0", "x1", "y0", "y1", "floor", "ceiling"}


def _one_source_scene(dist: float, room: dict) -> dict:
    kf = [[0.0, 30.0, 0.0, dist]]
    scene = {
        "mode": "qa",
        "duration_s": 2.0,
        "camera": {"fov_deg": 90.0, "image_size": [640, 360], "yaw_keyframes": [[0.0, 0.0]]},
        "sources": [],
        "ambient": None,
        "interferers": [],
        "room": room,
    }
    s = {"id": "s0", "label": "engine", "role": "foreground", "lufs": -25.0, "onset_s": 0.0, "offset_s": 2.0}
    s["keyframes"] = kf
    s["track"] = track_from_scene(s, scene)
    s["motion"] = motion_of(s, scene)["motion"]
    scene["sources"].append(s)
    return scene


def test_recorded_drr_matches_the_rendered_audio():
    """The DRR label of a static noise source equals 20 log10(r_c / r) (Sabine) and the direct-to-reverberant
    energy ratio measured on the rendered W channel (room render minus free-field render) within 1 dB."""
    room = {
        "size_m": [7.0, 6.0, 3.0],
        "origin_m": [-3.5, -3.0, -1.5],
        "absorption": 0.25,
        "rt60_s": 0.5,
        "image_order": 0,
        "critical_distance_m": 0.0,
    }
    rc = ShoeboxRoom((7.0, 6.0, 3.0), 0.25, 0, 0.5).critical_distance()
    stem = np.random.default_rng(1).standard_normal(2 * FS) * 0.05
    for dist in (0.8, 1.6, 2.4):
        scene = _one_source_scene(dist, room)
        aud = measure_audibility(scene, [stem], np.zeros(2 * FS), FS, 6.0)["sources"][0]
        assert aud["drr_db"] == pytest.approx(20 * np.log10(rc / dist), abs=0.5)
        traj = PolarTrajectory([0.0], [np.radians(30.0)], [0.0], [dist])
        sroom = ShoeboxRoom((7.0, 6.0, 3.0), 0.25, 0, 0.5, (-3.5, -3.0, -1.5))
        wet = render_foa(
            [Source(stem, traj)], FS, 2 * FS, None, sroom, delay=False, rng=np.random.default_rng(2)
        )
        dry = render_foa([Source(stem, traj)], FS, 2 * FS, None, None, delay=False)
        k = slice(int(0.7 * FS), int(1.9 * FS))  # steady state
        measured = 10 * np.log10(np.sum(dry[k, 0] ** 2) / np.sum((wet - dry)[k, 0] ** 2))
        assert aud["drr_db"] == pytest.approx(measured, abs=1.0), dist
        assert aud["answerable"] == (aud["sir_db"] >= 6.0 and aud["drr_db"] >= -3.0)


def test_director_keeps_concurrency_distance_and_room_bounds():
    p = DirectorParams(
        labels=["a", "b", "c", "d", "e"],
        n_sources=(1, 3),
        n_offscreen=(1, 2),
        distance_m=(1.0, 4.0),
        max_distance_rc=2.0,
        materials=True,
        rt60_s=(0.2, 0.4),
        max_concurrent=2,
    )
    for i in range(30):
        try:
            sc = direct_scene(np.random.default_rng(i), p)
        except Exception as exc:  # DirectorFailed: the engine redraws
            assert "could not place" in str(exc)
            continue
        t = np.arange(0.0, 3.0, 0.01)
        active = sum((t >= s["onset_s"]) & (t < s["offset_s"]) for s in sc["sources"])
        assert active.max() <= 2
        rc = sc["room"]["critical_distance_m"]
        lo = np.asarray(sc["room"]["origin_m"])
        hi = lo + np.asarray(sc["room"]["size_m"])
        for s in sc["sources"]:
            assert s["offset_s"] - s["onset_s"] >= 1.0 - 1e-9
            assert max(s["track"]["distance_m"]) <= 2.0 * rc + 1e-3
            assert np.all(lo < 0) and np.all(hi > 0)  # the listener (origin) is inside the room


def _default_params(**kw) -> DirectorParams:
    """The director's parameters of the default foa-qa config (labels a-f), with ``kw`` replaced."""
    kw = {
        "labels": ["a", "b", "c", "d", "e", "f"],
        "n_sources": (1, 3),
        "n_offscreen": (1, 2),
        "distance_m": (1.0, 4.0),
        "max_distance_rc": 2.0,
        "materials": True,
        "rt60_s": (0.2, 0.4),
        "max_concurrent": 2,
        **kw,
    }
    return DirectorParams(**kw)


def test_timeline_capacity_counts_activities_per_lane():
    """Activities of 1.01 s (101 grid steps of 10 ms, the end point free): floor(3.00 / 1.01) = 2 per lane in
    3 s, 2 lanes -> 4; from 3.03 s 3 per lane (capped at the 5 sources a scene can have); a 1 s clip has room
    for none of 1.01 s but for 2 of exactly 1 s; 1.25 s activities: 2 per lane up to 3.74 s; no limit -> None."""
    p = _default_params()
    assert timeline_capacity(p, 3.0) == 4 and timeline_capacity(p, 3.02) == 4
    assert timeline_capacity(p, 3.03) == 5 and timeline_capacity(p, 3.0, slack=1.0) == 5
    assert timeline_capacity(_default_params(max_concurrent=3, n_offscreen=(1, 4)), 3.0) == 6
    assert timeline_capacity(p, 1.0) == 0 and timeline_capacity(p, 1.0, slack=1.0) == 2
    assert timeline_capacity(p, 3.7, slack=1.25) == 4
    assert timeline_capacity(_default_params(max_concurrent=None), 3.0) is None
    assert timeline_capacity(_default_params(mode="foa-static"), 3.0) is None


def test_source_counts_are_uniform_over_the_pairs_that_fit_the_timeline():
    """Default ranges (1-3 foreground, 1-2 off-screen, capacity 4): the five pairs with a total <= 4 each
    come 1/5 of the time (3 + 2 never); in 3.5 s all six come; a range where no pair fits keeps its draw
    (the director then tries it); so do activities of one length (a 2 s clip: 1 s each, which tile it),
    clips without a concurrency limit and static scenes (no off-screen sources)."""
    rng = np.random.default_rng(0)
    n = 6000
    pairs = [_draw_counts(rng, _default_params(), 3.0, False) for _ in range(n)]
    share = {c: pairs.count(c) / n for c in set(pairs)}
    assert set(share) == {(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)}
    assert all(abs(v - 0.2) < 0.02 for v in share.values()), share  # 4 sigma of a binomial share
    assert len({_draw_counts(rng, _default_params(), 3.5, False) for _ in range(300)}) == 6
    tight = _default_params(n_sources=(3, 3), n_offscreen=(2, 2))
    assert _draw_counts(rng, tight, 3.0, False) == (3, 2)
    short = _default_params(n_sources=(1, 2), n_offscreen=(1, 1))
    assert {_draw_counts(rng, short, 2.0, False) for _ in range(100)} == {(1, 1), (2, 1)}
    free = {_draw_counts(rng, _default_params(max_concurrent=None), 3.0, False) for _ in range(300)}
    assert (3, 2) in free and len(free) == 6
    assert {_draw_counts(rng, _default_params(), 3.0, True)[1] for _ in range(50)} == {0}


def test_director_places_every_default_scene():
    """With the counts drawn to fit the timeline, the director places every scene of the default ranges
    (foa-qa v6 failed about one in six, every 3 + 2 scene)."""
    p = _default_params()
    failed = 0
    for i in range(60):
        try:
            direct_scene(np.random.default_rng(i), p)
        except DirectorFailed:
            failed += 1
    assert failed == 0


def test_onset_weighted_direction_of_a_free_field_source():
    sig = np.random.default_rng(0).standard_normal(2 * FS)
    sig[: FS // 2] = 0.0  # onset at 0.5 s
    traj = PolarTrajectory([0.0], [np.radians(-140.0)], [np.radians(10.0)], [2.0])
    foa = render_foa([Source(sig, traj)], FS, 2 * FS, None, None)
    az, el, strength = estimate_direction(foa, FS, 0.7, 0.2)
    assert az == pytest.approx(-140.0, abs=2.0) and el == pytest.approx(10.0, abs=3.0) and strength > 0
    az, _, strength = estimate_direction(np.zeros((FS, 4)), FS, 0.5)
    assert np.isnan(az) and strength == 0.0


def _generate(tmp_path, name, n, *sets):
    out = tmp_path / name
    args = [sys.executable, "-m", "simkit", "generate", "foa-qa", "--n", str(n), "--out", str(out)]
    args += ["--workers", "1", "--no-progress", "--set", "features=false"]
    for s in sets:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    v = subprocess.run(
        [sys.executable, "-m", "simkit", "validate", str(out)], capture_output=True, text=True, timeout=900
    )
    m = re.search(r"label audibility: ([\d.]+) % of (\d+) direction labels", v.stdout)
    assert m, v.stdout + v.stderr
    return v, float(m.group(1)), int(m.group(2))


@pytest.mark.slow
def test_default_corpus_direction_labels_are_audible_and_hard_settings_are_not(tmp_path):
    """A small default corpus passes validate with >= 90 % of its direction labels within 20 deg of the
    DOA estimated from its own audio (the documented full-size rate is in docs/foa.md); the v2 (hard)
    settings, still reachable by config, make labels the audio does not support (validate only reports
    them: dominance_db null)."""
    v, rate, n = _generate(tmp_path, "default", 10)
    assert "PASS" in v.stdout and n >= 8 and rate >= 90.0, v.stdout
    hard = (
        "dominance_db=null",
        "max_concurrent=null",
        "max_distance_rc=null",
        "materials=false",
        "n_sources=[1,4]",
        "n_offscreen=[2,4]",
        "distance_m=[1,6]",
        "rt60_s=[0.2,0.6]",
        "ambient_lufs=[-48,-38]",
    )
    v, rate_hard, n_hard = _generate(tmp_path, "hard", 4, *hard)
    assert "PASS" in v.stdout and n_hard >= 8 and rate_hard < 60.0, v.stdout


def test_unwrapped_azimuth_tracks_never_cross_the_plot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simkit.generators.foa.generator import _azimuth_figure, unwrapped_copies

    az = np.array([150.0, 170.0, -170.0, -150.0, -130.0])  # crosses +-180 deg
    copies = unwrapped_copies(az)
    assert np.allclose(copies[1], [150, 170, 190, 210, 230]) and np.allclose(copies[0], copies[1] - 360)
    # a scene whose source circles behind the listener, plus its (silent) audio
    scene = {
        "mode": "qa",
        "duration_s": 2.0,
        "camera": {
            "fov_deg": 90.0,
            "image_size": [640, 360],
            "yaw_keyframes": [[0.0, 0.0]],
            "turn": {"direction": "none"},
        },
        "sources": [],
    }
    s = {"id": "s0", "label": "bell", "role": "offscreen", "onset_s": 0.0, "offset_s": 2.0}
    s["keyframes"] = [[0.0, 140.0, 0.0, 2.0], [2.0, 220.0, 0.0, 2.0]]
    s["track"] = track_from_scene(s, scene)
    scene["sources"].append(s)
    assert np.ptp(s["track"]["azimuth_deg"]) > 300  # the stored track wraps
    qa = [{"kind": "direction", "source_id": "s0", "structured": {"time_s": 1.0}}]
    fig = _azimuth_figure(plt, scene, (np.zeros((2 * FS, 4)), FS), qa, "k")
    ax = fig.axes[0]
    for line in ax.lines:
        y = np.asarray(line.get_ydata(), float)
        y = y[np.isfinite(y)]
        if y.size > 1:
            assert np.max(np.abs(np.diff(y))) <= 30.0  # no segment jumps across the plot
    fig.canvas.draw()
    legend_box = ax.get_legend().get_window_extent()
    assert legend_box.x0 >= ax.get_window_extent().x1  # the legend sits beside the data, not on it
    plt.close(fig)
