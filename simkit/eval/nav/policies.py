"""Navigation policies for closed-loop evaluation, and the waypoint -> action conversion.

A policy has ``reset(env)`` (the unwrapped :class:`~simkit.envs.nav.env.FoaNavEnv` at the start of an
episode) and ``act(obs)`` returning either one discrete action (int: 0 stop, 1 forward, 2 left,
3 right) or predicted waypoints, float (K, 3) ``[x_fwd, y_left, psi]`` in the agent frame (the
``foa-nav`` corpus's target). Waypoints become actions with :func:`waypoints_to_actions`.

Built-ins: ``oracle`` (the greedy shortest-path follower with privileged access to the scene, as
Habitat's ``ShortestPathFollower``), ``oracle-waypoints`` (the follower's next 8 poses as waypoints:
the corpus target predicted perfectly), ``random`` (forward 0.7, each turn 0.14, stop 0.02), and
``sound`` (the FOA-only baseline: turn towards the DirAC intensity direction, walk, stop when the
sound comes from behind right after passing it). User policies, by an explicit form (never guessed
from a function's parameters): ``module:name`` is a policy object (it has ``act``), a policy class
(instantiated with no arguments) or an ``act(obs)`` function; ``module:name()`` is a factory, called
once with no arguments, that returns a policy object or an ``act(obs)`` function.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from simkit.core.errors import SimkitError

STOP, FORWARD, LEFT, RIGHT = 0, 1, 2, 3
#: self-stop thresholds of the OmniEcho protocol: largest waypoint displacement < 0.3 m, "almost no yaw"
SELF_STOP_M = 0.3
SELF_STOP_YAW = float(np.radians(7.5))


def waypoints_to_actions(wp, forward_m: float = 0.25, turn_rad: float = float(np.radians(15.0))) -> list[int]:
    """Discrete actions for one decision from predicted waypoints (K, 3), by the dominant displacement or yaw.

    Empty ``wp``, or every waypoint displacement < 0.3 m with |psi| < 7.5 deg: ``[STOP]`` (self-stop).
    Otherwise, with ``w`` the waypoint of largest displacement ``d``: when ``round(d / 0.25 m)`` is 0
    the yaw dominates and the agent turns by ``round(psi / 15 deg)`` (``psi`` of largest magnitude);
    else it turns towards ``atan2(y_left, x_fwd)`` (rounded to whole turns) and walks
    ``round(d / 0.25 m)`` steps.
    """
    w = np.asarray(wp, dtype=np.float64).reshape(-1, 3) if wp is not None else np.zeros((0, 3))
    if w.size == 0:
        return [STOP]
    disp = np.hypot(w[:, 0], w[:, 1])
    if disp.max() < SELF_STOP_M and np.abs(w[:, 2]).max() < SELF_STOP_YAW:
        return [STOP]
    k = int(np.argmax(disp))
    n_fwd = round(disp[k] / forward_m)
    if n_fwd == 0:  # the yaw dominates: turn in place
        psi = float(w[np.argmax(np.abs(w[:, 2])), 2])
        n = round(psi / turn_rad)
        return [LEFT if n > 0 else RIGHT] * abs(n) or [FORWARD]
    heading = float(np.arctan2(w[k, 1], w[k, 0]))
    n = round(heading / turn_rad)
    return [LEFT if n > 0 else RIGHT] * abs(n) + [FORWARD] * n_fwd


class NavPolicy(ABC):
    """A closed-loop policy (module docstring)."""

    name = ""

    def reset(self, env) -> None:  # noqa: B027 - optional hook
        """Called with the unwrapped env at the start of each episode."""

    @abstractmethod
    def act(self, obs: dict[str, np.ndarray]) -> int | np.ndarray:
        """One action, or waypoints (K, 3)."""


class OraclePolicy(NavPolicy):
    """Greedy shortest-path follower on the env's backend (privileged: knows the goal); stops within 0.2 m."""

    name = "oracle"

    def reset(self, env) -> None:
        self.env = env

    def act(self, obs):
        from simkit.sims.nav.episodes import oracle_action

        e = self.env
        return oracle_action(e.backend, e.agent, e.task.goal)


class OracleWaypointPolicy(NavPolicy):
    """The ``foa-nav`` waypoint target predicted perfectly: the next K = 8 poses of the shortest-path
    follower relative to the agent (privileged), one decision per call; an empty trajectory at the goal.
    It exercises the waypoint -> action conversion and the decision limit with a known-good model."""

    name = "oracle-waypoints"

    def reset(self, env) -> None:
        self.env = env

    def act(self, obs):
        from simkit.sims.nav.base import NavAgent
        from simkit.sims.nav.episodes import oracle_action, waypoint_targets

        e = self.env
        ghost = NavAgent(e.backend, e.agent.position, e.agent.yaw)
        ghost.stalled = e.agent.stalled
        poses = [ghost.pose]
        for _ in range(8):  # the follower's next 8 poses
            a = oracle_action(e.backend, ghost, e.task.goal)
            if a == STOP:
                break
            ghost.step(a)
            poses.append(ghost.pose)
        if len(poses) == 1:
            return np.zeros((0, 3))
        wp, stop = waypoint_targets(np.asarray(poses))
        return wp[0][~stop[0]]


