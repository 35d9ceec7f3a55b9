"""Typed episode fields: the corpus contract in code.

Each generator declares its fields once, as a tuple of :class:`FieldSpec` in the class
attribute ``Generator.fields``. The engine checks every episode against the declaration
before writing it, writes the declaration into ``corpus.json`` (``field_schema``), and
``validate``, the readers, ``simkit config NAME`` and the docs' field tables derive from it.

Shapes use ints for fixed sizes and short names for symbolic dims (``"T"``, ``"H"``, ``"W"``,
``"N"``), optionally with an integer offset (``"T+1"``): every occurrence of one symbolic name
within one episode must give it the same size.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from simkit.core.episode import Audio, Blob, Image, Video
from simkit.core.errors import SimkitError

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

    def __post_init__(self) -> None:
        if not re.match(r"^[a-z0-9][a-z0-9_]*$", self.name) or self.name == "meta":
            raise ValueError(f"field name {self.name!r}: use [a-z0-9_], not 'meta'")
        if self.codec not in CODECS:
            raise ValueError(f"field {self.name!r}: codec {self.codec!r} is not one of {', '.join(CODECS)}")
        if self.dtype is not None:
            try:
                np.dtype(self.dtype)
            except TypeError:
                raise ValueError(
                    f"field {self.name!r}: dtype {self.dtype!r} is not a numpy dtype name"
                ) from None
        for dim in self.shape or ():
            if not isinstance(dim, int):
                _symbol(dim)

    def to_json(self) -> dict[str, Any]:
        """The declaration as written into ``corpus.json`` (shape as a list)."""
        d = asdict(self)
        d["shape"] = list(self.shape) if self.shape is not None else None
        return d


class FieldMismatch(SimkitError):
    """An episode disagrees with its generator's field declaration (a generator bug, not bad user input)."""


def codec_of(value: Any) -> str:
    """The codec an episode value is stored with (the member extension; ``Blob`` values give ``"blob"``).

    Mirrors the type dispatch of :func:`simkit.episodes.codecs.encode`: float ``Image`` -> ``exr``,
    other ``Image`` -> ``png``, ``Video`` -> ``mp4``, ``Audio`` -> ``flac``, ndarray -> ``npy``,
    dict/list/tuple/number -> ``json``, str -> ``txt``, bytes -> ``blob``.

    Raises:
        TypeError: no codec stores this type.
    """
    if isinstance(value, Blob):
        return "blob"
    if isinstance(value, Image):
        return "exr" if np.issubdtype(np.asarray(value.array).dtype, np.floating) else "png"
    for cls, codec in ((Video, "mp4"), (Audio, "flac"), (np.ndarray, "npy"), (str, "txt"), (bytes, "blob")):
        if isinstance(value, cls):
            return codec
    if isinstance(value, (dict, list, tuple, int, float, bool)):
        return "json"
    raise TypeError(f"no codec for {type(value).__name__}")


def _array_of(codec: str, value: Any) -> np.ndarray | None:
    """The array whose dtype/shape the declaration describes, for an episode value or a decoded member."""
    if isinstance(value, Image):
        return np.asarray(value.array)
    if isinstance(value, Video):
        return np.asarray(value.frames)
    if isinstance(value, Audio):
        samples = np.asarray(value.samples)
        return samples[:, None] if samples.ndim == 1 else samples
    if codec == "flac" and isinstance(value, tuple) and len(value) == 2:  # decoded: (samples, rate)
        return np.asarray(value[0])
    if isinstance(value, np.ndarray):
        return value
    return None


def _check_dtype(spec: FieldSpec, arr: np.ndarray) -> str | None:
    if spec.dtype is None or arr.dtype == np.dtype(spec.dtype):
        return None
    if spec.codec == "flac" and arr.dtype.kind == "f":  # FLAC stores 24-bit PCM: any float input is legal
        return None
    return f"dtype {spec.dtype}, got {arr.dtype}"


def _check_shape(spec: FieldSpec, arr: np.ndarray, dims: dict[str, int]) -> str | None:
    if spec.shape is None:
        return None
    want = shape_text(spec.shape)
    if arr.ndim != len(spec.shape):
        return f"shape {want}, got {tuple(arr.shape)}"
    for dim, size in zip(spec.shape, arr.shape):
        if isinstance(dim, int):
            if dim != size:
                return f"shape {want}, got {tuple(arr.shape)}"
            continue
        name, offset = _symbol(dim)
        if dims.setdefault(name, size - offset) != size - offset:
            return f"shape {want} with {name}={dims[name]} (set by an earlier field), got {tuple(arr.shape)}"
    return None


_SYMBOL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:([+-])(\d+))?$")


def _symbol(dim: str) -> tuple[str, int]:
    """``"T"`` -> ("T", 0), ``"T+1"`` -> ("T", 1), ``"T-1"`` -> ("T", -1)."""
    m = _SYMBOL.match(dim)
    if m is None:
        raise ValueError(f"bad symbolic dim {dim!r}: use a name, optionally +/- an int (T, T+1)")
    return m.group(1), (int(m.group(3)) if m.group(3) else 0) * (-1 if m.group(2) == "-" else 1)


