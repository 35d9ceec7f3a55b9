"""``hebero-demos``: scripted demonstrations of the Hebero (LIBERO) tasks, written through the engine.

Episode i demonstrates task ``tasks[i mod K]`` (K tasks of ``suite``, or the explicit ``tasks``
list) from an initial state drawn with the episode's seed: the scripted planner
(:mod:`simkit.envs.hebero.scripted`) drives the env's controller until the goal holds or
``max_steps`` pass. Every episode stores the full MuJoCo state of every step, the actions,
robot and object trajectories and the success flag; with ``cameras`` also one image per state of
each camera (:mod:`simkit.scenes.hebero.cameras`: LIBERO's ``agentview``, the Panda's wrist
``eye_in_hand``) as an H.264 video field ``<camera>_rgb`` and, with ``depth``, ``<camera>_depth``
(float16, m). ``simkit export hebero-hdf5`` turns a corpus into robomimic-layout HDF5. ``check`` re-evaluates the goal on the stored last state with the
contact-scan predicates (independent of the batched test the env used while recording).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field, field_validator

from simkit.core.episode import Episode, Video
from simkit.core.fields import FieldSpec
from simkit.core.generator import Generator, GeneratorConfig


class HeberoDemosConfig(GeneratorConfig):
    """Which tasks, how long."""

    suite: Literal["goal", "object", "spatial", "long", "all"] = Field(
        default="goal", description="which LIBERO suite's tasks (all: the 40)"
    )
    tasks: list[str] | None = Field(default=None, description="explicit task ids (override suite)")
    max_steps: int = Field(default=600, ge=1, le=5000, description="control steps before giving up (20 Hz)")
    require_success: bool = Field(
        default=True,
        description="reject (redraw from a derived seed) demos whose goal does not hold; the planner's "
        "success rate per task goes into corpus.json's summary",
    )
    cameras: list[Literal["agentview", "eye_in_hand"]] = Field(
        default=[],
        description="cameras recorded at every step as videos agentview_rgb, eye_in_hand_rgb (none: no images)",
    )
    image_size: int = Field(default=128, ge=16, le=960, description="side of the camera images, px (even)")
    depth: bool = Field(
        default=False,
        description="also record agentview_depth / eye_in_hand_depth (float16, m) of each camera",
    )

    @field_validator("cameras")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError(f"cameras must not repeat a name, got {v}")
        return v

    @field_validator("image_size")
    @classmethod
    def _even(cls, v: int) -> int:
        if v % 2:
            raise ValueError("must be even (H.264 video)")
        return v


class HeberoDemosGenerator(Generator):
    """Scripted LIBERO demonstrations (states, actions, trajectories, success) per task."""

    name = "hebero-demos"
    #: 2: LIBERO's placement semantics; 3: closed-loop per-atom planner, demos end on a held goal;
    #: 4: objects on sites/objects as LIBERO's samplers place them, the Panda's finger home and
    #: base height (LIBERO's); 5: with 4, grasps and carries within the arm's reach, objects turned to
    #: fit slots, wall side by room; 6: masses from collision geoms only (LIBERO's), the flat stove's
    #: burner plate 10 mm thick; 7: the drawer pushed shut with the hand leaned, the book released
    #: leaned into the caddy slot, objects kept clear of neighbours and of basket walls
    version = "7"
    description = "scripted demonstrations of the Hebero/LIBERO tasks (MuJoCo states, actions, success)"
    extra = "hebero"
    requires = ("mujoco", "gymnasium", "scipy")
    Config = HeberoDemosConfig
    fields: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec(
            "actions",
            "npy",
            "float32",
            ("T", 7),
            "",
            "",
            "env actions in [-1, 1]: dp/s_p, rotvec/s_R, gripper",
        ),
        FieldSpec(
            "states", "npy", "float64", ("T1", "S"), "", "", "MuJoCo mjSTATE_INTEGRATION rows, steps 0..T"
        ),
        FieldSpec("joint_states", "npy", "float64", ("T1", 7), "rad", "", "Panda arm joint positions"),
        FieldSpec("gripper_states", "npy", "float64", ("T1", 2), "m", "", "finger joint positions"),
        FieldSpec("ee_pos", "npy", "float64", ("T1", 3), "m", "world, z up", "grip-site position"),
        FieldSpec(
            "object_poses", "npy", "float64", ("T1", "N", 7), "m", "world, z up", "objects: xyz + quat wxyz"
        ),
        FieldSpec("articulation", "npy", "float64", ("T1", "J"), "rad or m", "", "fixture joint positions"),
        FieldSpec("rewards", "npy", "float32", ("T",), "", "", "task reward (config defaults)"),
        FieldSpec(
            "demo", "json", None, None, "", "", "task id, instruction, seed, success, names of the columns"
        ),
        *(
            spec
            for cam in ("agentview", "eye_in_hand")
            for spec in (
                FieldSpec(
                    f"{cam}_rgb",
                    "mp4",
                    "uint8",
                    ("T1", "H", "W", 3),
                    "",
                    f"{cam} camera, upright (row 0 = top)",
                    f"{cam} image per state, steps 0..T, H.264 at control_hz (config cameras)",
                    required=False,
                ),
                FieldSpec(
                    f"{cam}_depth",
                    "npy",
                    "float16",
                    ("T1", "H", "W"),
                    "m",
                    f"{cam} camera, along the optical axis",
                    f"{cam} depth per state (config depth)",
                    required=False,
                ),
            )
        ),
    )
    required_fields = tuple(f.name for f in fields if f.required)
    structural_params = ("task_id", "seed")
    surface_params = ()
    smoke_config: ClassVar[dict[str, Any]] = {"tasks": ["goal/turn_on_the_stove"], "max_steps": 200}

    def setup(self, config) -> None:
        super().setup(config)
        from simkit.envs.hebero.tasks import task_ids

        if config.cameras:
            from simkit.core.errors import require_installed
            from simkit.sims.hebero.cameras import gl_default

            gl_default()  # before this process first imports mujoco (MUJOCO_GL is read then)
            require_installed("av", "video")  # the H.264 codec of the image fields

        self.task_list = task_ids(config.suite, config.tasks)
        self._envs: dict[str, Any] = {}

    def _env(self, task: str):
        if task not in self._envs:
            from simkit.envs.hebero.demos import demo_env

            assert isinstance(self.config, HeberoDemosConfig)
            self._envs[task] = demo_env(task, visual=bool(self.config.cameras))
        return self._envs[task]

    def generate(self, index: int, rng: np.random.Generator) -> Episode:
        from simkit.core.errors import SampleRejected
        from simkit.envs.hebero.demos import record_demo
        from simkit.envs.hebero.robomimic import qpos_names_of

        c = self.config
        assert isinstance(c, HeberoDemosConfig)
        task = self.task_list[index % len(self.task_list)]
        env = self._env(task)
        seed = int(rng.integers(2**31))
        demo = record_demo(env, seed, c.max_steps, cameras=c.cameras, image_size=c.image_size, depth=c.depth)
        if c.require_success and not demo.success:
            raise SampleRejected(f"{task}: scripted demo (seed {seed}) did not reach the goal")
        meta = {
            "task_id": task,
            "instruction": env.tasks[0].desc["instruction"],
            "seed": seed,
            "success": demo.success,
            "steps": demo.length,
            "object_names": demo.object_names,
            "articulation_names": demo.articulation_names,
            "control_hz": env.cfg.control_hz,
            "pos_scale": env.cfg.pos_scale,
            "rot_scale": env.cfg.rot_scale,
            "qpos_names": {str(k): v for k, v in qpos_names_of(env.tasks[0].model).items()},
        }
        fields = {
            "actions": demo.actions,
            "states": demo.states,
            "joint_states": demo.joint_states,
            "gripper_states": demo.gripper_states,
            "ee_pos": demo.ee_pos,
            "object_poses": demo.object_poses,
            "articulation": demo.articulation,
            "rewards": demo.rewards,
            "demo": meta,
        }
        for cam in c.cameras:
            fields[f"{cam}_rgb"] = Video(demo.images[f"{cam}_rgb"], fps=env.cfg.control_hz)
            if c.depth:
                fields[f"{cam}_depth"] = demo.images[f"{cam}_depth"].astype(np.float16)
        return Episode(fields, params={"structural": {"task_id": task, "seed": seed}, "surface": {}})

    def teardown(self) -> None:
        self._envs.clear()

    @classmethod
    def corpus_summary(cls, config: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
        """Per task (episode i demonstrates task i mod K): ``episodes``, ``ok`` (stored) and, with
        ``require_success``, ``attempts`` (every recorded demo: a stored one plus its rejected redraws;
        an episode that failed after ``max_redraws`` counts them all) and the planner's
        ``success_rate`` = successful attempts / attempts. Without ``require_success`` failed demos are
        stored, not redrawn: only the counts are given (each demo's ``success`` says the rest)."""
        from simkit.envs.hebero.tasks import task_ids

        tasks = task_ids(config.get("suite", "goal"), config.get("tasks"))
        table: dict[str, dict[str, Any]] = {t: {"episodes": 0, "ok": 0, "attempts": 0} for t in tasks}
        for r in rows:
            e = table[tasks[int(r["index"]) % len(tasks)]]
            e["episodes"] += 1
            e["ok"] += r["status"] == "ok"
            e["attempts"] += int(r.get("redraws") or 0) + (r["status"] == "ok")
        if not config.get("require_success", True):
            return {"tasks": {t: {"episodes": e["episodes"], "ok": e["ok"]} for t, e in table.items()}}
        for e in table.values():
            e["success_rate"] = round(e["ok"] / e["attempts"], 4) if e["attempts"] else None
        return {"planner_success": table}

    @classmethod
    def summary_lines(cls, summary: dict[str, Any]) -> list[str]:
        """One line per task: ``planner success <rate> (<ok>/<attempts> attempts) <task>``."""
        lines = []
        for t, e in (summary.get("planner_success") or {}).items():
            if e["attempts"]:
                lines.append(
                    f"planner success {e['success_rate']:.2f} ({e['ok']}/{e['attempts']} attempts) {t}"
                )
        return lines

    def backend_versions(self) -> dict[str, str]:
        import mujoco

        return {"mujoco": mujoco.__version__}

    def inspect(self, samples: list[dict[str, Any]], out_dir: Path) -> list[Path]:
        """``demo_<key>.png`` per sample: gripper and object paths seen from above; gripper height,
        finger opening and reward over the steps (the default sheet would tile the raw state matrix)."""
        return [draw_demo(smp, Path(out_dir)) for smp in samples if smp.get("ee_pos") is not None]

    def check(self, sample: dict[str, Any]) -> list[str]:
        """The stored success flag must equal the goal evaluated (contact scan) on the stored last state."""
        from simkit.envs.hebero.demos import goal_on_state

        meta = sample["demo"]
        held = goal_on_state(meta["task_id"], np.asarray(sample["states"])[-1])
        if held != bool(meta["success"]):
            return [
                f"{meta['task_id']}: stored success {meta['success']} but the goal on the last state is {held}"
            ]
        if len(sample["actions"]) + 1 != len(sample["states"]):
            return ["states must have one row more than actions"]
        return []


def draw_demo(smp: dict[str, Any], out_dir: Path) -> Path:
    """One demo's picture (see :meth:`HeberoDemosGenerator.inspect`); returns the PNG's path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    meta = smp.get("demo") or {}
    ee, fingers = np.asarray(smp["ee_pos"]), np.asarray(smp["gripper_states"])
    objs = np.asarray(smp["object_poses"]).reshape(len(ee), -1, 7)
    names = list(meta.get("object_names") or [f"object {i}" for i in range(objs.shape[1])])
    joints = list(meta.get("articulation_names") or [])[:4]  # drawers, doors, knobs
    rewards = smp.get("rewards")
    rows = 1 + bool(joints) + (rewards is not None)  # one panel per unit: metres, joint units, reward
    fig = plt.figure(figsize=(12, 2.2 * rows + 1.4), dpi=100)
    grid = fig.add_gridspec(rows, 2, width_ratios=(1, 1.15))
    ax = fig.add_subplot(grid[:, 0])
    ax.plot(ee[:, 0], ee[:, 1], "k-", lw=1, label="gripper")
    for i in range(objs.shape[1]):
        line = ax.plot(
            objs[:, i, 0], objs[:, i, 1], lw=2, label=names[i] if i < len(names) else f"object {i}"
        )
        ax.plot(objs[-1, i, 0], objs[-1, i, 1], "o", color=line[0].get_color())
    ax.plot(ee[0, 0], ee[0, 1], "g^", ms=9, label="gripper start")
    ax.set(
        xlabel="x (m)", ylabel="y (m)", aspect="equal", title="seen from above (dot: final object position)"
    )
    ax.legend(fontsize=7, loc="best")
    t = np.arange(len(ee))
    panels = [fig.add_subplot(grid[0, 1])]
    panels += [fig.add_subplot(grid[k, 1], sharex=panels[0]) for k in range(1, rows)]
    panels[0].plot(t, ee[:, 2], label="gripper height z")
    panels[0].set(ylabel="gripper height z (m)")
    mm = panels[0].twinx()  # centimetres of opening would be flat on the metre scale of the height
    # the two finger joints move in opposite senses (LIBERO's robot0_gripper_qpos: +q, -q), so the
    # opening between the fingers is their difference, not their sum (which stays near 0)
    mm.plot(t, 1000.0 * (fingers[:, 0] - fingers[:, 1]), color="#dd8452", label="finger opening")
    mm.set_ylabel("finger opening (mm)", color="#dd8452")
    mm.legend(fontsize=7, loc="upper right")
    k = 1
    if joints:
        for j, name in enumerate(joints):
            panels[k].plot(t, np.asarray(smp["articulation"])[:, j], label=name)
        panels[k].set(ylabel="fixture joint\n(rad: hinge, m: slide)")
        k += 1
    if rewards is not None:
        panels[k].plot(t[1:], np.asarray(rewards), color="#c44e52", label="reward per step")
        panels[k].set(ylabel="reward")
    for axk in panels:
        axk.legend(fontsize=7, loc="upper left")
        axk.grid(alpha=0.3)
    panels[-1].set(xlabel="control step")
    key = smp.get("__key__", "demo")
    fig.suptitle(
        f"{key}: {meta.get('task_id', '?')} (success {meta.get('success')})\n{meta.get('instruction', '')}"
    )
    fig.tight_layout()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"demo_{key}.png"
    fig.savefig(path)
    plt.close(fig)
    return path
