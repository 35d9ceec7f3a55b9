"""MuJoCo import with its warnings routed to Python logging instead of ``MUJOCO_LOG.TXT``.

Every simkit module that loads or steps MuJoCo (assets, sims, envs) imports it through here.

MuJoCo's default warning handler appends every warning (``Nan, Inf or huge value in QACC`` ...)
to a file ``MUJOCO_LOG.TXT`` in the current directory. simkit never writes outside its output
folder, so every simkit module that steps MuJoCo imports it through :func:`import_mujoco`, which
installs a handler (``mujoco.set_mju_user_warning``) that logs to the ``simkit.mujoco`` logger.
"""

from __future__ import annotations

import logging
from typing import Any

from simkit.core.errors import require

LOG = logging.getLogger("simkit.mujoco")
_installed = False


def _warn(message: str) -> None:
    LOG.warning("MuJoCo: %s", message)


def import_mujoco() -> Any:
    """``import mujoco`` (ExtraMissing naming the ``hebero`` extra when absent), warnings -> logging."""
    global _installed
    mujoco = require("mujoco", "hebero")
    if not _installed:
        mujoco.set_mju_user_warning(_warn)
        _installed = True
    return mujoco