def check_value(
    spec: FieldSpec, value: Any, dims: dict[str, int] | None = None, *, codec: str | None = None
) -> str | None:
    """Check one value against its declaration; ``None`` when it conforms, else ``"expected ..., got ..."``.

    Args:
        spec: the field's declaration.
        value: an episode value (``Image``, ``Video``, ndarray, dict...) or, when ``codec`` is given, the
            value decoded from a stored member (:func:`simkit.episodes.codecs.decode`).
        dims: symbolic dim name -> size seen so far in this episode; updated in place so that every
            occurrence of a name within one episode must agree.
        codec: the stored member's extension (decoded values); ``None`` derives it from the value's type.
    """
    dims = {} if dims is None else dims
    if spec.codec == "blob" and codec is not None:
        return None  # a Blob member keeps its own extension and its bytes are opaque
    got = codec if codec is not None else codec_of(value)
    if got != spec.codec:
        return f"expected codec {spec.codec}, got {got} ({type(value).__name__})"
    arr = _array_of(spec.codec, value)
    if arr is None:
        return None
    for problem in (_check_dtype(spec, arr), _check_shape(spec, arr, dims)):
        if problem is not None:
            return f"expected {problem}"
    return None


def check_episode(
    specs: tuple[FieldSpec, ...], fields: dict[str, Any], *, codecs: dict[str, str] | None = None
) -> list[str]:
    """Check one episode's fields against the declaration; returns ``"field 'x': ..."`` problems.

    Reports required fields that are missing, fields that are not declared, and every value that
    fails :func:`check_value` (with symbolic dims shared across the episode). An empty ``specs``
    (a generator that declares nothing) checks nothing. ``codecs`` maps field name -> stored member
    extension when ``fields`` holds decoded members (``meta`` and ``__key__`` are ignored).
    """
    if not specs:
        return []
    declared = {s.name: s for s in specs}
    names = [n for n in fields if n not in ("meta", "__key__")]
    problems = [
        f"field {s.name!r}: required but missing" for s in specs if s.required and s.name not in fields
    ]
    problems += [f"field {n!r}: not declared in the generator's fields" for n in names if n not in declared]
    dims: dict[str, int] = {}
    for name in names:
        if name in declared:
            codec = None if codecs is None else codecs.get(name)
            problem = check_value(declared[name], fields[name], dims, codec=codec)
            if problem is not None:
                problems.append(f"field {name!r}: {problem}")
    return problems


def assert_episode(generator: str, specs: tuple[FieldSpec, ...], fields: dict[str, Any]) -> None:
    """Raise :class:`FieldMismatch` naming the generator, field and expected vs got when an episode
    disagrees with the declaration (the engine calls this on every episode before writing it)."""
    problems = check_episode(specs, fields)
    if problems:
        raise FieldMismatch(f"generator {generator!r} broke its field declaration: " + "; ".join(problems))


def required_names(specs: tuple[FieldSpec, ...]) -> tuple[str, ...]:
    """Names of the declared fields every episode has (``required=True``), in declaration order."""
    return tuple(s.name for s in specs if s.required)


def schema_json(specs: tuple[FieldSpec, ...]) -> list[dict[str, Any]]:
    """The declaration as stored in ``corpus.json["field_schema"]`` (one dict per field)."""
    return [s.to_json() for s in specs]


def specs_from_json(data: list[dict[str, Any]] | None) -> tuple[FieldSpec, ...]:
    """Read back :func:`schema_json` (``None``/absent in older corpora gives ``()``, which checks nothing).

    Raises:
        SimkitError: an entry is not a valid declaration.
    """
    out = []
    for entry in data or []:
        try:
            shape = entry.get("shape")
            out.append(FieldSpec(**{**entry, "shape": None if shape is None else tuple(shape)}))
        except (TypeError, AttributeError) as exc:
            raise SimkitError(f"corpus.json field_schema: bad entry {entry!r} ({exc})") from None
    return tuple(out)


def shape_text(shape: tuple[int | str, ...] | None) -> str:
    """A declared shape as Python writes a tuple, symbols unquoted: ``(T+1, L, W)``, ``(P,)``; ``any`` for None."""
    if shape is None:
        return "any"
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def field_table(specs: tuple[FieldSpec, ...]) -> str:
    """A Markdown table of the declaration (the docs' field tables and ``simkit config NAME``)."""
    lines = [
        "| field | codec | dtype | shape | units | frame | description |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in specs:
        opt = "" if s.required else " (optional)"
        cells = [
            f"`{s.name}`",
            s.codec,
            s.dtype or "",
            shape_text(s.shape),
            s.units,
            s.frame,
            s.description + opt,
        ]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def check_stored(
    specs: tuple[FieldSpec, ...], sample: dict[str, Any], member_exts: dict[str, str]
) -> list[str]:
    """Check one decoded stored sample against the declaration read from ``corpus.json``.

    ``sample`` maps field -> decoded value (``meta``/``__key__`` ignored), ``member_exts`` field -> member
    extension. Missing required fields are left to the caller (``validate`` reports them from the
    manifest even when members do not decode); every other problem of :func:`check_episode` is returned.
    """
    present = {n: v for n, v in sample.items() if n in member_exts}
    return [
        p for p in check_episode(specs, present, codecs=member_exts) if not p.endswith("required but missing")
    ]
