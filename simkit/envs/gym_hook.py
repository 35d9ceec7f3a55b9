"""Register simkit's environments the moment Gymnasium's registry is imported.

Gymnasium 1.x loads no third-party environments from an entry-point group, so ids need a
registering import. ``import simkit`` calls :func:`install`, which costs only this small module
(Gymnasium is not imported): it puts a finder first on ``sys.meta_path`` that, when
``gymnasium.envs`` is imported by anyone, lets the normal machinery load it and then calls
:func:`simkit.envs.register_envs`. If Gymnasium was imported already, the environments are
registered at once. Gymnasium's own ``gymnasium.make("simkit.envs:simkit/Hebero-v0")`` form imports
``simkit.envs`` (and so simkit) first and needs no prior import. Gymnasium itself is never modified.
"""

from __future__ import annotations

import sys
from typing import Any

TARGET = "gymnasium.envs"


def _register() -> None:
    from simkit.envs import register_envs

    register_envs()


class GymnasiumHook:
    """Meta-path finder wrapping the loader of ``gymnasium.envs`` so that loading it registers simkit's envs.

    A finder needs only ``find_spec`` (PEP 451); it does not derive from ``importlib.abc.MetaPathFinder``,
    whose import (``importlib.resources``, ``tempfile``, ``random`` ...) would cost ``import simkit``
    more than all the rest of it on Python 3.11."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != TARGET:
            return None
        sys.meta_path.remove(self)  # one-shot: find the real spec with the remaining finders
        import importlib.util

        spec = importlib.util.find_spec(name)
        loader = getattr(spec, "loader", None)
        if spec is None or loader is None or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module

        def exec_module(module: Any) -> None:
            original(module)
            _register()

        loader.exec_module = exec_module
        return spec


def install() -> None:
    """Register now if Gymnasium's registry is loaded, else arm the one-shot import hook (idempotent)."""
    if TARGET in sys.modules:
        _register()
    elif not any(isinstance(f, GymnasiumHook) for f in sys.meta_path):
        sys.meta_path.insert(0, GymnasiumHook())
