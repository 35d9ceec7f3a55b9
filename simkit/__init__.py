"""simkit: simulation and data generation for robot learning, world models and embodied AI.

Generators compile a scene, simulate or render it, and return an
:class:`~simkit.core.episode.Episode`; one writer stores episodes as sharded
WebDataset-style corpora; thin adapters hand corpora to training code.
"""

__version__ = "0.1.0"
