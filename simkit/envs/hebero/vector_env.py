"""``simkit/Hebero-v0``: N = K x g LIBERO environments in one process, env i runs task i mod K.

See ``docs/hebero.md`` (observation slot table, controller, rewards, resets). The vector env is
a ``gymnasium.vector.VectorEnv`` with same-step autoreset: when env i terminates (goal reached,
``terminate_on_success``) or truncates (``horizon`` steps), the returned observation is already
the first one of its next episode; Gymnasium 1.x's same-step keys say what ended
(:func:`final_infos`): ``info["final_obs"][i]`` holds the last observation of the finished
episode and ``info["final_info"]`` its step's info, with ``info["_final_obs"][i]`` and
``info["_final_info"][i]`` True.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

from simkit.assets.mujoco_log import import_mujoco
from simkit.core.errors import InputError
from simkit.envs.hebero import kernels
from simkit.envs.hebero.backend import Backend, make_backend
from simkit.envs.hebero.config import HeberoConfig, make_config
from simkit.envs.hebero.tasks import descriptors, task_ids
from simkit.scenes.hebero.cameras import CAMERA_NAMES
from simkit.sims.hebero.batch_predicates import BatchGoal
from simkit.sims.hebero.cameras import CameraRenderer, check_cameras, gl_default
from simkit.sims.hebero.scene import SIM_DT, Scene, build_scene


class TaskModel:
    """One task's compiled scene plus the ids the kernels gather (robot, slots, goal test)."""

    def __init__(self, scene: Scene):
        mujoco = import_mujoco()
        m = scene.model
        self.scene, self.model, self.desc = scene, m, scene.descriptor
        self.goal = BatchGoal(m, scene.binding, scene.descriptor["goal"])

        def jid(name: str) -> int:
            return mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)

        arm = [jid(f"robot/joint{i}") for i in range(1, 8)]
        fingers = [jid("robot/gripper/finger_joint1"), jid("robot/gripper/finger_joint2")]
        self.arm_jnt = np.asarray(arm, int)
        self.arm_q = m.jnt_qposadr[arm].astype(int)
        self.arm_v = m.jnt_dofadr[arm].astype(int)
        self.finger_q = m.jnt_qposadr[fingers].astype(int)
        self.qrange = np.array(m.jnt_range[arm])
        act = lambda n: mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_ACTUATOR, n)  # noqa: E731
        self.arm_act = np.array([act(f"robot/act{i}") for i in range(1, 8)])
        self.grip_act = np.array([act(f"robot/gripper/finger_joint{i}_act") for i in (1, 2)])
        self.ee_site = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, "robot/gripper/grip_site")
        self.ee_body = int(m.site_bodyid[self.ee_site])
        self.base_body = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "robot/base")
        self.slot_kind = np.zeros(kernels.N_SLOTS, int)
        self.slot_id = np.zeros(kernels.N_SLOTS, int)
        b = scene.binding
        for s in scene.descriptor["entity_slots"]:
            if s["name"] in b.bodies:
                self.slot_kind[s["slot"]], self.slot_id[s["slot"]] = 1, b.bodies[s["name"]]
            elif s["name"] in b.sites:
                self.slot_kind[s["slot"]], self.slot_id[s["slot"]] = 2, b.sites[s["name"]]
        #: hinge/slide joints of the fixtures (declaration order) and their qpos addresses: the
        #: articulation state the demos record and the demo reward tracks
        self.fixture_joints = [j for n in self.desc["fixtures"] for j in b.joints.get(n, [])]
        self.fixture_q = np.asarray(m.jnt_qposadr[self.fixture_joints], int)
        self.task_code = np.asarray(scene.descriptor["task_code"], np.float64)
        self.state_spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
        self.nstate = mujoco.mj_stateSize(m, self.state_spec)
        self._bank: dict[int, np.ndarray] = {}
        self._libero: dict[int, np.ndarray] = {}
        self._waited: dict[tuple[int, int, int], np.ndarray] = {}

    def bank_state(self, b: int) -> np.ndarray:
        """Initial state (nstate,) of layout-bank entry ``b``: the layout the scene compiler draws with
        ``np.random.default_rng(b)`` -- the state ``build_scene(desc, root, default_rng(b))`` starts
        from, which is entry b of the GPU backend's bank (:func:`~simkit.sims.hebero.layout_models.task_layouts`,
        seeds 0..B-1) on this task's own model. Computed once per entry."""
        if b not in self._bank:
            self._bank[b] = self.sample_state(np.random.default_rng(b))
        return self._bank[b].copy()

    def libero_state(self, k: int, wait: int = 0, substeps: int = 25) -> np.ndarray:
        """Initial state (nstate,) of LIBERO's fixed initial state ``k`` (0-49) of this task, mapped by
        joint name (:mod:`simkit.scenes.hebero.init_states`): arm, fingers, objects' free joints and
        fixture joints with their velocities; the arm and finger actuators hold the loaded pose.
        Fixtures (not part of LIBERO's state) stand where layout-bank entry 0 puts them. ``wait`` > 0:
        the state after that many zero-action control steps of ``substeps`` physics steps
        (:func:`~simkit.envs.hebero.init_wait.wait_state`, LIBERO's evaluation waits 5). Computed once
        per (k, wait, substeps).

        Raises:
            InputError: ``k`` out of range, or a state row whose size is not LIBERO's model's.
        """
        from simkit.envs.hebero.init_wait import wait_state
        from simkit.scenes.hebero.init_states import joint_map, load_task_states, state_layout

        tid = self.desc["task_id"]
        states = load_task_states(tid)
        if not 0 <= k < len(states):
            raise InputError(None, f"init_state must be in [0, {len(states)}) for {tid}, not {k}")
        if k not in self._libero:
            nq, nv = state_layout(tid)
            if states.shape[1] != 1 + nq + nv:
                raise InputError(
                    None, f"{tid}: LIBERO state rows have {states.shape[1]} numbers, not {1 + nq + nv}"
                )
            self._libero[k] = self._map_state(states[k], nq, joint_map(tid, list(self.scene.binding.bodies)))
        if wait <= 0:
            return self._libero[k].copy()
        key = (k, wait, substeps)
        if key not in self._waited:
            self._waited[key] = wait_state(self.model, self._libero[k], wait, substeps)
        return self._waited[key].copy()

    def _map_state(self, row: np.ndarray, nq: int, jmap) -> np.ndarray:
        mujoco = import_mujoco()
        m, data = self.model, self.scene.data
        self.scene.reset(np.random.default_rng(0))
        width = {0: (7, 6), 1: (4, 3), 2: (1, 1), 3: (1, 1)}  # mjtJoint free, ball, slide, hinge
        for name, jtype, qadr, vadr in jmap:
            j = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)
            if j < 0:
                continue
            nqj, nvj = width[jtype]
            data.qpos[m.jnt_qposadr[j] : m.jnt_qposadr[j] + nqj] = row[1 + qadr : 1 + qadr + nqj]
            data.qvel[m.jnt_dofadr[j] : m.jnt_dofadr[j] + nvj] = row[1 + nq + vadr : 1 + nq + vadr + nvj]
        data.ctrl[self.arm_act] = data.qpos[self.arm_q]
        data.ctrl[self.grip_act] = data.qpos[self.finger_q]
        mujoco.mj_forward(m, data)
        out = np.empty(self.nstate)
        mujoco.mj_getState(m, data, out, self.state_spec)
        return out

    def sample_state(
        self, rng: np.random.Generator, boxes: dict | None = None, tries: int = 100
    ) -> np.ndarray:
        """A fresh initial state (nstate,) of this task: robot home, :init joints, region layout.

        ``boxes`` (object name -> (x_min, y_min, x_max, y_max), m, world) redraws those objects' x, y
        uniformly in their box after the region layout (height and yaw kept), rejecting draws where
        anything penetrates by more than 1 mm (``tries`` draws, then the region layout stays).
        """
        mujoco = import_mujoco()
        self.scene.reset(rng)
        if boxes:
            self._redraw_in_boxes(rng, boxes, tries)
        out = np.empty(self.nstate)
        mujoco.mj_getState(self.model, self.scene.data, out, self.state_spec)
        return out

    def _redraw_in_boxes(self, rng: np.random.Generator, boxes: dict, tries: int) -> None:
        lay, data = self.scene.layout, self.scene.data
        assert lay is not None
        placed = {n: lay.placed[n] for n in boxes if n in lay.placed}
        for _ in range(tries):
            for n, (x0, y0, x1, y1) in boxes.items():
                if n in placed:
                    _, _, z, quat = placed[n]
                    lay.set_pose(data, n, float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1)), z, quat)
            if not lay.penetrating(data):
                return
        for n, p in placed.items():  # no collision-free draw: keep the region layout
            lay.set_pose(data, n, *p)
        mujoco = import_mujoco()
        mujoco.mj_forward(self.model, data)


