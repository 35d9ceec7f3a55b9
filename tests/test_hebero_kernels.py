"""Hebero's array kernels (controller, observation, reward, goal tests): the CPU env's outputs are
pinned to a recorded reference, and the torch evaluation (GPU backend) equals the numpy one.

The reference (``tests/fixtures/hebero_kernels/``) was written by this module run as a script
(``python tests/test_hebero_kernels.py``) before the kernels became one array-generic definition:
a 4-task CPU rollout (seed 3, 10 random actions) and the numpy goal tests on 200 jittered goal
states of 6 tasks. MuJoCo's physics rounds differently on other CPUs: on the CPU family the
reference was recorded on, the rollout must be bit-identical; elsewhere it must agree to 1e-5.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
REF = HERE / "fixtures" / "hebero_kernels"
ROLLOUT_TASKS = [
    "goal/put_the_bowl_on_the_plate",
    "goal/turn_on_the_stove",
    "goal/open_the_top_drawer_and_put_the_bowl_inside",
    "goal/put_the_cream_cheese_in_the_bowl",
]
GOAL_TASKS = [
    "goal/put_the_bowl_on_the_plate",
    "goal/turn_on_the_stove",
    "goal/open_the_top_drawer_and_put_the_bowl_inside",
    "goal/put_the_bowl_on_the_stove",
    "goal/push_the_plate_to_the_front_of_the_stove",
    "long/KITCHEN_SCENE4_put_the_black_bowl_in_the_bottom_drawer_of_the_cabinet_and_close_it",
]
TERMS = ("r_goal", "r_smooth", "r_action", "r_joint_vel", "r_joint_limit", "r_vel_limit")
GOAL_KEYS = ("qpos", "xpos", "site_xpos", "site_xmat", "geom_xpos", "geom_xmat", "sensordata")
N_JITTER = 200
BOWL, PLATE = "akita_black_bowl_1", "plate_1"
#: formulas beyond the 40 goals' atoms (In on an object, Up, Stack, InContact, Or/Not, constants),
#: evaluated on the first goal task's entities
EXTRA = [
    {"predicate": "in", "args": [BOWL, PLATE]},
    {"predicate": "up", "args": [BOWL]},
    {"predicate": "stack", "args": [BOWL, PLATE]},
    {"predicate": "incontact", "args": [BOWL, PLATE]},
    {
        "op": "or",
        "args": [
            {"predicate": "false", "args": []},
            {"op": "not", "args": [{"predicate": "on", "args": [BOWL, PLATE]}]},
        ],
    },
    {"predicate": "true", "args": []},
]


def rollout(env, steps: int = 10) -> dict[str, np.ndarray]:
    """Observations (steps + 1, n, 300), rewards, success and reward terms (steps, n) of ``env``
    after ``reset(seed=3)`` under uniform random actions from ``default_rng(1)``."""
    obs0, _ = env.reset(seed=3)
    rng = np.random.default_rng(1)
    out: dict[str, list] = {"obs": [obs0], "reward": [], "success": [], **{k: [] for k in TERMS}}
    for _ in range(steps):
        obs, r, _, _, info = env.step(rng.uniform(-1, 1, (env.num_envs, 7)))
        out["obs"].append(obs)
        out["reward"].append(r)
        out["success"].append(info["success"])
        for k in TERMS:
            out[k].append(np.asarray(info[k]))
    return {k: np.stack(v) for k, v in out.items()}


def drive_to_goal(sc, atoms) -> None:
    """Set the goal atoms' joints and object poses of scene ``sc`` where the goal holds (kinematics only)."""
    import mujoco

    m, d, b = sc.model, sc.data, sc.binding
    for pred, *args in atoms:
        if pred in ("open", "close", "turnon", "turnoff"):
            joints = b.site_joints[args[0]] if args[0] in b.sites else b.joints[args[0]]
            val = {"open": -0.16, "close": 0.005, "turnon": 0.8, "turnoff": -0.01}[pred]
            for j in joints:
                d.qpos[m.jnt_qposadr[j]] = val
            continue
        mujoco.mj_forward(m, d)
        target = d.site_xpos[b.sites[args[1]]] if args[1] in b.sites else d.xpos[b.bodies[args[1]]]
        lift = 0.0 if pred == "in" else (0.06 if args[1] in b.bodies else 0.03)
        adr = m.jnt_qposadr[m.body_jntadr[b.bodies[args[0]]]]
        d.qpos[adr : adr + 3] = [target[0], target[1], target[2] + lift]
        d.qpos[adr + 3 : adr + 7] = [1, 0, 0, 0]
    mujoco.mj_forward(m, d)


