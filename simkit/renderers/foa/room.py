"""Shoebox room acoustics for the FOA renderer: image sources and a diffuse late tail.

Image-source method (Allen and Berkley, "Image method for efficiently simulating small-room
acoustics", JASA 65(4), 1979): in a rectangular room ``[0, Lx] x [0, Ly] x [0, Lz]`` (room
coordinates = world coordinates minus ``origin``) the image of a source at ``s`` with the
integer index ``m`` along one axis of length ``L`` lies at::

    x_m = m L + s          (m even)        x_m = (m + 1) L - s     (m odd)

and has met ``|m|`` walls on that axis: for ``m > 0`` ``ceil(m/2)`` times the wall at ``L`` and
``floor(m/2)`` times the wall at 0, mirrored for ``m < 0``. The reflection order is
``|mx| + |my| + |mz|``. Each wall reflection multiplies the pressure by
``beta = sqrt(1 - alpha)`` (alpha = energy absorption coefficient, frequency independent).

Late tail: Gaussian noise under an exponential envelope with the given RT60
(amplitude ``exp(-3 ln(10) t / RT60)``, i.e. -60 dB of energy after RT60 seconds; Schroeder,
"Frequency correlation functions of frequency responses in rooms", JASA 1962), isotropic
(diffuse) FOA: independent noise per channel with SN3D weights ``[1, 1/sqrt(3), 1/sqrt(3),
1/sqrt(3)]`` (the diffuse-field energy of each first-order SN3D component is 1/3 of W's).
Its energy, relative to the direct sound of a unit source at 1 m, is the diffuse-field value of
statistical room acoustics ``16 pi / A`` with Sabine's equivalent absorption area
``A = 0.161 V / RT60`` (Kuttruff, "Room Acoustics", 6th ed., eqs. 5.36 and 5.42), times the
fraction ``exp(-13.82 (t0 - t_d) / RT60)`` of that energy that arrives after the tail's start
``t0`` (``t_d`` = direct-sound delay).

Frequency-dependent reverberation (``ShoeboxRoom.rt60_bands``): one RT60 per octave band
(:data:`OCTAVE_BANDS_HZ`, 125 Hz - 4 kHz, e.g. from Sabine's formula per band with tabulated
octave-band absorption coefficients of the wall materials, ISO 354 / ISO 3382-2 octave bands).
The tail noise is then split into the octave bands by power-complementary crossovers
(``cos^2`` / ``sin^2`` in log2 frequency between adjacent band centres) of independent noises, so
the band powers add up to a white spectrum; each band decays with its own RT60 and carries the Sabine energy
``16 pi / A_b`` (``A_b = 0.161 V / RT60_b``) times its share of a white spectrum (its power
response is ``16 pi / A_b`` at every frequency it covers). Image sources keep the broadband
``absorption``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

WALLS = ("x0", "x1", "y0", "y1", "z0", "z1")
#: octave-band centre frequencies (Hz) of :attr:`ShoeboxRoom.rt60_bands` (ISO 266 preferred frequencies)
OCTAVE_BANDS_HZ = (125.0, 250.0, 500.0, 1000.0, 2000.0, 4000.0)


@dataclass
class ShoeboxRoom:
    """A rectangular room.

    Attributes:
        size: (Lx, Ly, Lz) metres.
        absorption: energy absorption coefficient alpha in [0, 1), one value for all walls or six
            values for the walls x=0, x=Lx, y=0, y=Ly, z=0 (floor), z=Lz (ceiling).
        max_order: highest image-source reflection order (0 = direct path only).
        rt60: late-tail reverberation time in seconds, or ``None`` for no diffuse tail.
        origin: world position (metres) of the room corner (0, 0, 0).
        rt60_bands: optional late-tail RT60 per octave band of :data:`OCTAVE_BANDS_HZ` (6 values,
            seconds); when set, the diffuse tail decays band by band (module docstring) and
            ``rt60`` is only the broadband summary.

    Raises:
        ValueError: non-positive size, absorption outside [0, 1), negative order, rt60 <= 0, or
            ``rt60_bands`` not 6 positive values.
    """

    size: tuple[float, float, float]
    absorption: float | tuple[float, ...] = 0.3
    max_order: int = 1
    rt60: float | None = None
    origin: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rt60_bands: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        size = tuple(float(v) for v in self.size)
        if len(size) != 3 or min(size) <= 0:
            raise ValueError(f"room size must be three positive lengths, got {self.size}")
        self.size = (size[0], size[1], size[2])
        if min(self.size) <= 0:
            raise ValueError(f"room size must be three positive lengths, got {self.size}")
        a = np.broadcast_to(np.asarray(self.absorption, dtype=np.float64), (6,))
        if np.any(a < 0) or np.any(a >= 1):
            raise ValueError(f"wall absorption must be in [0, 1), got {self.absorption}")
        self._alpha = a.copy()
        if int(self.max_order) < 0:
            raise ValueError("max_order must be >= 0")
        self.max_order = int(self.max_order)
        if self.rt60 is not None and self.rt60 <= 0:
            raise ValueError("rt60 must be > 0 seconds (or None for no tail)")
        ox, oy, oz = (float(v) for v in self.origin)
        self.origin = (ox, oy, oz)
        if self.rt60_bands is not None:
            rb = tuple(float(v) for v in self.rt60_bands)
            if len(rb) != len(OCTAVE_BANDS_HZ) or min(rb) <= 0:
                raise ValueError(f"rt60_bands must be {len(OCTAVE_BANDS_HZ)} positive values, got {rb}")
            self.rt60_bands = rb
            if self.rt60 is None:
                self.rt60 = float(np.mean(rb[2:4]))

    @property
    def volume(self) -> float:
        """Room volume V in cubic metres."""
        return float(np.prod(self.size))

    @property
    def surface(self) -> float:
        """Total wall surface S in square metres."""
        lx, ly, lz = self.size
        return 2.0 * (lx * ly + lx * lz + ly * lz)

    @property
    def wall_areas(self) -> np.ndarray:
        """(6,) areas of the walls x0, x1, y0, y1, z0, z1 in square metres."""
        lx, ly, lz = self.size
        return np.array([ly * lz, ly * lz, lx * lz, lx * lz, lx * ly, lx * ly])

    def sabine_rt60(self) -> float:
        """Sabine's reverberation time ``0.161 V / sum(S_i alpha_i)`` in seconds (inf when nothing absorbs)."""
        a = float(np.dot(self.wall_areas, self._alpha))
        return float("inf") if a == 0 else 0.161 * self.volume / a

    def contains(self, points: np.ndarray) -> np.ndarray:
        """Boolean (N,): which world points (N, 3) lie strictly inside the room."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3) - np.asarray(self.origin)
        return np.all((p > 0) & (p < np.asarray(self.size)), axis=1)

    def image_indices(self) -> np.ndarray:
        """Integer image indices (M, 3) with ``|mx|+|my|+|mz| <= max_order``; row 0 is the source itself."""
        n = self.max_order
        rng = np.arange(-n, n + 1)
        m = np.stack(np.meshgrid(rng, rng, rng, indexing="ij"), axis=-1).reshape(-1, 3)
        m = m[np.abs(m).sum(axis=1) <= n]
        order = np.lexsort((m[:, 2], m[:, 1], m[:, 0], np.abs(m).sum(axis=1)))
        return m[order]

    def image_transform(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The affine maps source -> image in world coordinates, one per image.

        Returns:
            ``(indices (M, 3) int, sign (M, 3), offset (M, 3) metres, amplitude (M,))`` such that the
            image of a world point ``p`` is ``sign * p + offset`` and its reflection gain is
            ``amplitude`` (product of ``sqrt(1 - alpha)`` over the walls met; Allen and Berkley 1979).
        """
        m = self.image_indices()
        L = np.asarray(self.size)
        o = np.asarray(self.origin)
        odd = (m % 2) != 0
        sign = np.where(odd, -1.0, 1.0)
        off_room = np.where(odd, (m + 1) * L, m * L)
        # world: x_w = o + x_room ; image_room = sign * (x_w - o) + off_room
        offset = o + off_room - sign * o
        hits_hi = np.where(m > 0, (m + 1) // 2, np.abs(m) // 2)  # walls at L (x1, y1, z1)
        hits_lo = np.where(m > 0, m // 2, (np.abs(m) + 1) // 2)  # walls at 0 (x0, y0, z0)
        beta = np.sqrt(1.0 - self._alpha)
        amp = np.prod(beta[[0, 2, 4]] ** hits_lo * beta[[1, 3, 5]] ** hits_hi, axis=1)
        return m, sign, offset, amp

    def image_sources(self, source: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Image positions of one world point.

        Returns:
            ``(positions (M, 3) metres world, amplitudes (M,), orders (M,) int)``; row 0 is the source.
        """
        m, sign, offset, amp = self.image_transform()
        return sign * np.asarray(source, dtype=np.float64).reshape(1, 3) + offset, amp, np.abs(m).sum(axis=1)

    def tail_energy(self, start_s: float, direct_s: float) -> float:
        """Energy of the late tail (sum of squared impulse-response samples of the W channel).

        ``16 pi / A * exp(-13.82 (start_s - direct_s) / RT60)`` with ``A = 0.161 V / RT60`` (Sabine),
        relative to the direct sound of a unit-gain source at 1 m (module docstring).
        """
        if self.rt60 is None:
            return 0.0
        if self.rt60_bands is not None:  # a white source at 16 kHz: band energies times band shares
            shares = band_shares(16000)
            return float(np.sum(self.tail_band_energies(start_s, direct_s) * shares))
        area = 0.161 * self.volume / self.rt60
        return 16.0 * np.pi / area * float(np.exp(-13.8155 * max(start_s - direct_s, 0.0) / self.rt60))

    def tail_band_energies(self, start_s: float, direct_s: float) -> np.ndarray:
        """(6,) full-band tail energy gains per octave band (needs ``rt60_bands``): ``16 pi / A_b``
        times the fraction ``exp(-13.82 (start_s - direct_s) / RT60_b)`` after the tail's start;
        band b of the tail has ``band_shares(fs)[b]`` of it (module docstring)."""
        if self.rt60_bands is None:
            raise ValueError("the room has no rt60_bands")
        rb = np.asarray(self.rt60_bands)
        area = 0.161 * self.volume / rb
        dt = max(start_s - direct_s, 0.0)
        return 16.0 * np.pi / area * np.exp(-13.8155 * dt / rb)

    def critical_distance(self) -> float:
        """Critical distance in metres, where the direct and the diffuse energy are equal:
        ``r_c = sqrt(A / (16 pi))`` with ``A = 0.161 V / RT60`` (Kuttruff, *Room Acoustics*, eq. 5.43;
        mid-band RT60 when ``rt60_bands`` is set, else ``rt60`` or Sabine's value from the absorption)."""
        t = self.rt60 if self.rt60 is not None else self.sabine_rt60()
        return float(np.sqrt(0.161 * self.volume / t / (16.0 * np.pi)))


def diffuse_tail(
    fs: int, rt60: float, energy: float, start: int, rng: np.random.Generator, fade: float = 0.005
) -> np.ndarray:
    """A diffuse first-order (ACN/SN3D) late-reverberation impulse response.

    Args:
        fs: sample rate (Hz).
        rt60: reverberation time (s); the response lasts until -60 dB (``start + rt60 * fs`` samples).
        energy: target sum of squares of the W channel (the response is unit-free: convolving a
            signal with it gives a tail whose energy relative to the dry signal is ``energy``).
        start: first non-zero sample (the tail's start, e.g. the end of the modelled reflections).
        rng: numpy Generator for the noise (the only randomness).
        fade: raised-cosine fade-in length in seconds.

    Returns:
        float64 array (start + ceil(rt60 fs), 4), ACN order.
    """
    n = int(np.ceil(rt60 * fs))
    t = np.arange(n) / fs
    env = np.exp(-3.0 * np.log(10.0) * t / rt60)
    nf = max(1, int(fade * fs))
    env[:nf] *= 0.5 - 0.5 * np.cos(np.pi * np.arange(nf) / nf)
    noise = rng.standard_normal((n, 4)) * np.array([1.0, 1 / np.sqrt(3), 1 / np.sqrt(3), 1 / np.sqrt(3)])
    h = noise * env[:, None]
    e = float(np.sum(h[:, 0] ** 2))
    if e > 0:
        h *= np.sqrt(energy / e)
    out = np.zeros((start + n, 4))
    out[start:] = h
    return out


def octave_band_weights(freqs_hz: np.ndarray) -> np.ndarray:
    """Power-complementary octave-band crossover weights (B, F) over :data:`OCTAVE_BANDS_HZ`.

    Between adjacent centres ``f_b < f < f_{b+1}`` with ``x = log2(f / f_b)`` in [0, 1]: band b gets
    ``cos(pi x / 2)`` and band b+1 ``sin(pi x / 2)`` (amplitude), so ``sum_b w_b(f)^2 = 1``; below
    the first and above the last centre the edge band takes everything.
    """
    f = np.maximum(np.asarray(freqs_hz, dtype=np.float64), 1e-3)
    c = np.asarray(OCTAVE_BANDS_HZ)
    x = np.log2(f[None, :] / c[:, None])  # (B, F)
    w = np.cos(0.5 * np.pi * np.clip(x, -1.0, 1.0))
    w[0, x[0] < 0] = 1.0
    w[-1, x[-1] > 0] = 1.0
    return w


def band_shares(fs: int, n: int = 8192) -> np.ndarray:
    """(6,) share of a white spectrum's power (0 to fs/2) in each crossover band of
    :func:`octave_band_weights` (sums to 1)."""
    return _band_shares(int(fs), int(n)).copy()


@lru_cache(maxsize=8)
def _band_shares(fs: int, n: int) -> np.ndarray:
    """:func:`band_shares`, computed once per ``(fs, n)`` (a room's tail energy asks for it per
    source and track frame)."""
    w = octave_band_weights(np.fft.rfftfreq(n, 1.0 / fs))
    return (w**2).mean(axis=1)


def diffuse_tail_bands(
    fs: int,
    rt60_bands: tuple[float, ...],
    energies: np.ndarray,
    start: int,
    rng: np.random.Generator,
    fade: float = 0.005,
) -> np.ndarray:
    """A diffuse FOA (ACN/SN3D) late tail whose decay differs per octave band (module docstring).

    Args:
        fs: sample rate (Hz); rt60_bands: (6,) RT60 per band of :data:`OCTAVE_BANDS_HZ`, seconds.
        energies: (6,) full-band energy gains of the bands (``ShoeboxRoom.tail_band_energies``); band
            b's tail gets ``energies[b] * band_shares(fs)[b]`` of W-channel energy.
        start: first non-zero sample; rng: the noise's generator; fade: raised-cosine fade-in (s).

    Returns:
        float64 array (start + ceil(max(rt60) fs), 4), ACN order.
    """
    rb = np.asarray(rt60_bands, dtype=np.float64)
    n = int(np.ceil(rb.max() * fs))
    t = np.arange(n) / fs
    diffuse = np.array([1.0, 1 / np.sqrt(3), 1 / np.sqrt(3), 1 / np.sqrt(3)])
    weights = octave_band_weights(np.fft.rfftfreq(n, 1.0 / fs))
    nf = max(1, int(fade * fs))
    fade_in = 0.5 - 0.5 * np.cos(np.pi * np.arange(nf) / nf)
    h = np.zeros((n, 4))
    shares = band_shares(fs)
    for b in range(rb.size):  # independent noise per band: band powers add (sum_b w_b^2 = 1)
        spec = np.fft.rfft(rng.standard_normal((n, 4)) * diffuse, axis=0)
        hb = np.fft.irfft(spec * weights[b][:, None], n=n, axis=0)
        env = np.exp(-3.0 * np.log(10.0) * t / rb[b])
        env[:nf] *= fade_in
        hb *= env[:, None]
        e = float(np.sum(hb[:, 0] ** 2))
        if e > 0:
            h += hb * np.sqrt(float(energies[b]) * shares[b] / e)
    out = np.zeros((start + n, 4))
    out[start:] = h
    return out