def final_infos(final_obs: Any, info: Mapping[str, Any], done: Any) -> dict[str, Any]:
    """Gymnasium 1.x's same-step autoreset keys (``gymnasium.vector.SyncVectorEnv``, ``AutoresetMode.SAME_STEP``).

    Args:
        final_obs: (N, ...) observations before the reset (numpy or torch), or None (not kept).
        info: the step's info (N,)-arrays, values before the reset.
        done: (N,) bool (numpy or torch), the envs whose episode ended.

    Returns:
        ``final_obs``: (N,) object array, env i's last observation where it ended, None elsewhere;
        ``final_info``: info's keys, values kept where ended and zero elsewhere, each with its
        ``_<key>`` mask; ``_final_obs`` and ``_final_info``: (N,) bool numpy masks.
    """
    mask = np.asarray(done.cpu() if hasattr(done, "cpu") else done, bool)
    out: dict[str, Any] = {"_final_obs": mask.copy(), "_final_info": mask.copy()}
    obs = np.full(len(mask), None, dtype=object)
    if final_obs is not None:
        for i in np.flatnonzero(mask):
            obs[i] = final_obs[i]
    out["final_obs"] = obs
    fin: dict[str, Any] = {}
    for k, v in info.items():
        if not isinstance(v, np.ndarray) and hasattr(
            v, "device"
        ):  # a torch tensor (numpy 2 arrays have .device too)
            sel = done.view(-1, *([1] * (v.dim() - 1)))
            fin[k] = v.where(sel, v.new_zeros(()))
        else:
            fin[k] = np.where(
                mask.reshape(-1, *([1] * (np.ndim(v) - 1))), v, np.zeros((), np.asarray(v).dtype)
            )
        fin["_" + k] = mask.copy()
    out["final_info"] = fin
    return out


