"""FOA features (5 x 128 x T) and the intensity-vector DOA estimator."""

import numpy as np
import pytest

from simkit.renderers.foa import (
    PolarTrajectory,
    Source,
    Trajectory,
    direction_to_unit,
    estimate_doa,
    foa_features,
    mel_filterbank,
    n_frames,
    render_foa,
)
from simkit.renderers.foa.render import SPEED_OF_SOUND

FS = 16000


def _noise(n, seed=0):
    return np.random.default_rng(seed).standard_normal(n)


def _wrap(a):
    return (np.asarray(a) + 180.0) % 360.0 - 180.0


def test_mel_filterbank_shape_and_no_empty_band():
    fb = mel_filterbank()
    assert fb.shape == (128, 201)
    assert np.all(fb.sum(axis=1) > 0)
    assert np.all(fb <= 1.0) and np.all(fb >= 0.0)
    # band centres increase with the band index
    assert np.all(np.diff(np.argmax(fb, axis=1)) >= 0)


def test_feature_shape_and_plane_wave_values():
    n = 2 * FS
    az, el = np.radians(-70.0), np.radians(25.0)
    foa = render_foa(
        [Source(_noise(n), Trajectory.static(3 * direction_to_unit(az, el)))], FS, n, delay=False
    )
    f = foa_features(foa)
    assert f.shape == (5, 128, 1 + n // 160) == (5, 128, n_frames(n))
    assert f.dtype == np.float32
    u = direction_to_unit(az, el)  # (x, y, z)
    mid = f[:, :, 5:-5]
    np.testing.assert_allclose(mid[1], u[0], atol=1e-4)
    np.testing.assert_allclose(mid[2], u[1], atol=1e-4)
    np.testing.assert_allclose(mid[3], u[2], atol=1e-4)
    assert mid[4].max() < 1e-4  # one plane wave: not diffuse
    # log-mel of W: white noise of variance 1/9 (gain 1/3) has mel power ~ sum of weights * n_fft * 0.375 / 9
    fb = mel_filterbank()
    expect = np.log10(fb.sum(axis=1) * 400 * 0.375 / 9)
    measured = np.log10(np.mean(10.0 ** mid[0].astype(np.float64), axis=1))
    assert np.max(np.abs(measured - expect)) < 0.1


def test_diffuse_field_has_high_diffuseness():
    rng = np.random.default_rng(3)
    n = 2 * FS
    # isotropic field: independent channels with the SN3D diffuse-field energies (W: 1, X/Y/Z: 1/3)
    foa = rng.standard_normal((n, 4)) * np.array([1.0, 3**-0.5, 3**-0.5, 3**-0.5])
    f = foa_features(foa, smooth_frames=9)
    assert np.median(f[4]) > 0.8
    assert np.max(np.abs(f[1:4].mean(axis=2))) < 0.1  # no mean energy flow in any band (201 frames)
    assert np.max(np.abs(f[1:4].mean(axis=(1, 2)))) < 0.01


def test_features_at_48k_are_computed_at_16k():
    n = 48000
    foa = render_foa([Source(_noise(n), Trajectory.static([0, 2, 0]))], 48000, n, delay=False)
    f = foa_features(foa, sr=48000)
    assert f.shape == (5, 128, 101) == (5, 128, n_frames(n, 48000))
    np.testing.assert_allclose(np.median(f[2, 10:100, 10:-10]), 1.0, atol=1e-2)  # +y: left
    with pytest.raises(ValueError):
        foa_features(np.zeros((100, 3)))


@pytest.mark.parametrize("az,el", [(0, 0), (45, 20), (135, -10), (-100, 35), (-170, 0), (90, -40)])
def test_doa_of_static_broadband_source_within_2_degrees(az, el):
    n = FS
    p = 2.5 * direction_to_unit(np.radians(az), np.radians(el))
    foa = render_foa([Source(_noise(n, az % 7), Trajectory.static(p))], FS, n)
    d = estimate_doa(foa)
    m = (d["time_s"] > 0.05) & (d["time_s"] < 0.95)
    assert np.max(np.abs(_wrap(d["azimuth_deg"][m] - az))) < 2.0
    assert np.max(np.abs(d["elevation_deg"][m] - el)) < 2.0


def test_doa_of_moving_sources_follows_the_trajectory_within_2_degrees():
    n = 3 * FS
    cases = [
        PolarTrajectory([0.0, 3.0], np.radians([80.0, -80.0]), np.radians(10.0), 2.0),  # left to right
        PolarTrajectory(
            [0.0, 1.5, 3.0],
            np.radians([150.0, -160.0, -100.0]),
            np.radians([0.0, 20.0, 0.0]),
            [3.0, 1.5, 4.0],
        ),  # behind, across +-180, changing distance and elevation
    ]
    for k, traj in enumerate(cases):
        foa = render_foa([Source(_noise(n, 10 + k), traj)], FS, n)
        d = estimate_doa(foa)
        t = d["time_s"]
        m = (t > 0.1) & (t < 2.9)
        # ground truth at the emission time of what is heard at t (propagation delay)
        p = traj.positions(t[m])
        p = traj.positions(t[m] - np.linalg.norm(p, axis=1) / SPEED_OF_SOUND)
        gt_az = np.degrees(np.arctan2(p[:, 1], p[:, 0]))
        gt_el = np.degrees(np.arctan2(p[:, 2], np.hypot(p[:, 0], p[:, 1])))
        assert np.max(np.abs(_wrap(d["azimuth_deg"][m] - gt_az))) < 2.0
        assert np.max(np.abs(d["elevation_deg"][m] - gt_el)) < 2.0
