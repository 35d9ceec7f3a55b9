"""Navigation episodes: start/goal sampling, the reference action sequence, egocentric waypoints.

- :func:`sample_start_goal`: start and goal on the same island, geodesic distance within a range
  and geodesic/Euclidean ratio at least ``min_ratio`` (Habitat's PointNav sampler uses the same
  two constraints; Savva et al., "Habitat", ICCV 2019, sec. 4). Unreachable pairs are redrawn,
  never given an infinite distance.
- :func:`follow_path`: the discrete actions (Habitat's STOP / MOVE_FORWARD 0.25 m / TURN 15 deg) of
  a greedy follower of the shortest path, as Habitat's ``ShortestPathFollower``: turn towards the
  farthest path vertex in sight until it lies within half a turn of ahead, else step forward; stop
  within ``stop_radius`` of the goal.
- :func:`waypoint_targets`: for every step k the next K = 8 poses relative to pose k,
  ``[x_fwd, y_left, psi]`` (metres, metres, radians; agent frame of pose k: +x ahead, +y left,
  psi counter-clockwise), padded with the final pose past the end (the stop supervision).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.core.errors import SampleRejected
from simkit.sims.nav.base import (
    MOVE_FORWARD,
    STOP,
    TURN_LEFT,
    TURN_RIGHT,
    NavAgent,
    NavBackend,
    Unreachable,
    to_egocentric,
    wrap_angle,
)

#: number of future waypoints per step (OmniEcho / InternNav, K = 8)
K_WAYPOINTS = 8


@dataclass
class StartGoal:
    """A sampled navigation task: ``start`` / ``goal`` (2,) metres, ``start_yaw`` rad, ``geodesic_m``, ``euclidean_m``."""

    start: np.ndarray
    start_yaw: float
    goal: np.ndarray
    geodesic_m: float
    euclidean_m: float


def sample_start_goal(
    backend: NavBackend,
    rng: np.random.Generator,
    geodesic_m: tuple[float, float] = (3.0, 15.0),
    min_ratio: float = 1.0,
    tries: int = 200,
) -> StartGoal:
    """Draw start, heading and goal (module docstring for the constraints).

    Raises:
        SampleRejected: no pair met the constraints in ``tries`` draws (the engine redraws the sample).
    """
    for _ in range(tries):
        start = backend.sample_navigable_point(rng)
        goal = backend.sample_navigable_point(rng, island=backend.island(start))
        euc = float(np.linalg.norm(goal - start))
        try:
            geo = backend.geodesic_distance(start, goal)
        except Unreachable:
            continue
        if geodesic_m[0] <= geo <= geodesic_m[1] and euc > 0 and geo / euc >= min_ratio:
            return StartGoal(start, float(rng.uniform(-np.pi, np.pi)), goal, geo, euc)
    raise SampleRejected(
        f"no start/goal pair with geodesic distance in {list(geodesic_m)} m and ratio >= {min_ratio} "
        f"in {tries} draws"
    )


def next_target(backend: NavBackend, position: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """The farthest vertex of the shortest path from ``position`` to ``goal`` that a point at
    ``position`` sees (ignoring the agent's radius). Around a rounded corner the path's vertices lie
    a few cm apart; aiming past them lets the agent cut the corner by sliding along the walkable
    area's edge instead of turning at every vertex."""
    path = backend.shortest_path(position, goal)
    sees = getattr(backend, "line_of_sight", None)
    best = 1
    if sees is not None:
        for m in range(len(path) - 1, 1, -1):
            if sees(position, path[m], body=False):
                best = m
                break
    return path[best]


def _unstick_action(backend: NavBackend, agent: NavAgent, goal: np.ndarray) -> int:
    """After a blocked step: the action towards the heading (in whole turns) whose forward step,
    sliding included, reduces the geodesic distance most (Habitat's greedy geodesic follower idea)."""
    here = backend.geodesic_distance(agent.position, goal)
    best, best_gain = 0, 0.0
    for t in sorted(range(-12, 13), key=abs):
        h = agent.yaw + t * agent.turn_rad
        p, _ = backend.try_step(
            agent.position, agent.position + agent.forward_m * np.array([np.cos(h), np.sin(h)])
        )
        gain = here - backend.geodesic_distance(p, goal)
        if gain > best_gain + 1e-3:
            best, best_gain = t, gain
    if best == 0:
        return MOVE_FORWARD
    return TURN_LEFT if best > 0 else TURN_RIGHT


def oracle_action(backend: NavBackend, agent: NavAgent, goal: np.ndarray, stop_radius: float = 0.2) -> int:
    """One action of the greedy shortest-path follower (module docstring); after a blocked step the
    heading that makes the most geodesic progress is taken instead."""
    if np.linalg.norm(goal - agent.position) <= stop_radius:
        return STOP
    if agent.stalled:
        return _unstick_action(backend, agent, goal)
    target = next_target(backend, agent.position, goal)
    d = target - agent.position
    err = wrap_angle(float(np.arctan2(d[1], d[0])) - agent.yaw)
    if abs(err) > agent.turn_rad / 2 + 1e-9:
        return TURN_LEFT if err > 0 else TURN_RIGHT
    # a last step that would overshoot the goal by more than it gains is not taken
    if np.linalg.norm(d) < agent.forward_m / 2 and np.allclose(target, goal):
        return STOP
    return MOVE_FORWARD


def follow_path(
    backend: NavBackend,
    start: np.ndarray,
    start_yaw: float,
    goal: np.ndarray,
    max_steps: int = 500,
    stop_radius: float = 0.2,
) -> tuple[np.ndarray, np.ndarray]:
    """Roll out the greedy follower from (start, start_yaw) to ``goal``.

    Returns:
        ``(poses, actions)``: float64 (N, 3) ``[x, y, yaw]`` at each step (world frame) and int64 (N,)
        action taken at that pose; the last action is STOP.

    Raises:
        SampleRejected: the goal was not reached within ``max_steps`` (or the follower got stuck).
    """
    agent = NavAgent(backend, start, start_yaw)
    poses, actions = [], []
    for _ in range(max_steps):
        a = oracle_action(backend, agent, goal, stop_radius)
        poses.append(agent.pose)
        actions.append(a)
        if a == STOP:
            return np.asarray(poses), np.asarray(actions, dtype=np.int64)
        agent.step(a)
    raise SampleRejected(f"the shortest-path follower did not reach the goal in {max_steps} steps")


def waypoint_targets(poses: np.ndarray, k: int = K_WAYPOINTS) -> tuple[np.ndarray, np.ndarray]:
    """Next ``k`` poses relative to each pose (module docstring).

    Args:
        poses: float (N, 3) ``[x, y, yaw]``.

    Returns:
        ``(waypoints float32 (N, k, 3) [x_fwd, y_left, psi], stop bool (N, k))`` where ``stop[i, j]``
        marks a waypoint past the end of the episode (the agent stays: <stop>).
    """
    poses = np.asarray(poses, dtype=np.float64)
    n = len(poses)
    idx = np.arange(n)[:, None] + np.arange(1, k + 1)[None, :]
    stop = idx >= n
    fut = poses[np.minimum(idx, n - 1)]
    wp = np.empty((n, k, 3))
    for i in range(n):
        wp[i, :, :2] = to_egocentric(poses[i], fut[i, :, :2])
        wp[i, :, 2] = wrap_angle(fut[i, :, 2] - poses[i, 2])
    return wp.astype(np.float32), stop


def direction_bucket(azimuth_rad):
    """8 direction buckets of an egocentric azimuth: 0 front, 1 front-left, 2 left, 3 back-left, 4 back,
    5 back-right, 6 right, 7 front-right (45-degree sectors centred on the axis and diagonal directions;
    the OmniEcho rationale buckets, docs/nav.md)."""
    a = np.asarray(azimuth_rad, dtype=np.float64)
    return (np.round(a / (np.pi / 4)).astype(np.int64) % 8).astype(np.int8)


DIRECTION_NAMES = ("front", "front-left", "left", "back-left", "back", "back-right", "right", "front-right")


def source_in_agent_frame(poses: np.ndarray, source_xyz, ear_height: float) -> np.ndarray:
    """The source seen from each pose: float64 (N, 3) ``[azimuth, elevation, distance]`` (rad, rad, m);
    azimuth counter-clockwise from ahead (+pi/2 = left), the listener frame of
    :mod:`simkit.renderers.foa`, with the ears at ``ear_height`` above the floor."""
    poses = np.asarray(poses, dtype=np.float64)
    s = np.asarray(source_xyz, dtype=np.float64)
    ego = np.stack([to_egocentric(p, s[:2]) for p in poses]) if len(poses) else np.zeros((0, 2))
    dz = s[2] - ear_height
    horiz = np.hypot(ego[:, 0], ego[:, 1])
    return np.stack([np.arctan2(ego[:, 1], ego[:, 0]), np.arctan2(dz, horiz), np.hypot(horiz, dz)], axis=1)
