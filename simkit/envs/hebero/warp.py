"""Hebero on the GPU: all tasks, thousands of environments, one process (``backend="warp"``).

Environment ``i`` runs task ``i mod K``. Tasks are simulated as layout groups
(:mod:`simkit.sims.hebero.layout_groups`: one union model per arena, unused entities
parked) on MuJoCo Warp, one CUDA graph and one CUDA stream per group
(:class:`~simkit.sims.hebero.warp_batch.WarpGroup`). The controller,
observations, rewards, goal predicates and autoreset are batched torch code on
the same device (:mod:`simkit.envs.hebero.kernels`, :mod:`simkit.sims.hebero.batched_tasks`),
reading and writing the simulator's arrays in place (``wp.to_torch``, zero-copy): a step copies
nothing to the host unless numpy output is asked for.

Models come from a layout-group cache (:func:`simkit.sims.hebero.layout_models.export_groups`,
``tools/bench_hebero_gpu.py export``), so the GPU machine needs no LIBERO assets.

Controller, observation and reward are the CPU env's (:class:`~simkit.envs.hebero.vector_env.HeberoVectorEnv`),
computed by the same array-generic definitions (:mod:`simkit.envs.hebero.kernels`, run here on float32
CUDA tensors: equal to the CPU env's float64 numpy results to float32 rounding) from the same
:class:`~simkit.envs.hebero.config.HeberoConfig`: ``control_hz`` gives the physics substeps per
control step (round(1 / (control_hz * timestep)): 25 steps of 2 ms at 20 Hz), ``pos_scale``,
``rot_scale`` and ``ik_damping`` the delta-pose IK, ``reward`` the reward weights, ``horizon`` and
``terminate_on_success`` the episode end, the ``solver_*`` fields the physics. The observation is
the CPU env's 300-vector: [action (7) | task code (36) | proprioception (23): arm q, arm dq, finger q,
grip-site position minus the robot base, hand quaternion | 26 slots x (position minus the robot
base, 6-D rotation)]. GPU-only settings (contact and constraint pools, autoreset) are
:class:`WarpEnvConfig`.

Autoreset (same step): an environment whose task succeeded (terminated, with
``terminate_on_success``) or ran ``horizon`` control steps (truncated) restarts from a random start
state of its task (the layout bank by default; LIBERO's fixed initial states or reset-box layouts
with :meth:`HeberoWarpBatch.set_reset_source`; with demo-start resets the state of its demo at a
random cursor); the returned observation is the new episode's first, the last one is kept in
:attr:`HeberoWarpBatch.final_obs`. Start states live in a pool of device tensors per group
(:mod:`simkit.envs.hebero.warp_starts`); demos, the command stream and ``r_demo`` are the CPU
env's definitions in torch (:mod:`simkit.envs.hebero.stream`, :meth:`HeberoWarpBatch.set_demos`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import InputError
from simkit.envs.hebero import kernels
from simkit.envs.hebero.config import HeberoConfig, make_config
from simkit.envs.hebero.warp_starts import StartPool, StateMap
from simkit.sims.hebero.layout_models import BANK_KINEMATICS

DEVICE = "cuda"  #: torch device of every tensor (the GPU Warp runs on)


@dataclass
class WarpEnvConfig:
    """Settings only the GPU backend has (controller, reward, episode and physics settings are the
    CPU env's :class:`~simkit.envs.hebero.config.HeberoConfig`).

    ``iterations``, ``ls_iterations`` and ``tolerance`` override ``HeberoConfig``'s ``solver_*``
    fields on the GPU only (speed tuning); leave them None when CPU and GPU runs should agree.
    """

    autoreset: bool = True  #: restart finished environments in the same step (off: they run on)
    #: keep each step's observation before the autoreset in ``HeberoWarpBatch.final_obs`` (one more
    #: observation pass per step; the Gymnasium wrapper's ``info["final_obs"]`` reads it)
    final_obs: bool = True
    nconmax: int = 96  #: contacts allocated per world
    njmax: int = (
        1024  #: constraint rows per world (random arm motion reached 758 at 8,192 worlds; 640 overflowed)
    )
    iterations: int | None = None  #: solver iterations (None: HeberoConfig.solver_iterations)
    ls_iterations: int | None = None  #: line-search iterations (None: HeberoConfig.solver_ls_iterations)
    tolerance: float | None = None  #: solver tolerance (None: HeberoConfig.solver_tolerance)
    cuda_graphs: bool = True  #: replay the torch work of a step as two CUDA graphs (captured on step 2)
    #: MuJoCo Warp model overrides (``mujoco_warp.override_model`` syntax), e.g. ``{"opt.broadphase": "SAP_TILE"}``
    overrides: dict[str, str] | None = None
    #: cameras rendered after every step (e.g. ``("agentview", "eye_in_hand")``; needs a cache exported
    #: with render models, ``export_groups(..., visual=True)``); images in :meth:`HeberoWarpBatch.camera_obs`
    cameras: tuple[str, ...] = ()
    image_size: int = 128  #: camera image side, px
    depth: bool = False  #: also render depth (ray distance, m)

    def solver(self) -> dict[str, Any]:
        """The solver overrides handed to :class:`~simkit.sims.hebero.warp_batch.WarpGroup`."""
        return {
            "iterations": self.iterations,
            "ls_iterations": self.ls_iterations,
            "tolerance": self.tolerance,
        }


def control_substeps(config: HeberoConfig, timestep: float) -> int:
    """Physics steps per control step: round(1 / (control_hz * timestep)), at least 1 (the CPU env's rule)."""
    return max(1, round(1.0 / (config.control_hz * timestep)))


class _Group:
    """One layout group on the device: simulator, task tables, robot indices."""

    def __init__(
        self,
        g: dict,
        envs: np.ndarray,
        world_task: np.ndarray,
        cfg: WarpEnvConfig,
        config: HeberoConfig,
        torch: Any,
    ):
        import mujoco

        from simkit.sims.hebero.batched_tasks import stack_programs
        from simkit.sims.hebero.warp_batch import WarpGroup

        m, a = g["model"], g["arrays"]
        dev = torch.device(DEVICE)
        self.substeps = control_substeps(config, float(m.opt.timestep))
        # the shared physics settings (HeberoConfig.solver_*, applied to the CPU backend's models too),
        # then the GPU-only overrides of WarpEnvConfig where set (speed tuning; None for agreement runs)
        solver = {
            "iterations": config.solver_iterations,
            "ls_iterations": config.solver_ls_iterations,
            "tolerance": config.solver_tolerance,
        }
        solver.update({k: v for k, v in cfg.solver().items() if v is not None})
        self.sim = WarpGroup(m, len(envs), self.substeps, cfg.nconmax, cfg.njmax, solver, cfg.overrides)
        self.envs = torch.as_tensor(envs, device=dev)
        self.wtask = torch.as_tensor(world_task, device=dev)
        self.cams: Any = _group_cameras(g, len(envs), cfg) if cfg.cameras else None
        progs = {k[5:]: a[k] for k in a if k.startswith("prog_")}
        self.prog = stack_programs([_ProgView(progs, t) for t in range(len(g["task_ids"]))], world_task, dev)

        def f32(x):
            return torch.as_tensor(x, device=dev, dtype=torch.float32)

        self.model, self.names, self.cache_tasks = m, g["names"], list(g["task_ids"])
        self.nbank = int(a["bank_qpos"].shape[1])
        self.gravcomp = np.asarray(a["bank_gravcomp"])  # (tasks, nbody) per-world gravity compensation
        self.home_host = np.asarray(a["home_ctrl"])
        self.pool = StartPool(len(self.cache_tasks))
        self.pool.sections["bank"] = [[self._bank_rows(a, t)] for t in range(len(self.cache_tasks))]
        self.pool.upload(torch, dev)
        self.source = "bank"  #: pool section autoresets draw from (bank, libero or boxes)
        self.rows = torch.arange(len(envs), device=dev)[:, None]
        self.obj_body = torch.zeros(len(self.cache_tasks), 1, dtype=torch.int64, device=dev)
        self.art_q = torch.zeros(len(self.cache_tasks), 1, dtype=torch.int64, device=dev)
        self.geom_entity = torch.as_tensor(a["geom_entity"], device=dev)
        self.nent = len(g["entities"])
        self.home = f32(a["home_ctrl"])

        def jid(name):
            return mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)

        arm = [jid(f"robot/joint{i}") for i in range(1, 8)]
        fingers = [jid(f"robot/gripper/finger_joint{i}") for i in (1, 2)]
        acts = [mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_ACTUATOR, f"robot/act{i}") for i in range(1, 8)]
        facts = [
            mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_ACTUATOR, f"robot/gripper/finger_joint{i}_act")
            for i in (1, 2)
        ]
        site = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, "robot/gripper/grip_site")
        self.base = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "robot/base")
        if min([*arm, *fingers, *acts, *facts, site, self.base]) < 0:
            raise InputError(None, f"layout group {g['key']}: the model has no Panda arm and gripper")

        def li(x):
            return torch.as_tensor(np.asarray(x, np.int64), device=dev)

        self.arm_j, self.arm_q = li(arm), li([m.jnt_qposadr[j] for j in arm])
        self.arm_v = li([m.jnt_dofadr[j] for j in arm])
        self.fing_q, self.acts, self.facts = li([m.jnt_qposadr[j] for j in fingers]), li(acts), li(facts)
        self.site, self.hand = site, int(m.site_bodyid[site])
        free = int(mujoco.mjtJoint.mjJNT_FREE)
        self.free_qadr = [int(m.jnt_qposadr[j]) for j in range(m.njnt) if int(m.jnt_type[j]) == free]
        rng = np.asarray(m.jnt_range[arm])
        self.q_lo, self.q_hi = f32(rng[:, 0]), f32(rng[:, 1])
        self.qrange = f32(rng)[None]  # (1, 7, 2) arm joint limits, rad (one robot in every world)
        t = self.sim.t
        t["body_gravcomp"].copy_(f32(a["bank_gravcomp"])[self.wtask])

    def _bank_rows(self, a: dict, t: int) -> dict[str, np.ndarray]:
        """Start rows (B, ...) of the layout bank of cache task t: state at rest, home targets, kinematics."""
        n, m = self.nbank, self.model
        out = {
            "qpos": a["bank_qpos"][t],
            "qvel": np.zeros((n, m.nv)),
            "ctrl": np.repeat(np.asarray(a["home_ctrl"])[None], n, 0),
            "mocap_pos": a["bank_mocap_pos"][t],
            "mocap_quat": a["bank_mocap_quat"][t],
        }
        out.update({k: a["kin_" + k][t] for k in BANK_KINEMATICS})
        return out

    def base_row(self, t: int) -> dict[str, np.ndarray]:
        """Bank entry 0 of cache task t (where the entities the task does not use are parked)."""
        return {k: v[0] for k, v in self.pool.sections["bank"][t][0].items()}

    def union_rows(self, task_id: str, task_model: Any, states: np.ndarray) -> dict[str, np.ndarray]:
        """CPU task-model states (n, nstate) of ``task_id`` as start rows of this group
        (:meth:`~simkit.envs.hebero.warp_starts.StateMap.rows`)."""
        t = self.cache_tasks.index(task_id)
        smap = StateMap(self.model, task_model, self.names[task_id])
        return smap.rows(states, self.base_row(t), self.gravcomp[t])


