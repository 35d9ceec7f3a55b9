"""Configuration of ``simkit/Hebero-v0``: controller gains, reward weights, horizon (pydantic).

Every number is a field so that users can change it (``gymnasium.make_vec(..., config={...})``
or keyword arguments of the same names). Defaults follow robosuite's ``OSC_POSE`` controller as
LIBERO configures it (control at 20 Hz, ``output_max`` 0.05 m and 0.5 rad per unit action) and
LIBERO's evaluation horizon.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from simkit.core.errors import InputError


class RewardWeights(BaseModel):
    """Weights of the task reward r = w_succ 1[success] - r_reg - r_safe (all >= 0).

    r_reg = w_smooth ||a_t - a_{t-1}||^2 + w_action ||a_t||^2 + w_joint_vel ||dq_arm||^2 (rad/s);
    r_safe = w_joint_limit sum_j max(0, |q_j - c_j| - soft * h_j)^2 / h_j^2 (c_j, h_j the centre and
    half range of arm joint j) + w_vel_limit sum_j max(0, |dq_j| - soft_vel * v_max_j)^2 / v_max_j^2
    (v_max = the Panda's joint speed limits, rad/s).
    """

    model_config = ConfigDict(extra="forbid")
    success: float = Field(default=10.0, ge=0, description="w_succ: reward on a step where the goal holds")
    smoothness: float = Field(default=0.01, ge=0, description="w_smooth: weight of ||a_t - a_{t-1}||^2")
    action: float = Field(default=0.001, ge=0, description="w_action: weight of ||a_t||^2")
    joint_vel: float = Field(
        default=0.001, ge=0, description="w_joint_vel: weight of ||dq_arm||^2, (rad/s)^-2"
    )
    joint_limit: float = Field(
        default=1.0, ge=0, description="w_joint_limit: soft joint position limit penalty"
    )
    vel_limit: float = Field(default=0.1, ge=0, description="w_vel_limit: soft joint velocity limit penalty")
    soft_limit: float = Field(
        default=0.9, gt=0, le=1, description="fraction of the half range where the penalty starts"
    )
    soft_vel: float = Field(
        default=0.9, gt=0, le=1, description="fraction of the speed limit where the penalty starts"
    )


class DemoRewardWeights(BaseModel):
    """r_demo = sum_m w_m exp(-||e_m|| / sigma_m) over the demo-tracking terms m (reported in ``info``)."""

    model_config = ConfigDict(extra="forbid")
    ee_pos: float = Field(default=1.0, ge=0, description="end-effector position error weight")
    ee_pos_sigma: float = Field(default=0.05, gt=0, description="m")
    arm_qpos: float = Field(default=0.5, ge=0, description="arm joint position error weight")
    arm_qpos_sigma: float = Field(default=0.5, gt=0, description="rad")
    arm_qvel: float = Field(default=0.1, ge=0, description="arm joint velocity error weight")
    arm_qvel_sigma: float = Field(default=2.0, gt=0, description="rad/s")
    gripper: float = Field(default=0.2, ge=0, description="finger opening error weight")
    gripper_sigma: float = Field(default=0.02, gt=0, description="m")
    objects: float = Field(
        default=1.0, ge=0, description="object position error weight (sum over movable objects)"
    )
    objects_sigma: float = Field(default=0.05, gt=0, description="m")
    articulation: float = Field(default=0.5, ge=0, description="articulated joint error weight")
    articulation_sigma: float = Field(default=0.1, gt=0, description="m or rad")


class HeberoConfig(BaseModel):
    """Everything ``simkit/Hebero-v0`` lets a user set besides the task list and the env count."""

    model_config = ConfigDict(extra="forbid")
    control_hz: float = Field(default=20.0, gt=0, description="policy/controller rate, Hz (LIBERO: 20)")
    pos_scale: float = Field(
        default=0.05, gt=0, description="s_p: end-effector translation per unit action, m"
    )
    rot_scale: float = Field(default=0.5, gt=0, description="s_R: end-effector rotation per unit action, rad")
    ik_damping: float = Field(default=0.05, gt=0, description="damped least squares lambda of the delta IK")
    horizon: int = Field(default=600, ge=1, description="steps before truncation (LIBERO evaluation: 600)")
    terminate_on_success: bool = Field(default=True, description="end the episode on the first success step")
    nthread: int = Field(default=0, ge=0, description="MuJoCo batch threads (0: all cores)")
    reward: RewardWeights = RewardWeights()
    demo_reward: DemoRewardWeights = DemoRewardWeights()
    image_size: int = Field(default=128, ge=16, le=1024, description="side of rendered camera images, px")
    reset_mode: Literal["fresh", "bank"] = Field(
        default="fresh",
        description="CPU backend: 'fresh' draws a new layout at every reset; 'bank' starts from one of "
        "bank_size layouts per task (the GPU backend's layout bank; the GPU backend always uses it)",
    )
    bank_size: int = Field(
        default=4, ge=1, description="layouts per task in a layout bank: scene-compiler seeds 0..bank_size-1"
    )
    init_wait: int = Field(
        default=0,
        ge=0,
        description="zero-action control steps simulated after loading one of LIBERO's fixed initial "
        "states (reset option init_state, GPU reset source 'libero'), before the first observation: "
        "the arm holds, the fingers go to LIBERO's zero gripper action (0.02 m); LIBERO's evaluation "
        "takes 5 (libero/lifelong/metric.py), 0 starts from the state as LIBERO recorded it",
    )
    solver_iterations: int | None = Field(
        default=None,
        ge=1,
        description="constraint solver iterations (MuJoCo opt.iterations; None: the model's)",
    )
    solver_ls_iterations: int | None = Field(
        default=None, ge=1, description="solver line-search iterations (opt.ls_iterations; None: the model's)"
    )
    solver_tolerance: float | None = Field(
        default=None,
        ge=0,
        description="solver tolerance for early termination (opt.tolerance; None: the model's)",
    )

    def apply_solver(self, model: Any) -> None:
        """Write the solver fields that are set into ``model.opt`` (a ``mujoco.MjModel``, in place).

        Both backends apply them to their models, so CPU and GPU runs that should agree must use
        the same values (MuJoCo's ``mjOption`` fields ``iterations``, ``ls_iterations``, ``tolerance``).
        """
        for field, opt in (
            ("solver_iterations", "iterations"),
            ("solver_ls_iterations", "ls_iterations"),
            ("solver_tolerance", "tolerance"),
        ):
            value = getattr(self, field)
            if value is not None:
                setattr(model.opt, opt, value)


def make_config(config: HeberoConfig | dict | None, overrides: dict[str, Any]) -> HeberoConfig:
    """A :class:`HeberoConfig` from a config object or dict plus keyword overrides of the same names
    (``max_episode_steps`` is an alias of ``horizon``); the same for the CPU and GPU backends.

    Raises:
        InputError: an unknown field or a value out of range (one line naming the field).
    """
    base = config.model_dump() if isinstance(config, HeberoConfig) else dict(config or {})
    overrides = dict(overrides)
    if "max_episode_steps" in overrides:
        overrides["horizon"] = overrides.pop("max_episode_steps")
    base.update(overrides)
    try:
        return HeberoConfig(**base)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(x) for x in first["loc"])
        raise InputError(None, f"Hebero config {key}: {first['msg']}") from None
