"""Engine core: Episode type, Generator protocol, registry, seeding and config.

The names below are imported on first use (PEP 562 ``__getattr__``): importing a light submodule such as
:mod:`simkit.core.families` or :mod:`simkit.core.errors` does not import numpy or pydantic, so ``simkit
--help`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from simkit.core.episode import Audio, Blob, Episode, Image, Video
    from simkit.core.errors import InputError, SampleInvalid, SampleRejected, SimkitError, TransientError
    from simkit.core.generator import Generator, GeneratorConfig

#: public name -> the submodule that defines it
_LAZY = {
    "Audio": "episode",
    "Blob": "episode",
    "Episode": "episode",
    "Image": "episode",
    "Video": "episode",
    "InputError": "errors",
    "SampleInvalid": "errors",
    "SampleRejected": "errors",
    "SimkitError": "errors",
    "TransientError": "errors",
    "Generator": "generator",
    "GeneratorConfig": "generator",
}

__all__ = [
    "Audio",
    "Blob",
    "Episode",
    "Generator",
    "GeneratorConfig",
    "Image",
    "InputError",
    "SampleInvalid",
    "SampleRejected",
    "SimkitError",
    "TransientError",
    "Video",
]


def __getattr__(name: str) -> object:
    """Import the submodule that defines ``name`` on first access. Raises AttributeError for other names."""
    sub = _LAZY.get(name)
    if sub is None:
        raise AttributeError(f"module 'simkit.core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"simkit.core.{sub}"), name)
    globals()[name] = value
    return value