def _group_cameras(g: dict, nworld: int, cfg: WarpEnvConfig):
    """The group's :class:`~simkit.sims.hebero.warp_render.WarpCameras` on its render model.

    Raises:
        InputError: the cache holds no render model (export it with ``visual=True``) or lacks a camera.
    """
    import mujoco

    from simkit.sims.hebero.warp_render import WarpCameras

    path = g.get("render_model_path")
    if path is None:
        raise InputError(
            None, f"layout group {g['key']}: the cache has no render model; export it with visual=True"
        )
    mjm = mujoco.MjModel.from_binary_path(str(path))
    return WarpCameras(mjm, nworld, cfg.cameras, cfg.image_size, cfg.depth)


class _ProgView:
    """Attribute view of task ``t`` of stacked program arrays (for :func:`stack_programs`)."""

    def __init__(self, arrays: dict[str, np.ndarray], t: int):
        self._a, self._t = arrays, t

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: v[self._t] for k, v in self._a.items()}

    def __getattr__(self, k: str) -> np.ndarray:
        return self._a[k][self._t]


class HeberoWarpBatch:
    """The batched GPU simulation of Hebero tasks (torch in, torch out).

    Args:
        cache_dir: a layout-group cache (:func:`~simkit.sims.hebero.layout_models.export_groups`).
        num_envs: N environments; environment i runs task ``tasks[i mod K]``.
        tasks: task ids to run (default: every task in the cache, in its order).
        config: the CPU env's :class:`~simkit.envs.hebero.config.HeberoConfig` or a dict of its fields
            (controller, reward weights, horizon, terminate_on_success, solver settings).
        seed: seed of the device generator (start-state, demo and cursor draws on reset).
        warp: :class:`WarpEnvConfig`, the GPU-only settings.

    Raises:
        GpuUnavailable: no CUDA GPU or the GPU packages are missing (one line).
        InputError: an unreadable cache, a task not in it, ``num_envs`` < 1, a bad config value.
    """

    def __init__(
        self,
        cache_dir: str | Path,
        num_envs: int,
        tasks: list[str] | None = None,
        config: HeberoConfig | dict | None = None,
        seed: int = 0,
        warp: WarpEnvConfig | None = None,
    ):
        from simkit.sims.hebero.layout_groups import LayoutGroup, WorldMap
        from simkit.sims.hebero.layout_models import load_groups
        from simkit.sims.hebero.warp_batch import require_gpu

        self.wp, _mjw, torch = require_gpu()
        self.torch = torch
        self.config = make_config(config, {})
        self.cfg = warp or WarpEnvConfig()
        all_ids, groups = load_groups(cache_dir)
        self.task_ids = list(tasks) if tasks is not None else all_ids
        unknown = [t for t in self.task_ids if t not in all_ids]
        if unknown:
            raise InputError(Path(cache_dir) / "groups.json", f"tasks {unknown} are not in the cache")
        keep = [(g, [t for t in g["task_ids"] if t in self.task_ids]) for g in groups]
        keep = [(g, ts) for g, ts in keep if ts]
        lgs = [LayoutGroup(key=g["key"], arena=(), task_ids=ts) for g, ts in keep]
        self.map = WorldMap.build(self.task_ids, lgs, num_envs)
        self.num_envs = num_envs
        dev = torch.device(DEVICE)
        self.device = dev
        self.groups: list[_Group] = []
        for gi, (g, ts) in enumerate(keep):
            envs = self.map.group_envs[gi]
            if len(envs) == 0:
                continue
            wtask = np.array([g["task_ids"].index(ts[k]) for k in self.map.group_task[gi]], np.int64)
            self.groups.append(_Group(g, envs, wtask, self.cfg, self.config, torch))
        self.gen = torch.Generator(device=dev)
        self.gen.manual_seed(seed)
        n = num_envs
        self.prev = torch.zeros(n, 7, device=dev)
        self.steps = torch.zeros(n, dtype=torch.int64, device=dev)
        self.task_index = torch.as_tensor(self.map.env_task, device=dev)
        self.task_code = torch.zeros(n, 36, device=dev)
        for grp in self.groups:
            self.task_code[grp.envs] = grp.prog["task_code"].float()
        self.obs = torch.zeros(n, kernels.OBS_DIM, device=dev)
        self.a_in = torch.zeros(n, 7, device=dev)  # the step's actions as given (static input of the graphs)
        self.a = torch.zeros(n, 7, device=dev)  # clipped to [-1, 1]
        self._graphs: tuple[Any, Any] | None = None
        self._warm = False
        self._eager = False  # set when a capture failed: step eagerly from then on
        self._out: tuple = ()
        #: torch work of a step runs on its own stream (never the legacy default stream, which would
        #: serialise with the groups' streams); callers' streams wait for it at the end of a step
        self.tstream = torch.cuda.Stream() if DEVICE == "cuda" else None
        #: set to a dict to accumulate seconds per step phase (synchronises between phases: profiling only)
        self.timings: dict[str, float] | None = None
        self.reward_terms: dict[str, Any] = {}
        self.final_obs = torch.zeros(n, kernels.OBS_DIM, device=dev)  # see WarpEnvConfig.final_obs
        self.stream: Any = None  # demo command stream (set_demos)
        self.demo_terms: dict[str, Any] = {}
        self.libero_root: str | Path | None = None  # LIBERO assets of the CPU task models (None: installed)
        self.cache_dir = Path(cache_dir)
        #: task id -> the CPU env's TaskModel of the tasks run, the source of the states mapped onto the
        #: union models (demos, LIBERO's initial states, box layouts); built on first use when None
        self.task_models: dict[str, Any] | None = None
        self.q_lo = torch.zeros(n, 7, device=dev)
        self.q_hi = torch.zeros(n, 7, device=dev)
        for grp in self.groups:
            self.q_lo[grp.envs], self.q_hi[grp.envs] = grp.q_lo, grp.q_hi

    # ---- state writes
    def _reset_worlds(self, g: _Group, mask, rows=None) -> None:
        """Restart the masked worlds of a group (no host sync): from ``rows`` (W,) of its start pool,
        else from demo states at the command stream's cursors (demo-start resets), else from random
        entries of the reset source (``g.source``: layout bank, LIBERO's initial states or box layouts)."""
        torch = self.torch
        if rows is None:
            u = torch.rand(mask.shape[0], device=self.device, generator=self.gen)
            rows = g.pool.draw(g.source, g.wtask, u)
            if self.stream is not None and self.stream.demo_start:
                st = self.stream
                demo_rows = g.pool.at("demo", g.wtask, st.demo[g.envs], st.r[g.envs])
                rows = torch.where(st.from_demo[g.envs], demo_rows, rows)
        t = g.sim.t
        for k, v in g.pool.rows.items():
            cur = t[k]
            sel = mask.view(-1, *([1] * (cur.dim() - 1)))
            cur.copy_(torch.where(sel, v[rows].view_as(cur), cur))

    def _control(self, g: _Group, a) -> None:
        """Arm and finger targets of group g's worlds for actions a (W, 7): :func:`kernels.arm_targets`."""
        t, c = g.sim.t, self.config
        jacp, jacr = kernels.hinge_jacobian(
            t["xanchor"][:, g.arm_j], t["xaxis"][:, g.arm_j], t["site_xpos"][:, g.site]
        )
        q = t["qpos"][:, g.arm_q]
        target, fingers = kernels.arm_targets(
            a, q, jacp, jacr, g.qrange, c.pos_scale, c.rot_scale, c.ik_damping
        )
        t["ctrl"][:, g.acts] = target
        t["ctrl"][:, g.facts] = fingers

    def _success(self, g: _Group):
        from simkit.sims.hebero.batched_tasks import goal_success, touching

        t = g.sim.t
        touch = touching(
            g.geom_entity, t["contact_geom"], t["contact_world"], t["nacon"], g.sim.nworld, g.nent
        )
        return goal_success(g.prog, t["qpos"], t["xpos"], t["site_xpos"], t["site_xmat"], touch)

    def _observe(self, g: _Group) -> None:
        """Proprioception and slot buffer (obs[:, 43:300]) of group g: the CPU env's, in torch."""
        t = g.sim.t
        base = t["xpos"][:, g.base]
        proprio = kernels.proprioception(
            t["qpos"][:, g.arm_q],
            t["qvel"][:, g.arm_v],
            t["qpos"][:, g.fing_q],
            t["site_xpos"][:, g.site],
            t["xquat"][:, g.hand],
            base,
        )
        p = g.prog
        slots = kernels.slot_features(
            t["xpos"],
            t["xmat"],
            t["site_xpos"],
            t["site_xmat"],
            p["slot_kind"],
            p["slot_idx"],
            base,
            p["slot_const"],
        )
        self.obs[g.envs, 43:66] = proprio
        self.obs[g.envs, 66:] = slots

    # ---- public API
    def close(self) -> None:
        """Release the device memory of every group (the object is unusable afterwards)."""
        self.groups = []
        if self.tstream is not None:
            self.torch.cuda.synchronize()
            self.torch.cuda.empty_cache()

    def reset(self, seed: int | None = None):
        """Restart every environment from the reset source (or demo starts, with a command stream
        attached, which also draws each env's demo); returns observations (N, 300) float32 on the GPU."""
        torch = self.torch
        if seed is not None:
            self.gen.manual_seed(seed)
        if self.stream is not None:
            self.stream.on_reset(torch.ones(self.num_envs, dtype=torch.bool, device=self.device), self.gen)
        for g in self.groups:
            self._reset_worlds(g, torch.ones(g.sim.nworld, dtype=torch.bool, device=self.device))
            self._observe(g)
        return self._started()

    def _started(self):
        """Every env at step 0 of a new episode: previous action zero, task code, cameras rendered;
        returns the observations (N, 300)."""
        self.prev.zero_()
        self.steps.zero_()
        self.obs[:, :7] = 0
        self.obs[:, 7:43] = self.task_code
        self._render()
        return self.obs

    def step(self, actions):
        """Advance every environment by one control step.

        Args:
            actions: (N, 7) in [-1, 1] (clipped), torch (any device) or numpy.

        Returns:
            (obs (N, 300) float32, reward (N,) float32, terminated (N,) bool = success where
            ``terminate_on_success``, truncated (N,) bool (``horizon`` steps), success (N,) bool),
            all torch tensors on the GPU. With ``cuda_graphs`` these are the env's own buffers,
            overwritten by the next step (clone what you keep).
        """
        torch = self.torch
        if self.tstream is None:
            return self._step(actions)
        caller = torch.cuda.current_stream()
        self.tstream.wait_stream(caller)
        with torch.cuda.stream(self.tstream):
            self.a_in.copy_(torch.as_tensor(actions, device=self.device, dtype=torch.float32))
            graphs = self.cfg.cuda_graphs and not self._eager and self.timings is None
            out = self._graphed() if graphs else self._step(self.a_in)
        caller.wait_stream(self.tstream)
        return out

    @property
    def graphs_active(self) -> bool:
        """True once the torch work of a step replays as captured CUDA graphs (from the second step on)."""
        return self._graphs is not None

    def _graphed(self):
        """One step as: graph of the torch controller, the groups' physics graphs, graph of the rest.

        The first call runs eagerly (warm-up: lazy initialisation must not happen inside a capture);
        the second captures both torch graphs (nothing runs while capturing) and replays them.
        """
        torch = self.torch
        if self._graphs is None:
            if not self._warm:
                self._warm = True
                return self._step(self.a_in)
            try:
                self._graphs = self._capture()
            except RuntimeError as err:  # an op that cannot be captured: run eagerly from now on
                import warnings

                torch.cuda.synchronize()
                warnings.warn(f"CUDA graph capture failed, stepping eagerly: {err}", stacklevel=3)
                self._eager = True  # this env only; the caller's WarpEnvConfig stays as given
                return self._step(self.a_in)
        pre, post = self._graphs
        pre.replay()
        self._physics()
        post.replay()
        self._render()
        return self._out

    def _capture(self) -> tuple[Any, Any]:
        """Capture the controller and the post-physics work as two CUDA graphs sharing one memory pool."""
        torch = self.torch
        pre, post = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
        post.register_generator_state(self.gen)
        with torch.cuda.graph(pre, stream=self.tstream):
            self._control_all()
        with torch.cuda.graph(post, pool=pre.pool(), stream=self.tstream):
            self._out = self._finish()
        return pre, post

    def _phase(self, name: str, t0: float) -> float:
        import time

        if self.timings is None:
            return t0
        if self.tstream is not None:
            self.torch.cuda.synchronize()
        t1 = time.perf_counter()
        self.timings[name] = self.timings.get(name, 0.0) + t1 - t0
        return t1

    def _control_all(self) -> None:
        """Clip ``a_in`` into ``a`` and write every group's actuator targets (static shapes, no sync)."""
        self.a.copy_(self.a_in.clamp(-1, 1))
        for g in self.groups:
            self._control(g, self.a[g.envs])

    def _physics(self) -> None:
        """Launch every group's physics graph on its own stream after the torch stream; join them."""
        main = self.wp.stream_from_torch(self.tstream) if self.tstream is not None else None
        for g in self.groups:
            g.sim.launch(after=main)
        for g in self.groups:
            if main is not None:
                main.wait_stream(g.sim.stream)

    def _finish(self):
        """Predicates, reward, autoreset and observation after the physics (static shapes, no sync)."""
        torch, c, a = self.torch, self.cfg, self.a
        success = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        qd = torch.zeros(self.num_envs, 7, device=self.device)
        q = torch.zeros(self.num_envs, 7, device=self.device)
        for g in self.groups:
            success[g.envs] = self._success(g)
            qd[g.envs] = g.sim.t["qvel"][:, g.arm_v]
            q[g.envs] = g.sim.t["qpos"][:, g.arm_q]
        reward = self._reward(a, q, qd, success)
        if self.stream is not None:
            self.stream.advance()
            self.demo_terms = self._demo_terms(q, qd)
        self.steps += 1
        term = success & self.config.terminate_on_success
        truncated = (self.steps >= self.config.horizon) & ~term
        done = (term | truncated) & c.autoreset
        if c.final_obs:  # the finished episodes' last observations, before the autoreset
            for g in self.groups:
                self._observe(g)
            self.obs[:, :7] = a
            self.final_obs.copy_(self.obs)
        if self.stream is not None:
            self.stream.record_ends(done, success)
            self.stream.on_reset(done, self.gen)
        for g in self.groups:
            self._reset_worlds(g, done[g.envs])
            self._observe(g)
        self.prev.copy_(torch.where(done[:, None], torch.zeros_like(a), a))
        self.steps.copy_(torch.where(done, torch.zeros_like(self.steps), self.steps))
        self.obs[:, :7] = self.prev
        return self.obs, reward, term, truncated, success

    def _render(self) -> None:
        """Render every group's cameras from the current state on the torch stream (no host sync);
        a caller on another stream (reset) is ordered before and after it."""
        if not self.cfg.cameras:
            return
        torch, wp, ts = self.torch, self.wp, self.tstream
        assert ts is not None  # cameras need the GPU (WarpCameras raises without one)
        cur = torch.cuda.current_stream()
        ts.wait_stream(cur)
        with torch.cuda.stream(ts), wp.ScopedStream(wp.stream_from_torch(ts)):
            for g in self.groups:
                g.cams.render(g.sim.t["xpos"], g.sim.t["xmat"])
        cur.wait_stream(ts)

    def camera_obs(self) -> dict[str, Any]:
        """The images of the last step or reset: ``<camera>_rgb`` torch uint8 (N, 3, H, W) (row 0 at the
        top) and, with ``WarpEnvConfig.depth``, ``<camera>_depth`` float32 (N, 1, H, W) in metres, in
        env order, on the device; empty without ``WarpEnvConfig.cameras``."""
        torch, out = self.torch, {}
        for k, cam in enumerate(self.cfg.cameras):
            s = self.cfg.image_size
            rgb = torch.empty(self.num_envs, 3, s, s, dtype=torch.uint8, device=self.device)
            dep = torch.empty(self.num_envs, 1, s, s, device=self.device) if self.cfg.depth else None
            for g in self.groups:
                rgb[g.envs] = g.cams.rgb(k)
                if dep is not None:
                    dep[g.envs] = g.cams.depth_m(k)
            out[f"{cam}_rgb"] = rgb
            if dep is not None:
                out[f"{cam}_depth"] = dep
        return out

    # ---- demos, reset sources (host side: CPU task models, once; then device tensors)
    def _task_models(self) -> dict[str, Any]:
        """The CPU env's :class:`~simkit.envs.hebero.vector_env.TaskModel` of every task run (built once,
        from :attr:`libero_root` or the installed LIBERO assets), or the cache's own task models where it
        holds them (:func:`~simkit.envs.hebero.warp_starts.export_task_models`: no assets needed): the
        source of the states this backend maps."""
        if self.task_models is None:
            from simkit.envs.hebero.warp_starts import load_task_models

            self.task_models = load_task_models(self.cache_dir, self.task_ids)
        if self.task_models is None:
            from simkit.envs.hebero.vector_env import build_tasks

            ids, models = build_tasks(None, self.task_ids, self.libero_root)
            self.task_models = dict(zip(ids, models))
        return self.task_models

    def _map_section(self, name: str, blocks_of) -> None:
        """Fill pool section ``name`` of every group: ``blocks_of(task_id, task_model)`` -> list of
        (n, nstate) CPU state arrays; then upload and drop captured graphs (they hold the old tensors)."""
        tms = self._task_models()
        for g in self.groups:
            g.pool.sections[name] = [
                [g.union_rows(tid, tms[tid].model, st) for st in blocks_of(tid, tms[tid])]
                if tid in tms
                else []
                for tid in g.cache_tasks
            ]
            g.pool.upload(self.torch, self.device)
        self._graphs, self._warm = None, False

    def _ensure_libero(self) -> None:
        """Pool section ``libero``: every task's LIBERO initial states after ``config.init_wait``
        zero-action control steps, simulated on the CPU task model with this env's solver settings
        (:func:`~simkit.envs.hebero.init_wait.wait_state`, the CPU env's states)."""
        if "libero" not in self.groups[0].pool.sections:
            from simkit.scenes.hebero.init_states import load_task_states

            wait = self.config.init_wait

            def states(tid, tm):
                self.config.apply_solver(tm.model)
                sub = control_substeps(self.config, float(tm.model.opt.timestep))
                return [np.stack([tm.libero_state(k, wait, sub) for k in range(len(load_task_states(tid)))])]

            self._map_section("libero", states)

    def set_reset_source(self, source: str) -> None:
        """Where autoresets (and :meth:`reset`) draw start states from: ``"bank"`` (the layout bank,
        default), ``"libero"`` (LIBERO's fixed initial states of each task, uniformly) or ``"boxes"``
        (the layouts of :meth:`set_reset_boxes`). Demo-start resets, when on, take precedence.

        Raises:
            InputError: an unknown source, or ``"boxes"`` before :meth:`set_reset_boxes`.
        """
        if source not in ("bank", "libero", "boxes"):
            raise InputError(None, f"reset source must be bank, libero or boxes, not {source!r}")
        if source == "libero":
            self._ensure_libero()
        if source == "boxes" and "boxes" not in self.groups[0].pool.sections:
            raise InputError(None, "reset source 'boxes' needs set_reset_boxes(...) first")
        for g in self.groups:
            g.source = source
        self._graphs, self._warm = None, False

    def set_reset_boxes(
        self, boxes: dict[str, dict[str, tuple[float, ...]]], n: int | None = None, seed: int = 0
    ):
        """Reset boxes (task id -> {object -> (x_min, y_min, x_max, y_max)}, m, world; e.g.
        :func:`~simkit.envs.hebero.vector_env.demo_boxes` of the demos' starts): ``n`` layouts per task
        (default ``bank_size``) are drawn on the CPU by the CPU env's own sampler
        (:meth:`~simkit.envs.hebero.vector_env.TaskModel.sample_state`: objects uniform in their boxes,
        collision rejection; generator ``SeedSequence([seed, task index])``), mapped onto the union
        models, and become the reset source (tasks without boxes draw fresh region layouts).

        Raises:
            InputError: boxes for tasks this env does not run.
        """
        unknown = sorted(set(boxes) - set(self.task_ids))
        if unknown:
            raise InputError(None, f"reset boxes for tasks this env does not run: {unknown}")
        count = n or self.config.bank_size

        def draw(tid, tm):
            rng = np.random.default_rng(np.random.SeedSequence([seed, self.task_ids.index(tid)]))
            return [np.stack([tm.sample_state(rng, boxes.get(tid)) for _ in range(count)])]

        self._map_section("boxes", draw)
        self.set_reset_source("boxes")

    def set_demos(self, demos: dict[str, list], demo_start: bool = False) -> None:
        """Attach demonstrations (task id -> list of :class:`~simkit.envs.hebero.stream.Demo`, e.g. read
        from a ``hebero-demos`` corpus), as the CPU env's ``set_demos``: from the next reset on,
        :attr:`demo_terms` holds ``r_demo`` (N,) float32 (the CPU env's demo-tracking reward, same
        weights), ``phi`` (N,) float32 (cursor) and ``demo_id`` (N,) int64; with ``demo_start``
        environments reset to the state of their demo at a random cursor r_e (RFCL-style). The demos
        are padded into device tensors (:class:`~simkit.envs.hebero.stream.TorchDemoTable`) and every
        demo state is mapped onto the union model once (pool section ``demo``).

        Raises:
            InputError: a task of this env has no demo, or demo columns the union model lacks.
        """
        from simkit.envs.hebero.stream import TorchCommandStream, TorchDemoTable

        by_index = {k: list(demos.get(t, [])) for k, t in enumerate(self.task_ids)}
        table = TorchDemoTable(by_index, len(self.task_ids), self.device)
        self._map_section("demo", lambda tid, tm: [d.states for d in demos[tid]])
        for g in self.groups:
            g.obj_body, g.art_q = self._demo_columns(g, demos, table)
        self.stream = TorchCommandStream(table, self.task_index, demo_start)

    def _demo_columns(self, g: _Group, demos: dict[str, list], table) -> tuple[Any, Any]:
        """(cache tasks, O) union body ids of each task's demo objects and (cache tasks, A) qpos
        addresses of its articulated joints (0 where padded)."""
        import mujoco

        from simkit.envs.hebero.warp_starts import _union_name

        obj = np.zeros((len(g.cache_tasks), table.objects.shape[3]), np.int64)
        art = np.zeros((len(g.cache_tasks), table.articulation.shape[3]), np.int64)
        for t, tid in enumerate(g.cache_tasks):
            if tid not in demos:
                continue
            d, names = demos[tid][0], g.names[tid]
            for i, n in enumerate(d.object_names):
                obj[t, i] = mujoco.mj_name2id(g.model, mujoco.mjtObj.mjOBJ_BODY, _union_name(n, names))
            for i, n in enumerate(d.articulation_names):
                j = mujoco.mj_name2id(g.model, mujoco.mjtObj.mjOBJ_JOINT, _union_name(n, names))
                art[t, i] = g.model.jnt_qposadr[j] if j >= 0 else -1
            if (obj[t, : len(d.object_names)] < 0).any() or (art[t, : len(d.articulation_names)] < 0).any():
                raise InputError(None, f"{tid}: a demo object or joint is not on the union model")
        return self.torch.as_tensor(obj, device=self.device), self.torch.as_tensor(art, device=self.device)

    def _demo_terms(self, q, qd) -> dict[str, Any]:
        """r_demo, phi, demo_id (N,) and a_demo (N, 7) after a step (static shapes, no sync; see
        :meth:`set_demos`)."""
        from simkit.envs.hebero.stream import torch_demo_reward

        torch, n, tb = self.torch, self.num_envs, self.stream.table
        fingers, ee = torch.zeros(n, 2, device=self.device), torch.zeros(n, 3, device=self.device)
        objs = torch.zeros(n, tb.objects.shape[3], 3, device=self.device)
        art = torch.zeros(n, tb.articulation.shape[3], device=self.device)
        for g in self.groups:
            t = g.sim.t
            fingers[g.envs] = t["qpos"][:, g.fing_q]
            ee[g.envs] = t["site_xpos"][:, g.site]
            objs[g.envs] = t["xpos"][g.rows, g.obj_body[g.wtask]]
            art[g.envs] = t["qpos"][g.rows, g.art_q[g.wtask]]
        errs = self.stream.errors(q, qd, fingers, ee, objs, art, self.config.control_hz)
        _, phi = self.stream.cursor()
        r = torch_demo_reward(errs, self.config.demo_reward)
        a_demo = self.stream.reference_action()
        return {"r_demo": r, "phi": phi, "demo_id": self.stream.demo.clone(), "a_demo": a_demo}

    def reset_to_demo(self, demo, cursor):
        """Every env to the state of demo ``demo`` (index among its task's demos) at cursor r_e =
        ``cursor`` ((N,) ints or ints, clamped to the demo), the command stream on that demo and cursor.

        Returns:
            observations (N, 300) float32 on the device.
        """
        torch = self.torch
        if self.stream is None:
            raise InputError(None, "reset_to_demo needs set_demos(...) first")
        d = torch.as_tensor(demo, device=self.device, dtype=torch.int64).expand(self.num_envs).clone()
        r = torch.as_tensor(cursor, device=self.device, dtype=torch.int64).expand(self.num_envs)
        r = torch.minimum(r, self.stream.table.length[self.task_index, d] - 1)
        self.stream.set(d, r)
        for g in self.groups:
            rows = g.pool.at("demo", g.wtask, d[g.envs], r[g.envs])
            self._reset_worlds(g, torch.ones(g.sim.nworld, dtype=torch.bool, device=self.device), rows)
            self._observe(g)
        return self._started()

    def demo_dataset(self, from_first_motion: bool = False) -> dict[str, Any]:
        """Every attached demo as observation/action pairs, for behaviour cloning: each (task, demo,
        cursor m < T) once, the observation this env returns in the demo's state m (:meth:`reset_to_demo`)
        with the previous-action entries obs[:, :7] set to the demo's action m - 1 (0 at m = 0), as a
        policy replaying the demo sees it, paired with the demo's action m. With ``from_first_motion``
        a demo's pairs start at its first action that moves the arm (scripted demos hold the arm still
        while a reset's objects settle: those states look like the start state, so cloning them teaches
        a policy to wait there for ever). Leaves the envs on demo states: reset before stepping on.

        Returns:
            ``obs`` (M, 300) float32, ``actions`` (M, 7) float32 in [-1, 1], ``task`` (M,) int64 (task
            index), M = the demos' total length, on the device.

        Raises:
            InputError: no demos attached (:meth:`set_demos`).
        """
        torch = self.torch
        if self.stream is None:
            raise InputError(None, "demo_dataset needs set_demos(...) first")
        tb, task = self.stream.table, self.task_index
        onehot = torch.nn.functional.one_hot(task, len(self.task_ids))
        rank = (onehot.cumsum(0) - 1).gather(1, task[:, None])[:, 0]  # env's rank among its task's envs
        envs_of = onehot.sum(0)  # (K,) envs per task
        per_task, count = envs_of[task], tb.count[task]
        passes = torch.where(envs_of > 0, (tb.count / envs_of.clamp(min=1)).ceil(), 0).max()
        moving = tb.actions[..., :6].abs().sum(-1) > 0  # (K, D, L)
        first = moving.int().argmax(-1) if from_first_motion else torch.zeros_like(tb.length)  # (K, D)
        out: dict[str, list[Any]] = {"obs": [], "actions": [], "task": []}
        for p in range(int(passes)):
            demo = rank + p * per_task
            keep = demo < count
            demo = torch.where(keep, demo, torch.zeros_like(demo))
            length = tb.length[task, demo]
            for m in range(int(length[keep].max()) if bool(keep.any()) else 0):
                valid = keep & (m < length) & (m >= first[task, demo])
                obs = self.reset_to_demo(demo, m).clone()
                obs[:, :7] = tb.actions[task, demo, m - 1] if m > 0 else 0.0
                out["obs"].append(obs[valid])
                out["actions"].append(tb.actions[task, demo, m][valid])
                out["task"].append(task[valid])
        return {k: torch.cat(v) for k, v in out.items()}

    def reset_to_bank(self, entry=0):
        """Restart every environment from a chosen layout-bank entry of its task (no random draw).

        Entry b of a task is the state its scene compiler draws with seed b, which the CPU env starts
        from with ``reset(options={"bank_entry": b})``: the two backends then start from the same state.

        Args:
            entry: int, or (N,) ints (torch or numpy) in [0, bank size).

        Returns:
            observations (N, 300) float32 on the device.

        Raises:
            InputError: an entry out of range.
        """
        torch = self.torch
        b = torch.as_tensor(entry, device=self.device, dtype=torch.int64).expand(self.num_envs)
        nbank = min(g.nbank for g in self.groups)
        if int(b.min()) < 0 or int(b.max()) >= nbank:
            raise InputError(None, f"bank entry must be in [0, {nbank}), got {b.tolist()}")
        return self._reset_to("bank", b)

    def reset_to_init_state(self, k=0):
        """Restart every environment from LIBERO's fixed initial state ``k`` of its task (the CPU env's
        ``reset(options={"init_state": k})``, :meth:`~simkit.envs.hebero.vector_env.TaskModel.libero_state`),
        after ``config.init_wait`` zero-action control steps (simulated once per state on the CPU task
        model), mapped onto the union model (:mod:`~simkit.envs.hebero.warp_starts`; once per task).

        Args:
            k: int, or (N,) ints in [0, 50).

        Returns:
            observations (N, 300) float32 on the device.

        Raises:
            InputError: ``k`` out of range.
        """
        torch = self.torch
        self._ensure_libero()
        k = torch.as_tensor(k, device=self.device, dtype=torch.int64).expand(self.num_envs)
        n = min(int(g.pool.count["libero"][g.wtask, 0].min()) for g in self.groups)
        if int(k.min()) < 0 or int(k.max()) >= n:
            raise InputError(None, f"init_state must be in [0, {n}), got {k.tolist()}")
        return self._reset_to("libero", k)

    def _reset_to(self, section: str, index):
        """Every env to row ``index[e]`` of block 0 of pool section ``section``; the command stream (if
        any) draws each env's demo and tracks it from its start (r_e = 0)."""
        torch = self.torch
        if self.stream is not None:
            self.stream.on_reset(torch.ones(self.num_envs, dtype=torch.bool, device=self.device), self.gen)
            self.stream.r.zero_()
            self.stream.from_demo.zero_()
        for g in self.groups:
            rows = g.pool.at(section, g.wtask, torch.zeros_like(g.wtask), index[g.envs])
            self._reset_worlds(g, torch.ones(g.sim.nworld, dtype=torch.bool, device=self.device), rows)
            self._observe(g)
        return self._started()

    def _step(self, actions):
        """The eager step (no graphs; with :attr:`timings`, phases are timed with device synchronisations)."""
        import time

        t0 = self._phase("", time.perf_counter())
        if actions is not self.a_in:
            self.a_in.copy_(self.torch.as_tensor(actions, device=self.device, dtype=self.torch.float32))
        self._control_all()
        t0 = self._phase("control", t0)
        self._physics()
        t0 = self._phase("physics", t0)
        out = self._finish()
        t0 = self._phase("finish", t0)
        self._render()
        self._phase("render", t0)
        return out

    def _reward(self, a, q, qd, success):
        """Task reward (N,) float32: :func:`kernels.task_reward` with ``HeberoConfig.reward``; the
        terms (``r_goal`` ... ``reward``) stay in :attr:`reward_terms`."""
        qrange = self.torch.stack([self.q_lo, self.q_hi], -1)
        self.reward_terms = kernels.task_reward(success, a, self.prev, q, qd, qrange, self.config.reward)
        return self.reward_terms["reward"]


