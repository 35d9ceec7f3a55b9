"""Model features of FOA audio (5 x 128 x T) and an intensity-vector DOA estimator.

Front end (OmniEcho, sec. "Encoder architecture"; seed notes): 16 kHz audio, STFT with
n_fft = 400 (25 ms), hop = 160 (10 ms), periodic Hann window, frames centred (the signal is
zero-padded by n_fft/2 on both sides, so T = 1 + floor(n / hop)); 128 mel bands on the
Slaney mel scale (Slaney, "Auditory Toolbox", 1998; linear below 1 kHz, logarithmic above),
0 Hz to 8 kHz, triangular filters (a band too narrow to contain an STFT bin takes its nearest
bin with weight 1, so no band is empty).

Channels, all on the same mel bands:

0. ``log10(max(mel(|W|^2), 1e-10))`` -- log-mel power of W (absolute level; no per-clip
   normalisation, so distance/loudness cues survive).
1-3. DirAC active intensity ``I = Re{conj(W) [X, Y, Z]}`` (Pulkki, "Spatial sound reproduction
   with directional audio coding", JAES 55(6), 2007; with the acoustic sign convention dropped
   so that I points *towards* the source), summed over each band's bins and divided by the band
   energy ``E = (|W|^2 + |X|^2 + |Y|^2 + |Z|^2) / 2``. For a single SN3D plane wave from unit
   direction u, ``I / E = u`` exactly; each component lies in [-1, 1].
4. diffuseness ``psi = 1 - |<I>| / <E>`` where <.> averages the band values over
   ``smooth_frames`` consecutive frames (centred; Pulkki 2007, eq. 4 with the time average
   realised as a moving average). 0 for one plane wave, -> 1 for an isotropic diffuse field.

The features expect ACN/SN3D input at 16 kHz; other rates are resampled first
(:func:`scipy.signal.resample_poly`).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

SAMPLE_RATE = 16000
N_FFT = 400
HOP = 160
N_MELS = 128
EPS = 1e-10


def _hz_to_mel(f: np.ndarray) -> np.ndarray:
    f = np.asarray(f, dtype=np.float64)
    f_sp = 200.0 / 3
    mel = f / f_sp
    min_log_hz, min_log_mel, logstep = 1000.0, 1000.0 / f_sp, np.log(6.4) / 27.0
    return np.where(f >= min_log_hz, min_log_mel + np.log(np.maximum(f, 1e-12) / min_log_hz) / logstep, mel)


def _mel_to_hz(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)
    f_sp = 200.0 / 3
    min_log_hz, min_log_mel, logstep = 1000.0, 1000.0 / f_sp, np.log(6.4) / 27.0
    return np.where(m >= min_log_mel, min_log_hz * np.exp(logstep * (m - min_log_mel)), f_sp * m)


@lru_cache(maxsize=8)
def mel_filterbank(
    sr: int = SAMPLE_RATE,
    n_fft: int = N_FFT,
    n_mels: int = N_MELS,
    fmin: float = 0.0,
    fmax: float | None = None,
) -> np.ndarray:
    """Triangular mel filters, shape (n_mels, n_fft // 2 + 1), float64, peak weight 1 per band.

    Slaney mel scale; band edges equally spaced in mel between ``fmin`` and ``fmax``
    (default sr / 2). Bands narrower than the bin spacing get their nearest bin (weight 1).
    The array is read-only (cached).
    """
    fmax = sr / 2 if fmax is None else fmax
    freqs = np.arange(n_fft // 2 + 1) * sr / n_fft
    lo_mel, hi_mel = _hz_to_mel(np.array([fmin, fmax], dtype=np.float64))
    edges = _mel_to_hz(np.linspace(lo_mel, hi_mel, n_mels + 2))
    lo, ce, hi = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    up = (freqs[None] - lo) / (ce - lo)
    down = (hi - freqs[None]) / (hi - ce)
    fb = np.maximum(0.0, np.minimum(up, down))
    empty = fb.sum(axis=1) == 0
    for k in np.flatnonzero(empty):
        fb[k, int(np.argmin(np.abs(freqs - ce[k, 0])))] = 1.0
    fb.setflags(write=False)
    return fb


def stft(x: np.ndarray, n_fft: int = N_FFT, hop: int = HOP) -> np.ndarray:
    """Centred STFT of each channel.

    Args:
        x: (T, C) float signal.

    Returns:
        complex128 (C, n_fft // 2 + 1, 1 + T // hop); periodic Hann window, zero padding of
        n_fft // 2 on both sides.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    pad = n_fft // 2
    xp = np.pad(x, ((pad, pad), (0, 0)))
    n_frames = 1 + x.shape[0] // hop
    idx = np.arange(n_fft)[None, :] + hop * np.arange(n_frames)[:, None]
    win = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)
    frames = xp[idx] * win[None, :, None]  # (F, n_fft, C)
    spec = np.fft.rfft(frames, axis=1)  # (F, K, C)
    return spec.transpose(2, 1, 0)


def _to_16k(foa: np.ndarray, sr: int) -> np.ndarray:
    if sr == SAMPLE_RATE:
        return np.asarray(foa, dtype=np.float64)
    from math import gcd

    from scipy.signal import resample_poly

    g = gcd(int(sr), SAMPLE_RATE)
    return resample_poly(np.asarray(foa, dtype=np.float64), SAMPLE_RATE // g, int(sr) // g, axis=0)


def n_frames(n_samples: int, sr: int = SAMPLE_RATE) -> int:
    """Number of feature frames T for ``n_samples`` at ``sr`` (after resampling to 16 kHz)."""
    n16 = int(np.ceil(n_samples * SAMPLE_RATE / sr)) if sr != SAMPLE_RATE else n_samples
    return 1 + n16 // HOP


def _intensity_energy(spec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per bin of an ACN (W, Y, Z, X) spectrogram ``(4, K, T)``: the active intensity
    ``Re{conj(W) [X, Y, Z]}`` (3, K, T) and the energy ``(|W|^2 + |X|^2 + |Y|^2 + |Z|^2) / 2`` (K, T)."""
    w, y, z, xx = spec
    inten = np.stack([np.real(np.conj(w) * xx), np.real(np.conj(w) * y), np.real(np.conj(w) * z)])
    energy = 0.5 * (np.abs(w) ** 2 + np.abs(xx) ** 2 + np.abs(y) ** 2 + np.abs(z) ** 2)
    return inten, energy


def _band_spectrogram(foa: np.ndarray, sr: int, fmin: float, fmax: float) -> np.ndarray:
    """STFT (at 16 kHz) of an ACN/SN3D signal, the bins within ``[fmin, fmax]`` only: (4, K', T)."""
    spec = stft(_to_16k(foa, sr))
    freqs = np.arange(spec.shape[1]) * SAMPLE_RATE / N_FFT
    return spec[:, (freqs >= fmin) & (freqs <= fmax)]


def _az_el_deg(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Azimuth ``atan2(v_y, v_x)`` and elevation ``atan2(v_z, |v_xy|)`` in degrees of ``v = [x, y, z, ...]``."""
    return np.degrees(np.arctan2(v[1], v[0])), np.degrees(np.arctan2(v[2], np.hypot(v[0], v[1])))


def foa_features(foa: np.ndarray, sr: int = SAMPLE_RATE, smooth_frames: int = 5) -> np.ndarray:
    """The 5 x 128 x T feature tensor of an ACN/SN3D FOA signal (see the module docstring).

    Args:
        foa: (n, 4) float, ACN order W, Y, Z, X, SN3D.
        sr: sample rate of ``foa`` in Hz (resampled to 16 kHz when different).
        smooth_frames: frames of the moving average in the diffuseness estimate (>= 1).

    Returns:
        float32 array (5, 128, T), T = 1 + n16 // 160: [log-mel W, i_x, i_y, i_z, diffuseness].

    Raises:
        ValueError: ``foa`` is not (n, 4).
    """
    foa = np.asarray(foa)
    if foa.ndim != 2 or foa.shape[1] != 4:
        raise ValueError(f"foa must be (n, 4) ACN/SN3D, got {foa.shape}")
    x = _to_16k(foa, sr)
    spec = stft(x)  # (4, K, T) in ACN order W, Y, Z, X
    fb = mel_filterbank()
    pw = np.abs(spec[0]) ** 2
    inten, energy = _intensity_energy(spec)
    mel_w = fb @ pw
    mel_e = fb @ energy  # (128, T)
    mel_i = np.einsum("mk,ckt->cmt", fb, inten)  # (3, 128, T)
    out = np.empty((5,) + mel_w.shape, dtype=np.float32)
    out[0] = np.log10(np.maximum(mel_w, EPS))
    out[1:4] = mel_i / (mel_e[None] + EPS)
    k = max(1, int(smooth_frames))
    if k > 1:
        ker = np.ones(k) / k
        from scipy.ndimage import convolve1d

        mi = convolve1d(mel_i, ker, axis=-1, mode="nearest")
        me = convolve1d(mel_e, ker, axis=-1, mode="nearest")
    else:
        mi, me = mel_i, mel_e
    out[4] = np.clip(1.0 - np.linalg.norm(mi, axis=0) / (me + EPS), 0.0, 1.0)
    return out


def estimate_doa(
    foa: np.ndarray, sr: int = SAMPLE_RATE, window_frames: int = 5, fmin: float = 100.0, fmax: float = 7000.0
) -> dict[str, np.ndarray]:
    """Direction of arrival per STFT frame from the broadband active intensity vector.

    ``I(t) = sum over bins f in [fmin, fmax] and the ``window_frames`` frames centred on t of
    Re{conj(W) [X, Y, Z]}`` (Pulkki 2007; Merimaa and Pulkki, JAES 53(12), 2005);
    azimuth ``atan2(I_y, I_x)``, elevation ``atan2(I_z, |I_xy|)``. For a single plane wave the
    estimate is exact up to noise; with several sources it points to the energetic centre.

    Args:
        foa: (n, 4) ACN/SN3D signal at ``sr`` (it is analysed at 16 kHz).
        window_frames: moving-average length in frames (10 ms each).

    Returns:
        dict with ``time_s`` (T,) frame centres in seconds, ``azimuth_deg`` (T,), ``elevation_deg``
        (T,), ``energy`` (T,) (band energy per frame, to mask silent frames).
    """
    inten, energy = _intensity_energy(_band_spectrogram(foa, sr, fmin, fmax))
    inten, energy = inten.sum(axis=1), energy.sum(axis=0)
    k = max(1, int(window_frames))
    if k > 1:
        from scipy.ndimage import convolve1d

        inten = convolve1d(inten, np.ones(k) / k, axis=-1, mode="nearest")
    az, el = _az_el_deg(inten)
    t = np.arange(inten.shape[1]) * HOP / SAMPLE_RATE
    return {"time_s": t, "azimuth_deg": az, "elevation_deg": el, "energy": energy}


def estimate_direction(
    foa: np.ndarray,
    sr: int,
    time_s: float,
    half_window_s: float = 0.25,
    fmin: float = 100.0,
    fmax: float = 7000.0,
) -> tuple[float, float, float]:
    """Onset-weighted DirAC direction of the sound around ``time_s`` (precedence: direct sound first).

    Per STFT bin (f, t) within ``|t - time_s| <= half_window_s`` and ``fmin <= f <= fmax``: the
    active-intensity unit vector ``u = I / |I|`` with ``I = Re{conj(W) [X, Y, Z]}`` (Pulkki, JAES
    55(6), 2007), weighted by

    * the onset strength ``max(0, log10 E_3(f, t) - log10 E_3(f, t - 1))`` (``E_3`` = band energy
      ``(|W|^2 + |X|^2 + |Y|^2 + |Z|^2) / 2`` averaged over 3 frames): the bins where a sound
      starts carry its direct path before reflections and the diffuse tail arrive (the precedence
      effect; onset-weighted intensity as in Merimaa and Pulkki, JAES 53(12), 2005, sec. 3),
    * ``sqrt(E)`` (louder bins count more), and
    * ``1 - psi`` with ``psi = 1 - |<I>| / <E>`` the 3-frame diffuseness (direct-sound bins).

    Args:
        foa: (n, 4) ACN/SN3D signal at ``sr`` (analysed at 16 kHz). time_s: window centre (s).

    Returns:
        ``(azimuth_deg, elevation_deg, strength)`` in the listener frame (+90 = left); ``strength``
        = the summed weight (0 and a NaN direction for a silent window).
    """
    return estimate_directions(foa, sr, [time_s], half_window_s, fmin, fmax)[0]


def estimate_directions(
    foa: np.ndarray,
    sr: int,
    times_s,
    half_window_s: float = 0.25,
    fmin: float = 100.0,
    fmax: float = 7000.0,
) -> list[tuple[float, float, float]]:
    """:func:`estimate_direction` at several window centres (one STFT of the whole signal)."""
    from scipy.ndimage import uniform_filter1d

    spec = _band_spectrogram(foa, sr, fmin, fmax)
    inten, energy = _intensity_energy(spec)
    e3 = uniform_filter1d(energy, 3, axis=1)
    log_e = np.log10(np.maximum(e3, 1e-30))
    onset = np.maximum(0.0, log_e - np.concatenate([log_e[:, :1], log_e[:, :-1]], axis=1))
    psi = 1.0 - np.linalg.norm(uniform_filter1d(inten, 3, axis=2), axis=0) / np.maximum(e3, 1e-30)
    unit = inten / np.maximum(np.linalg.norm(inten, axis=0), 1e-30)
    weight = onset * np.sqrt(energy) * np.clip(1.0 - psi, 0.0, 1.0)
    t = np.arange(spec.shape[2]) * HOP / SAMPLE_RATE
    out = []
    for tc in times_s:
        sel = np.abs(t - float(tc)) <= half_window_s
        wgt = weight[:, sel]
        v = (unit[:, :, sel] * wgt[None]).sum(axis=(1, 2))
        strength = float(wgt.sum())
        if strength <= 0 or not np.any(v):
            out.append((float("nan"), float("nan"), 0.0))
            continue
        az, el = _az_el_deg(v)
        out.append((float(az), float(el), strength))
    return out
