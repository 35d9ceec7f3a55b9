"""Labelled mono sounds for the FOA corpora: a built-in procedural bank and a folder loader.

:class:`ProceduralBank` synthesises every sound from code (nothing to download), so the
embedded default runs anywhere and is deterministic: a draw depends only on the label, the
duration, the sample rate and the numpy Generator passed in. :class:`FolderBank` reads real
recordings from a directory, either one sub-folder per label (``DIR/dog/*.wav``) or an
ESC-50-style CSV (``DIR/meta/esc50.csv`` or any ``*.csv`` with ``filename`` and ``category``
(or ``label``) columns; audio next to the CSV, in ``DIR/audio/`` or under ``DIR``). Any sample
rate and channel count is accepted: channels are averaged (downmix), the rate converted with a
polyphase resampler, leading/trailing silence trimmed. Unreadable, corrupt or silent files are
reported by name (``logging`` warning on ``simkit.sounds``; also listed in ``bank.skipped``)
and skipped. A file is reported once per process and its descendants: reported paths are
recorded in the environment variable ``SIMKIT_SOUNDS_REPORTED``, which worker processes
inherit, so files found at scan time (when ``simkit generate`` sets the generator up in the
main process) are reported once per run; files that fail only when decoded in a worker are
reported by each worker that meets them.

Stems are then loudness-normalised (ITU-R BS.1770-4 integrated loudness, via pyloudnorm),
trimmed or looped to the requested duration and gated (:func:`gate`), as the OmniEcho data
pipeline does with its stems (OmniEcho paper, "training data synthesis").
"""

from __future__ import annotations

import csv
import logging
import os
from pathlib import Path

import numpy as np

from simkit.core.errors import InputError

log = logging.getLogger("simkit.sounds")
#: environment variable listing the skipped files already reported (os.pathsep-separated): the
#: worker processes a run starts inherit it, so they do not repeat what the main process reported
REPORTED_ENV = "SIMKIT_SOUNDS_REPORTED"
_REPORTED_ENV_MAX = 32768  # characters; beyond this, processes report on their own


def _reported() -> set[str]:
    return set(filter(None, os.environ.get(REPORTED_ENV, "").split(os.pathsep)))


def _mark_reported(path: str) -> None:
    cur = os.environ.get(REPORTED_ENV, "")
    if len(cur) + len(path) < _REPORTED_ENV_MAX:
        os.environ[REPORTED_ENV] = f"{cur}{os.pathsep}{path}" if cur else path


AUDIO_EXTENSIONS = (".wav", ".flac", ".ogg", ".mp3", ".aif", ".aiff", ".au")
#: labels treated as ambient beds when a user bank provides them (ESC-50 names included)
DEFAULT_AMBIENT_LABELS = (
    "rain",
    "wind",
    "room_tone",
    "traffic",
    "sea_waves",
    "crickets",
    "crackling_fire",
    "insects",
    "thunderstorm",
    "pouring_water",
    "ambient",
)


# -- signal helpers --------------------------------------------------------------------------------
def _biquad_bandpass(f0: float, q: float, sr: int) -> tuple[np.ndarray, np.ndarray]:
    """RBJ audio-EQ-cookbook band-pass (constant 0 dB peak gain) coefficients (b, a)."""
    w0 = 2 * np.pi * min(f0, 0.45 * sr) / sr
    alpha = np.sin(w0) / (2 * q)
    b = np.array([alpha, 0.0, -alpha])
    a = np.array([1 + alpha, -2 * np.cos(w0), 1 - alpha])
    return b / a[0], a / a[0]


def _bandpass(x: np.ndarray, f0: float, q: float, sr: int) -> np.ndarray:
    from scipy.signal import lfilter

    b, a = _biquad_bandpass(f0, q, sr)
    return lfilter(b, a, x)


def _onepole_lowpass(x: np.ndarray, fc: float, sr: int) -> np.ndarray:
    from scipy.signal import lfilter

    k = np.exp(-2 * np.pi * fc / sr)
    return lfilter([1 - k], [1, -k], x)


def _env(n: int, sr: int, attack: float, decay: float) -> np.ndarray:
    t = np.arange(n) / sr
    return np.minimum(1.0, t / max(attack, 1e-4)) * np.exp(-t / decay)


