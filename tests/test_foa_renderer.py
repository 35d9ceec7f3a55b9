"""FOA renderer: encoding, rotation, distance law, delay/Doppler, interpolation, rooms, mixing."""

import numpy as np
import pytest
import scipy.special

from simkit.renderers.foa import (
    ListenerPose,
    PolarTrajectory,
    ShoeboxRoom,
    Source,
    Trajectory,
    acn_sn3d_to_fuma,
    ambient_bed,
    direction_to_unit,
    fuma_to_acn_sn3d,
    render_foa,
    rotate_foa,
    rotate_listener,
    rotation_matrix,
    scale_to_snr,
    seed_camera_to_listener,
    sn3d_gains,
    snr_db,
    unit_to_direction,
)
from simkit.renderers.foa.render import SPEED_OF_SOUND

FS = 16000


def _noise(n, seed=0):
    return np.random.default_rng(seed).standard_normal(n)


def _spaudiopy_sn3d(az, el):
    """Real SN3D first-order gains from spaudiopy's N3D real spherical harmonics (ACN order)."""
    if not hasattr(scipy.special, "sph_harm"):  # spaudiopy calls the API that scipy 1.15+ renamed
        scipy.special.sph_harm = lambda m, n, azi, zen: scipy.special.sph_harm_y(n, m, zen, azi)
    import spaudiopy

    y = spaudiopy.sph.sh_matrix(1, az, np.pi / 2 - el, "real")  # orthonormal (N3D / sqrt(4 pi))
    return y * np.sqrt(4 * np.pi) / np.sqrt([1.0, 3.0, 3.0, 3.0])


