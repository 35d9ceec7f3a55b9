"""Navigation episodes: start/goal sampling, the reference action sequence, egocentric waypoints.

- :func:`sample_start_goal`: start and goal on the same island, geodesic distance within a range
  and geodesic/Euclidean ratio at least ``min_ratio`` (Habitat's PointNav sampler uses the same
  two constraints; Savva et al., "Habitat", ICCV 2019, sec. 4). Unreachable pairs are redrawn,
  never given an infinite distance.
- :func:`follow_path`: the discrete actions (Habitat's STOP / MOVE_FORWARD 0.25 m / TURN 15 deg) of
  a follower of the shortest path, as Habitat's ``ShortestPathFollower``: turn towards the
  farthest path vertex the body sees until it lies within half a turn of ahead, else step forward;
  near the goal follow the shortest action sequence that lands within ``stop_radius``; stop when
  the geodesic distance is within ``stop_radius`` (:func:`oracle_action`).
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
    """The farthest vertex of the shortest path from ``position`` to ``goal`` that the agent's body
    sees (every point of the straight segment navigable), so walking at it never leaves the walkable
    area by more than the heading's rounding; the path's second vertex when none farther is seen."""
    path = backend.shortest_path(position, goal)
    sees = getattr(backend, "line_of_sight", None)
    best = 1
    if sees is not None:
        for m in range(len(path) - 1, 1, -1):
            if sees(position, path[m]):
                best = m
                break
    return path[best]


#: a forward step must shorten the geodesic distance by more than this (m) to be taken
MIN_PROGRESS_M = 1e-3
#: the heading is kept while the target lies within this many turns of it (cos(11.25 deg) = 0.981)
HOLD_TURNS = 0.75


def _gain(backend: NavBackend, agent: NavAgent, goal: np.ndarray, here: float, turns: int) -> float:
    """Geodesic progress (m) of one forward step (sliding included) after ``turns`` whole turns."""
    h = agent.yaw + turns * agent.turn_rad
    p, _ = backend.try_step(
        agent.position, agent.position + agent.forward_m * np.array([np.cos(h), np.sin(h)])
    )
    return here - backend.geodesic_distance(p, goal)


def _best_heading(backend: NavBackend, agent: NavAgent, goal: np.ndarray, here: float) -> int | None:
    """Whole turns (in [-n/2, n/2)) to the heading whose forward step, sliding included, shortens the
    geodesic distance most (Habitat's greedy geodesic follower idea); None when none progresses by
    :data:`MIN_PROGRESS_M`. Headings are visited in the order of their world angle, so the choice
    depends on the position only, not on the current yaw."""
    n = int(round(2 * np.pi / agent.turn_rad))
    offs = sorted(range(-(n // 2), n - n // 2), key=lambda j: wrap_angle(agent.yaw + j * agent.turn_rad))
    best, best_gain = None, MIN_PROGRESS_M
    for j in offs:
        g = _gain(backend, agent, goal, here, j)
        if g > best_gain:
            best, best_gain = j, g
    return best


#: the final approach plans at most this many forward steps
APPROACH_STEPS = 3


def _approach_plans(agent: NavAgent, goal: np.ndarray, radius: float) -> list[list[int]]:
    """Action sequences (turns then a step, up to :data:`APPROACH_STEPS` times) whose end point, in
    free space, lies within ``radius`` (less 5 mm) of ``goal``; shortest first (fewest actions, then
    nearest end)."""
    n = int(round(2 * np.pi / agent.turn_rad))
    turns = np.arange(-(n // 2) + 1, n // 2 + 1)  # whole turns before a step, |t| <= n/2
    plans: list[tuple[int, float, list[int]]] = []
    for m in range(1, APPROACH_STEPS + 1):
        grids = np.meshgrid(*([turns] * m), indexing="ij")
        ts = np.stack([g.ravel() for g in grids], axis=1)  # (C, m) turns before each step
        head = agent.yaw + np.cumsum(ts, axis=1) * agent.turn_rad
        end = agent.position + agent.forward_m * np.stack([np.cos(head).sum(1), np.sin(head).sum(1)], axis=1)
        dist = np.linalg.norm(end - goal, axis=1)
        for c in np.flatnonzero(dist <= radius - 0.005):
            acts: list[int] = []
            for t in ts[c]:
                acts += [TURN_LEFT if t > 0 else TURN_RIGHT] * abs(int(t)) + [MOVE_FORWARD]
            plans.append((len(acts), float(dist[c]), acts))
    plans.sort(key=lambda x: (x[0], x[1]))
    return [p[2] for p in plans]


def _approach_action(backend: NavBackend, agent: NavAgent, goal: np.ndarray, radius: float) -> int | None:
    """First action of the shortest final-approach plan (:func:`_approach_plans`) that, simulated on
    the backend, hits no wall and ends with a geodesic distance within ``radius``; None when no
    plan of the first 16 does. Re-planning after each action finds the rest (or a shorter) plan."""
    for acts in _approach_plans(agent, goal, radius)[:16]:
        ghost = NavAgent(backend, agent.position, agent.yaw, agent.forward_m, agent.turn_rad)
        if any(ghost.step(a) for a in acts):
            continue
        if backend.geodesic_distance(ghost.position, goal) <= radius:
            return acts[0]
    return None


def oracle_action(backend: NavBackend, agent: NavAgent, goal: np.ndarray, stop_radius: float = 0.2) -> int:
    """One action of the shortest-path follower (module docstring).

    ``STOP`` exactly when the geodesic distance to ``goal`` is within ``stop_radius`` (the success
    test of :class:`~simkit.envs.nav.env.FoaNavEnv` and of the metrics). Within
    ``APPROACH_STEPS`` steps of a goal the body sees, the shortest action sequence that lands within
    the radius is followed (so radii below the step size are met). Otherwise the agent turns towards
    the farthest path vertex its body sees (rounded to whole turns; kept while within
    :data:`HOLD_TURNS` of a turn) and steps forward, unless that
    step (simulated, sliding included) shortens the geodesic distance by :data:`MIN_PROGRESS_M` or
    less: then it takes the heading of most progress. The heading depends on the position only, so
    turns never reverse in place, and every forward step shortens the geodesic distance, so the
    follower cannot cycle."""
    dist = backend.geodesic_distance(agent.position, goal)
    if dist <= stop_radius:
        return STOP
    sees = getattr(backend, "line_of_sight", None)
    near = np.linalg.norm(goal - agent.position) <= APPROACH_STEPS * agent.forward_m + stop_radius
    if near and (sees is None or sees(agent.position, goal)):
        a = _approach_action(backend, agent, goal, stop_radius)
        if a is not None:
            return a
    target = next_target(backend, agent.position, goal)
    d = target - agent.position
    err = wrap_angle(float(np.arctan2(d[1], d[0])) - agent.yaw)
    # within HOLD_TURNS of a turn the current heading is kept (no zig-zag between two headings)
    turns = 0 if abs(err) <= HOLD_TURNS * agent.turn_rad else int(round(err / agent.turn_rad))
    if _gain(backend, agent, goal, dist, turns) <= MIN_PROGRESS_M:  # blocked, or a medial-axis flip
        best = _best_heading(backend, agent, goal, dist)
        turns = 0 if best is None else best
    if turns == 0:
        return MOVE_FORWARD
    return TURN_LEFT if turns > 0 else TURN_RIGHT


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
