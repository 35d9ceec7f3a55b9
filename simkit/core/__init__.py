"""Engine core: Episode type, Generator protocol, registry, seeding and config."""

from simkit.core.episode import Audio, Blob, Episode, Image, Video
from simkit.core.errors import InputError, SampleInvalid, SampleRejected, SimkitError, TransientError
from simkit.core.generator import Generator, GeneratorConfig

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
