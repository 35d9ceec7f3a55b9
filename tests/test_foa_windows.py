"""The per-step direct-path window (``DirectWindow``) against ``render_foa``: bit-identical samples."""

from __future__ import annotations

import numpy as np
import pytest
from navhelp import SMALL

from simkit.renderers.foa import ListenerPose, Source, Trajectory, render_foa
from simkit.renderers.foa.windows import DirectWindow, render_windows


def _reference(seg, fs, lis, yaw, src, gain, window, pad, r_min=0.3):
    """What render_windows computed for one window before the direct path existed."""
    listener = ListenerPose(position=Trajectory.static(lis), yaw=np.array([yaw]))
    source = Source(seg, Trajectory.static(src), gain=gain)
    return render_foa([source], fs, window + pad, listener, None, r_min=r_min)[pad:]


def test_direct_window_is_bit_identical_to_render_foa_over_random_poses():
    rng = np.random.default_rng(3)
    fs, window, pad = 16000, 4000, 800
    dw = DirectWindow(window, pad)
    if not dw.enabled:
        pytest.skip("numba disabled: render_windows takes render_foa itself")
    for k in range(200):
        seg = rng.standard_normal(window + pad)
        # distances from 0 (source at the ear) to 15 m, r_min edge included
        r = 0.0 if k == 0 else (0.3 if k == 1 else rng.uniform(0.0, 15.0))
        ang = rng.uniform(-np.pi, np.pi)
        lis = (rng.uniform(0, 8), rng.uniform(0, 6), 1.5)
        src = (lis[0] + r * np.cos(ang), lis[1] + r * np.sin(ang), 1.5 if k < 2 else rng.uniform(0.3, 1.5))
        yaw, gain = rng.uniform(-np.pi, np.pi), float(10 ** (-rng.integers(0, 3) / 2))
        got = dw.render(seg, fs, lis, yaw, src, gain)
        want = _reference(seg, fs, lis, yaw, src, gain, window, pad)
        assert got.shape == (window, 4)
        assert got.tobytes() == want.tobytes(), k


def test_direct_window_edge_reads_match_when_the_delay_reaches_the_pad():
    """Delays beyond the pad (long paths, short pad) make the first kept samples read before the
    signal's start: the kernel's edge form and silence, reproduced sample for sample."""
    rng = np.random.default_rng(5)
    fs, window, pad = 16000, 256, 8
    dw = DirectWindow(window, pad)
    if not dw.enabled:
        pytest.skip("numba disabled")
    for r in (0.05, 0.2, 0.5, 1.0, 3.0):  # 2.3 .. 140 samples of delay against an 8-sample pad
        seg = rng.standard_normal(window + pad)
        lis, src = (1.0, 1.0, 1.5), (1.0 + r, 1.0, 1.5)
        got = dw.render(seg, fs, lis, 0.3, src, 1.0)
        want = _reference(seg, fs, lis, 0.3, src, 1.0, window, pad)
        assert got.tobytes() == want.tobytes(), r
    # a delay longer than the window: everything kept is silence
    got = dw.render(seg, fs, (0.0, 0.0, 1.5), 0.0, (30.0, 0.0, 1.5), 1.0)
    assert not got.any()


def test_render_windows_direct_path_keeps_the_bytes_and_the_room_path():
    from simkit.renderers.foa import ShoeboxRoom

    rng = np.random.default_rng(0)
    fs, win, pad, n = 16000, 1600, 800, 6
    poses = np.stack([rng.uniform(1, 7, n), rng.uniform(1, 5, n), rng.uniform(-3, 3, n)], 1)
    stem = rng.standard_normal(n * win + pad)
    src, gains = (4.0, 3.0, 1.0), rng.uniform(0.1, 1.0, n)
    room = ShoeboxRoom((8.0, 6.0, 3.0), absorption=0.5, max_order=1)
    rooms = [None, room, None, None, room, None]
    out = render_windows(stem, fs, poses, src, win, gains=gains, rooms=rooms, pad=pad)
    for k in range(n):
        lis = ListenerPose(position=Trajectory.static((*poses[k, :2], 1.5)), yaw=np.array([poses[k, 2]]))
        s = Source(stem[k * win : (k + 1) * win + pad], Trajectory.static(src), gain=float(gains[k]))
        want = render_foa([s], fs, win + pad, lis, rooms[k])[pad:]
        assert out[k * win : (k + 1) * win].tobytes() == want.tobytes(), k


def test_env_without_numba_takes_render_foa_and_agrees_to_1e12(monkeypatch):
    """With the kernels disabled the env's window comes from render_foa's numpy path (its own rounding):
    the same observation within the numpy/compiled tolerance of tests/test_foa_renderer.py."""
    from simkit.envs.nav.env import FoaNavEnv
    from simkit.renderers.foa import _kernels

    acts = [1, 1, 2, 1, 3, 1, 1]

    def run():
        env = FoaNavEnv(**SMALL)
        obs = [env.reset(seed=4)[0]["foa"]] + [env.step(a)[0]["foa"] for a in acts]
        return env, np.stack(obs)

    monkeypatch.delenv("SIMKIT_FOA_NUMBA", raising=False)
    _kernels.path_kernel.cache_clear()
    env, fast = run()
    assert env._direct.enabled
    monkeypatch.setenv("SIMKIT_FOA_NUMBA", "0")
    _kernels.path_kernel.cache_clear()
    try:
        env, slow = run()
        assert not env._direct.enabled
        with pytest.raises(RuntimeError, match="needs the compiled kernels"):
            env._direct.render(np.zeros(2400), 16000, (0.0, 0.0, 1.5), 0.0, (1.0, 0.0, 1.5), 1.0)
    finally:
        monkeypatch.delenv("SIMKIT_FOA_NUMBA")
        _kernels.path_kernel.cache_clear()
    assert np.max(np.abs(fast)) > 1e-4
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)
