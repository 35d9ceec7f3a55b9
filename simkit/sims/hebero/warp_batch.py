"""Batched stepping of layout-group models on one GPU with MuJoCo Warp.

One :class:`WarpGroup` holds a union model (:mod:`simkit.sims.hebero.layout_models`)
on the device with ``nworld`` worlds (``put_model(batch_sizes=...)`` gives each
world its own ``body_gravcomp``: parked bodies float; fixtures are mocap
bodies, placed through the state ``mocap_pos``/``mocap_quat``), the physics substeps of one control step captured as
one CUDA graph, and its own CUDA stream so that groups overlap on the GPU
(small graphs are bound by kernel-launch latency; see ``docs/benchmarks.md``).
Device arrays are exposed as torch tensors through ``wp.to_torch`` (zero-copy).

Needs an NVIDIA GPU with CUDA, ``warp-lang`` and ``mujoco-warp`` (the
``[gpu]`` extra); :func:`require_gpu` raises :class:`GpuUnavailable` with one
line naming what is missing.
"""

from __future__ import annotations

from typing import Any

from simkit.core.errors import SimkitError

#: model fields given one value per world (fixture poses and parking)
PER_WORLD_FIELDS = ("body_gravcomp",)
MIN_NACONMAX = 8192  #: smallest contact pool of a group


class GpuUnavailable(SimkitError):
    """The GPU backend cannot run here: no CUDA GPU, or warp-lang / mujoco-warp / torch-with-CUDA missing."""


def require_gpu() -> tuple[Any, Any, Any]:
    """Import and check the GPU stack: ``(warp, mujoco_warp, torch)``.

    Raises:
        GpuUnavailable: one line naming the missing piece (package, CUDA build of torch, or device).
    """
    missing = []
    try:
        import warp as wp
    except ImportError:
        missing.append("warp-lang")
    try:
        import mujoco_warp as mjw
    except ImportError:
        missing.append("mujoco-warp")
    if missing:
        raise GpuUnavailable(
            "backend='warp' needs an NVIDIA GPU with CUDA and the packages "
            f"{' and '.join(missing)} (not installed); install them with: pip install 'simkit[gpu]'"
        )
    import torch

    if not torch.cuda.is_available():
        raise GpuUnavailable(
            "backend='warp' needs an NVIDIA GPU with CUDA: torch sees no CUDA device "
            "(a CPU-only torch build or no GPU/driver); use backend='cpu' on this machine"
        )
    wp.config.quiet = True
    wp.init()
    if not wp.is_cuda_available():
        raise GpuUnavailable("backend='warp' needs an NVIDIA GPU with CUDA: Warp finds no CUDA device")
    return wp, mjw, torch


def apply_solver_options(mjm: Any, solver: dict[str, Any] | None) -> None:
    """Set ``iterations`` / ``ls_iterations`` / ``tolerance`` of ``mjm.opt`` from ``solver`` (None values and
    a None dict leave the model's own settings).

    Raises:
        ValueError: an unknown key, or a non-positive value.
    """
    for key, value in (solver or {}).items():
        if key not in ("iterations", "ls_iterations", "tolerance"):
            raise ValueError(f"unknown solver option {key!r} (iterations, ls_iterations, tolerance)")
        if value is None:
            continue
        if value <= 0:
            raise ValueError(f"solver option {key} must be > 0, got {value}")
        setattr(mjm.opt, key, value)


