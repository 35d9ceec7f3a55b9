"""Field codecs: value -> (extension, bytes) and back.

Encoders are deterministic: the same value gives the same bytes on every run
(fixed PNG/FLAC/MP4 settings, sorted JSON keys), which the corpus determinism
guarantee relies on. Decoders are chosen by file extension, so any reader
(including plain ``webdataset``) can decode members by name.
"""

from __future__ import annotations

import io
import json
import math
from typing import Any

import numpy as np

from simkit.core.episode import Audio, Blob, Image, Video
from simkit.core.errors import require


class _JSONEncoder(json.JSONEncoder):
    def default(self, o: Any) -> Any:
        if isinstance(o, np.integer):
            return int(o)
        if isinstance(o, np.floating):
            return float(o)
        if isinstance(o, np.bool_):
            return bool(o)
        if isinstance(o, np.ndarray):
            return o.tolist()
        if isinstance(o, (set, frozenset)):
            return sorted(o)
        return super().default(o)


def dumps_json(value: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, compact separators, numpy types converted, NaN rejected."""
    return json.dumps(value, cls=_JSONEncoder, sort_keys=True, separators=(",", ":"), allow_nan=False).encode(
        "utf-8"
    )


def _npy(arr: np.ndarray) -> bytes:
    if arr.dtype == object:
        raise TypeError("object arrays cannot be stored; use a JSON field")
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return buf.getvalue()


def _png(arr: np.ndarray) -> bytes:
    from PIL import Image as PILImage

    if arr.dtype == np.uint16 and arr.ndim == 2:
        img = PILImage.fromarray(arr, mode="I;16")
    elif arr.dtype == np.uint8 and (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[2] in (3, 4))):
        img = PILImage.fromarray(arr)
    else:
        raise TypeError(f"PNG takes uint8 HxW/HxWx3/HxWx4 or uint16 HxW, got {arr.dtype} {arr.shape}")
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=6)
    return buf.getvalue()


#: EXR channel names by channel count; two channels are a flow / correspondence field (u, v)
_EXR_CHANNELS = {1: ("Y",), 2: ("u", "v"), 3: ("R", "G", "B"), 4: ("R", "G", "B", "A")}


def _exr(arr: np.ndarray) -> bytes:
    OpenEXR = require("OpenEXR")
    a = np.asarray(arr, dtype=np.float32)
    if a.ndim == 2:
        a = a[:, :, None]
    if a.ndim != 3 or a.shape[2] not in _EXR_CHANNELS:
        raise TypeError(f"EXR takes float HxW, HxWx2 (u, v), HxWx3 or HxWx4, got {arr.shape}")
    names = _EXR_CHANNELS[a.shape[2]]
    channels = {n: np.ascontiguousarray(a[:, :, i]) for i, n in enumerate(names)}
    header = {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(suffix=".exr")
    os.close(fd)
    try:
        with OpenEXR.File(header, channels) as f:
            f.write(tmp)
        with open(tmp, "rb") as fh:
            return fh.read()
    finally:
        os.unlink(tmp)


def _flac(audio: Audio) -> bytes:
    sf = require("soundfile", "audio")
    x = np.asarray(audio.samples, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2:
        raise TypeError(f"audio samples must be (T,) or (T, C), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("audio samples contain NaN or inf")
    peak = float(np.max(np.abs(x))) if x.size else 0.0
    if peak > 1.0:
        raise ValueError(f"audio peak {peak:.3f} exceeds full scale 1.0; normalise before storing")
    buf = io.BytesIO()
    if not audio.comment:
        sf.write(buf, x, int(audio.sample_rate), format="FLAC", subtype="PCM_24")
        return buf.getvalue()
    with sf.SoundFile(buf, "w", int(audio.sample_rate), x.shape[1], format="FLAC", subtype="PCM_24") as f:
        f.comment = audio.comment  # libsndfile writes it as the Vorbis comment "comment=..."
        f.write(x)
    return buf.getvalue()


def _mp4(video: Video) -> bytes:
    av = require("av", "video")
    frames = np.asarray(video.frames)
    if frames.ndim != 4 or frames.shape[3] != 3 or frames.dtype != np.uint8:
        raise TypeError(f"video frames must be uint8 (T, H, W, 3), got {frames.dtype} {frames.shape}")
    t, h, w, _ = frames.shape
    if h % 2 or w % 2:
        raise ValueError(f"H.264 needs even width and height, got {w}x{h}")
    import os
    import tempfile
    from fractions import Fraction

    fd, tmp = tempfile.mkstemp(suffix=".mp4")
    os.close(fd)
    try:
        # a real file: the +faststart pass (moov atom first, streamable) rewrites it in place
        with av.open(tmp, mode="w", format="mp4", options={"movflags": "+faststart"}) as container:
            rate = Fraction(video.fps).limit_denominator(1001)
            stream = container.add_stream("libx264", rate=rate)
            stream.width, stream.height = w, h
            stream.pix_fmt = "yuv420p"
            # one thread and no macroblock-tree rate control: with mbtree, x264 output for the same frames
            # was seen to differ between runs (frame sizes that are not multiples of 16), and corpora
            # must be reproducible byte for byte
            stream.options = {
                "crf": str(int(video.crf)),
                "preset": "medium",
                "threads": "1",
                "x264-params": "mbtree=0",
            }
            stream.codec_context.time_base = Fraction(1, 1) / rate
            for i, frame in enumerate(frames):
                vf = av.VideoFrame.from_ndarray(frame, format="rgb24")
                vf.pts, vf.time_base = i, stream.codec_context.time_base  # explicit: never clock-derived
                for packet in stream.encode(vf):
                    container.mux(packet)
            for packet in stream.encode():
                container.mux(packet)
        with open(tmp, "rb") as fh:
            return fh.read()
    finally:
        os.unlink(tmp)


def encode(value: Any) -> tuple[str, bytes]:
    """Encode one field value; returns (extension, bytes).

    Raises:
        TypeError: no codec for this type, or the array has the wrong shape/dtype for its codec.
    """
    if isinstance(value, Blob):
        return value.ext, bytes(value.data)
    if isinstance(value, Image):
        arr = np.asarray(value.array)
        if np.issubdtype(arr.dtype, np.floating):
            return "exr", _exr(arr)
        return "png", _png(arr)
    if isinstance(value, Video):
        return "mp4", _mp4(value)
    if isinstance(value, Audio):
        return "flac", _flac(value)
    if isinstance(value, np.ndarray):
        return "npy", _npy(value)
    if isinstance(value, (dict, list, tuple)):
        return "json", dumps_json(value)
    if isinstance(value, str):
        return "txt", value.encode("utf-8")
    if isinstance(value, bytes):
        return "bin", value
    if isinstance(value, (int, float, bool)) and not (isinstance(value, float) and not math.isfinite(value)):
        return "json", dumps_json(value)
    raise TypeError(f"no codec for {type(value).__name__}")


def decode(ext: str, data: bytes) -> Any:
    """Decode member bytes by extension.

    Arrays are returned writable (torch warns on read-only arrays).

    Returns: ndarray for npy/png/exr, dict/list for json, str for txt,
    ``(samples float32 (T, C), sample_rate)`` for flac, uint8 ``(T, H, W, 3)`` for mp4, bytes otherwise.
    """
    ext = ext.lower()
    if ext == "npy":
        return np.load(io.BytesIO(data), allow_pickle=False)
    if ext == "json":
        return json.loads(data.decode("utf-8"))
    if ext == "txt":
        return data.decode("utf-8")
    if ext == "png":
        from PIL import Image as PILImage

        with PILImage.open(io.BytesIO(data)) as img:
            return np.array(img)  # a writable copy (np.asarray of a PIL image is read-only)
    if ext == "exr":
        OpenEXR = require("OpenEXR")
        import os
        import tempfile

        fd, tmp = tempfile.mkstemp(suffix=".exr")
        try:
            os.write(fd, data)
            os.close(fd)
            with OpenEXR.File(tmp) as f:
                ch = f.channels()
                names = [n for n in ("R", "G", "B", "A", "Y", "u", "v") if n in ch]
                planes = [np.asarray(ch[n].pixels, dtype=np.float32) for n in names]
                if len(planes) == 1 and "RGB" not in ch and "RGBA" not in ch:
                    return planes[0]
                if "RGB" in ch or "RGBA" in ch:
                    return np.asarray(ch.get("RGBA", ch.get("RGB")).pixels, dtype=np.float32)
                return np.stack(planes, axis=-1)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    if ext == "flac":
        sf = require("soundfile", "audio")
        x, sr = sf.read(io.BytesIO(data), dtype="float32", always_2d=True)
        return x, sr
    if ext == "mp4":
        av = require("av", "video")
        with av.open(io.BytesIO(data)) as container:
            return np.stack([f.to_ndarray(format="rgb24") for f in container.decode(video=0)])
    return data
