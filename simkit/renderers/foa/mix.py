"""Mixing helpers: interferers at a target SNR, an ambient bed, peak limiting.

SNR convention: ``SNR = 10 log10(P_target / P_interferer)`` with P the mean power of the
**W channel** (the omnidirectional pressure signal) over the whole clip. The OmniEcho navigation
data draws the SNR of its plane-wave interferers from {20, 15, 10, 5, 0} dB (seed notes).
"""

from __future__ import annotations

import numpy as np

from simkit.renderers.foa.encoding import sn3d_gains

#: SNR choices (dB) of the OmniEcho interferers
SNR_CHOICES_DB = (20.0, 15.0, 10.0, 5.0, 0.0)


def w_power(foa: np.ndarray) -> float:
    """Mean power of the W channel of an (n, 4) ACN signal."""
    w = np.asarray(foa)[:, 0]
    return float(np.mean(w.astype(np.float64) ** 2)) if w.size else 0.0


def snr_db(target: np.ndarray, interferer: np.ndarray) -> float:
    """``10 log10(P_W(target) / P_W(interferer))`` in dB (inf when the interferer is silent)."""
    pi = w_power(interferer)
    return float("inf") if pi == 0 else 10.0 * np.log10(w_power(target) / pi)


def scale_to_snr(target: np.ndarray, interferer: np.ndarray, snr: float) -> tuple[np.ndarray, float]:
    """Scale ``interferer`` (n, 4) so that ``snr_db(target, scaled) == snr``.

    Returns:
        ``(scaled interferer (n, 4), linear gain applied)``.

    Raises:
        ValueError: the target or the interferer is silent.
    """
    pt, pi = w_power(target), w_power(interferer)
    if pt == 0 or pi == 0:
        raise ValueError("cannot set an SNR with a silent target or interferer")
    g = float(np.sqrt(pt / (pi * 10 ** (snr / 10))))
    return np.asarray(interferer, dtype=np.float64) * g, g


def ambient_bed(
    signal: np.ndarray, n: int, rng: np.random.Generator, n_directions: int = 4, elevation: float = 0.0
) -> np.ndarray:
    """An approximately diffuse ambient bed from one mono recording.

    ``n_directions`` horizontal plane waves at evenly spaced azimuths (random common offset),
    each carrying the signal circularly shifted by a different fraction of its length (so the
    copies are mutually decorrelated), each with gain ``1 / sqrt(n_directions)`` so that the W power
    equals the signal's power. The bed is fixed in the listener frame (a rotating listener does not
    rotate it; being nearly isotropic, it carries almost no direction).

    Args:
        signal: (m,) mono; it is looped/trimmed to ``n`` samples.
        n: output length in samples.
        rng: numpy Generator (azimuth offset).

    Returns:
        float64 (n, 4), ACN/SN3D.
    """
    x = np.resize(np.asarray(signal, dtype=np.float64), n)
    k = max(1, int(n_directions))
    az = float(rng.uniform(0, 2 * np.pi)) + 2 * np.pi * np.arange(k) / k
    g = sn3d_gains(az, elevation) / np.sqrt(k)  # (k, 4)
    out = np.zeros((n, 4))
    for j in range(k):
        out += np.roll(x, (j * n) // k)[:, None] * g[j]
    return out


def peak_normalise(foa: np.ndarray, peak: float = 0.99) -> tuple[np.ndarray, float]:
    """Scale down (never up) so that ``max |foa| <= peak``. Returns ``(signal, gain applied)``."""
    m = float(np.max(np.abs(foa))) if np.size(foa) else 0.0
    g = peak / m if m > peak else 1.0
    return np.asarray(foa) * g, g
