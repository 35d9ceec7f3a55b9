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
import torch
from hebero_goal_states import place_goal

from simkit.envs.hebero import kernels
from simkit.envs.hebero.config import RewardWeights
from simkit.envs.hebero.vector_env import HeberoVectorEnv

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
    place_goal(sc, atoms)


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


def goal_results(env, convert=None) -> dict[str, np.ndarray]:
    """Per task: (formulas, N_JITTER) bool of the CPU env's goal tests on :func:`goal_states`
    (the arrays passed through ``convert`` first, e.g. to torch tensors)."""
    from simkit.sims.hebero.batch_predicates import BatchGoal

    res = {}
    for t, (tid, (arr, forms)) in zip(env.tasks, goal_states(env).items()):
        if convert is not None:
            arr = {k: convert(v) for k, v in arr.items()}
        res[tid] = np.stack([np.asarray(BatchGoal(t.model, t.scene.binding, f)(arr)) for f in forms])
    return res


@pytest.fixture(scope="module")
def rollout_env():
    env = HeberoVectorEnv(num_envs=len(ROLLOUT_TASKS), tasks=ROLLOUT_TASKS)
    yield env
    env.close()


@pytest.fixture(scope="module")
def goal_env():
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
        if exact:  # the same bits (signed zeros too)
            assert got[k].tobytes() == ref[k].tobytes(), (k, np.abs(got[k] - ref[k]).max())
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


TORCH_TASKS = [
    "goal/put_the_bowl_on_the_plate",
    "goal/turn_on_the_stove",
    "goal/open_the_middle_drawer_of_the_cabinet",
]


def _t(x, dtype=torch.float64):
    x = np.asarray(x)
    return torch.as_tensor(x) if x.dtype.kind in "bi" else torch.as_tensor(x, dtype=dtype)


