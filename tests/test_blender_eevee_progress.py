"""EEVEE on a CPU machine: the up-front estimate and the per-frame progress lines (no rendering here)."""

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