def demo_boxes(object_poses: Sequence[np.ndarray], names: Sequence[str]) -> dict[str, tuple[float, ...]]:
    """Per object, the x-y box (x_min, y_min, x_max, y_max) spanned by demos' start poses (Hebero eval).

    Args:
        object_poses: per demo its (n, 7) start poses (position + quaternion), m, world.
        names: the n object names.
    """
    start = np.stack([np.asarray(p)[:, :2] for p in object_poses])  # (demos, n, 2)
    lo, hi = start.min(axis=0), start.max(axis=0)
    return {
        n: (float(lo[i, 0]), float(lo[i, 1]), float(hi[i, 0]), float(hi[i, 1])) for i, n in enumerate(names)
    }


def _stack(tasks: list[TaskModel], idx: np.ndarray, attr: str) -> np.ndarray:
    return np.stack([np.asarray(getattr(tasks[k], attr)) for k in idx])


def build_tasks(
    suite: str | None,
    tasks: Sequence[str] | None,
    libero_root: str | Path | None,
    visual: bool = False,
    cache: bool = True,
) -> tuple[list[str], list[TaskModel]]:
    """Task ids and their :class:`TaskModel` (scenes built from the bundled BDDL + installed assets;
    without ``visual`` the visual meshes are dropped, dynamics unchanged, see ``build_scene``). A progress
    bar (:mod:`simkit.core.progress`, on a terminal, after 2 s) counts the scenes: many tasks take minutes.

    With ``cache`` the compiled models come from the compiled-model cache
    (:func:`~simkit.sims.hebero.model_cache.cached_scene`: compiled and stored on a miss; the scenes
    then have no ``spec``); without, every scene is compiled afresh and keeps its ``MjSpec``."""
    from simkit.core.progress import track
    from simkit.sims.hebero.model_cache import cached_scene

    ids = task_ids(suite, tasks)
    descs = descriptors(ids, libero_root)
    make = cached_scene if cache else build_scene
    label = f"building {len(descs)} Hebero task scenes"
    return ids, [
        TaskModel(make(d, libero_root, np.random.default_rng(0), visual=visual))
        for d in track(descs, label, unit="tasks", after_s=2.0)
    ]


class _Rows(Mapping):
    """Row subset of a backend's arrays, sliced on access (the goal tests read only a few fields)."""

    def __init__(self, arrays: Mapping[str, np.ndarray], rows: Any):
        self._a, self._r = arrays, rows

    def __getitem__(self, key: str) -> np.ndarray:
        return self._a[key][self._r]

    def __iter__(self):
        return iter(self._a)

    def __len__(self) -> int:
        return len(self._a)