def test_sn3d_gains_match_spaudiopy():
    rng = np.random.default_rng(1)
    az = rng.uniform(-np.pi, np.pi, 50)
    el = rng.uniform(-np.pi / 2, np.pi / 2, 50)
    np.testing.assert_allclose(sn3d_gains(az, el), _spaudiopy_sn3d(az, el), atol=1e-12)
    # the axes: ahead = X, left = Y, up = Z
    np.testing.assert_allclose(sn3d_gains(0.0, 0.0), [1, 0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(sn3d_gains(np.pi / 2, 0.0), [1, 1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(sn3d_gains(0.0, np.pi / 2), [1, 0, 1, 0], atol=1e-15)


def test_plane_wave_gives_sn3d_gains_of_its_direction():
    s = _noise(4000)
    for az, el in [(30, 10), (-120, -35), (175, 60)]:
        u = direction_to_unit(np.radians(az), np.radians(el))
        out = render_foa([Source(s, Trajectory.static(5 * u), plane_wave=True)], FS, 4000)
        g = out.T @ s / (s @ s)  # least-squares gain of each channel
        np.testing.assert_allclose(g, sn3d_gains(np.radians(az), np.radians(el)), atol=1e-12)


def test_direction_round_trip_and_seed_frame():
    az, el = np.radians([10.0, -170.0, 90.0]), np.radians([0.0, 45.0, -30.0])
    a2, e2 = unit_to_direction(direction_to_unit(az, el))
    np.testing.assert_allclose(a2, az, atol=1e-12)
    np.testing.assert_allclose(e2, el, atol=1e-12)
    # the seed's camera looks along +y with +x to the right: its +y is our +x (ahead), its +x our -y (right)
    np.testing.assert_allclose(seed_camera_to_listener([0, 1, 0]), [1, 0, 0])
    np.testing.assert_allclose(seed_camera_to_listener([1, 0, 0]), [0, -1, 0])


def test_fuma_conversion():
    x = _noise(400).reshape(100, 4)
    f = acn_sn3d_to_fuma(x)
    np.testing.assert_allclose(f[:, 0], x[:, 0] / np.sqrt(2))
    np.testing.assert_allclose(f[:, 1:], x[:, [3, 1, 2]])  # FuMa X, Y, Z
    np.testing.assert_allclose(fuma_to_acn_sn3d(f), x, atol=1e-15)
    with pytest.raises(ValueError):
        acn_sn3d_to_fuma(np.zeros((10, 3)))


def test_listener_yaw_plus_90_moves_frontal_source_to_minus_90():
    s = _noise(3200)
    src = Source(s, Trajectory.static([2.0, 0.0, 0.0]))
    front = render_foa([src], FS, 3200, delay=False)
    turned = render_foa([src], FS, 3200, ListenerPose(yaw=np.radians(90.0)), delay=False)
    g = turned.T @ s / (s @ s)
    np.testing.assert_allclose(g, 0.5 * sn3d_gains(np.radians(-90.0), 0.0), atol=1e-12)
    # the same by rotating the rendered field
    np.testing.assert_allclose(rotate_listener(front, np.radians(90.0)), turned, atol=1e-12)


def test_rotation_matrix_axes_and_pitch_roll():
    r = rotation_matrix(np.radians(90.0))
    np.testing.assert_allclose(r @ [1, 0, 0], [0, 1, 0], atol=1e-12)  # +yaw turns ahead to the left
    r = rotation_matrix(0.0, np.radians(30.0))
    np.testing.assert_allclose(r @ [1, 0, 0], [np.cos(np.radians(30)), 0, np.sin(np.radians(30))], atol=1e-12)
    r = rotation_matrix(0.0, 0.0, np.radians(90.0))
    np.testing.assert_allclose(r @ [0, 1, 0], [0, 0, 1], atol=1e-12)  # +roll lifts the left ear
    rr = rotation_matrix(*np.random.default_rng(0).uniform(-3, 3, 3))
    np.testing.assert_allclose(rr @ rr.T, np.eye(3), atol=1e-12)
    x = _noise(40).reshape(10, 4)
    np.testing.assert_allclose(rotate_foa(rotate_foa(x, rr), rr.T), x, atol=1e-12)
    # a listener pitched up by 30 deg hears a source straight ahead at elevation -30 deg
    s = _noise(800)
    out = render_foa(
        [Source(s, Trajectory.static([3, 0, 0]))], FS, 800, ListenerPose(pitch=np.radians(30)), delay=False
    )
    g = out.T @ s / (s @ s)
    np.testing.assert_allclose(g, sn3d_gains(0.0, np.radians(-30)) / 3, atol=1e-12)


def test_inverse_distance_law_and_r_min():
    s = _noise(2000)

    def w_gain(r, **kw):
        out = render_foa([Source(s, Trajectory.static([0, r, 0]), gain=2.0)], FS, 2000, delay=False, **kw)
        return out[:, 0] @ s / (s @ s)

    assert w_gain(1.0) == pytest.approx(2.0, rel=1e-12)
    assert w_gain(1.0) / w_gain(4.0) == pytest.approx(4.0, rel=1e-12)
    assert w_gain(0.1, r_min=0.3) == pytest.approx(2.0 / 0.3, rel=1e-12)


def test_propagation_delay_of_a_low_tone():
    n = 8000
    t = np.arange(n) / FS
    f = 200.0
    r = 7.3
    out = render_foa([Source(np.sin(2 * np.pi * f * t), Trajectory.static([r, 0, 0]))], FS, n, r_min=0.1)
    want = np.sin(2 * np.pi * f * (t - r / SPEED_OF_SOUND)) / r
    sl = slice(1000, 7000)
    np.testing.assert_allclose(out[sl, 0], want[sl], atol=2e-4 / r)


def test_doppler_shift_of_an_approaching_source():
    n = 3 * FS
    t = np.arange(n) / FS
    f0, v = 1000.0, 20.0
    traj = Trajectory([0.0, 3.0], [[80.0, 0.5, 0], [80.0 - 3 * v, 0.5, 0]])  # approaching along -x
    out = render_foa([Source(np.sin(2 * np.pi * f0 * t), traj)], FS, n)
    from scipy.signal import hilbert

    ph = np.unwrap(np.angle(hilbert(out[:, 0])))
    inst = np.diff(ph) * FS / (2 * np.pi)
    measured = np.median(inst[FS : 2 * FS])
    # received s(t - r(t)/c): f = f0 (1 - dr/dt / c) (first-order Doppler, reception-time delay)
    assert measured == pytest.approx(f0 * (1 + v / SPEED_OF_SOUND), abs=0.5)


def test_block_interpolation_matches_per_sample_gains():
    n = 16000
    s = np.sin(2 * np.pi * 440 * np.arange(n) / FS)
    traj = PolarTrajectory([0.0, 1.0], np.radians([90, -90]), 0.0, 2.0)  # 180 deg in one second
    exact = render_foa([Source(s, traj)], FS, n, block=1)
    blocky = render_foa([Source(s, traj)], FS, n, block=32)
    assert np.max(np.abs(exact - blocky)) < 1e-5
    # no zipper: the sample-to-sample change of the Y gain stays tiny (smooth ramps)
    dc = render_foa([Source(np.ones(n), traj)], FS, n, block=64, delay=False)
    assert np.max(np.abs(np.diff(dc[:, 1]))) < 0.5 * np.pi / FS * 1.01  # max of d/dt 0.5 sin(az(t))


def test_static_rir_path_equals_time_varying_path():
    s = _noise(8000, 3)
    room = ShoeboxRoom((5.0, 4.0, 3.0), 0.3, 2)
    lis = ListenerPose(position=Trajectory.static([1.0, 1.0, 1.2]))
    p = np.array([3.0, 2.5, 1.5])
    a = render_foa([Source(s, Trajectory.static(p))], FS, 8000, lis, room)
    b = render_foa([Source(s, Trajectory([0.0, 1.0], [p, p + 1e-12]))], FS, 8000, lis, room)
    np.testing.assert_allclose(a, b, atol=1e-8)


def test_image_sources_match_pyroomacoustics():
    import pyroomacoustics as pra

    dims, src, mic = [6.0, 4.5, 3.2], [4.1, 1.3, 1.7], [1.2, 2.9, 1.4]
    for order in (1, 2, 3):
        pr = pra.ShoeBox(dims, fs=FS, materials=pra.Material(0.25), max_order=order)
        pr.add_source(src)
        pr.add_microphone(mic)
        pr.image_source_model()
        ref = pr.sources[0]
        pos, amp, orders = ShoeboxRoom(tuple(dims), 0.25, order).image_sources(src)
        assert pos.shape[0] == ref.images.shape[1]
        for p, a, o in zip(pos, amp, orders):
            d = np.linalg.norm(ref.images.T - p, axis=1)
            j = int(np.argmin(d))
            assert d[j] < 1e-4 and ref.orders[j] == o
            assert ref.damping[0, j] == pytest.approx(a, rel=1e-5)


def test_image_source_delays_match_the_geometry():
    """An impulse in a room: each first-order reflection arrives at |image - listener| / c with
    gain beta / r, encoded from the image's direction."""
    room = ShoeboxRoom((5.0, 4.0, 3.0), (0.1, 0.2, 0.3, 0.4, 0.5, 0.6), 1)
    lp, sp = np.array([1.0, 1.5, 1.0]), np.array([3.5, 2.0, 2.0])
    n = 2000
    imp = np.zeros(n)
    imp[0] = 1.0
    out = render_foa(
        [Source(imp, Trajectory.static(sp))],
        FS,
        n,
        ListenerPose(position=Trajectory.static(lp)),
        room,
        r_min=0.01,
    )
    pos, amp, _ = room.image_sources(sp)
    delays = np.linalg.norm(pos - lp, axis=1) / SPEED_OF_SOUND * FS
    checked = 0
    for p, a, d in zip(pos, amp, delays):
        if np.sum(np.abs(delays - d) < 5) > 1:
            continue  # overlapping arrivals cannot be read apart
        checked += 1
        v = p - lp
        r = np.linalg.norm(v)
        i = int(np.floor(d))
        # the 4 Lagrange taps around the delay carry the path: their sum = gain, their centroid = delay
        taps = out[i - 1 : i + 3, 0]
        assert taps.sum() == pytest.approx(a / r, rel=1e-9)
        assert (np.arange(i - 1, i + 3) @ taps) / taps.sum() == pytest.approx(d, abs=1e-9)
        u = v / r
        np.testing.assert_allclose(out[i - 1 : i + 3, [3, 1, 2]].sum(axis=0), a / r * u, atol=1e-12)
    assert checked >= 5
    # wall x=0 (alpha 0.1) and x=Lx (alpha 0.2): beta = sqrt(1 - alpha)
    assert sorted(np.round(amp, 12))[-2] == pytest.approx(np.sqrt(0.9))


def test_diffuse_tail_energy_and_decay():
    rt60 = 0.5
    room = ShoeboxRoom((6.0, 5.0, 3.0), 0.3, 0, rt60=rt60)
    n = FS
    imp = np.zeros(n)
    imp[0] = 1.0
    out = render_foa(
        [Source(imp, Trajectory.static([3.0, 2.5, 1.5]))],
        FS,
        n,
        ListenerPose(position=Trajectory.static([1.0, 1.0, 1.5])),
        room,
        delay=False,
        rng=np.random.default_rng(0),
    )
    tail = out[3:, 0]
    area = 0.161 * room.volume / rt60
    assert np.sum(tail**2) == pytest.approx(16 * np.pi / area, rel=1e-2)  # Sabine diffuse energy, t0 = direct
    # Schroeder backward integral: the 5..35 dB decay rate gives RT60 (T30 x 2)
    edc = 10 * np.log10(np.cumsum(tail[::-1] ** 2)[::-1] / np.sum(tail**2))
    t = np.arange(edc.size) / FS
    sel = (edc < -5) & (edc > -35)
    slope = np.polyfit(t[sel], edc[sel], 1)[0]
    assert -60.0 / slope == pytest.approx(rt60, rel=0.05)
    # diffuse: W carries 3x the energy of each first-order channel
    assert np.sum(out[3:, 3] ** 2) / np.sum(tail**2) == pytest.approx(1 / 3, rel=0.05)


def test_interferer_snr_within_a_tenth_of_a_db():
    s = _noise(FS, 5)
    target = render_foa([Source(s, PolarTrajectory([0, 1], np.radians([40, -40]), 0.1, 3.0))], FS, FS)
    itf = render_foa([Source(_noise(FS, 6), Trajectory.static([0, -1, 0]), plane_wave=True)], FS, FS)
    for snr in (20.0, 15.0, 10.0, 5.0, 0.0):
        scaled, g = scale_to_snr(target, itf, snr)
        assert abs(snr_db(target, scaled) - snr) < 0.1
        # an independent measure: 10 log10 of mean square pressures
        assert 10 * np.log10(np.mean(target[:, 0] ** 2) / np.mean((g * itf[:, 0]) ** 2)) == pytest.approx(
            snr, abs=0.1
        )


def test_ambient_bed_is_nearly_diffuse():
    x = _noise(3 * FS, 7)
    bed = ambient_bed(x, 3 * FS, np.random.default_rng(0), n_directions=4)
    assert np.mean(bed[:, 0] ** 2) == pytest.approx(np.mean(x**2), rel=0.05)
    intensity = np.mean(bed[:, 0:1] * bed[:, [3, 1, 2]], axis=0)
    assert np.linalg.norm(intensity) < 0.05 * np.mean(bed[:, 0] ** 2)


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        Trajectory([0.0, 0.0], [[0, 0, 0], [1, 1, 1]])
    with pytest.raises(ValueError):
        ShoeboxRoom((5, 4, 3), 1.0)
    with pytest.raises(ValueError):
        render_foa(
            [Source(np.ones(10), Trajectory.static([1, 0, 0]))],
            FS,
            10,
            room=ShoeboxRoom((5, 4, 3), 0.3, 1, rt60=0.3),
        )


def test_compiled_kernel_matches_numpy_path(monkeypatch):
    from simkit.renderers.foa import _kernels

    monkeypatch.delenv("SIMKIT_FOA_NUMBA", raising=False)
    _kernels.path_kernel.cache_clear()
    if _kernels.path_kernel() is None:
        pytest.fail("numba is part of the test environment (spaudiopy -> resampy); the kernel must load")
    s = _noise(9000, 4)
    lis = ListenerPose(
        position=Trajectory([0.0, 1.0], [[1.0, 1.0, 1.2], [2.0, 1.5, 1.2]]),
        yaw_times=[0.0, 1.0],
        yaw=[0.0, 1.0],
    )
    srcs = [
        Source(
            s,
            PolarTrajectory([0.0, 1.0], np.radians([30, 150]), 0.2, [1.0, 2.5], origin=[2.5, 2.0, 1.4]),
            onset=0.1,
        ),
        Source(s[:3000], Trajectory.static([3.5, 3.0, 2.0]), gain=0.3, onset=-0.05),
        Source(s, Trajectory.static([0.0, 1.0, 0.0]), plane_wave=True),
    ]
    room = ShoeboxRoom((5.0, 4.0, 3.0), 0.3, 1)
    for delay in (True, False):
        fast = render_foa(srcs, FS, FS, lis, room, delay=delay)
        monkeypatch.setenv("SIMKIT_FOA_NUMBA", "0")
        _kernels.path_kernel.cache_clear()
        slow = render_foa(srcs, FS, FS, lis, room, delay=delay)
        monkeypatch.delenv("SIMKIT_FOA_NUMBA")
        _kernels.path_kernel.cache_clear()
        assert np.max(np.abs(fast)) > 0.01
        np.testing.assert_allclose(fast, slow, atol=1e-12)


def test_compiled_kernel_matches_numpy_path_order_2_static_listener(monkeypatch):
    """The batched compiled path (one kernel call per source, all its image paths) against numpy."""
    from simkit.renderers.foa import _kernels

    s = _noise(6000, 5)
    lis = ListenerPose(position=Trajectory.static([2.0, 1.6, 1.3]), yaw_times=[0.0], yaw=[0.7])
    srcs = [
        Source(s, Trajectory([0.0, 0.35], [[0.6, 0.5, 1.0], [4.2, 3.1, 2.1]]), gain=0.7),
        Source(s[:2500], Trajectory.static([3.5, 3.0, 2.0]), gain=0.3, onset=0.02),
    ]
    room = ShoeboxRoom((5.0, 4.0, 3.0), (0.2, 0.3, 0.4, 0.5, 0.1, 0.6), 2)
    for delay in (True, False):
        monkeypatch.delenv("SIMKIT_FOA_NUMBA", raising=False)
        _kernels.path_kernel.cache_clear()
        fast = render_foa(srcs, FS, 6400, lis, room, delay=delay)
        monkeypatch.setenv("SIMKIT_FOA_NUMBA", "0")
        _kernels.path_kernel.cache_clear()
        slow = render_foa(srcs, FS, 6400, lis, room, delay=delay)
        monkeypatch.delenv("SIMKIT_FOA_NUMBA")
        _kernels.path_kernel.cache_clear()
        assert np.max(np.abs(fast)) > 0.01
        np.testing.assert_allclose(fast, slow, atol=1e-12)


def _reference_image_render(sig, pts_at, lis, room, n, block=32):
    """A straightforward image-source renderer (static listener at ``lis``, no rotation): for every image
    path, gains and delay at each block edge from the geometry, ramped linearly sample by sample, and
    the signal read at ``j - delay`` with the 4-point Lagrange weights written out (Laakso et al. 1996,
    eq. 42); every path and sample in plain Python loops."""
    nb = -(-n // block)
    out = np.zeros((n, 4))
    edges = np.arange(nb + 1) * block / FS
    img = np.array([room.image_sources(pts_at(t))[0] for t in edges])  # (E, M, 3)
    _, amp, _ = room.image_sources(pts_at(0.0))
    for m in range(amp.size):
        v = img[:, m] - lis
        r = np.linalg.norm(v, axis=1)
        g = (
            np.column_stack([np.ones_like(r), v[:, 1] / r, v[:, 2] / r, v[:, 0] / r])
            * (amp[m] / np.maximum(r, 0.3))[:, None]
        )
        dl = r / SPEED_OF_SOUND * FS
        for j in range(n):
            k, f = divmod(j, block)
            gj = g[k] + (g[k + 1] - g[k]) * (f / block)
            pos = j - (dl[k] + (dl[k + 1] - dl[k]) * (f / block))
            i = int(np.floor(pos))
            d = pos - i
            h = (-d * (d - 1) * (d - 2) / 6, (d + 1) * (d - 1) * (d - 2) / 2, -(d + 1) * d * (d - 2) / 2)
            h += ((d + 1) * d * (d - 1) / 6,)
            s = sum(hk * sig[i - 1 + t] for t, hk in enumerate(h) if 0 <= i - 1 + t < sig.size)
            out[j] += s * gj
    return out


@pytest.mark.parametrize("travel_s", [None, 1.0, 0.075])
def test_image_source_kernels_match_a_straightforward_reference(travel_s):
    """The compiled image-source paths (static: time-domain taps; moving: the path kernel with contiguous
    reads) against a plain per-path, per-sample image-source renderer, order 2 in a small room. A source
    crossing 2.3 m in 1 s changes a delay's integer part at most once per block (two contiguous runs),
    in 75 ms several times (gathers)."""
    from simkit.renderers.foa import _kernels

    if _kernels.static_kernel() is None or _kernels.path_kernel() is None:
        pytest.fail("numba is part of the test environment; the kernels must load")
    n = 1200
    s = _noise(n, 11)
    lis = np.array([1.3, 1.1, 1.2])
    room = ShoeboxRoom((3.0, 2.5, 2.4), (0.2, 0.3, 0.4, 0.5, 0.1, 0.6), 2)
    a, b = np.array([2.2, 0.6, 1.5]), np.array([0.5, 2.0, 0.9])
    traj = Trajectory([0.0, travel_s], [a, b]) if travel_s else Trajectory.static(a)
    got = render_foa([Source(s, traj)], FS, n, ListenerPose(position=Trajectory.static(lis)), room)
    want = _reference_image_render(s, lambda t: traj.positions([t])[0], lis, room, n)
    assert np.max(np.abs(want)) > 0.1
    np.testing.assert_allclose(got, want, atol=1e-12)
