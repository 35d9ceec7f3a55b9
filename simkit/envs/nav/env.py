"""``simkit/FoaNav-v0``: sound-guided point navigation with egocentric FOA, for RL and closed-loop eval.

Each ``reset`` compiles a procedural floor plan (or uses the ``scene`` mesh), builds the navigation
backend (``poly`` by default: polygons eroded by the agent radius, exact geodesics,
:mod:`simkit.sims.nav.poly`; or ``grid``), draws a start, heading and goal with the env's ``np_random`` (same island, geodesic
distance within ``geodesic_m``), and places a sound from the bank at the goal (``ear_height_m``
listener, source at 0.3-1.5 m). The sound plays continuously (an 8 s stem, looped).

Observation (``gymnasium.spaces.Dict``):

- ``foa``: float32 (S, 4), the AmbiX (W, Y, Z, X / SN3D) window heard at the current pose in the
  agent's egocentric frame (+x ahead, +y left), ``S = window_s * sample_rate``; 1/r law with
  r_min = 0.3 m, no normalisation, walls between agent and source attenuate ``wall_loss_db`` each;
- ``pose``: float32 (3,), ``[x, y, yaw]`` relative to the start pose (Habitat's GPS + compass:
  metres and radians in the start frame, +x ahead at the start, +y left);
- ``rgb`` uint8 (H, W, 3) and ``depth`` float32 (H, W, 1) metres, when ``frames=True``.

Actions (``Discrete(4)``, Habitat's ids): 0 stop, 1 move_forward 0.25 m, 2 turn_left 15 deg,
3 turn_right 15 deg; forward moves slide along walls.

Reward (Habitat's PointNav reward shape): the decrease of the geodesic distance to the goal, minus
a 0.01 slack per step, plus 2.5 when the agent stops within ``success_radius_m``. ``terminated``
on stop; ``truncated`` after ``max_steps``. ``info``: ``distance_to_goal`` (geodesic, m),
``collided``, ``success`` (on the last step), ``geodesic_start_m``, ``path_length_m``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

ENV_ID = "simkit/FoaNav-v0"
STEM_S = 8.0


def _pair(name: str, value: Any) -> tuple:
    """``value`` as a ``(min, max)`` range of two numbers with min <= max.

    Raises:
        InputError: anything else (one line naming the argument).
    """
    from simkit.core.errors import InputError

    try:
        lo, hi = value
        ok = float(lo) <= float(hi)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise InputError(None, f"FoaNav-v0 {name} must be a [min, max] pair with min <= max, got {value!r}")
    return (lo, hi)


class FoaNavEnv(gymnasium.Env):
    """Sound-guided navigation env (module docstring for spaces, reward and frames).

    Args:
        window_s: FOA per step, seconds. sample_rate: Hz (16000 or 48000).
        geodesic_m: [min, max] start-goal geodesic distance, metres; min_geodesic_ratio: minimum
            geodesic / Euclidean ratio (> 1 puts obstacles between start and goal).
        success_radius_m: success when stopping within this geodesic distance (3 m, VLN-CE).
        max_steps: truncation limit (500, the OmniEcho/VLN-CE protocol).
        n_rooms, width_m, depth_m: procedural plan ranges. scene: a mesh path instead of plans.
        wall_loss_db: attenuation per wall crossed by the direct line. sounds: sound bank folder.
        frames: add ``rgb`` and ``depth`` (MuJoCo offscreen rendering). image_size: (W, H) pixels.
        backend: ``poly`` (exact walkable polygons and geodesics) or ``grid`` (cells).
        scene_reuse: unseeded resets keep the plan, its backend and the sound clip for this many
            episodes (each with a new start, goal, source height and loudness), so that training
            on short episodes is not dominated by plan compilation; a seeded reset always draws a
            new scene. 1 (default): every reset draws a new scene.

    Raises:
        InputError: a bad range, an unknown backend or ``scene_reuse`` < 1 (one line).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        window_s: float = 0.25,
        sample_rate: int = 16000,
        geodesic_m: tuple[float, float] = (3.0, 12.0),
        min_geodesic_ratio: float = 1.0,
        success_radius_m: float = 3.0,
        max_steps: int = 500,
        n_rooms: tuple[int, int] = (3, 6),
        width_m: tuple[float, float] = (8.0, 12.0),
        depth_m: tuple[float, float] = (6.0, 10.0),
        scene: str | None = None,
        wall_loss_db: float = 10.0,
        lufs: tuple[float, float] = (-38.0, -30.0),
        ear_height_m: float = 1.5,
        agent_radius_m: float = 0.18,
        sounds: str = "",
        frames: bool = False,
        image_size: tuple[int, int] = (128, 96),
        backend: str = "poly",
        scene_reuse: int = 1,
    ):
        from simkit.assets.sounds import load_bank
        from simkit.core.errors import InputError
        from simkit.sims.nav import MESH_BACKENDS

        if backend not in MESH_BACKENDS:
            raise InputError(
                None, f"FoaNav-v0 backend must be one of {', '.join(MESH_BACKENDS)}, got {backend!r}"
            )
        self.backend_name = backend
        if int(scene_reuse) < 1:
            raise InputError(None, f"FoaNav-v0 scene_reuse must be >= 1, got {scene_reuse!r}")
        self.scene_reuse, self._scene_uses = int(scene_reuse), 0

        self.fs = int(sample_rate)
        self.win = round(window_s * self.fs)
        self.cfg: dict[str, Any] = {
            "geodesic_m": _pair("geodesic_m", geodesic_m), "n_rooms": _pair("n_rooms", n_rooms),
            "width_m": _pair("width_m", width_m), "depth_m": _pair("depth_m", depth_m),
            "wall_loss_db": float(wall_loss_db), "lufs": _pair("lufs", lufs), "min_ratio": float(min_geodesic_ratio),
        }  # fmt: skip
        self.success_radius = float(success_radius_m)
        self.max_steps = int(max_steps)
        self.ear_height = float(ear_height_m)
        self.agent_radius = float(agent_radius_m)
        self.frames = bool(frames)
        self.image_size = (int(image_size[0]), int(image_size[1]))
        self.bank = load_bank(sounds or None)
        self._user_backend = None
        if scene:
            from simkit.scenes.nav.meshes import load_scene_mesh
            from simkit.sims.nav import make_backend

            self._user_backend = make_backend(
                backend, mesh=load_scene_mesh(scene), agent_radius=self.agent_radius
            )
        obs: dict[str, spaces.Space] = {
            "foa": spaces.Box(-np.inf, np.inf, (self.win, 4), np.float32),
            "pose": spaces.Box(-np.inf, np.inf, (3,), np.float32),
        }
        if self.frames:
            w, h = self.image_size
            obs["rgb"] = spaces.Box(0, 255, (h, w, 3), np.uint8)
            obs["depth"] = spaces.Box(0.0, np.inf, (h, w, 1), np.float32)
        self.observation_space = spaces.Dict(obs)
        self.action_space = spaces.Discrete(4)
        self.plan: Any = None
        self.backend: Any = None
        self._camera: Any = None
        self._slabs: Any = None  # the plan's wall slabs (cross-room gain), built on the first window
        self._direct: Any = None  # the per-step FOA window renderer

    # -- episode setup ----------------------------------------------------------------------
    def _new_scene(self, rng: np.random.Generator) -> None:
        from simkit.scenes.nav.floorplan import FloorPlanParams, compile_floorplan, plan_mesh
        from simkit.sims.nav import make_backend

        if self._user_backend is not None:
            self.plan, self.backend = None, self._user_backend
            return
        c = self.cfg
        params = FloorPlanParams(width_m=c["width_m"], depth_m=c["depth_m"], n_rooms=c["n_rooms"])
        self.plan = compile_floorplan(rng, params)
        self.backend = make_backend(
            self.backend_name, mesh=plan_mesh(self.plan), agent_radius=self.agent_radius
        )
        self._camera = None
        self._slabs = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        from simkit.assets.sounds import normalise_loudness
        from simkit.sims.nav.base import NavAgent
        from simkit.sims.nav.episodes import sample_start_goal

        super().reset(seed=seed)
        rng = self.np_random
        fresh = seed is not None or self.backend is None or self._scene_uses >= self.scene_reuse
        if fresh:
            self._new_scene(rng)
            self._scene_uses = 0
        self._scene_uses += 1
        sg = sample_start_goal(self.backend, rng, self.cfg["geodesic_m"], self.cfg["min_ratio"])
        self.task = sg
        self._start_frame: Any = None
        self._gain_at: Any = None  # ((x, y), cross-room gain) of the last window
        self.agent = NavAgent(self.backend, sg.start, sg.start_yaw)
        self.source = np.array([sg.goal[0], sg.goal[1], rng.uniform(0.3, 1.5)])
        if fresh:
            self.label = str(self.bank.labels[int(rng.integers(len(self.bank.labels)))])
            n = int(STEM_S * self.fs)
            stem = self.bank.draw(self.label, n, self.fs, rng)
            self._lufs = float(rng.uniform(*self.cfg["lufs"]))
            self.stem = normalise_loudness(stem, self.fs, self._lufs)
        else:  # the same clip at a new loudness: a gain (BS.1770 loudness is linear in dB)
            lufs = float(rng.uniform(*self.cfg["lufs"]))
            self.stem = self.stem * 10 ** ((lufs - self._lufs) / 20)
            self._lufs = lufs
        self.steps, self.path_length = 0, 0.0
        self.distance = sg.geodesic_m
        info = {"distance_to_goal": self.distance, "geodesic_start_m": sg.geodesic_m, "label": self.label}
        return self._obs(), info

    # -- observation --------------------------------------------------------------------------
    def _foa(self) -> np.ndarray:
        """The window at the current pose: :class:`~simkit.renderers.foa.windows.DirectWindow` (the same
        samples as :func:`~simkit.renderers.foa.windows.render_windows`, without its per-call setup)."""
        from simkit.renderers.foa.windows import DirectWindow, render_windows
        from simkit.scenes.nav.floorplan import cross_room_gain, wall_slabs

        pad = self.fs // 20
        i0, n = (self.steps * self.win) % self.stem.size, self.win + pad
        if i0 + n <= self.stem.size:
            sig = self.stem[i0 : i0 + n]
        else:  # the looped stem wraps inside this window
            sig = self.stem[(self.steps * self.win + np.arange(n)) % self.stem.size]
        pos, yaw = self.agent.position, self.agent.yaw
        gain = 1.0
        if self.plan is not None:
            if self._slabs is None:
                self._slabs = wall_slabs(self.plan)
            key = (float(pos[0]), float(pos[1]))
            if self._gain_at is None or self._gain_at[0] != key:  # turns keep the position: same walls
                g = cross_room_gain(self.plan, pos, self.source, self.cfg["wall_loss_db"], self._slabs)
                self._gain_at = (key, g)
            gain = self._gain_at[1]
        if self._direct is None:
            self._direct = DirectWindow(self.win, pad)
        if self._direct.enabled:
            out = self._direct.render(sig, self.fs, (pos[0], pos[1], self.ear_height), yaw, self.source, gain)
        else:
            out = render_windows(sig, self.fs, self.agent.pose[None], self.source, self.win,
                                 listener_height=self.ear_height, gains=[gain], pad=pad)  # fmt: skip
        return out.astype(np.float32)

    def relative_pose(self) -> np.ndarray:
        """``[x, y, yaw]`` of the agent in the start frame (GPS + compass), float32 (3,)."""
        from simkit.sims.nav.base import wrap_angle

        if self._start_frame is None:  # to_egocentric's cos, sin and start point, once per episode
            s = np.array([*self.task.start, self.task.start_yaw])
            self._start_frame = (np.cos(s[2]), np.sin(s[2]), s[0], s[1])
        c, sn, x0, y0 = self._start_frame
        dx, dy = self.agent.position[0] - x0, self.agent.position[1] - y0
        yaw = wrap_angle(self.agent.yaw - self.task.start_yaw)
        return np.array([c * dx + sn * dy, -sn * dx + c * dy, yaw], dtype=np.float32)

    def _obs(self) -> dict[str, np.ndarray]:
        obs = {"foa": self._foa(), "pose": self.relative_pose()}
        if self.frames:
            obs["rgb"], obs["depth"] = self._render_frames()
        return obs

    def _render_frames(self) -> tuple[np.ndarray, np.ndarray]:
        from simkit.sims.nav.frames import FrameRenderer

        if self._camera is None:
            boxes = [] if self.plan is None else [(b.lo, b.hi, b.kind) for b in self.plan.boxes]
            size = (10.0, 10.0) if self.plan is None else self.plan.size
            self._camera = FrameRenderer(boxes, size, *self.image_size)
        rgb, depth = self._camera.render(self.agent.pose, self.ear_height)
        return rgb, depth[..., None]

    # -- step ---------------------------------------------------------------------------------
    def step(self, action):
        from simkit.sims.nav.base import STOP

        a = int(action)
        if not 0 <= a < 4:  # Discrete(4)
            raise ValueError(
                f"action must be 0 stop, 1 move_forward, 2 turn_left or 3 turn_right, got {action!r}"
            )
        collided = self.agent.step(a)
        self.steps += 1
        self.path_length += self.agent.last_moved  # |position after - position before|, metres
        prev, self.distance = (
            self.distance,
            self.backend.geodesic_distance(self.agent.position, self.task.goal),
        )
        reward = prev - self.distance - 0.01
        terminated = a == STOP
        success = bool(terminated and self.distance <= self.success_radius)
        reward += 2.5 if success else 0.0
        truncated = not terminated and self.steps >= self.max_steps
        info = {"distance_to_goal": self.distance, "collided": collided, "success": success,
                "geodesic_start_m": self.task.geodesic_m, "path_length_m": self.path_length}  # fmt: skip
        return self._obs(), float(reward), terminated, truncated, info