def _place(out: np.ndarray, event: np.ndarray, at: int) -> None:
    if at >= out.size:
        return
    m = min(event.size, out.size - at)
    out[at : at + m] += event[:m]


def _events(n: int, sr: int, rng: np.random.Generator, rate: float, jitter: float = 0.3) -> list[int]:
    """Event start samples at about ``rate`` per second with relative timing jitter."""
    starts, t = [], float(rng.uniform(0, 0.3 / rate))
    while t * sr < n:
        starts.append(int(t * sr))
        t += (1.0 / rate) * (1 + jitter * float(rng.uniform(-1, 1)))
    return starts


# -- procedural sounds (each: (n, sr, rng) -> float64 (n,)) ------------------------------------------
def _alarm(n, sr, rng):
    f = rng.uniform(800, 1600)
    t = np.arange(n) / sr
    tone = sum(np.sin(2 * np.pi * f * k * t) / k for k in (1, 3, 5))
    on, off = rng.uniform(0.1, 0.2), rng.uniform(0.08, 0.15)
    gate_ = ((t % (on + off)) < on).astype(float)
    return tone * _onepole_lowpass(gate_, 200, sr)


def _bell(n, sr, rng):
    out = np.zeros(n)
    f0 = rng.uniform(300, 900)
    for at in _events(n, sr, rng, rng.uniform(0.7, 1.5), 0.1):
        m = min(n - at, int(1.5 * sr))
        t = np.arange(m) / sr
        ev = sum(
            a * np.sin(2 * np.pi * f0 * r * t) * np.exp(-t / d)
            for r, a, d in ((1, 1, 0.8), (2.0, 0.6, 0.5), (2.76, 0.5, 0.35), (5.4, 0.3, 0.2), (8.9, 0.2, 0.1))
        )
        _place(out, ev, at)
    return out


def _bird(n, sr, rng):
    out = np.zeros(n)
    for at in _events(n, sr, rng, rng.uniform(3, 7), 0.6):
        m = int(rng.uniform(0.05, 0.15) * sr)
        t = np.arange(m) / sr
        f1, f2 = rng.uniform(2000, 3500), rng.uniform(3000, 6000)
        phase = 2 * np.pi * np.cumsum(np.linspace(f1, f2, m)) / sr
        _place(out, np.sin(phase) * np.sin(np.pi * t / t[-1]) ** 2, at)
    return out


def _dog_bark(n, sr, rng):
    out = np.zeros(n)
    f0 = rng.uniform(350, 650)
    for at in _events(n, sr, rng, rng.uniform(1.5, 3.0), 0.5):
        m = int(rng.uniform(0.12, 0.25) * sr)
        t = np.arange(m) / sr
        f = f0 * (1.2 - 0.4 * t / t[-1])
        ph = 2 * np.pi * np.cumsum(f) / sr
        harm = sum(np.sin(k * ph) / k for k in range(1, 8))
        noise = _bandpass(rng.standard_normal(m), 1200, 1.0, sr)
        _place(out, (harm + 0.8 * noise) * _env(m, sr, 0.01, 0.07), at)
    return out


def _engine(n, sr, rng):
    t = np.arange(n) / sr
    f0 = rng.uniform(30, 60) * (1 + 0.03 * np.sin(2 * np.pi * rng.uniform(0.1, 0.5) * t))
    ph = 2 * np.pi * np.cumsum(f0) / sr
    harm = sum(np.sin(k * ph + rng.uniform(0, 6.28)) / np.sqrt(k) for k in range(1, 40))
    noise = _onepole_lowpass(rng.standard_normal(n), 2000, sr)
    return harm * (1 + 0.3 * np.sin(ph / 2)) + 2.0 * noise


def _footsteps(n, sr, rng):
    out = np.zeros(n)
    fc = rng.uniform(300, 1500)
    for at in _events(n, sr, rng, rng.uniform(1.6, 2.4), 0.08):
        m = int(0.12 * sr)
        ev = _bandpass(rng.standard_normal(m), fc, 0.8, sr) * _env(m, sr, 0.002, 0.03)
        _place(out, ev, at)
    return out


