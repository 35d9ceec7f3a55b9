"""Triton's LLVM and software OpenGL in one process: Triton's library is loaded first.

Blender (Workbench and EEVEE renders) and MuJoCo (``MUJOCO_GL=egl`` or ``osmesa``) draw through Mesa
where no GPU driver is installed. Mesa's loader opens its driver (``swrast_dri.so``) with ``RTLD_GLOBAL``,
which puts the driver's dependencies, among them the system's shared LLVM (``libLLVM-15.so.1`` on Debian
12), into the process's global symbol scope. Triton, which PyPI's default (CUDA) build of PyTorch
installs and ``torch._dynamo`` imports (``torch.compile``, the constructor of every ``torch.optim``
optimizer), ships ``triton/_C/libtriton.so`` with its own LLVM linked in and about 24,000 ``llvm::``
symbols exported (Triton 3.7.1, ``nm -D``). The dynamic linker looks a loaded library's symbols up in the
global scope before the library's own dependencies (System V gABI, "Shared Object Dependencies"), so a
libtriton loaded after Mesa binds part of its LLVM to the system's LLVM of another version, and its static
initialisers crash the process (SIGSEGV in ``free`` under ``llvm::DebugCounter``,
``_GLOBAL__sub_I_PassBuilder.cpp``). Loaded before Mesa, with ``RTLD_LOCAL`` like every Python extension
module, libtriton binds to itself, Mesa's LLVM binds to itself too (libtriton is not in the global scope),
and a later ``import triton`` finds the library loaded and runs no initialiser again.

:func:`load_llvm_libraries` is that load. simkit calls it before Blender or MuJoCo can open an OpenGL
context; it does nothing where no such package is installed (the CPU build of PyTorch has no Triton) and
off Linux. Where Triton is installed it costs each rendering process about 0.13 s and 70 MB of resident
memory once (Triton 3.7.1 on a 2-core x86_64 VM), whether or not the process uses Triton later.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import logging
import os
import sys
from pathlib import Path

#: packages that ship a shared library exporting its own LLVM: (package, glob of that library in it)
LLVM_LIBRARIES: tuple[tuple[str, str], ...] = (("triton", "_C/libtriton*.so"),)

logger = logging.getLogger("simkit.llvm")

_loaded: dict[Path, ctypes.CDLL] = {}
_warned: set[Path] = set()


def llvm_in_global_scope() -> bool:
    """Whether an LLVM is in this process's global symbol scope: ``dlsym(dlopen(NULL), "LLVMContextCreate")``
    (a function of LLVM's C API that every shared LLVM exports) finds it. True after Mesa's driver was
    loaded; False in a fresh interpreter, and after a library with LLVM was loaded ``RTLD_LOCAL``."""
    try:
        ctypes.CDLL(None)["LLVMContextCreate"]
    except (AttributeError, OSError):
        return False
    return True


def _open(path: Path, load: bool) -> ctypes.CDLL | None:
    """A handle of the library at ``path``: loaded now (``load``) or only if this process has it mapped
    already (``RTLD_NOLOAD``); ``None`` when neither. ``RTLD_NOW | RTLD_LOCAL``, Python's own flags for
    extension modules."""
    try:
        return ctypes.CDLL(str(path), mode=os.RTLD_NOW | os.RTLD_LOCAL | (0 if load else os.RTLD_NOLOAD))
    except OSError as exc:
        if load:
            logger.debug("cannot load %s: %s", path, exc)
        return None


@functools.cache
def _library(package: str, pattern: str) -> Path | None:
    """The library matching ``pattern`` inside installed ``package``, found without importing it (looked up
    once per process: the MuJoCo renderers call :func:`load_llvm_libraries` on every render)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    roots = list(spec.submodule_search_locations or []) if spec is not None else []
    found = [path for root in roots for path in sorted(Path(root).glob(pattern))]
    return found[0].resolve() if found else None


def load_llvm_libraries() -> list[Path]:
    """Load the library of each installed package of :data:`LLVM_LIBRARIES` (Triton's ``libtriton.so``)
    into this process, once, ``RTLD_NOW | RTLD_LOCAL``, so that software OpenGL loaded later cannot break
    it (module docstring).

    Returns the paths of those libraries now loaded in this process (by this call, an earlier one or an
    ``import``); ``[]`` off Linux or where none is installed. A library not loaded yet while an LLVM is
    already in the global scope (something drew through Mesa before simkit was asked) is left alone with
    one warning per library: loading it then would crash the process, and so would importing it.
    Never raises: a library that cannot be loaded is logged and skipped.
    """
    if not sys.platform.startswith("linux"):
        return []
    done = []
    for package, pattern in LLVM_LIBRARIES:
        path = _library(package, pattern)
        if path is None:
            continue
        handle = _loaded.get(path) or _open(path, load=False)
        if handle is None and llvm_in_global_scope():
            if path not in _warned:
                _warned.add(path)
                logger.warning(
                    "software OpenGL (Mesa) already put the system's LLVM into this process, so %s (%s) "
                    "would crash it: import %s before the first Blender or MuJoCo render",
                    path.name,
                    package,
                    package,
                )
            continue
        handle = handle or _open(path, load=True)
        if handle is not None:
            _loaded[path] = handle
            done.append(path)
    return done
