"""simkit: simulation and data generation for robot learning, world models and embodied AI.

Generators compile a scene, simulate or render it, and return an
:class:`~simkit.core.episode.Episode`; one writer stores episodes as sharded
WebDataset-style corpora; thin adapters hand corpora to training code.

Importing simkit registers its Gymnasium environments (``simkit/Packing-v0``,
``simkit/Hebero-v0``, ``simkit/FoaNav-v0``) without importing Gymnasium: see
:mod:`simkit.envs.gym_hook`.
"""

from simkit._version import __version__ as __version__
from simkit.envs import gym_hook as _gym_hook

_gym_hook.install()