#: observation modes: the state vector, camera images, or both (a Dict)
OBS_MODES = ("state", "rgb", "state+rgb")
#: largest camera image side, px: the task models' offscreen buffer is 1280 x 960
MAX_IMAGE_SIZE = 960


def _check_size(size: int) -> int:
    if not 16 <= size <= MAX_IMAGE_SIZE:
        raise InputError(None, f"camera image size must be in [16, {MAX_IMAGE_SIZE}] px, not {size}")
    return size


class HeberoVectorEnv(gymnasium.vector.VectorEnv):
    """The heterogeneous multi-task LIBERO vector env (see module doc and ``docs/hebero.md``).

    Args:
        num_envs: N environments; env i runs task ``i mod K``.
        suite: goal | object | spatial | long | all (ignored when ``tasks`` is given).
        tasks: explicit task ids (``goal/turn_on_the_stove``) or names.
        backend: "cpu" (``mujoco.batch``). ``gymnasium.make_vec(..., backend="warp")`` builds the GPU
            env (:mod:`simkit.envs.hebero.warp`) from the same config instead of this class.
        render_mode: None or "rgb_array" (``render()`` returns env 0's agent-view image). Without a
            render mode or camera observations the task models drop their visual meshes (about 4 MB
            instead of 200 MB per task; masses and inertias are kept, so the dynamics are bit-identical).
        obs_mode: "state" (the (N, 300) vector), "rgb" or "state+rgb": a Dict observation with
            ``<camera>_rgb`` (N, S, S, 3) uint8 per camera of ``cameras`` (S = ``image_size``; upright,
            :mod:`simkit.scenes.hebero.cameras`) and, for "state+rgb", ``state`` (N, 300).
        cameras: the cameras of the image observations (``agentview``, ``eye_in_hand``).
        equal_groups: require N to be a multiple of K (every task gets the same number of envs).
        libero_root: a LIBERO checkout instead of the bundled BDDL files + installed assets.
        model_cache: read and fill the compiled-model cache (:mod:`simkit.sims.hebero.model_cache`,
            ``docs/hebero.md``); False compiles every task model afresh (seconds per task).
        config: :class:`HeberoConfig` or a dict of its fields; keyword arguments of the same
            names override it (``max_episode_steps`` is an alias of ``horizon``).

    Spaces: observation Box(-inf, inf, (N, 300), float32) (``obs_mode="state"``) or a Dict of it and
    Box(0, 255, (N, S, S, 3), uint8) per camera; action Box(-1, 1, (N, 7), float32).

    Raises:
        InputError: unknown suite/task/backend/obs_mode/camera, bad config values, or N not a multiple
            of K with ``equal_groups``.
    """

    metadata = {"render_modes": ["rgb_array"], "autoreset_mode": AutoresetMode.SAME_STEP, "render_fps": 20}

    def __init__(
        self,
        num_envs: int = 40,
        suite: str = "all",
        tasks: Sequence[str] | None = None,
        backend: str = "cpu",
        render_mode: str | None = None,
        equal_groups: bool = False,
        libero_root: str | Path | None = None,
        config: HeberoConfig | dict | None = None,
        obs_mode: str = "state",
        cameras: Sequence[str] = CAMERA_NAMES,
        model_cache: bool = True,
        **overrides: Any,
    ):
        self.cfg = make_config(config, overrides)
        if render_mode not in (None, "rgb_array"):
            raise InputError(None, f"render_mode must be None or 'rgb_array', not {render_mode!r}")
        if obs_mode not in OBS_MODES:
            raise InputError(None, f"obs_mode must be one of {list(OBS_MODES)}, not {obs_mode!r}")
        self.obs_mode, self.cameras = obs_mode, check_cameras(cameras)
        visual = self.visual = render_mode is not None or obs_mode != "state"
        if visual:
            gl_default()  # headless offscreen rendering (or osmesa, set by the user)
            _check_size(self.cfg.image_size)
        if backend not in ("cpu", "warp"):
            make_backend(backend, [], np.zeros(0, int))
        k = len(task_ids(suite, tasks))
        if num_envs < 1:
            raise InputError(None, f"num_envs must be >= 1, not {num_envs}")
        if equal_groups and num_envs % k:
            raise InputError(
                None, f"num_envs={num_envs} is not a multiple of the {k} tasks (equal_groups=True)"
            )
        self.task_names, self.tasks = build_tasks(suite, tasks, libero_root, visual, model_cache)
        self.num_envs = num_envs
        self.render_mode = render_mode
        self.task_of = np.arange(num_envs) % k
        for t in self.tasks:
            self.cfg.apply_solver(t.model)
        self.backend: Backend = make_backend(
            backend, [t.model for t in self.tasks], self.task_of, self.cfg.nthread
        )
        self.substeps = max(1, round(1.0 / (self.cfg.control_hz * SIM_DT)))
        self.single_observation_space = self._observation_space()
        self.single_action_space = gymnasium.spaces.Box(-1.0, 1.0, (7,), np.float32)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._index = [self._group_index(g) for g in range(len(self.backend.groups))]
        self._qrange = np.stack([self.tasks[k].qrange for k in self.task_of])  # (N, 7, 2) arm limits, rad
        self.prev_action = np.zeros((num_envs, 7))
        self.elapsed = np.zeros(num_envs, int)
        self._rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(0).spawn(num_envs)]
        self._renderers: dict[tuple[int, int], CameraRenderer] = {}  # (task, size) -> renderer
        self._scratch: dict[int, Any] = {}  # env -> MjData its images are drawn from
        #: env -> (layout group, row in the group)
        self._where = {
            int(e): (g, j) for g, grp in enumerate(self.backend.groups) for j, e in enumerate(grp.env_ids)
        }
        self.stream: Any = None  # demo command stream (set_demos)
        self.boxes: dict[int, dict] = {}  # task index -> object reset boxes (set_reset_boxes)

    # ---- per-group gather indices
    def _group_index(self, g: int) -> dict[str, Any]:
        tk = self.backend.groups[g].tasks
        ts = self.tasks
        out: dict[str, Any] = {
            a: _stack(ts, tk, a)
            for a in (
                "arm_q",
                "arm_v",
                "arm_jnt",
                "finger_q",
                "qrange",
                "arm_act",
                "grip_act",
                "slot_kind",
                "slot_id",
            )
        }
        out.update({a: _stack(ts, tk, a) for a in ("ee_site", "ee_body", "base_body", "task_code")})
        out["rows"] = np.arange(len(tk))[:, None]
        out["task_rows"] = {int(t): np.flatnonzero(tk == t) for t in np.unique(tk)}
        return out

    # ---- gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Reset every env (``seed`` re-seeds each env's own generator: SeedSequence(seed).spawn(N)).

        ``options={"bank_entry": b}`` (an int or (N,) ints in [0, ``bank_size``)) starts env i from
        layout-bank entry b[i] of its task (:meth:`TaskModel.bank_state`), whatever ``reset_mode``:
        the same initial states as the GPU backend's bank entries. ``options={"init_state": k}`` (an
        int or (N,) ints in [0, 50)) starts env i from LIBERO's fixed initial state k[i] of its task
        (:meth:`TaskModel.libero_state`), the states LIBERO's published success rates start from, after
        ``cfg.init_wait`` zero-action control steps (LIBERO's evaluation takes 5 before its policy acts,
        :mod:`~simkit.envs.hebero.init_wait`; they do not count towards the horizon).

        Raises:
            InputError: a bank entry or initial state out of range or of the wrong shape, or both
                options at once.
        """
        if seed is not None:
            self._rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(self.num_envs)]
        entries = inits = None
        options = options or {}
        if "bank_entry" in options and "init_state" in options:
            raise InputError(None, "reset options bank_entry and init_state exclude each other")
        if "bank_entry" in options:
            entries = self._per_env(options["bank_entry"], "bank_entry")
            if entries.min() < 0 or entries.max() >= self.cfg.bank_size:
                raise InputError(
                    None, f"bank_entry must be in [0, {self.cfg.bank_size}), got {entries.tolist()}"
                )
        if "init_state" in options:
            inits = self._per_env(options["init_state"], "init_state")
        self._reset_envs(np.arange(self.num_envs), entries, inits)
        obs, success, _ = self._observe(np.zeros((self.num_envs, 7)))
        return self._with_images(obs), {"task_id": self.task_of.copy(), "success": success}

    #: the ``reset`` options this env understands
    reset_options = ("bank_entry", "init_state")

    def _per_env(self, value, what: str) -> np.ndarray:
        try:
            return np.broadcast_to(np.asarray(value), (self.num_envs,)).astype(int)
        except ValueError:
            raise InputError(None, f"{what} must be an int or {self.num_envs} ints, got {value!r}") from None

    def step(self, actions):
        a = np.clip(np.asarray(actions, np.float64).reshape(self.num_envs, 7), -1.0, 1.0)
        self._control(a)
        self.backend.step(self.substeps)
        self.elapsed += 1
        obs, success, terms = self._observe(a)
        self.prev_action = a
        terminated = success & self.cfg.terminate_on_success
        truncated = (self.elapsed >= self.cfg.horizon) & ~terminated
        info: dict[str, Any] = {"task_id": self.task_of.copy(), "success": success, **terms}
        if self.stream is not None:
            self.stream.advance()
            info.update(self._demo_terms())
        done = np.flatnonzero(terminated | truncated)
        out = self._with_images(obs)
        if len(done):
            final: Any = obs.copy()
            if self.obs_mode != "state":  # a Dict observation: env i's own dict where it ended
                final = [
                    {k: v[i].copy() for k, v in out.items()} if i in done else None
                    for i in range(self.num_envs)
                ]
            info.update(final_infos(final, info, terminated | truncated))
            if self.stream is not None:
                self.stream.record_ends(done, success)
            self._reset_envs(done)
            new_obs, _, _ = self._observe(np.zeros((self.num_envs, 7)))
            obs[done] = new_obs[done]
            out = self._with_images(obs, done, out)
        return out, terms["reward"].astype(np.float32), terminated, truncated, info

    def set_reset_boxes(self, boxes: dict[str, dict[str, tuple[float, ...]]]) -> None:
        """Task id -> {object -> (x_min, y_min, x_max, y_max)}: from the next reset on, those objects'
        x, y are drawn uniformly in their boxes (collision rejection), e.g. :func:`demo_boxes` of the
        task's demos as the Hebero evaluation protocol asks."""
        unknown = sorted(set(boxes) - set(self.task_names))
        if unknown:
            raise InputError(None, f"reset boxes for tasks this env does not run: {unknown}")
        self.boxes = {self.task_names.index(t): b for t, b in boxes.items()}

    def set_demos(self, demos: dict[str, list], demo_start: bool = False) -> None:
        """Attach demonstrations (task id -> list of :class:`~simkit.envs.hebero.stream.Demo`): from the
        next reset on, ``info`` carries ``r_demo`` (demo-tracking reward), ``phi`` (cursor) and
        ``demo_id``; with ``demo_start`` envs reset to a demo state at a random cursor r_e.

        Raises:
            InputError: a task of this env has no demo.
        """
        from simkit.envs.hebero.stream import CommandStream

        by_index = {k: list(demos.get(t, [])) for k, t in enumerate(self.task_names)}
        self.stream = CommandStream(by_index, self.task_of, demo_start)

    def _reset_envs(
        self, envs: np.ndarray, entries: np.ndarray | None = None, inits: np.ndarray | None = None
    ) -> None:
        start = self.stream.on_reset(envs, self._rngs) if self.stream is not None else {}
        for g, grp in enumerate(self.backend.groups):
            local = np.flatnonzero(np.isin(grp.env_ids, envs))
            if len(local) == 0:
                continue
            states = np.stack(
                [
                    self._initial_state(int(grp.env_ids[j]), int(grp.tasks[j]), start, entries, inits)
                    for j in local
                ]
            )
            self.backend.set_state(g, local, states)
        self.prev_action[envs] = 0.0
        self.elapsed[envs] = 0

    def _initial_state(
        self, e: int, t: int, start: dict, entries: np.ndarray | None, inits: np.ndarray | None = None
    ) -> np.ndarray:
        """Env e's (task t) next initial state: a demo start, LIBERO's fixed initial state, an explicit
        or drawn bank entry, or a fresh layout."""
        if e in start:
            return start[e]
        task = self.tasks[t]
        if inits is not None:
            return task.libero_state(int(inits[e]), self.cfg.init_wait, self.substeps)
        if entries is not None:
            return task.bank_state(int(entries[e]))
        if self.cfg.reset_mode == "bank":
            return task.bank_state(int(self._rngs[e].integers(self.cfg.bank_size)))
        return task.sample_state(self._rngs[e], self.boxes.get(t))

    def _demo_terms(self) -> dict[str, np.ndarray]:
        """r_demo, phi, the active demo and its action at the cursor (``a_demo`` (N, 7)) per env (command
        stream attached by :meth:`set_demos`)."""
        from simkit.envs.hebero.stream import demo_reward, tracking_errors

        assert self.stream is not None
        errs: dict[str, list[float]] = {}
        for g, grp in enumerate(self.backend.groups):
            ix, arr = self._index[g], self.backend.arrays(g)
            for j, e in enumerate(grp.env_ids):
                t = self.tasks[int(grp.tasks[j])]
                demo, m = self.stream.reference(int(e))
                objs = np.array(
                    [arr["xpos"][j, t.scene.binding.bodies[n]] for n in demo.object_names]
                ).reshape(-1, 3)
                art = arr["qpos"][j, t.fixture_q]
                one = tracking_errors(
                    demo,
                    m,
                    arr["qpos"][j, ix["arm_q"][j]],
                    arr["qvel"][j, ix["arm_v"][j]],
                    arr["qpos"][j, ix["finger_q"][j]],
                    arr["site_xpos"][j, ix["ee_site"][j]],
                    objs,
                    art,
                    self.cfg.control_hz,
                )
                for k, v in one.items():
                    errs.setdefault(k, [0.0] * self.num_envs)[int(e)] = v
        _, phi = self.stream.cursor()
        r = demo_reward({k: np.asarray(v) for k, v in errs.items()}, self.cfg.demo_reward)
        a_demo = self.stream.reference_action()
        return {"r_demo": r, "phi": phi, "demo_id": self.stream.demo.copy(), "a_demo": a_demo}

    def _control(self, a: np.ndarray) -> None:
        for g, grp in enumerate(self.backend.groups):
            ix, arr = self._index[g], self.backend.arrays(g)
            rows = ix["rows"]
            ee = arr["site_xpos"][rows[:, 0], ix["ee_site"]]
            jacp, jacr = kernels.hinge_jacobian(
                arr["xanchor"][rows, ix["arm_jnt"]], arr["xaxis"][rows, ix["arm_jnt"]], ee
            )
            q = arr["qpos"][rows, ix["arm_q"]]
            target, fingers = kernels.arm_targets(
                a[grp.env_ids],
                q,
                jacp,
                jacr,
                ix["qrange"],
                self.cfg.pos_scale,
                self.cfg.rot_scale,
                self.cfg.ik_damping,
            )
            ctrl = arr["ctrl"]
            ctrl[rows, ix["arm_act"]] = target
            ctrl[rows, ix["grip_act"]] = fingers

    def _observe(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        obs = np.zeros((self.num_envs, kernels.OBS_DIM), np.float32)
        success = np.zeros(self.num_envs, bool)
        q, dq = np.zeros((self.num_envs, 7)), np.zeros((self.num_envs, 7))
        for g, grp in enumerate(self.backend.groups):
            ix, arr = self._index[g], self.backend.arrays(g)
            rows, e = ix["rows"], grp.env_ids
            for t, r in ix["task_rows"].items():
                rows_t = r if len(r) < len(e) else slice(None)  # whole group: views, no copies
                success[e[r]] = self.tasks[t].goal(_Rows(arr, rows_t))
            q[e], dq[e] = arr["qpos"][rows, ix["arm_q"]], arr["qvel"][rows, ix["arm_v"]]
            base = arr["xpos"][rows[:, 0], ix["base_body"]]
            prop = kernels.proprioception(
                q[e],
                dq[e],
                arr["qpos"][rows, ix["finger_q"]],
                arr["site_xpos"][rows[:, 0], ix["ee_site"]],
                arr["xquat"][rows[:, 0], ix["ee_body"]],
                base,
            )
            slots = kernels.slot_features(
                arr["xpos"],
                arr["xmat"],
                arr["site_xpos"],
                arr["site_xmat"],
                ix["slot_kind"],
                ix["slot_id"],
                base,
            )
            obs[e] = np.concatenate([a[e], ix["task_code"], prop, slots], axis=1)
        terms = kernels.task_reward(success, a, self.prev_action, q, dq, self._qrange, self.cfg.reward)
        return obs, success, terms

    # ---- cameras
    def _observation_space(self) -> gymnasium.spaces.Space:
        """One env's observation space for ``obs_mode`` (class doc)."""
        state = gymnasium.spaces.Box(-np.inf, np.inf, (kernels.OBS_DIM,), np.float32)
        if self.obs_mode == "state":
            return state
        s = self.cfg.image_size
        spaces: dict[str, gymnasium.spaces.Space] = {"state": state} if "state" in self.obs_mode else {}
        for cam in self.cameras:
            spaces[f"{cam}_rgb"] = gymnasium.spaces.Box(0, 255, (s, s, 3), np.uint8)
        return gymnasium.spaces.Dict(spaces)

    def _with_images(self, state: np.ndarray, envs: np.ndarray | None = None, prev: dict | None = None):
        """The observation of ``obs_mode``: ``state`` itself, or the Dict with every env's images
        (``envs`` given: ``prev``'s images with those envs' rendered anew)."""
        if self.obs_mode == "state":
            return state
        out: dict[str, np.ndarray] = {"state": state} if "state" in self.obs_mode else {}
        imgs = self.camera_images(self.cameras, envs=envs)
        for k, v in imgs.items():
            if prev is None:
                out[k] = v
            else:
                out[k] = prev[k].copy()
                out[k][envs] = v
        return out

    def render(self):
        """Env 0's agent-view RGB image (H, W, 3) uint8 when ``render_mode="rgb_array"``, else None."""
        if self.render_mode != "rgb_array":
            return None
        return self.camera_images(("agentview",), envs=[0])["agentview_rgb"][0]

    def camera_images(
        self,
        cameras: Sequence[str] = CAMERA_NAMES,
        size: int | None = None,
        depth: bool = False,
        envs: Sequence[int] | np.ndarray | None = None,
    ) -> dict[str, np.ndarray]:
        """Images of the envs' current states from MuJoCo's offscreen renderer (module
        :mod:`simkit.sims.hebero.cameras`; cameras placed as LIBERO places them,
        :mod:`simkit.scenes.hebero.cameras`).

        Args:
            cameras: names among ``agentview``, ``eye_in_hand``.
            size: image side S, px (default ``image_size``; 16 to 960).
            depth: also return depth images.
            envs: which envs (default all N, in order).

        Returns:
            ``<camera>_rgb`` (n, S, S, 3) uint8 and, with ``depth``, ``<camera>_depth`` (n, S, S)
            float32, metres along the optical axis; upright (row 0 = top of the image).

        Raises:
            InputError: an env built without visual models (no ``render_mode``, ``obs_mode="state"``),
                an unknown camera, a size out of range or an env index out of range.
            SimkitError: no OpenGL context (``MUJOCO_GL``).
        """
        if not self.visual:
            raise InputError(
                None,
                "camera images need the visual task models: create the env with render_mode='rgb_array' "
                "or obs_mode='rgb' / 'state+rgb'",
            )
        cams = check_cameras(cameras)
        s = _check_size(self.cfg.image_size if size is None else int(size))
        ids = np.arange(self.num_envs) if envs is None else np.asarray(envs, int).reshape(-1)
        if len(ids) and (ids.min() < 0 or ids.max() >= self.num_envs):
            raise InputError(None, f"env indices must be in [0, {self.num_envs}), got {ids.tolist()}")
        out = {f"{c}_rgb": np.zeros((len(ids), s, s, 3), np.uint8) for c in cams}
        if depth:
            out.update({f"{c}_depth": np.zeros((len(ids), s, s), np.float32) for c in cams})
        for row, e in enumerate(ids):
            t = int(self.task_of[e])
            key = (t, s)
            if key not in self._renderers:
                self._renderers[key] = CameraRenderer(self.tasks[t].model, s)
            for k, v in self._renderers[key].render(self._render_data(int(e)), cams, depth).items():
                out[k][row] = v
        return out

    def _render_data(self, env: int) -> Any:
        """Env ``env``'s current state in a scratch ``MjData`` of its task model with the kinematics,
        centres of mass and cameras/lights that drawing needs (no collision pass)."""
        mujoco = import_mujoco()
        task = self.tasks[int(self.task_of[env])]
        data = self._scratch.get(env)
        if data is None:
            data = self._scratch[env] = mujoco.MjData(task.model)
        g, j = self._where[env]
        mujoco.mj_setState(task.model, data, self.backend.states(g)[j], task.state_spec)
        mujoco.mj_kinematics(task.model, data)
        mujoco.mj_comPos(task.model, data)
        mujoco.mj_camlight(task.model, data)
        return data

    def close_extras(self, **kwargs: Any) -> None:
        for r in self._renderers.values():
            r.close()
        self._renderers.clear()
        self.backend = None  # type: ignore[assignment]
