"""Hebero on the GPU: all tasks, thousands of environments, one process (``backend="warp"``).

Environment ``i`` runs task ``i mod K``. Tasks are simulated as layout groups
(:mod:`simkit.sims.layout_groups`: one union model per arena, unused entities
parked) on MuJoCo Warp, one CUDA graph and one CUDA stream per group
(:class:`~simkit.sims.mujoco_warp_batch.WarpGroup`). The controller,
observations, rewards, goal predicates and autoreset are batched torch code on
the same device (:mod:`simkit.sims.batched_tasks`), reading and writing the
simulator's arrays in place (``wp.to_torch``, zero-copy): a step copies
nothing to the host unless numpy output is asked for.

Models come from a layout-group cache (:func:`simkit.sims.layout_models.export_groups`,
``tools/bench_hebero_gpu.py export``), so the GPU machine needs no LIBERO assets.

Control (20 Hz, 25 physics steps of 2 ms): action a in [-1, 1]^7, end-effector
displacement dp = s_p a[0:3] (m) and rotation vector s_R a[3:6] (rad), world
frame, at the gripper's ``grip_site``; damped-least-squares IK turns it into
arm joint targets for the scene's joint position servos
(:func:`~simkit.sims.batched_tasks.ik_targets`); a[6] > 0 closes the gripper,
otherwise it opens. s_p = 0.05 m and s_R = 0.5 rad are robosuite's OSC_POSE
``output_max`` defaults (LIBERO's controller).

Observation (300, float32): [previous action (7) | task code (36) |
proprioception (23): arm q (7, rad), arm qdot (7, rad/s), grip-site position
(3, m, world), gripper body quaternion (4, w x y z), finger q (2, m) |
object-target buffer (26 slots x 9: position (3, m, world) + 6-D rotation)].

Reward: ``w_succ 1[success] - w_smooth ||a - a_prev||^2 - w_norm ||a||^2 -
w_qvel ||qdot||^2 - w_qlim sum relu(|q - q_mid| - k h)^2 - w_vlim sum
relu(|qdot| - k v_max)^2`` (h the joint half range, k = ``soft_limit``, v_max
the Franka Panda joint speed limits).

Autoreset (same step): an environment whose task succeeded (terminated) or ran
``max_steps`` control steps (truncated) restarts from a random entry of its
task's layout bank; the returned observation is the new episode's first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import InputError

#: rad/s, Franka Emika Panda joint velocity limits (Franka Control Interface documentation)
PANDA_QDOT_MAX = (2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61)
OBS_DIM = 300
DEVICE = "cuda"  #: torch device of every tensor (the GPU Warp runs on)


@dataclass
class WarpEnvConfig:
    """Controller, reward and episode settings of the GPU backend (units in each field's comment)."""

    substeps: int = 25  #: physics steps of 2 ms per control step (20 Hz, LIBERO's control_freq)
    pos_scale: float = 0.05  #: m, s_p (robosuite OSC_POSE output_max)
    rot_scale: float = 0.5  #: rad, s_R (robosuite OSC_POSE output_max)
    ik_damping: float = 0.05  #: damped-least-squares lambda
    max_steps: int = 300  #: control steps before truncation
    autoreset: bool = True  #: restart finished environments in the same step (off: they run on)
    w_succ: float = 1.0
    w_smooth: float = 0.01
    w_norm: float = 0.001
    w_qvel: float = 1e-4
    w_qlim: float = 0.1
    w_vlim: float = 0.1
    soft_limit: float = 0.9  #: fraction of the joint half range / speed limit where penalties start
    nconmax: int = 96  #: contacts allocated per world
    njmax: int = 640  #: constraint rows per world (random arm motion reaches about 590)
    iterations: int | None = None  #: solver iterations (None: the model's own, MuJoCo's default 100)
    ls_iterations: int | None = None  #: line-search iterations (None: the model's, default 50)
    tolerance: float | None = None  #: solver tolerance (None: the model's, default 1e-8)
    cuda_graphs: bool = True  #: replay the torch work of a step as two CUDA graphs (captured on step 2)

    def solver(self) -> dict[str, Any]:
        """The solver overrides handed to :class:`~simkit.sims.mujoco_warp_batch.WarpGroup`."""
        return {
            "iterations": self.iterations,
            "ls_iterations": self.ls_iterations,
            "tolerance": self.tolerance,
        }


class _Group:
    """One layout group on the device: simulator, task tables, robot indices."""

    def __init__(self, g: dict, envs: np.ndarray, world_task: np.ndarray, cfg: WarpEnvConfig, torch: Any):
        import mujoco

        from simkit.sims.batched_tasks import stack_programs
        from simkit.sims.mujoco_warp_batch import WarpGroup

        m, a = g["model"], g["arrays"]
        dev = torch.device(DEVICE)
        self.sim = WarpGroup(m, len(envs), cfg.substeps, cfg.nconmax, cfg.njmax, cfg.solver())
        self.envs = torch.as_tensor(envs, device=dev)
        self.wtask = torch.as_tensor(world_task, device=dev)
        progs = {k[5:]: a[k] for k in a if k.startswith("prog_")}
        self.prog = stack_programs([_ProgView(progs, t) for t in range(len(g["task_ids"]))], world_task, dev)

        def f32(x):
            return torch.as_tensor(x, device=dev, dtype=torch.float32)

        self.bank = {k: f32(a["bank_" + k]) for k in ("qpos", "mocap_pos", "mocap_quat")}
        self.kin = {k[4:]: f32(a[k]) for k in a if k.startswith("kin_")}
        self.nbank = int(a["bank_qpos"].shape[1])
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
        if min([*arm, *fingers, *acts, *facts, site]) < 0:
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
        self.f_open = f32([0.04, -0.04])  # m, finger targets (simkit's Panda, GRIPPER_OPEN)
        self.f_closed = f32([0.0, 0.0])
        t = self.sim.t
        t["body_gravcomp"].copy_(f32(a["bank_gravcomp"])[self.wtask])


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
        cache_dir: a layout-group cache (:func:`~simkit.sims.layout_models.export_groups`).
        num_envs: N environments; environment i runs task ``tasks[i mod K]``.
        tasks: task ids to run (default: every task in the cache, in its order).
        config: :class:`WarpEnvConfig`.
        seed: seed of the layout-bank draws on reset.

    Raises:
        GpuUnavailable: no CUDA GPU or the GPU packages are missing (one line).
        InputError: an unreadable cache, a task not in it, ``num_envs`` < 1.
    """

    def __init__(
        self,
        cache_dir: str | Path,
        num_envs: int,
        tasks: list[str] | None = None,
        config: WarpEnvConfig | None = None,
        seed: int = 0,
    ):
        from simkit.sims.layout_groups import LayoutGroup, WorldMap
        from simkit.sims.layout_models import load_groups
        from simkit.sims.mujoco_warp_batch import require_gpu

        self.wp, _mjw, torch = require_gpu()
        self.torch = torch
        self.cfg = config or WarpEnvConfig()
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
            self.groups.append(_Group(g, envs, wtask, self.cfg, torch))
        self.gen = torch.Generator(device=dev)
        self.gen.manual_seed(seed)
        n = num_envs
        self.prev = torch.zeros(n, 7, device=dev)
        self.steps = torch.zeros(n, dtype=torch.int64, device=dev)
        self.task_index = torch.as_tensor(self.map.env_task, device=dev)
        self.task_code = torch.zeros(n, 36, device=dev)
        for grp in self.groups:
            self.task_code[grp.envs] = grp.prog["task_code"].float()
        self.obs = torch.zeros(n, OBS_DIM, device=dev)
        self.a_in = torch.zeros(n, 7, device=dev)  # the step's actions as given (static input of the graphs)
        self.a = torch.zeros(n, 7, device=dev)  # clipped to [-1, 1]
        self._graphs: tuple[Any, Any] | None = None
        self._warm = False
        self._out: tuple = ()
        #: torch work of a step runs on its own stream (never the legacy default stream, which would
        #: serialise with the groups' streams); callers' streams wait for it at the end of a step
        self.tstream = torch.cuda.Stream() if DEVICE == "cuda" else None
        #: set to a dict to accumulate seconds per step phase (synchronises between phases: profiling only)
        self.timings: dict[str, float] | None = None
        self.qdot_max = torch.tensor(PANDA_QDOT_MAX, device=dev)
        self.q_lo = torch.zeros(n, 7, device=dev)
        self.q_hi = torch.zeros(n, 7, device=dev)
        for grp in self.groups:
            self.q_lo[grp.envs], self.q_hi[grp.envs] = grp.q_lo, grp.q_hi

    # ---- state writes
    def _reset_worlds(self, g: _Group, mask) -> None:
        """Restart the masked worlds of a group from random bank entries (no host sync)."""
        torch = self.torch
        w = mask.shape[0]
        b = torch.randint(0, g.nbank, (w,), device=self.device, generator=self.gen)
        t = g.sim.t
        m1 = mask[:, None]
        t["qpos"].copy_(torch.where(m1, g.bank["qpos"][g.wtask, b], t["qpos"]))
        t["qvel"].copy_(torch.where(m1, torch.zeros_like(t["qvel"]), t["qvel"]))
        t["ctrl"].copy_(torch.where(m1, g.home[None], t["ctrl"]))
        for k in ("mocap_pos", "mocap_quat"):
            t[k].copy_(torch.where(m1[..., None], g.bank[k][g.wtask, b], t[k]))
        for k, v in g.kin.items():
            cur = t[k]
            sel = mask.view(-1, *([1] * (cur.dim() - 1)))
            cur.copy_(torch.where(sel, v[g.wtask, b].view_as(cur), cur))

    def _control(self, g: _Group, a) -> None:
        from simkit.sims.batched_tasks import ik_targets

        torch, t, c = self.torch, g.sim.t, self.cfg
        dx = torch.cat([a[:, :3] * c.pos_scale, a[:, 3:6] * c.rot_scale], 1)
        q = t["qpos"][:, g.arm_q]
        tgt = ik_targets(
            q, t["site_xpos"][:, g.site], t["xanchor"][:, g.arm_j], t["xaxis"][:, g.arm_j], dx, c.ik_damping
        )
        t["ctrl"][:, g.acts] = torch.maximum(torch.minimum(tgt, g.q_hi), g.q_lo)
        t["ctrl"][:, g.facts] = torch.where(a[:, 6:7] > 0, g.f_closed, g.f_open)

    def _success(self, g: _Group):
        from simkit.sims.batched_tasks import goal_success, touching

        t = g.sim.t
        touch = touching(
            g.geom_entity, t["contact_geom"], t["contact_world"], t["nacon"], g.sim.nworld, g.nent
        )
        return goal_success(g.prog, t["qpos"], t["xpos"], t["site_xpos"], t["site_xmat"], touch)

    def _observe(self, g: _Group) -> None:
        from simkit.sims.batched_tasks import slot_features

        torch, t = self.torch, g.sim.t
        proprio = torch.cat(
            [
                t["qpos"][:, g.arm_q],
                t["qvel"][:, g.arm_v],
                t["site_xpos"][:, g.site],
                t["xquat"][:, g.hand],
                t["qpos"][:, g.fing_q],
            ],
            1,
        )
        slots = slot_features(g.prog, t["xpos"], t["xmat"], t["site_xpos"], t["site_xmat"]).flatten(1)
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
        """Restart every environment; returns observations (N, 300) float32 on the GPU."""
        torch = self.torch
        if seed is not None:
            self.gen.manual_seed(seed)
        for g in self.groups:
            self._reset_worlds(g, torch.ones(g.sim.nworld, dtype=torch.bool, device=self.device))
            self._observe(g)
        self.prev.zero_()
        self.steps.zero_()
        self.obs[:, :7] = 0
        self.obs[:, 7:43] = self.task_code
        return self.obs

    def step(self, actions):
        """Advance every environment by one control step.

        Args:
            actions: (N, 7) in [-1, 1] (clipped), torch (any device) or numpy.

        Returns:
            (obs (N, 300) float32, reward (N,) float32, terminated (N,) bool = success,
            truncated (N,) bool, success (N,) bool), all torch tensors on the GPU. With
            ``cuda_graphs`` these are the env's own buffers, overwritten by the next step (clone what
            you keep).
        """
        torch = self.torch
        if self.tstream is None:
            return self._step(actions)
        caller = torch.cuda.current_stream()
        self.tstream.wait_stream(caller)
        with torch.cuda.stream(self.tstream):
            self.a_in.copy_(torch.as_tensor(actions, device=self.device, dtype=torch.float32))
            out = self._graphed() if self.cfg.cuda_graphs and self.timings is None else self._step(self.a_in)
        caller.wait_stream(self.tstream)
        return out

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
                self.cfg.cuda_graphs = False
                return self._step(self.a_in)
        pre, post = self._graphs
        pre.replay()
        self._physics()
        post.replay()
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
        self.steps += 1
        truncated = (self.steps >= c.max_steps) & ~success
        done = (success | truncated) & c.autoreset
        for g in self.groups:
            self._reset_worlds(g, done[g.envs])
            self._observe(g)
        self.prev.copy_(torch.where(done[:, None], torch.zeros_like(a), a))
        self.steps.copy_(torch.where(done, torch.zeros_like(self.steps), self.steps))
        self.obs[:, :7] = self.prev
        return self.obs, reward, success, truncated, success

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
        self._phase("finish", t0)
        return out

    def _reward(self, a, q, qd, success):
        """Hebero task reward per environment (module docstring), float32."""
        torch, c = self.torch, self.cfg
        r = c.w_succ * success.float()
        r = r - c.w_smooth * ((a - self.prev) ** 2).sum(1) - c.w_norm * (a**2).sum(1)
        r = r - c.w_qvel * (qd**2).sum(1)
        mid, half = (self.q_lo + self.q_hi) / 2, (self.q_hi - self.q_lo) / 2
        r = r - c.w_qlim * (torch.relu((q - mid).abs() - c.soft_limit * half) ** 2).sum(1)
        r = r - c.w_vlim * (torch.relu(qd.abs() - c.soft_limit * self.qdot_max) ** 2).sum(1)
        return r


def default_cache_dir(task_ids: list[str]) -> Path:
    """Where :func:`make_warp_vector_env` keeps the layout-group cache of a task list.

    ``$SIMKIT_HEBERO_GPU_CACHE`` when set (used as is), else
    ``~/.cache/simkit/hebero_gpu/<sha256 of the task ids, 12 hex>``.
    """
    import hashlib
    import os

    env = os.environ.get("SIMKIT_HEBERO_GPU_CACHE")
    if env:
        return Path(env)
    key = hashlib.sha256("\n".join(task_ids).encode()).hexdigest()[:12]
    return Path.home() / ".cache" / "simkit" / "hebero_gpu" / key


def make_warp_vector_env(
    num_envs: int = 40,
    suite: str = "all",
    tasks: list[str] | None = None,
    cache_dir: str | Path | None = None,
    libero_root: str | Path | None = None,
    config: WarpEnvConfig | dict | None = None,
    output: str = "torch",
    seed: int = 0,
    bank: int = 4,
    **_ignored: Any,
):
    """``gymnasium.make_vec("simkit/Hebero-v0", backend="warp", ...)``: a :class:`HeberoWarpVecEnv`.

    The GPU is checked first. The layout-group cache (``cache_dir``, default
    :func:`default_cache_dir`) is compiled from the installed LIBERO assets (or ``libero_root``)
    when it does not hold the requested tasks yet (a few minutes on the CPU, once).

    Raises:
        GpuUnavailable: no CUDA GPU, or warp-lang / mujoco-warp missing (one line).
        InputError: unknown suite/task, bad ``output``, an unreadable cache.
    """
    from simkit.envs.hebero.tasks import descriptors, task_ids
    from simkit.sims.layout_models import export_groups
    from simkit.sims.mujoco_warp_batch import require_gpu

    require_gpu()
    if output not in ("torch", "numpy"):
        raise InputError(None, f"output must be 'torch' or 'numpy', not {output!r}")
    ids = task_ids(suite, tasks)
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir(ids)
    if not (cache / "groups.json").is_file():
        export_groups(descriptors(ids, libero_root), libero_root, cache, bank=bank)
    if isinstance(config, dict):
        config = WarpEnvConfig(**config)
    return HeberoWarpVecEnv(HeberoWarpBatch(cache, num_envs, ids, config, seed), output)


def _vector_env_base() -> type:
    import gymnasium

    return gymnasium.vector.VectorEnv


class HeberoWarpVecEnv(_vector_env_base()):  # type: ignore[misc]
    """Gymnasium ``VectorEnv`` over :class:`HeberoWarpBatch` (same-step autoreset).

    Spaces: observation Box(-inf, inf, (N, 300), float32); action Box(-1, 1, (N, 7), float32).
    ``reset``/``step`` return torch CUDA tensors (``output="torch"``, what GPU PPO code consumes)
    or numpy arrays (``output="numpy"``, one device-to-host copy per step). ``info`` holds
    ``task_id`` (N,) int (index into :attr:`task_ids`) and ``success`` (N,) bool.
    """

    def __init__(self, batch: HeberoWarpBatch, output: str = "torch"):
        import gymnasium
        from gymnasium.vector import AutoresetMode

        self.metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}
        self.batch, self.output = batch, output
        self.num_envs = batch.num_envs
        self.task_ids = batch.task_ids
        self.single_observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (OBS_DIM,), np.float32)
        self.single_action_space = gymnasium.spaces.Box(-1.0, 1.0, (7,), np.float32)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)

    def _out(self, x):
        # the batch's tensors are its own buffers, overwritten by the next step: hand out copies
        return x.cpu().numpy() if self.output == "numpy" else x.clone()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs = self.batch.reset(seed=seed)
        return self._out(obs), {"task_id": self._out(self.batch.task_index)}

    def step(self, actions):
        obs, reward, term, trunc, success = self.batch.step(actions)
        info = {"task_id": self._out(self.batch.task_index), "success": self._out(success)}
        return self._out(obs), self._out(reward), self._out(term), self._out(trunc), info

    def close(self, **kwargs: Any) -> None:
        self.batch.close()
