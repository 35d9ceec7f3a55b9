"""Sound banks: procedural sounds, stem processing, the folder/CSV loader and its error reports."""

import logging

import numpy as np
import pytest
import soundfile as sf

from simkit.assets.sounds import (
    FolderBank,
    ProceduralBank,
    fit_length,
    gate,
    load_bank,
    loudness_lufs,
    normalise_loudness,
    trim_silence,
)
from simkit.core.errors import InputError
from simkit.core.seeding import episode_rng
from simkit.generators.foa.generator import FoaQaConfig, FoaQaGenerator


def test_procedural_bank_every_label():
    bank = ProceduralBank()
    assert len(bank.labels) == 12 and len(bank.ambient_labels) == 4
    for label in bank.labels + bank.ambient_labels:
        x = bank.draw(label, 16000, 16000, np.random.default_rng(0))
        assert x.shape == (16000,) and np.all(np.isfinite(x))
        assert np.max(np.abs(x)) == pytest.approx(1.0)
        assert np.std(x) > 0.01, label
        y = bank.draw(label, 16000, 16000, np.random.default_rng(0))
        np.testing.assert_array_equal(x, y)  # deterministic for a given stream


def test_loudness_normalisation_hits_target():
    x = ProceduralBank().draw("speech", 32000, 16000, np.random.default_rng(1))
    for target in (-35.0, -23.0, -18.0):
        assert loudness_lufs(normalise_loudness(x, 16000, target), 16000) == pytest.approx(target, abs=0.05)
    # short clips (< 400 ms) are measured too
    short = normalise_loudness(x[:3000], 16000, -30.0)
    assert loudness_lufs(short, 16000) == pytest.approx(-30.0, abs=0.05)


def test_gate_trim_and_fit():
    sr = 16000
    x = np.concatenate([np.zeros(1600), np.sin(np.arange(8000) * 0.1), 1e-5 * np.ones(3200)])
    g = gate(x, sr)
    assert np.all(g[-3000:] == 0) and np.allclose(g[2000:9000], x[2000:9000])
    t = trim_silence(x, sr)
    assert t.size == 8000
    rng = np.random.default_rng(0)
    assert fit_length(t, 20000, rng).size == 20000 and fit_length(t, 100, rng).size == 100


def _write(path, x, sr):
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(path), x, sr)


def test_folder_bank_resamples_downmixes_and_skips_bad_files(tmp_path, caplog):
    t = np.arange(44100) / 44100
    stereo = np.stack([np.sin(2 * np.pi * 440 * t), 0.5 * np.sin(2 * np.pi * 440 * t)], axis=1) * 0.5
    _write(tmp_path / "dog" / "a.wav", stereo, 44100)
    _write(tmp_path / "dog" / "silent.wav", np.zeros(8000), 8000)
    _write(tmp_path / "rain" / "r.flac", 0.1 * np.random.default_rng(0).standard_normal(22050), 22050)
    (tmp_path / "bell").mkdir()
    (tmp_path / "bell" / "broken.wav").write_bytes(b"RIFF not really a wave file")
    with caplog.at_level(logging.WARNING, logger="simkit.sounds"):
        bank = FolderBank(tmp_path)
    assert bank.labels == ["dog"] and bank.ambient_labels == ["rain"]
    assert any("broken.wav" in s for s in bank.skipped)
    assert sum("broken.wav" in r.getMessage() for r in caplog.records) == 1
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="simkit.sounds"):
        for seed in range(6):  # draws hit both files; the silent one is skipped and reported once
            x = bank.draw("dog", 24000, 16000, np.random.default_rng(seed))
            assert x.shape == (24000,) and np.max(np.abs(x)) == pytest.approx(1.0, abs=1e-3)
    assert sum("silent.wav" in r.getMessage() for r in caplog.records) == 1
    # downmixed (mean of channels) and resampled: still a 440 Hz tone at 16 kHz
    spec = np.abs(np.fft.rfft(x))
    assert np.argmax(spec) * 16000 / x.size == pytest.approx(440, abs=2)