class RandomPolicy(NavPolicy):
    """Random actions: forward 0.7, turn left 0.14, turn right 0.14, stop 0.02 (seeded per episode)."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def act(self, obs):
        return int(self.rng.choice(4, p=[0.02, 0.7, 0.14, 0.14]))


class SoundPolicy(NavPolicy):
    """FOA-only baseline (no map, no goal position): turn towards the broadband DirAC intensity azimuth
    of the window until it is within half a turn, then walk. When a step is blocked (a wall between
    agent and sound), follow the wall for a while: turn 75 deg to one side and walk ``detour`` (6)
    steps, then aim at the sound again; the side alternates on each block. Stop when the azimuth jumps
    behind (|az| > 120 deg) right after a step taken with the sound ahead (|az| < 30 deg): the agent
    has just passed the source."""

    name = "sound"
    detour = 6

    def reset(self, env) -> None:
        self.prev_az: float | None = None
        self.prev_pose: np.ndarray | None = None
        self.queue: list[int] = []
        self.side = LEFT

    def act(self, obs):
        from simkit.renderers.foa.windows import intensity_direction

        az, _ = intensity_direction(np.asarray(obs["foa"], dtype=np.float64))
        pose = np.asarray(obs["pose"], dtype=np.float64)
        last = self.prev_pose
        moved = last is not None and np.linalg.norm(pose[:2] - last[:2]) > 0.05
        walked = last is not None and abs(pose[2] - last[2]) < 1e-6  # the last action was a step
        self.prev_pose = pose
        if (
            self.prev_az is not None
            and walked
            and moved
            and abs(self.prev_az) < np.radians(30)
            and abs(az) > np.radians(120)
        ):
            return STOP
        if last is not None and walked and not moved:  # blocked: follow the wall
            self.queue = [self.side] * 5 + [FORWARD] * self.detour
            self.side = RIGHT if self.side == LEFT else LEFT
            return self.queue.pop(0)
        if self.queue:
            return self.queue.pop(0)
        self.prev_az = az
        if abs(az) > np.radians(7.5):
            return LEFT if az > 0 else RIGHT
        return FORWARD


POLICIES: dict[str, Any] = {
    "oracle": OraclePolicy,
    "oracle-waypoints": OracleWaypointPolicy,
    "random": RandomPolicy,
    "sound": SoundPolicy,
}


def make_policy(spec: str, seed: int = 0) -> NavPolicy:
    """A policy by name (``oracle``, ``oracle-waypoints``, ``random``, ``sound``) or a user policy.

    ``module:name``: a policy object (has ``act``), a policy class (instantiated with no arguments) or an
    ``act(obs)`` function, used as it is; ``module:name()``: a factory called once with no arguments,
    returning a policy object or an ``act(obs)`` function. The form is explicit: a function is never
    called as a factory because of its parameters.

    Raises:
        SimkitError: unknown name, a ``module:name`` that does not import, or an object of neither form.
    """
    if spec in POLICIES:
        return POLICIES[spec](seed) if spec == "random" else POLICIES[spec]()
    if ":" not in spec:
        raise SimkitError(
            f"unknown navigation policy {spec!r}; use one of {', '.join(POLICIES)}, module:name or module:name()"
        )
    factory = spec.endswith("()")
    mod_name, _, attr = spec.removesuffix("()").partition(":")
    try:
        obj = getattr(importlib.import_module(mod_name), attr)
    except (ImportError, AttributeError) as exc:
        raise SimkitError(f"--policy {spec}: cannot load ({type(exc).__name__}: {exc})") from None
    if factory:
        if not callable(obj):
            raise SimkitError(f"--policy {spec}: {attr!r} is not callable, so not a factory")
        try:
            obj = obj()
        except Exception as exc:
            raise SimkitError(f"--policy {spec}: the factory failed ({type(exc).__name__}: {exc})") from None
    elif isinstance(obj, type):
        obj = obj()  # a policy class
    if hasattr(obj, "act"):
        return obj
    if callable(obj):
        return _FunctionPolicy(obj)  # an act(obs) function
    what = "the factory's result" if factory else repr(attr)
    raise SimkitError(
        f"--policy {spec}: {what} is neither a policy (an object with act) nor an act(obs) function"
    )


class _FunctionPolicy(NavPolicy):
    name = "function"

    def __init__(self, fn):
        self.fn = fn

    def act(self, obs):
        return self.fn(obs)
