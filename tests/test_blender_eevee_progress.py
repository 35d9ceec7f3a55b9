"""Long renders: EEVEE's up-front estimate on a CPU machine and the per-frame progress lines (EEVEE, Cycles)."""

import pytest

from simkit.renderers.blender.session import (
    EEVEE_CPU_FRAME_FLOOR,
    EEVEE_CPU_REF_SECONDS,
    FrameProgress,
    eevee_cpu_seconds_per_frame,
    eevee_cpu_warning,
)


def test_estimate_scales_with_pixels_samples_and_cores():
    assert eevee_cpu_seconds_per_frame(1280, 720, 16, cores=2) == pytest.approx(EEVEE_CPU_REF_SECONDS)
    assert eevee_cpu_seconds_per_frame(2560, 1440, 16, cores=2) == pytest.approx(4 * EEVEE_CPU_REF_SECONDS)
    assert eevee_cpu_seconds_per_frame(1280, 720, 32, cores=8) == pytest.approx(EEVEE_CPU_REF_SECONDS / 2)
    assert eevee_cpu_seconds_per_frame(32, 18, 1, cores=2) == EEVEE_CPU_FRAME_FLOOR


def test_warning_names_the_estimate_and_the_alternatives():
    msg = eevee_cpu_warning(1280, 720, 16, 120)
    per = eevee_cpu_seconds_per_frame(1280, 720, 16)
    assert f"about {per:.0f} s per 1280x720 frame" in msg
    assert f"about {per * 120 / 60:.1f} min per 120-frame sample" in msg
    assert "workbench or cycles" in msg


def test_progress_lines_count_frames_and_estimate_the_rest():
    p = FrameProgress(4)
    try:
        p._t0 = p._last = 100.0
        assert p.line(102.0) == "EEVEE frame 1/4: 2.0 s (about 6 s left)"
        p._last = 102.0
        assert p.line(106.0) == "EEVEE frame 2/4: 4.0 s (about 6 s left)"
    finally:
        p.close()


def test_cycles_animation_prints_one_progress_line_per_frame(capfd):
    import re

    from simkit.renderers.blender import RenderSettings, get_session
    from simkit.scenes.wrop import Scene, SceneObject, Sun, Track, material, orbit_camera

    T = 3
    ball = SceneObject("ball", "target", "sphere", (0.3,), material("red"), Track.static(T, (0, 0, 0.3)))
    sc = Scene(T, 24.0, [ball], orbit_camera((0, 0, 0.3), 5.0, 0.0, 0.2), Sun(0.3, 0.8))
    ses = get_session()
    for progress, expected in ((None, T), (False, 0)):
        ses.reset()
        ses.configure(RenderSettings("cycles", 32, 18, 1, False, "cpu", frame_progress=progress), T, 24.0)
        ses.build(sc)
        capfd.readouterr()
        frames = ses.render(T)
        err = capfd.readouterr().err
        lines = re.findall(r"^Cycles frame (\d+)/3: \d+\.\d s \(about \d+ s left\)$", err, re.M)
        assert frames.shape == (T, 18, 32, 3) and lines == [str(k + 1) for k in range(expected)], err
    ses.reset()  # Workbench stays quiet
    ses.configure(RenderSettings("workbench", 32, 18), T, 24.0)
    ses.build(sc)
    capfd.readouterr()
    ses.render(T)
    assert "frame" not in capfd.readouterr().err


def test_unknown_or_missing_cycles_backend_is_one_clear_error():
    from simkit.core.errors import InputError
    from simkit.renderers.blender import RenderSettings, get_session

    ses = get_session()
    with pytest.raises(InputError, match="cycles_backend=vulkan"):
        ses.configure(RenderSettings("cycles", 32, 18, 1, device="gpu", cycles_backend="vulkan"), 2, 24.0)
    with pytest.raises(InputError, match=r"device=gpu but Cycles finds no GPU \(HIP\)"):
        ses.configure(RenderSettings("cycles", 32, 18, 1, device="gpu", cycles_backend="hip"), 2, 24.0)