def default_cache_dir(task_ids: list[str]) -> Path:
    """Where :func:`make_warp_vector_env` keeps the layout-group cache of a task list.

    ``$SIMKIT_HEBERO_GPU_CACHE`` when set (used as is), else
    ``<cache>/hebero_gpu/<sha256 of the task ids, 12 hex>`` with ``<cache>`` simkit's cache folder
    (:func:`simkit.core.paths.user_cache_dir`: ``$SIMKIT_CACHE``, else ``$XDG_CACHE_HOME/simkit``, else
    ``~/.cache/simkit``).
    """
    import hashlib
    import os

    from simkit.core.paths import user_cache_dir

    env = os.environ.get("SIMKIT_HEBERO_GPU_CACHE")
    if env:
        return Path(env)
    key = hashlib.sha256("\n".join(task_ids).encode()).hexdigest()[:12]
    return user_cache_dir() / "hebero_gpu" / key


def make_warp_vector_env(
    num_envs: int = 40,
    suite: str = "all",
    tasks: list[str] | None = None,
    cache_dir: str | Path | None = None,
    libero_root: str | Path | None = None,
    config: HeberoConfig | dict | None = None,
    output: str = "torch",
    seed: int = 0,
    warp: WarpEnvConfig | dict | None = None,
    equal_groups: bool = False,
    render_mode: str | None = None,
    backend: str = "warp",
    **overrides: Any,
):
    """``gymnasium.make_vec("simkit/Hebero-v0", backend="warp", ...)``: a :class:`HeberoWarpVecEnv`.

    Takes the CPU env's arguments: ``config`` (a :class:`~simkit.envs.hebero.config.HeberoConfig` or
    dict) and keyword overrides of its fields, ``suite``/``tasks``, ``equal_groups``; ``warp`` holds
    the GPU-only :class:`WarpEnvConfig`. The GPU is checked first. The layout-group cache
    (``cache_dir``, default :func:`default_cache_dir`) is compiled from the installed LIBERO assets
    (or ``libero_root``) with ``bank_size`` layouts per task when it does not hold the requested
    tasks yet (a few minutes on the CPU, once).

    Raises:
        GpuUnavailable: no CUDA GPU, or warp-lang / mujoco-warp missing (one line).
        InputError: unknown suite/task, bad ``output``, a bad config value or ``warp`` key, ``render_mode`` set
            (no rendering on the GPU backend), N not a multiple of K with ``equal_groups``, an
            unreadable cache.
    """
    from simkit.envs.hebero.tasks import descriptors, task_ids
    from simkit.sims.hebero.layout_models import export_groups
    from simkit.sims.hebero.warp_batch import require_gpu

    require_gpu()
    if output not in ("torch", "numpy"):
        raise InputError(None, f"output must be 'torch' or 'numpy', not {output!r}")
    if render_mode is not None:
        raise InputError(
            None, f"the GPU backend does not render (render_mode={render_mode!r}); use backend='cpu'"
        )
    cfg = make_config(config, overrides)
    knobs = _warp_knobs(warp)
    ids = task_ids(suite, tasks)
    if equal_groups and num_envs % len(ids):
        raise InputError(
            None, f"num_envs={num_envs} is not a multiple of the {len(ids)} tasks (equal_groups=True)"
        )
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir(ids)
    if not (cache / "groups.json").is_file():
        export_groups(descriptors(ids, libero_root), libero_root, cache, bank=cfg.bank_size)
    return HeberoWarpVecEnv(HeberoWarpBatch(cache, num_envs, ids, cfg, seed, knobs), output)