def _knock(n, sr, rng):
    out = np.zeros(n)
    f = rng.uniform(150, 400)
    for at in _events(n, sr, rng, rng.uniform(0.8, 1.5), 0.2):
        for j in range(int(rng.integers(2, 5))):
            m = int(0.15 * sr)
            t = np.arange(m) / sr
            ev = np.sin(2 * np.pi * f * t) * np.exp(-t / 0.04) + 0.5 * rng.standard_normal(m) * np.exp(
                -t / 0.004
            )
            _place(out, ev, at + int(j * rng.uniform(0.15, 0.22) * sr))
    return out


def _phone_ring(n, sr, rng):
    t = np.arange(n) / sr
    fa, fb = rng.choice([(440, 480), (350, 440), (1000, 1250)])
    tone = np.sin(2 * np.pi * fa * t) + np.sin(2 * np.pi * fb * t)
    trill = (np.sin(2 * np.pi * 20 * t) > 0).astype(float)
    cad = ((t % 1.2) < 0.8).astype(float)
    return tone * _onepole_lowpass(trill * cad, 300, sr)


def _siren(n, sr, rng):
    t = np.arange(n) / sr
    period = rng.uniform(1.0, 3.0)
    f = rng.uniform(600, 800) + rng.uniform(400, 700) * (0.5 - 0.5 * np.cos(2 * np.pi * t / period))
    ph = 2 * np.pi * np.cumsum(f) / sr
    return sum(np.sin(k * ph) / k for k in (1, 2, 3, 4))


_VOWELS = ((730, 1090, 2440), (270, 2290, 3010), (300, 870, 2240), (530, 1840, 2480), (570, 840, 2410))


def _speech(n, sr, rng):
    t = np.arange(n) / sr
    f0 = rng.uniform(100, 220) * (1 + 0.08 * np.sin(2 * np.pi * rng.uniform(0.5, 2) * t))
    ph = np.cumsum(f0) / sr
    pulses = np.diff(np.floor(ph), prepend=0.0)  # one impulse per glottal period
    out = np.zeros(n)
    syl = int(sr / rng.uniform(3.5, 5.5))
    for s0 in range(0, n, syl):
        seg = slice(s0, min(n, s0 + syl))
        m = seg.stop - seg.start
        v = _VOWELS[int(rng.integers(len(_VOWELS)))]
        src = pulses[seg]
        voiced = sum(_bandpass(src, f, 8.0, sr) for f in v)
        cons = (
            0.3
            * _bandpass(rng.standard_normal(m), rng.uniform(2500, 5000), 1.5, sr)
            * _env(m, sr, 0.005, 0.03)
        )
        out[seg] = voiced * np.sin(np.pi * np.arange(m) / m) ** 0.5 * (rng.random() > 0.15) + cons
    return out


def _music(n, sr, rng):
    out = np.zeros(n)
    base = rng.uniform(200, 400)
    scale = (1, 9 / 8, 5 / 4, 3 / 2, 5 / 3, 2)
    for at in _events(n, sr, rng, rng.uniform(3, 6), 0.05):
        m = int(0.5 * sr)
        t = np.arange(m) / sr
        f = base * scale[int(rng.integers(len(scale)))]
        _place(
            out,
            sum(np.sin(2 * np.pi * f * k * t) / k**1.5 for k in range(1, 7)) * _env(m, sr, 0.005, 0.15),
            at,
        )
    return out


def _water_drip(n, sr, rng):
    out = 0.1 * _bandpass(rng.standard_normal(n), 1500, 0.7, sr)
    for at in _events(n, sr, rng, rng.uniform(3, 8), 0.7):
        m = int(0.06 * sr)
        t = np.arange(m) / sr
        f = rng.uniform(800, 1500) * (1 + 2 * t / t[-1])
        _place(out, np.sin(2 * np.pi * np.cumsum(f) / sr) * np.exp(-t / 0.015), at)
    return out


def _rain(n, sr, rng):
    x = rng.standard_normal(n)
    x = x - _onepole_lowpass(x, 400, sr)
    clicks = (rng.random(n) < 300 / sr) * rng.standard_normal(n) * 4
    return x + _bandpass(clicks, 3000, 1.0, sr)


def _wind(n, sr, rng):
    t = np.arange(n) / sr
    x = _onepole_lowpass(rng.standard_normal(n), rng.uniform(200, 600), sr)
    am = 1 + 0.6 * np.sin(2 * np.pi * rng.uniform(0.1, 0.4) * t + rng.uniform(0, 6.28))
    return x * am


