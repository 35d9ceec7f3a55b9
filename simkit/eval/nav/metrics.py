"""Navigation metrics with Habitat's definitions (geodesic distances throughout).

For one episode with shortest-path (geodesic) length ``l`` from start to goal, agent path length
``p`` (sum of the agent's displacements), final geodesic distance to the goal ``d_T``, distances
``d_t`` at every step, success radius ``r`` and ``stopped`` = the agent called STOP:

- success ``S = stopped and d_T <= r`` (Habitat's ``Success``; VLN-CE uses r = 3 m),
- SPL ``= S * l / max(p, l)`` (Anderson et al., "On Evaluation of Embodied Navigation Agents",
  arXiv:1807.06757, eq. 1),
- SoftSPL ``= max(0, 1 - d_T / l) * l / max(p, l)`` (habitat-lab ``SoftSPL``: success replaced by
  the progress towards the goal),
- NE (navigation error) ``= d_T``; OS (oracle success) ``= min_t d_t <= r``; TL (trajectory
  length) ``= p``.

The same geodesic distance function gives ``l``, ``d_t`` and ``d_T``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

METRICS = ("SR", "SPL", "SoftSPL", "NE", "OS", "TL")


def episode_metrics(
    geodesic_start_m: float,
    path_length_m: float,
    distances_m: Sequence[float],
    stopped: bool,
    success_radius_m: float = 3.0,
) -> dict[str, float]:
    """The module docstring's metrics of one episode.

    Args:
        geodesic_start_m: ``l``, metres (> 0).
        path_length_m: ``p``, metres.
        distances_m: geodesic distance to the goal after every step ``d_1 .. d_T`` (``d_0`` may be
            included), metres.
        stopped: the agent called STOP (rather than hitting a step limit or getting stuck).
        success_radius_m: ``r``.

    Raises:
        ValueError: ``geodesic_start_m <= 0`` or no distances.
    """
    if geodesic_start_m <= 0 or len(distances_m) == 0:
        raise ValueError("episode metrics need a positive start distance and at least one distance")
    l, p = float(geodesic_start_m), float(path_length_m)
    d = np.asarray(distances_m, dtype=np.float64)
    success = float(bool(stopped) and d[-1] <= success_radius_m)
    eff = l / max(p, l)
    return {
        "SR": success,
        "SPL": success * eff,
        "SoftSPL": max(0.0, 1.0 - float(d[-1]) / l) * eff,
        "NE": float(d[-1]),
        "OS": float(np.min(d) <= success_radius_m),
        "TL": p,
    }


def summarise(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    """Means of :data:`METRICS` over episodes (``episodes``: their number)."""
    out: dict[str, float] = {
        k: float(np.mean([r[k] for r in rows])) if rows else float("nan") for k in METRICS
    }
    out["episodes"] = float(len(rows))
    return out
