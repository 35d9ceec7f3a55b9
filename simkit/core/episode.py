"""The Episode type: what a generator returns and the writer stores.

An episode is a mapping of field name -> value. The value's type picks the
codec (see :mod:`simkit.episodes.codecs`):

==========================  =========  =========================================
value                       extension  notes
==========================  =========  =========================================
``numpy.ndarray``           ``npy``    any shape/dtype (no object arrays)
``dict`` / ``list``         ``json``   sorted keys, numpy scalars converted
``str``                     ``txt``    UTF-8
:class:`Image`              ``png``    uint8/uint16 HxW, HxWx3 or HxWx4
:class:`Image` (float)      ``exr``    float32 HxW, HxWx2 (u, v), HxWx3 or HxWx4 (OpenEXR, ZIP)
:class:`Video`              ``mp4``    uint8 TxHxWx3, H.264, fixed quality
:class:`Audio`              ``flac``   float TxC in [-1, 1], 24-bit FLAC
:class:`Blob`               any        raw bytes with an explicit extension
==========================  =========  =========================================

Field names must be identifiers of ``[a-z0-9_]`` so that members are named
``{key}.{field}.{ext}`` with exactly one field component (WebDataset splits a
member name at the first dot of its basename).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

FIELD_NAME = re.compile(r"^[a-z0-9][a-z0-9_]*$")
RESERVED_FIELDS = ("meta",)


@dataclass(frozen=True)
class Image:
    """An image field. ``array``: HxW, HxWx3 or HxWx4; uint8/uint16 -> PNG, float32 -> EXR."""

    array: np.ndarray


@dataclass(frozen=True)
class Video:
    """A video field. ``frames``: uint8 array (T, H, W, 3), RGB; ``fps``: frames per second.

    ``crf`` sets the H.264 constant rate factor (lower = better quality).
    """

    frames: np.ndarray
    fps: float = 24.0
    crf: int = 18


@dataclass(frozen=True)
class Audio:
    """An audio field. ``samples``: float array (T, C) or (T,) in [-1, 1]; ``sample_rate`` in Hz;
    ``comment``: stored as the FLAC file's ``comment`` Vorbis comment when not empty (ambisonic
    fields name their format there, see :func:`simkit.renderers.foa.ambisonics_comment`)."""

    samples: np.ndarray
    sample_rate: int
    comment: str = ""


@dataclass(frozen=True)
class Blob:
    """Raw bytes stored as ``{key}.{field}.{ext}``."""

    data: bytes
    ext: str


@dataclass
class Episode:
    """One generated sample.

    Attributes:
        fields: field name -> value (see the module docstring for codecs).
        params: the sampled parameters, split as ``{"structural": {...}, "surface": {...}}``.
            Structural parameters change the task; surface parameters change only the look.
        meta: any further JSON-serialisable metadata the generator wants recorded.

    The writer adds a ``meta`` field holding generator, version, seed, index,
    params, simkit and backend versions, and anything in ``meta``.
    """

    fields: dict[str, Any]
    params: dict[str, dict[str, Any]] = field(default_factory=lambda: {"structural": {}, "surface": {}})
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in self.fields:
            if not FIELD_NAME.match(name):
                raise ValueError(f"invalid episode field name {name!r}: use [a-z0-9_] only")
            if name in RESERVED_FIELDS:
                raise ValueError(f"episode field name {name!r} is reserved for the writer")
        unknown = set(self.params) - {"structural", "surface"}
        if unknown:
            raise ValueError(f"Episode.params takes only 'structural' and 'surface', got {sorted(unknown)}")
        self.params.setdefault("structural", {})
        self.params.setdefault("surface", {})