def _random_rotations(rng, shape):
    q = rng.normal(size=(*shape, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = np.moveaxis(q, -1, 0)
    r = np.stack(
        [
            1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
            2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
            2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
        ],
        axis=-1,
    )  # fmt: skip
    return r  # (..., 9) row-major


@pytest.mark.parametrize("dtype,tol", [(torch.float64, 1e-10), (torch.float32, 2e-5)])
def test_torch_equals_numpy_on_random_inputs(dtype, tol):
    rng = np.random.default_rng(0)
    n = 64
    a = rng.uniform(-1, 1, (n, 7))
    a[:8, 6] = 0.0  # a[6] = 0 opens (robosuite: > 0 closes)
    q = rng.uniform(-2, 2, (n, 7))
    anchor, axis = rng.normal(size=(n, 7, 3)) * 0.3, rng.normal(size=(n, 7, 3))
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    ee = rng.normal(size=(n, 3)) * 0.5
    qrange = np.sort(rng.uniform(-2.5, 2.5, (n, 7, 2)), axis=-1)
    jp, jr = kernels.hinge_jacobian(anchor, axis, ee)
    tjp, tjr = kernels.hinge_jacobian(_t(anchor, dtype), _t(axis, dtype), _t(ee, dtype))
    assert np.allclose(tjp.double().numpy(), jp, atol=tol) and np.allclose(tjr.double().numpy(), jr, atol=tol)
    for damping in (0.05, 0.3):
        tgt, fing = kernels.arm_targets(a, q, jp, jr, qrange, 0.05, 0.5, damping)
        ttgt, tfing = kernels.arm_targets(
            _t(a, dtype), _t(q, dtype), tjp, tjr, _t(qrange, dtype), 0.05, 0.5, damping
        )
        # float32: the damped 6x6 solve amplifies rounding by its condition number (<= ~1e3 here)
        assert np.allclose(ttgt.double().numpy(), tgt, atol=tol * (1 if dtype == torch.float64 else 50))
        assert np.array_equal(tfing.numpy(), fing.astype(tfing.numpy().dtype))
        assert np.any(tgt == qrange[..., 0]) and np.any(tgt == qrange[..., 1])  # clipping exercised
    # observation pieces: proprioception and slots (body, site, unused, constant)
    nb, ns = 12, 5
    xpos, site_xpos = rng.normal(size=(n, nb, 3)), rng.normal(size=(n, ns, 3))
    xmat, site_xmat = _random_rotations(rng, (n, nb)), _random_rotations(rng, (n, ns))
    kind = rng.integers(0, 3, (n, 26))
    ids = np.where(kind == 1, rng.integers(0, nb, (n, 26)), rng.integers(0, ns, (n, 26)))
    base = rng.normal(size=(n, 3))
    want = kernels.slot_features(xpos, xmat, site_xpos, site_xmat, kind, ids, base)
    got = kernels.slot_features(
        *(_t(x, dtype) for x in (xpos, xmat.reshape(n, nb, 3, 3), site_xpos, site_xmat)),
        _t(kind),
        _t(ids),
        _t(base, dtype),
    )
    assert got.shape == (n, 234) and np.allclose(got.double().numpy(), want, atol=tol)
    assert np.count_nonzero(want.reshape(n, 26, 9)[kind == 0]) == 0
    # constant slots: the stored world pose minus the base, like a site at that pose
    const = rng.normal(size=(n, 26, 9))
    kc = np.where(kind == 2, 3, kind)
    got_c = kernels.slot_features(
        *(_t(x, dtype) for x in (xpos, xmat, site_xpos, site_xmat)),
        _t(kc),
        _t(ids),
        _t(base, dtype),
        _t(const, dtype),
    ).reshape(n, 26, 9)
    expect_c = (
        const[kc == 3] - np.concatenate([base[:, None].repeat(26, 1), np.zeros((n, 26, 6))], -1)[kc == 3]
    )
    assert np.allclose(got_c.double().numpy()[kc == 3], expect_c, atol=tol)
    dq, fingers, quat = rng.normal(size=(n, 7)) * 3, rng.uniform(0, 0.04, (n, 2)), rng.normal(size=(n, 4))
    want_p = kernels.proprioception(q, dq, fingers, ee, quat, base)
    got_p = kernels.proprioception(*(_t(x, dtype) for x in (q, dq, fingers, ee, quat, base)))
    assert np.allclose(got_p.double().numpy(), want_p, atol=tol)
    # reward: every term, with joint and speed limits exceeded in some envs
    w = RewardWeights(success=7.0, joint_limit=2.0)
    succ = rng.random(n) < 0.5
    prev = rng.uniform(-1, 1, (n, 7))
    want_r = kernels.task_reward(succ, a, prev, q, dq, qrange, w)
    got_r = kernels.task_reward(
        _t(succ), _t(a, dtype), _t(prev, dtype), _t(q, dtype), _t(dq, dtype), _t(qrange, dtype), w
    )
    assert set(got_r) == set(want_r)
    for k, v in want_r.items():
        assert np.allclose(got_r[k].double().numpy(), v, rtol=tol, atol=tol * 10), k
    for k in ("r_joint_limit", "r_vel_limit"):  # both branches of the soft limits exercised
        assert want_r[k].max() > 0 and want_r[k].min() == 0, k


@pytest.fixture(scope="module")
def cpu_env():
    import gymnasium

    env = gymnasium.make_vec("simkit/Hebero-v0", num_envs=3, tasks=TORCH_TASKS, backend="cpu").unwrapped
    assert isinstance(env, HeberoVectorEnv)
    yield env
    env.close()


def _gather(env: HeberoVectorEnv) -> dict[str, np.ndarray]:
    """Per env (in env order) the arrays the kernels read, from the CPU backend's live arrays."""
    out: dict[str, list] = {}
    for g, grp in enumerate(env.backend.groups):
        arr = env.backend.arrays(g)
        for j, e in enumerate(grp.env_ids):
            t = env.tasks[int(grp.tasks[j])]
            row = {
                "q": arr["qpos"][j, t.arm_q],
                "dq": arr["qvel"][j, t.arm_v],
                "fingers": arr["qpos"][j, t.finger_q],
                "ee": arr["site_xpos"][j, t.ee_site],
                "quat": arr["xquat"][j, t.ee_body],
                "base": arr["xpos"][j, t.base_body],
                "anchor": arr["xanchor"][j, t.arm_jnt],
                "axis": arr["xaxis"][j, t.arm_jnt],
                "xpos": arr["xpos"][j],
                "xmat": arr["xmat"][j],
                "site_xpos": arr["site_xpos"][j],
                "site_xmat": arr["site_xmat"][j],
                "kind": t.slot_kind,
                "ids": t.slot_id,
                "qrange": t.qrange,
                "code": t.task_code,
                "ctrl_arm": arr["ctrl"][j, t.arm_act],
                "ctrl_fingers": arr["ctrl"][j, t.grip_act],
            }
            for k, v in row.items():
                out.setdefault(k, [None] * env.num_envs)[int(e)] = np.array(v)
    return {k: np.stack(v) for k, v in out.items()}  # same layout in every env (one robot per scene)


def test_torch_on_real_env_states_equals_the_env(cpu_env):
    """On the CPU env's own states (3 goal tasks, random actions), the kernels on torch tensors reproduce
    what the env wrote: the controller's actuator targets, the 300-dim observation and the reward terms."""
    env, c = cpu_env, cpu_env.cfg
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(1)
    prev = np.zeros((3, 7))
    for step in range(6):
        a = rng.uniform(-1, 1, (3, 7))
        s = _gather(env)
        t = {k: _t(v) for k, v in s.items()}
        jp, jr = kernels.hinge_jacobian(t["anchor"], t["axis"], t["ee"])
        tgt, fing = kernels.arm_targets(
            _t(a), t["q"], jp, jr, t["qrange"], c.pos_scale, c.rot_scale, c.ik_damping
        )
        njp, njr = kernels.hinge_jacobian(s["anchor"], s["axis"], s["ee"])
        ntgt, _ = kernels.arm_targets(
            a, s["q"], njp, njr, s["qrange"], c.pos_scale, c.rot_scale, c.ik_damping
        )
        assert np.allclose(tgt.numpy(), ntgt, atol=1e-10)
        obs, rew, term, trunc, info = env.step(a)
        after = _gather(env)
        # the env's controller wrote exactly these targets before the physics step
        assert np.allclose(after["ctrl_arm"], tgt.numpy(), atol=1e-10)
        assert np.array_equal(after["ctrl_fingers"], fing.numpy())
        for dtype, tol in ((torch.float64, 1e-6), (torch.float32, 1e-4)):
            ta = {k: _t(v, dtype) for k, v in after.items()}
            prop = kernels.proprioception(ta["q"], ta["dq"], ta["fingers"], ta["ee"], ta["quat"], ta["base"])
            slots = kernels.slot_features(
                ta["xpos"], ta["xmat"], ta["site_xpos"], ta["site_xmat"], ta["kind"], ta["ids"], ta["base"]
            )
            mine = torch.cat([_t(a, dtype), ta["code"], prop, slots], 1).double().numpy()
            assert np.allclose(mine, obs, atol=tol), (step, np.abs(mine - obs).max())
            r = kernels.task_reward(
                _t(info["success"]), _t(a, dtype), _t(prev, dtype), ta["q"], ta["dq"], ta["qrange"], c.reward
            )
            assert np.allclose(r["reward"].double().numpy(), rew, atol=tol)
            for k in ("r_smooth", "r_action", "r_joint_vel", "r_joint_limit", "r_vel_limit"):
                assert np.allclose(r[k].double().numpy(), info[k], rtol=tol, atol=1e-9), k
        assert np.abs(obs[:, 66:69]).max() < 1.5 and np.any(obs[:, 50:57] != 0)  # real, moving states
        prev = a


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_goal_tests_on_torch_equal_the_recorded_reference(goal_env, dtype):
    """The same goal tests on torch tensors: equal to the numpy reference in float64; in float32 the
    states within rounding of a threshold may flip (at most 1 in 200 per formula here)."""
    ref = np.load(REF / "goals.npz")
    got = goal_results(goal_env, lambda v: torch.as_tensor(v, dtype=dtype))
    for tid, v in got.items():
        want = ref[tid.replace("/", ":")]
        if dtype == torch.float64:
            assert np.array_equal(v, want), (tid, np.flatnonzero(v != want))
        else:
            assert (v != want).sum(axis=1).max() <= 1, tid


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