def _room_tone(n, sr, rng):
    from scipy.signal import lfilter

    # Paul Kellet's economy pink-noise filter (-3 dB/octave approximation)
    b = [0.049922035, -0.095993537, 0.050612699, -0.004408786]
    a = [1, -2.494956002, 2.017265875, -0.522189400]
    return lfilter(b, a, rng.standard_normal(n)) + 0.05 * np.sin(2 * np.pi * 50 * np.arange(n) / sr)


def _traffic(n, sr, rng):
    t = np.arange(n) / sr
    x = _onepole_lowpass(_onepole_lowpass(rng.standard_normal(n), 150, sr), 300, sr)
    swell = 1 + 0.8 * np.sin(2 * np.pi * t / rng.uniform(3, 8) + rng.uniform(0, 6.28)) ** 2
    return x * swell


FOREGROUND = {
    "alarm": _alarm,
    "bell": _bell,
    "bird": _bird,
    "dog_bark": _dog_bark,
    "engine": _engine,
    "footsteps": _footsteps,
    "knock": _knock,
    "phone_ring": _phone_ring,
    "siren": _siren,
    "speech": _speech,
    "music": _music,
    "water_drip": _water_drip,
}
AMBIENT = {"rain": _rain, "wind": _wind, "room_tone": _room_tone, "traffic": _traffic}


# -- stem processing ------------------------------------------------------------------------------
def loudness_lufs(x: np.ndarray, sr: int) -> float:
    """Integrated loudness in LUFS (ITU-R BS.1770-4 via pyloudnorm) of a mono signal.

    Signals shorter than one 400 ms gating block are measured as ``-0.691 + 10 log10(mean(y^2))``
    on the K-weighted signal repeated to 400 ms (the ungated BS.1770 formula). Returns ``-inf``
    for silence.
    """
    import pyloudnorm as pyln

    x = np.asarray(x, dtype=np.float64)
    need = int(np.ceil(0.4 * sr)) + 1
    if x.size < need:
        x = np.resize(x, need)
    if not np.any(x):
        return float("-inf")
    return float(pyln.Meter(sr).integrated_loudness(x))


def normalise_loudness(x: np.ndarray, sr: int, target_lufs: float) -> np.ndarray:
    """Scale ``x`` to integrated loudness ``target_lufs`` (BS.1770-4). Silent input is returned unchanged."""
    cur = loudness_lufs(x, sr)
    if not np.isfinite(cur):
        return np.asarray(x, dtype=np.float64)
    return np.asarray(x, dtype=np.float64) * 10 ** ((target_lufs - cur) / 20)


