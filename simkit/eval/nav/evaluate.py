"""Closed-loop evaluation of a navigation policy on ``simkit/FoaNav-v0`` episodes.

Protocol (OmniEcho / VLN-CE in Habitat, docs/nav.md): the policy acts on the observation of
each step; an integer is one action, waypoints are one *decision* expanded into actions by
:func:`~simkit.eval.nav.policies.waypoints_to_actions` (the next decision comes after those actions
or after a blocked step). An episode ends when the agent stops, after ``max_steps`` actions (500),
after ``max_decisions`` waypoint decisions (50), or when it is stuck: ``stuck_steps`` (40)
consecutive actions without leaving a 0.1 m circle while at least one move_forward was blocked.
Metrics: :mod:`simkit.eval.nav.metrics` with the env's geodesic distance.

Episodes are drawn by the env from ``seed`` (episode i resets with seed ``seed + i``), so every
policy meets the same scenes, starts and goals.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from simkit.eval.nav.metrics import episode_metrics, summarise
from simkit.eval.nav.policies import STOP, NavPolicy, make_policy, waypoints_to_actions


def run_episode(
    env, policy: NavPolicy, seed: int, max_decisions: int = 50, stuck_steps: int = 40
) -> dict[str, Any]:
    """One closed-loop episode; returns its metrics plus ``steps``, ``decisions``, ``end`` (stop / steps /
    decisions / stuck), ``geodesic_m`` and ``label``."""
    obs, info = env.reset(seed=seed)
    u = env.unwrapped
    policy.reset(u)
    dists, queue = [info["distance_to_goal"]], []  # type: list[float], list[int]
    steps = decisions = 0
    end, stopped, anchor, since, blocked = "steps", False, u.agent.position.copy(), 0, False
    while True:
        if not queue:
            out = policy.act(obs)
            if isinstance(out, (int, np.integer)):
                queue = [int(out)]
            else:
                decisions += 1
                queue = waypoints_to_actions(out)
        a = queue.pop(0)
        obs, _, terminated, truncated, info = env.step(a)
        steps += 1
        dists.append(info["distance_to_goal"])
        if info["collided"]:
            queue, blocked = [], True
        if np.linalg.norm(u.agent.position - anchor) > 0.1:
            anchor, since, blocked = u.agent.position.copy(), 0, False
        else:
            since += 1
        if terminated:
            end, stopped = "stop", a == STOP
            break
        if truncated:
            break
        if decisions >= max_decisions and not queue:
            end = "decisions"
            break
        if since >= stuck_steps and blocked:
            end = "stuck"
            break
    row: dict[str, Any] = episode_metrics(
        info["geodesic_start_m"], info["path_length_m"], dists, stopped, u.success_radius
    )
    row.update({"steps": steps, "decisions": decisions, "end": end, "geodesic_m": info["geodesic_start_m"],
                "label": u.label})  # fmt: skip
    return row


def evaluate(
    policy: str,
    episodes: int = 10,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    max_decisions: int = 50,
    on_episode: Callable[[dict], None] | None = None,
) -> dict[str, Any]:
    """Evaluate ``policy`` (a name or ``module:callable``) on ``episodes`` env episodes.

    Returns:
        ``{"policy", "episodes": [rows], "summary": {SR, SPL, SoftSPL, NE, OS, TL, episodes}, "seconds",
        "steps"}``.

    Raises:
        SimkitError: an unknown policy.
    """
    from simkit.envs.nav.env import FoaNavEnv

    pol = make_policy(policy, seed)
    env = FoaNavEnv(**(env_kwargs or {}))
    t0, rows = time.perf_counter(), []
    for i in range(episodes):
        row = run_episode(env, pol, seed + i, max_decisions)
        rows.append(row)
        if on_episode is not None:
            on_episode(row)
    return {
        "policy": policy,
        "episodes": rows,
        "summary": summarise(rows),
        "seconds": time.perf_counter() - t0,
        "steps": int(sum(r["steps"] for r in rows)),
    }
