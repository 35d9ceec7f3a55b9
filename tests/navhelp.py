"""The nav tests' small FOA-nav env: a two-room floor plan of 5-6 x 4-5 m, episodes of 1.5-4 m geodesic
length, 0.1 s FOA windows per step (keyword arguments of :class:`simkit.envs.nav.env.FoaNavEnv`, also
``gym.make("simkit/FoaNav-v0", ...)`` and ``evaluate``'s ``env_kwargs``)."""

from __future__ import annotations

from typing import Any

SMALL: dict[str, Any] = {
    "width_m": (5.0, 6.0),
    "depth_m": (4.0, 5.0),
    "n_rooms": (2, 2),
    "geodesic_m": (1.5, 4.0),
    "window_s": 0.1,
}