def gate(x: np.ndarray, sr: int, threshold_db: float = -50.0, frame_s: float = 0.01) -> np.ndarray:
    """Noise gate: zero 10 ms frames whose RMS is ``threshold_db`` below the loudest frame.

    Gain changes are smoothed over one frame (linear ramps), so the gate does not click.
    """
    x = np.asarray(x, dtype=np.float64)
    f = max(1, int(frame_s * sr))
    nf = -(-x.size // f)
    xp = np.zeros(nf * f)
    xp[: x.size] = x
    rms = np.sqrt(np.mean(xp.reshape(nf, f) ** 2, axis=1))
    if rms.max() == 0:
        return x.copy()
    open_ = (rms > rms.max() * 10 ** (threshold_db / 20)).astype(float)
    g = np.interp(np.arange(nf * f), (np.arange(nf) + 0.5) * f, open_)[: x.size]
    return x * g


def fit_length(x: np.ndarray, n: int, rng: np.random.Generator, fade: int = 0) -> np.ndarray:
    """Trim (random start) or loop ``x`` to ``n`` samples; optional linear fades of ``fade`` samples."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return np.zeros(n)
    if x.size >= n:
        s = int(rng.integers(0, x.size - n + 1))
        y = x[s : s + n].copy()
    else:
        y = np.resize(x, n)
    if fade > 0 and n > 2 * fade:
        r = np.linspace(0, 1, fade)
        y[:fade] *= r
        y[-fade:] *= r[::-1]
    return y


def trim_silence(x: np.ndarray, sr: int, threshold_db: float = -50.0) -> np.ndarray:
    """Remove leading and trailing 10 ms frames quieter than ``threshold_db`` below the loudest frame."""
    f = max(1, int(0.01 * sr))
    nf = x.size // f
    if nf == 0:
        return x
    rms = np.sqrt(np.mean(x[: nf * f].reshape(nf, f) ** 2, axis=1))
    if rms.max() == 0:
        return x[:0]
    on = np.flatnonzero(rms > rms.max() * 10 ** (threshold_db / 20))
    return x[on[0] * f : min(x.size, (on[-1] + 1) * f)]


# -- banks ---------------------------------------------------------------------------------------
class ProceduralBank:
    """The built-in bank: 12 foreground labels and 4 ambient-bed labels, synthesised from code.

    ``draw(label, n, sr, rng)`` returns float64 (n,) with peak 1 (before loudness normalisation).
    """

    name = "procedural"

    def __init__(self) -> None:
        self.labels = sorted(FOREGROUND)
        self.ambient_labels = sorted(AMBIENT)
        self.skipped: list[str] = []

    def draw(self, label: str, n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
        """Synthesise ``n`` samples of ``label`` at ``sr`` Hz (raises KeyError for unknown labels)."""
        fn = FOREGROUND.get(label) or AMBIENT[label]
        x = np.asarray(fn(int(n), int(sr), rng), dtype=np.float64)
        peak = np.max(np.abs(x)) if x.size else 0.0
        return x / peak if peak > 0 else x


class FolderBank:
    """Real recordings from ``root`` (see the module docstring for the layouts).

    Args:
        root: the directory.
        ambient_labels: labels used as ambient beds (the others are foreground sources).

    Raises:
        InputError: ``root`` missing, or no readable audio file found (names the directory).
    """

    name = "folder"

    def __init__(self, root: str | Path, ambient_labels=DEFAULT_AMBIENT_LABELS):
        self.root = Path(root)
        if not self.root.is_dir():
            raise InputError(self.root, "sound bank directory does not exist")
        self.skipped: list[str] = []
        self._cache: dict[tuple[str, int], np.ndarray | None] = {}
        files = self._scan_csv() or self._scan_folders()
        self.files: dict[str, list[Path]] = {}
        import soundfile as sf

        for label, paths in sorted(files.items()):
            ok = []
            for p in sorted(paths):
                try:
                    info = sf.info(str(p))
                    if info.frames <= 0 or info.samplerate <= 0:
                        raise ValueError("no audio frames")
                    ok.append(p)
                except Exception as exc:
                    self._skip(p, f"unreadable ({exc})")
            if ok:
                self.files[label] = ok
        if not self.files:
            raise InputError(
                self.root,
                "no readable audio files (expected DIR/<label>/*.wav|flac|ogg|mp3 "
                "or an ESC-50-style CSV with filename and category columns)",
            )
        amb = set(ambient_labels)
        self.labels = sorted(k for k in self.files if k not in amb)
        self.ambient_labels = sorted(k for k in self.files if k in amb)
        if not self.labels:
            raise InputError(
                self.root, "the sound bank has only ambient labels; foreground labels are needed"
            )

    def _skip(self, path: Path, reason: str) -> None:
        if str(path) not in self.skipped:
            self.skipped.append(str(path))
            if str(path) not in _reported():  # once per run (see _reported), however often the bank is loaded
                _mark_reported(str(path))
                log.warning("sound bank: skipping %s: %s", path, reason)

    def _scan_csv(self) -> dict[str, list[Path]]:
        csvs = sorted(self.root.glob("meta/*.csv")) + sorted(self.root.glob("*.csv"))
        for c in csvs:
            try:
                with open(c, newline="", encoding="utf-8") as fh:
                    rows = list(csv.DictReader(fh))
            except (OSError, UnicodeDecodeError, csv.Error) as exc:
                raise InputError(c, f"cannot read sound-bank CSV: {exc}") from None
            if not rows or "filename" not in rows[0]:
                continue
            col = "category" if "category" in rows[0] else "label" if "label" in rows[0] else None
            if col is None:
                raise InputError(c, "sound-bank CSV needs a 'category' or 'label' column")
            bases = [c.parent / "audio", c.parent.parent / "audio", c.parent, self.root]
            out: dict[str, list[Path]] = {}
            for line, r in enumerate(rows, start=2):
                name, label = (r.get("filename") or "").strip(), (r.get(col) or "").strip()
                if not name or not label:
                    log.warning("sound bank: %s:%d: empty filename or label, row skipped", c, line)
                    continue
                path = next((b / name for b in bases if (b / name).is_file()), None)
                if path is None:
                    self._skip(c.parent / name, f"listed in {c.name} line {line} but not found")
                    continue
                out.setdefault(label, []).append(path)
            return out
        return {}

    def _scan_folders(self) -> dict[str, list[Path]]:
        out: dict[str, list[Path]] = {}
        for d in sorted(p for p in self.root.iterdir() if p.is_dir()):
            files = [p for p in d.rglob("*") if p.suffix.lower() in AUDIO_EXTENSIONS and p.is_file()]
            if files:
                out[d.name] = files
        return out

    def _load(self, path: Path, sr: int) -> np.ndarray | None:
        key = (str(path), sr)
        if key in self._cache:
            return self._cache[key]
        import soundfile as sf

        x = None
        try:
            data, file_sr = sf.read(str(path), dtype="float64", always_2d=True)
            mono = data.mean(axis=1)
            if not np.all(np.isfinite(mono)):
                raise ValueError("non-finite samples")
            if file_sr != sr:
                from math import gcd

                from scipy.signal import resample_poly

                g = gcd(int(file_sr), int(sr))
                mono = resample_poly(mono, sr // g, file_sr // g)
            mono = trim_silence(mono, sr)
            if mono.size < int(0.05 * sr) or np.max(np.abs(mono)) < 1e-5:
                self._skip(path, "silent")
            else:
                x = mono / np.max(np.abs(mono))
        except Exception as exc:
            self._skip(path, f"corrupt or unreadable ({type(exc).__name__}: {exc})")
        if len(self._cache) > 256:
            self._cache.pop(next(iter(self._cache)))
        self._cache[key] = x
        return x

    def draw(self, label: str, n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` samples of a recording of ``label`` (random file, random excerpt, looped if short).

        Files that turn out silent or corrupt are skipped (the next file in sorted order is tried).

        Raises:
            InputError: every file of ``label`` is unusable.
        """
        paths = self.files[label]
        k = int(rng.integers(len(paths)))
        for j in range(len(paths)):
            x = self._load(paths[(k + j) % len(paths)], sr)
            if x is not None:
                return fit_length(x, int(n), rng)
        raise InputError(self.root / label, f"no usable recording of label {label!r}")


def check_bank_dir(path: str) -> str:
    """``path`` unchanged when empty or a usable bank (:func:`bank_dir_problem`); else ValueError
    (the shape a pydantic field validator needs)."""
    if path:
        problem = bank_dir_problem(path)
        if problem:
            raise ValueError(problem)
    return path


def bank_dir_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be a sound bank, or None; cheap (lists files, decodes nothing).

    A usable bank directory exists, is readable and holds either a CSV (``DIR/*.csv`` or
    ``DIR/meta/*.csv``) or a sub-folder with at least one file named ``*.wav|flac|ogg|mp3|aif|aiff|au``.
    Unreadable or corrupt audio is found later, when the bank is loaded.
    """
    root = Path(path).expanduser()
    if not root.exists():
        return f"sound bank directory {str(path)!r} does not exist"
    if not root.is_dir():
        return f"sound bank {str(path)!r} is not a directory"
    if not os.access(root, os.R_OK | os.X_OK):
        return f"sound bank directory {str(path)!r} is not readable"
    try:
        for c in sorted(root.glob("meta/*.csv")) + sorted(root.glob("*.csv")):
            if not os.access(c, os.R_OK):
                return f"sound-bank CSV {str(c)!r} is not readable"
            return None
        for d in root.iterdir():
            if d.is_dir() and any(f.suffix.lower() in AUDIO_EXTENSIONS for f in d.rglob("*")):
                return None
    except OSError as exc:
        return f"cannot list sound bank directory {str(path)!r}: {exc.strerror or exc}"
    return (
        f"sound bank directory {str(path)!r} holds no audio (expected DIR/<label>/*.wav|flac|ogg|mp3|aif|aiff|au "
        "or an ESC-50-style CSV with filename and category columns)"
    )


def load_bank(path: str | Path | None = None):
    """The procedural bank when ``path`` is empty/None, else a :class:`FolderBank` of ``path``."""
    if not path:
        return ProceduralBank()
    return FolderBank(path)
