"""The torch kernels (GPU backend) equal the numpy kernels (CPU backend): random inputs and real env states."""

import numpy as np
import pytest
import torch

from simkit.envs.hebero import kernels
from simkit.envs.hebero import torch_kernels as tk
from simkit.envs.hebero.config import RewardWeights
from simkit.envs.hebero.vector_env import HeberoVectorEnv

GOAL = [
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
def test_random_inputs_equal_numpy(dtype, tol):
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
    tjp, tjr = tk.hinge_jacobian(_t(anchor, dtype), _t(axis, dtype), _t(ee, dtype))
    assert np.allclose(tjp.double().numpy(), jp, atol=tol) and np.allclose(tjr.double().numpy(), jr, atol=tol)
    for damping in (0.05, 0.3):
        tgt, fing = kernels.arm_targets(a, q, jp, jr, qrange, 0.05, 0.5, damping)
        ttgt, tfing = tk.arm_targets(
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
    got = tk.slot_features(
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
    got_c = tk.slot_features(
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
    got_p = tk.proprioception(*(_t(x, dtype) for x in (q, dq, fingers, ee, quat, base)))
    assert np.allclose(got_p.double().numpy(), want_p, atol=tol)
    # reward: every term, with joint and speed limits exceeded in some envs
    w = RewardWeights(success=7.0, joint_limit=2.0)
    succ = rng.random(n) < 0.5
    prev = rng.uniform(-1, 1, (n, 7))
    want_r = kernels.task_reward(succ, a, prev, q, dq, qrange, w)
    got_r = tk.task_reward(
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

    env = gymnasium.make_vec("simkit/Hebero-v0", num_envs=3, tasks=GOAL, backend="cpu").unwrapped
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


def test_real_env_states_equal_numpy_and_the_env(cpu_env):
    """On the CPU env's own states (3 goal tasks, random actions), the torch kernels reproduce what the
    env wrote: the controller's actuator targets, the 300-dim observation and the reward terms."""
    env, c = cpu_env, cpu_env.cfg
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(1)
    prev = np.zeros((3, 7))
    for step in range(6):
        a = rng.uniform(-1, 1, (3, 7))
        s = _gather(env)
        t = {k: _t(v) for k, v in s.items()}
        jp, jr = tk.hinge_jacobian(t["anchor"], t["axis"], t["ee"])
        tgt, fing = tk.arm_targets(_t(a), t["q"], jp, jr, t["qrange"], c.pos_scale, c.rot_scale, c.ik_damping)
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
            prop = tk.proprioception(ta["q"], ta["dq"], ta["fingers"], ta["ee"], ta["quat"], ta["base"])
            slots = tk.slot_features(
                ta["xpos"], ta["xmat"], ta["site_xpos"], ta["site_xmat"], ta["kind"], ta["ids"], ta["base"]
            )
            mine = torch.cat([_t(a, dtype), ta["code"], prop, slots], 1).double().numpy()
            assert np.allclose(mine, obs, atol=tol), (step, np.abs(mine - obs).max())
            r = tk.task_reward(
                _t(info["success"]), _t(a, dtype), _t(prev, dtype), ta["q"], ta["dq"], ta["qrange"], c.reward
            )
            assert np.allclose(r["reward"].double().numpy(), rew, atol=tol)
            for k in ("r_smooth", "r_action", "r_joint_vel", "r_joint_limit", "r_vel_limit"):
                assert np.allclose(r[k].double().numpy(), info[k], rtol=tol, atol=1e-9), k
        assert np.abs(obs[:, 66:69]).max() < 1.5 and np.any(obs[:, 50:57] != 0)  # real, moving states
        prev = a
