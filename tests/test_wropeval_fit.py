"""Target-fit metrics against analytic values, and reading / resampling predictions (simkit.eval.wrop)."""

import numpy as np
import pytest

from simkit.core.episode import Video
from simkit.core.errors import InputError
from simkit.episodes.codecs import encode
from simkit.eval.wrop.fit import PSNR_CAP, SKIPPED, group_means, video_metrics
from simkit.eval.wrop.video import (
    ExamSample,
    check_geometry,
    find_prediction,
    load_prediction,
    read_video,
    resample_time,
)


def _pattern(t=3, h=192, w=320, seed=0):
    """A smooth, moving test video with values well inside 0..255 (no clipping under +-20)."""
    y, x = np.mgrid[0:h, 0:w]
    frames = []
    for k in range(t):
        v = 128 + 60 * np.sin(2 * np.pi * (x + 7 * k) / 64.0) * np.cos(2 * np.pi * y / 48.0)
        frames.append(np.stack([v, 0.8 * v + 20, 255 - v], axis=-1))
    return np.clip(np.rint(frames), 0, 255).astype(np.uint8)


def test_identical_videos():
    v = _pattern()
    m = video_metrics(v, v)
    assert m["mse"] == 0 and m["mae"] == 0 and m["td_l1"] == 0 and m["final_mse_720p"] == 0
    assert m["psnr"] == PSNR_CAP  # MSE 0 -> the cap, not inf
    for k in ("ssim", "ms_ssim", "final_ssim", "final_ssim_720p"):
        assert m[k] == pytest.approx(1.0, abs=1e-5), k


def test_constant_offset_is_analytic():
    g = _pattern()
    p = g + np.uint8(10)
    m = video_metrics(p, g)
    assert m["mse"] == pytest.approx((10 / 255) ** 2, rel=1e-5)
    assert m["mae"] == pytest.approx(10 / 255, rel=1e-5)
    assert m["psnr"] == pytest.approx(20 * np.log10(255 / 10), rel=1e-5)  # 28.13 dB
    assert m["td_l1"] == pytest.approx(0.0, abs=1e-7)  # same temporal differences
    assert m["final_mse_720p"] == pytest.approx((10 / 255) ** 2, rel=1e-3)
    assert 0.9 < m["ssim"] < 1.0


def test_time_reversal_and_spatial_shift():
    g = np.stack([np.full((192, 320, 3), 40 + 12 * k, np.uint8) for k in range(3)])  # +12 levels per frame
    m = video_metrics(g[::-1].copy(), g, final_720p=False)
    assert m["td_l1"] == pytest.approx(24 / 255, rel=1e-5)  # |(-12) - (+12)| / 255
    base = _pattern(t=2)
    errs = [video_metrics(np.roll(base, s, axis=2), base, final_720p=False) for s in (1, 4)]
    assert errs[0]["mse"] < errs[1]["mse"] and errs[0]["ssim"] > errs[1]["ssim"] > 0
    direct = float(np.mean((np.roll(base, 4, axis=2) / 255.0 - base / 255.0) ** 2))
    assert errs[1]["mse"] == pytest.approx(direct, rel=1e-5)  # 320 x 192: no resize, the plain mean


def test_metrics_resize_any_size_and_need_equal_length():
    g = _pattern(t=2, h=72, w=128)
    m = video_metrics(g, g, final_720p=False)
    assert m["mse"] == 0 and m["ssim"] == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(InputError, match="equal length"):
        video_metrics(g[:1], g)
    assert set(SKIPPED) == {"lpips", "clip", "fid"} and all("skipped" in v for v in SKIPPED.values())


def test_group_means_per_family():
    rows = [
        {"family": "OP-1", "mse": 1.0},
        {"family": "OP-1", "mse": 3.0},
        {"family": "OS-2", "mse": 5.0},
        {"family": "OS-2", "mse": float("nan")},
    ]
    t = {r["family"]: r for r in group_means(rows, "family", ["mse"])}
    assert t["OP-1"]["mse"] == 2.0 and t["OS-2"]["mse"] == 5.0 and t["all"]["mse"] == 3.0
    assert t["all"]["n"] == 4


def test_read_predictions_mp4_and_frame_folder(tmp_path):
    from PIL import Image

    g = _pattern(t=5, h=72, w=128)
    (tmp_path / "k1.mp4").write_bytes(encode(Video(g, fps=24))[1])
    folder = tmp_path / "k2"
    folder.mkdir()
    for i in range(5):  # natural order: 2.png before 10.png
        Image.fromarray(g[i]).save(folder / f"{[0, 2, 10, 11, 30][i]}.png")
    v1 = read_video(find_prediction(tmp_path, "k1"))
    assert v1.shape == g.shape and np.abs(v1.astype(int) - g).mean() < 3  # H.264 round trip
    np.testing.assert_array_equal(read_video(find_prediction(tmp_path, "k2")), g)
    with pytest.raises(InputError, match=r"k3\.mp4: missing prediction"):
        find_prediction(tmp_path, "k3")
    (tmp_path / "bad.mp4").write_bytes(b"not a video")
    with pytest.raises(InputError, match=r"bad\.mp4: cannot decode"):
        read_video(tmp_path / "bad.mp4")


def test_resampling_and_geometry_checks(tmp_path):
    v = np.arange(10)[:, None, None, None] * np.ones((1, 4, 6, 3), np.uint8)
    np.testing.assert_array_equal(resample_time(v, 4)[:, 0, 0, 0], [0, 3, 6, 9])  # first and last kept
    np.testing.assert_array_equal(resample_time(v, 19)[::2, 0, 0, 0], np.arange(10))
    tgt = np.zeros((60, 180, 320, 3), np.uint8)
    check_geometry("p.mp4", np.zeros((121, 720, 1280, 3), np.uint8), tgt)  # 16:9 at 2x length: fine
    with pytest.raises(InputError, match=r"p\.mp4: wrong size 256x256"):
        check_geometry("p.mp4", np.zeros((60, 256, 256, 3), np.uint8), tgt)
    with pytest.raises(InputError, match=r"p\.mp4: wrong length 8 frames"):
        check_geometry("p.mp4", np.zeros((8, 180, 320, 3), np.uint8), tgt)
    sample = ExamSample("k", {}, {}, tgt[:2], np.zeros((6, 36, 64, 3), np.uint8))
    (tmp_path / "k.mp4").write_bytes(encode(Video(_pattern(t=12, h=72, w=128), fps=24))[1])
    assert load_prediction(tmp_path, sample).shape == (6, 36, 64, 3)
