"""Typed episode fields: the corpus contract in code.

Each generator declares its fields once, as a tuple of :class:`FieldSpec` in the class
attribute ``Generator.fields``. The engine checks every episode against the declaration
before writing it, writes the declaration into ``corpus.json`` (``field_schema``), and
``validate``, the readers, ``simkit config NAME`` and the docs' field tables derive from it.

Shapes use ints for fixed sizes and short names for symbolic dims (``"T"``, ``"H"``, ``"W"``,
``"N"``): every occurrence of one symbolic name within one episode must have the same size.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

#: codec names are the member extensions they write (``Blob`` fields use ``"blob"``)
Codec = Literal["npy", "json", "txt", "png", "exr", "mp4", "flac", "blob"]
CODECS: tuple[str, ...] = ("npy", "json", "txt", "png", "exr", "mp4", "flac", "blob")


@dataclass(frozen=True)
class FieldSpec:
    """One declared episode field.

    Attributes:
        name: field name (``[a-z0-9_]``), the member is ``{key}.{name}.{ext}``.
        codec: one of :data:`CODECS` (``npy`` ndarray, ``json`` dict/list, ``txt`` str, ``png``/``exr``
            :class:`~simkit.core.episode.Image`, ``mp4`` :class:`~simkit.core.episode.Video`,
            ``flac`` :class:`~simkit.core.episode.Audio`, ``blob`` :class:`~simkit.core.episode.Blob`).
        dtype: numpy dtype name of the array (``"float32"``, ``"uint8"``...); ``None`` for json/txt/blob
            or when several dtypes are legal.
        shape: array shape, ints and symbolic dim names (``("T", 5, 128)``); ``None`` = not checked.
            For ``mp4`` the frames' (T, H, W, 3); for ``flac`` the samples' (T, C).
        units: SI units of the values (``"m"``, ``"rad"``, ``"Pa"``, ``""`` when unitless).
        frame: coordinate frame of positions/orientations (``"world, z up"``), ``""`` when none.
        description: one line a user reads in ``simkit config NAME`` and the docs.
        required: every episode has it (``False``: present only under some configs).
    """

    name: str
    codec: Codec
    dtype: str | None = None
    shape: tuple[int | str, ...] | None = None
    units: str = ""
    frame: str = ""
    description: str = ""
    required: bool = True

    def to_json(self) -> dict[str, Any]:
        """The declaration as written into ``corpus.json`` (shape as a list)."""
        d = asdict(self)
        d["shape"] = list(self.shape) if self.shape is not None else None
        return d