def jittered(data, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """N_JITTER copies of ``data``'s goal arrays with positions and joints jittered, contacts random."""
    a = {k: np.repeat(np.array(getattr(data, k))[None], N_JITTER, 0) for k in GOAL_KEYS}
    a["xpos"] = a["xpos"] + rng.normal(0, 0.02, a["xpos"].shape)
    a["site_xpos"] = a["site_xpos"] + rng.normal(0, 0.005, a["site_xpos"].shape)
    a["geom_xpos"] = a["geom_xpos"] + rng.normal(0, 0.01, a["geom_xpos"].shape)
    a["qpos"] = a["qpos"] + rng.normal(0, 0.2, a["qpos"].shape)
    a["sensordata"] = np.where(rng.random(a["sensordata"].shape) < 0.3, 0.0, 1.0)
    return a


def goal_formulas(desc: dict) -> list[dict]:
    """The task's goal, its atoms when it has several, and :data:`EXTRA` for the first goal task."""
    g = desc["goal"]
    parts = g["args"] if g.get("op") == "and" else [g]
    return [g] + ([] if len(parts) == 1 else parts) + (EXTRA if desc["task_id"] == GOAL_TASKS[0] else [])


def goal_states(env) -> dict[str, tuple[dict[str, np.ndarray], list[dict]]]:
    """Per task of ``env``: jittered goal states (seeded, task order) and the formulas to test on them."""
    from simkit.sims.hebero.batched_tasks import goal_atoms

    rng = np.random.default_rng(7)
    out = {}
    for t in env.tasks:
        drive_to_goal(t.scene, goal_atoms(t.desc))
        out[t.desc["task_id"]] = (jittered(t.scene.data, rng), goal_formulas(t.desc))
    return out


def goal_results(env) -> dict[str, np.ndarray]:
    """Per task: (formulas, N_JITTER) bool of the CPU env's goal tests on :func:`goal_states`."""
    from simkit.sims.hebero.batch_predicates import BatchGoal

    res = {}
    for t, (tid, (arr, forms)) in zip(env.tasks, goal_states(env).items()):
        res[tid] = np.stack([BatchGoal(t.model, t.scene.binding, f)(arr) for f in forms])
    return res


@pytest.fixture(scope="module")
def rollout_env():
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    env = HeberoVectorEnv(num_envs=len(ROLLOUT_TASKS), tasks=ROLLOUT_TASKS)
    yield env
    env.close()


@pytest.fixture(scope="module")
def goal_env():
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    env = HeberoVectorEnv(num_envs=len(GOAL_TASKS), tasks=GOAL_TASKS)
    yield env
    env.close()


def test_cpu_rollout_equals_the_recorded_reference(rollout_env):
    from golden import cpu_family

    ref = np.load(REF / "rollout.npz")
    got = rollout(rollout_env)
    assert list(ref["tasks"]) == ROLLOUT_TASKS
    exact = str(ref["cpu"]) == cpu_family()
    for k in ("obs", "reward", "success", *TERMS):
        assert got[k].dtype == ref[k].dtype and got[k].shape == ref[k].shape, k
        if exact:
            assert np.array_equal(got[k], ref[k]), (k, np.abs(got[k] - ref[k]).max())
        else:
            assert np.allclose(got[k], ref[k], rtol=1e-5, atol=1e-5), k
    assert np.abs(np.diff(ref["obs"][:, :, 43:50], axis=0)).max() > 1e-3  # the arms moved


def test_numpy_goal_tests_equal_the_recorded_reference(goal_env):
    ref = np.load(REF / "goals.npz")
    got = goal_results(goal_env)
    assert sorted(k.replace(":", "/") for k in ref.files) == sorted(got)
    for tid, v in got.items():
        want = ref[tid.replace("/", ":")]
        assert np.array_equal(v, want), (tid, np.flatnonzero(v != want))
        assert want[0].any() and not want[0].all(), tid  # the goal holds in some states only


if __name__ == "__main__":  # write the reference (after a deliberate change of the kernels' output)
    from golden import cpu_family

    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    REF.mkdir(parents=True, exist_ok=True)
    env = HeberoVectorEnv(num_envs=len(ROLLOUT_TASKS), tasks=ROLLOUT_TASKS)
    np.savez_compressed(
        REF / "rollout.npz", cpu=np.array(cpu_family()), tasks=np.array(ROLLOUT_TASKS), **rollout(env)
    )
    env = HeberoVectorEnv(num_envs=len(GOAL_TASKS), tasks=GOAL_TASKS)
    np.savez_compressed(REF / "goals.npz", **{k.replace("/", ":"): v for k, v in goal_results(env).items()})
    print("written", sorted(p.name for p in REF.iterdir()), file=sys.stderr)