class WarpGroup:
    """One union model over ``nworld`` worlds on the GPU.

    Args:
        mjm: the host ``mujoco.MjModel`` (its ``opt.disableflags`` gains ``mjDSBL_SENSOR``).
        nworld: worlds in the batch.
        substeps: physics steps per control step (captured into one graph).
        nconmax: contacts allocated per world (MuJoCo Warp pools them over all worlds).
        njmax: constraint rows per world.
        solver: optional overrides of the model's solver options, applied to ``mjm.opt`` before the
            model goes to the device: ``iterations`` (int, Newton/CG iterations; MuJoCo's default 100),
            ``ls_iterations`` (int, line-search iterations; default 50), ``tolerance`` (float, default
            1e-8). MuJoCo Warp stops iterating when every world has converged, so the slowest world of
            a group sets the cost of the whole group.
        overrides: MuJoCo Warp model overrides applied after ``put_model`` (``mujoco_warp.override_model``
            syntax, e.g. ``{"opt.broadphase": "SAP_TILE", "opt.deterministic": "true"}``).

    Attributes:
        m, d: ``mujoco_warp`` Model and Data. stream: its ``warp.Stream``.
        t: dict of torch views (zero-copy) of Data and per-world Model arrays: ``qpos`` (W, nq),
            ``qvel`` (W, nv), ``ctrl`` (W, nu), ``xpos`` (W, nbody, 3), ``xmat`` (W, nbody, 3, 3),
            ``xquat`` (W, nbody, 4), ``xanchor``/``xaxis`` (W, njnt, 3), ``site_xpos`` (W, nsite, 3),
            ``site_xmat`` (W, nsite, 3, 3), ``mocap_pos`` (W, nmocap, 3), ``mocap_quat``
            (W, nmocap, 4), ``body_gravcomp`` (W, nbody), ``contact_geom`` (C, 2), ``contact_world`` (C,), ``nacon`` (1,).
    """

    def __init__(
        self,
        mjm: Any,
        nworld: int,
        substeps: int = 25,
        nconmax: int = 96,
        njmax: int = 384,
        solver: dict[str, Any] | None = None,
        overrides: dict[str, str] | None = None,
    ):
        import mujoco

        wp, mjw, _torch = require_gpu()
        self.wp, self.mjw = wp, mjw
        # the batched task logic reads the contact list, never sensordata: skip sensor evaluation
        # (task scenes carry one contact sensor per touching pair of their goal, 42 in a union model)
        mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_SENSOR)
        apply_solver_options(mjm, solver)
        self.nworld, self.substeps = nworld, substeps
        self.m = mjw.put_model(mjm, batch_sizes=dict.fromkeys(PER_WORLD_FIELDS, nworld))
        if overrides:
            from mujoco_warp._src.io import override_model  # not re-exported by mujoco_warp 4.0.0

            override_model(self.m, dict(overrides))
        # contacts are pooled over worlds: a floor keeps small batches from overflowing on one busy world
        naconmax = max(nworld * nconmax, MIN_NACONMAX)
        self.d = mjw.make_data(mjm, nworld=nworld, nconmax=nconmax, njmax=njmax, naconmax=naconmax)
        self.stream = wp.Stream(wp.get_device())
        self.graph = None
        tt = wp.to_torch
        d, m = self.d, self.m
        self.t = {
            name: tt(getattr(d, name))
            for name in ("qpos", "qvel", "ctrl", "xpos", "xmat", "xquat", "xanchor", "xaxis", "site_xpos")
        }
        self.t["site_xmat"] = tt(d.site_xmat)
        self.t["mocap_pos"] = tt(d.mocap_pos)
        self.t["mocap_quat"] = tt(d.mocap_quat)
        for f in PER_WORLD_FIELDS:
            self.t[f] = tt(getattr(m, f))
        self.t["contact_geom"] = tt(d.contact.geom)
        self.t["contact_world"] = tt(d.contact.worldid)
        self.t["nacon"] = tt(d.nacon)
        self.t["solver_niter"] = tt(d.solver_niter)

    def capture(self) -> None:
        """Capture ``substeps`` physics steps and a position pass as one CUDA graph on this group's stream
        (compiles kernels)."""
        wp, mjw = self.wp, self.mjw
        with wp.ScopedStream(self.stream):
            mjw.step(self.m, self.d)  # load modules outside the capture
            with wp.ScopedCapture() as cap:
                for _ in range(self.substeps):
                    mjw.step(self.m, self.d)
                # a step evaluates positions before it integrates: recompute kinematics, contacts and
                # constraints of the state it returns (MuJoCo's position stage, what mujoco.batch's
                # stage POS gives the CPU backend), so observations and predicates read the new state
                mjw.fwd_position(self.m, self.d)
        self.graph = cap.graph

    def launch(self, after: Any = None) -> None:
        """Launch the captured control step on this group's stream, after ``after`` (a warp stream) drains."""
        if self.graph is None:
            self.capture()
        if after is not None:
            self.stream.wait_stream(after)
        self.wp.capture_launch(self.graph, stream=self.stream)

    def forward(self) -> None:
        """Recompute kinematics and contacts for the current state (``mjw.forward``) on this stream."""
        with self.wp.ScopedStream(self.stream):
            self.mjw.forward(self.m, self.d)