def test_esc50_style_csv(tmp_path):
    rng = np.random.default_rng(2)
    (tmp_path / "meta").mkdir()
    rows = ["filename,fold,target,category,esc10,src_file,take"]
    for i, cat in enumerate(["dog", "rooster", "rain"]):
        _write(tmp_path / "audio" / f"1-{i}-A-{i}.wav", 0.3 * rng.standard_normal(8000), 44100)
        rows.append(f"1-{i}-A-{i}.wav,1,{i},{cat},False,{i},A")
    rows.append("missing.wav,1,9,dog,False,9,A")
    (tmp_path / "meta" / "esc50.csv").write_text("\n".join(rows) + "\n")
    bank = FolderBank(tmp_path)
    assert bank.labels == ["dog", "rooster"] and bank.ambient_labels == ["rain"]
    assert any("missing.wav" in s for s in bank.skipped)
    assert bank.draw("rooster", 1000, 16000, rng).shape == (1000,)


def test_bad_bank_directories(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        FolderBank(tmp_path / "nope")
    with pytest.raises(InputError, match="no readable audio"):
        FolderBank(tmp_path)
    assert isinstance(load_bank(""), ProceduralBank)


def test_generator_with_a_user_bank(tmp_path):
    rng = np.random.default_rng(3)
    for label in ("cat", "dog", "horn", "rain"):
        _write(tmp_path / label / "x.wav", 0.2 * rng.standard_normal(24000), 22050)
    g = FoaQaGenerator()
    g.setup(FoaQaConfig(sounds=str(tmp_path), n_offscreen=(2, 2), n_sources=(1, 1)))
    ep = g.generate(0, episode_rng(0, "foa-qa", 0))
    sc = ep.fields["scene"]
    assert {s["label"] for s in sc["sources"]} <= {"cat", "dog", "horn"}
    assert sc["ambient"]["label"] == "rain" and sc["sound_bank"] == "folder"


def test_sounds_path_is_checked_by_the_config(tmp_path):
    """A bad ``sounds`` value fails config validation (before any output exists), with a clear reason."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="does not exist"):
        FoaQaConfig(sounds=str(tmp_path / "missing"))
    (tmp_path / "file.wav").write_bytes(b"x")
    with pytest.raises(ValidationError, match="is not a directory"):
        FoaQaConfig(sounds=str(tmp_path / "file.wav"))
    (tmp_path / "empty" / "dog").mkdir(parents=True)
    (tmp_path / "empty" / "dog" / "notes.txt").write_text("no audio")
    with pytest.raises(ValidationError, match="holds no audio"):
        FoaQaConfig(sounds=str(tmp_path / "empty"))
    _write(tmp_path / "ok" / "dog" / "a.wav", 0.1 * np.ones(800), 8000)
    assert FoaQaConfig(sounds=str(tmp_path / "ok")).sounds == str(tmp_path / "ok")
    (tmp_path / "csv").mkdir()
    (tmp_path / "csv" / "bank.csv").write_text("filename,category\na.wav,dog\n")
    assert FoaQaConfig(sounds=str(tmp_path / "csv")).sounds.endswith("csv")


def test_skipped_file_reported_once_per_process(tmp_path, caplog):
    """Loading the same bank again in one process (each worker loads it once) does not repeat warnings."""
    _write(tmp_path / "dog" / "a.wav", 0.5 * np.sin(np.arange(8000) * 0.3), 8000)
    (tmp_path / "dog" / "broken.wav").write_bytes(b"RIFF not really a wave file")
    with caplog.at_level(logging.WARNING, logger="simkit.sounds"):
        banks = [FolderBank(tmp_path) for _ in range(3)]
    assert all(b.skipped == [str(tmp_path / "dog" / "broken.wav")] for b in banks)
    assert sum("broken.wav" in r.getMessage() for r in caplog.records) == 1