def _warp_knobs(warp: WarpEnvConfig | dict | None) -> WarpEnvConfig | None:
    """``warp=`` as a :class:`WarpEnvConfig`; raises InputError (one line) for a key it does not have."""
    if not isinstance(warp, dict):
        return warp
    unknown = sorted(set(warp) - {f.name for f in dataclasses.fields(WarpEnvConfig)})
    if unknown:
        names = ", ".join(f.name for f in dataclasses.fields(WarpEnvConfig))
        raise InputError(None, f"Hebero warp config {', '.join(unknown)}: unknown; known: {names}")
    return WarpEnvConfig(**warp)


def _vector_env_base() -> type:
    import gymnasium

    return gymnasium.vector.VectorEnv


class HeberoWarpVecEnv(_vector_env_base()):  # type: ignore[misc]
    """Gymnasium ``VectorEnv`` over :class:`HeberoWarpBatch` (same-step autoreset).

    Spaces: observation Box(-inf, inf, (N, 300), float32); action Box(-1, 1, (N, 7), float32).
    ``reset``/``step`` return torch CUDA tensors (``output="torch"``, what GPU PPO code consumes)
    or numpy arrays (``output="numpy"``, one device-to-host copy per step). ``info`` holds
    ``task_id`` (N,) int (index into :attr:`task_ids`), ``success`` (N,) bool and, after a step, the
    reward terms (``r_goal``, ``r_smooth``, ... as the CPU env's), (N,) each.
    """

    def __init__(self, batch: HeberoWarpBatch, output: str = "torch"):
        import gymnasium
        from gymnasium.vector import AutoresetMode

        self.metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}
        self.batch, self.output = batch, output
        self.num_envs = batch.num_envs
        self.task_ids = batch.task_ids
        self.single_observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (kernels.OBS_DIM,), np.float32)
        self.single_action_space = gymnasium.spaces.Box(-1.0, 1.0, (7,), np.float32)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)

    @property
    def cfg(self) -> HeberoConfig:
        """The :class:`~simkit.envs.hebero.config.HeberoConfig` of the batch (as the CPU env's ``cfg``)."""
        return self.batch.config

    def _out(self, x):
        # the batch's tensors are its own buffers, overwritten by the next step: hand out copies
        return x.cpu().numpy() if self.output == "numpy" else x.clone()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Reset every env. ``options``: ``{"bank_entry": b}`` (:meth:`HeberoWarpBatch.reset_to_bank`) or
        ``{"init_state": k}`` (:meth:`HeberoWarpBatch.reset_to_init_state`), ints or (N,) ints, as the
        CPU env's options; none: the reset source (and demo starts).

        Raises:
            InputError: both options, an unknown option, or an index out of range.
        """
        options = options or {}
        unknown = sorted(set(options) - {"bank_entry", "init_state"})
        if unknown or len(options) > 1:
            raise InputError(None, f"reset options: one of bank_entry or init_state, got {sorted(options)}")
        if seed is not None:
            self.batch.gen.manual_seed(seed)
        if "bank_entry" in options:
            obs = self.batch.reset_to_bank(_as_index(options["bank_entry"]))
        elif "init_state" in options:
            obs = self.batch.reset_to_init_state(_as_index(options["init_state"]))
        else:
            obs = self.batch.reset(seed=seed)
        return self._out(obs), {"task_id": self._out(self.batch.task_index)}

    #: the ``reset`` options this env understands
    reset_options = ("bank_entry", "init_state")

    def set_demos(self, demos: dict[str, list], demo_start: bool = False) -> None:
        """:meth:`HeberoWarpBatch.set_demos` (``info`` then carries ``r_demo``, ``phi``, ``demo_id``)."""
        self.batch.set_demos(demos, demo_start)

    def set_reset_boxes(self, boxes: dict[str, dict[str, tuple[float, ...]]]) -> None:
        """:meth:`HeberoWarpBatch.set_reset_boxes` (the CPU env's method of the same name)."""
        self.batch.set_reset_boxes(boxes)

    def step(self, actions):
        """One step; ``info`` as the CPU env's, with Gymnasium's same-step autoreset keys
        (:func:`~simkit.envs.hebero.vector_env.final_infos`) where an episode ended."""
        from simkit.envs.hebero.vector_env import final_infos

        obs, reward, term, trunc, success = self.batch.step(actions)
        info = {"task_id": self._out(self.batch.task_index), "success": self._out(success)}
        info.update({k: self._out(v) for k, v in self.batch.reward_terms.items() if k != "reward"})
        info.update({k: self._out(v) for k, v in self.batch.demo_terms.items()})
        out = self._out(obs), self._out(reward), self._out(term), self._out(trunc), info
        done = (term | trunc) & self.batch.cfg.autoreset
        if bool(done.any()):  # one host sync, in this wrapper only (the batch's step has none)
            final = self._out(self.batch.final_obs) if self.batch.cfg.final_obs else None
            info.update(final_infos(final, info, self._out(done)))
        return out

    def close(self, **kwargs: Any) -> None:
        self.batch.close()


def _as_index(value):
    """A reset option's int or (N,) ints as a torch-ready value (numpy arrays become int64 arrays)."""
    return (
        value
        if hasattr(value, "device") and not isinstance(value, np.ndarray)
        else np.asarray(value, np.int64)
    )
