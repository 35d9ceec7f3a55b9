"""HeberoWarpBatch's batched logic (control, observation, success, reward, autoreset) on the CPU.

The GPU simulator (WarpGroup) is replaced by a stand-in that steps each world with MuJoCo on the
CPU and exposes the same torch views; everything else is the GPU backend's own code.
"""

import mujoco
import numpy as np
import pytest
import torch
from conftest import fixture_path

import simkit.envs.hebero_warp as hw
import simkit.sims.mujoco_warp_batch as mwb
from simkit.scenes.bddl import compile_task, suite_files
from simkit.sims.layout_models import export_groups

VIEWS = ("qpos", "qvel", "ctrl", "xpos", "xquat", "xanchor", "xaxis", "site_xpos", "mocap_pos", "mocap_quat")


class CpuGroup:
    """WarpGroup's interface over one MuJoCo CPU (model, data) per world."""

    def __init__(self, mjm, nworld, substeps=25, nconmax=96, njmax=384, solver=None):
        mwb.apply_solver_options(mjm, solver)
        self.m, self.nworld, self.substeps = mjm, nworld, substeps
        self.datas = [mujoco.MjData(mjm) for _ in range(nworld)]
        d = self.datas[0]
        self.t = {k: torch.zeros(nworld, *np.shape(getattr(d, k))) for k in VIEWS}
        self.t["xmat"] = torch.zeros(nworld, mjm.nbody, 3, 3)
        self.t["site_xmat"] = torch.zeros(nworld, mjm.nsite, 3, 3)
        self.t["body_gravcomp"] = torch.zeros(nworld, mjm.nbody)
        self.t["contact_geom"] = torch.zeros(nworld * 400, 2, dtype=torch.int32)
        self.t["contact_world"] = torch.zeros(nworld * 400, dtype=torch.int32)
        self.t["nacon"] = torch.zeros(1, dtype=torch.int32)
        self.t["solver_niter"] = torch.zeros(nworld, dtype=torch.int32)
        self.stream = None

    def capture(self):
        pass

    def _run(self, fn):
        c = 0
        for w, d in enumerate(self.datas):
            self.m.body_gravcomp[:] = self.t["body_gravcomp"][w].double().numpy()
            for k in ("qpos", "qvel", "ctrl", "mocap_pos", "mocap_quat"):
                getattr(d, k)[:] = self.t[k][w].double().numpy()
            fn(d)
            for k in VIEWS:
                self.t[k][w] = torch.as_tensor(np.array(getattr(d, k))).view_as(self.t[k][w])
            self.t["xmat"][w] = torch.as_tensor(d.xmat).view(-1, 3, 3)
            self.t["site_xmat"][w] = torch.as_tensor(d.site_xmat).view(-1, 3, 3)
            n = d.ncon
            self.t["contact_geom"][c : c + n] = torch.as_tensor(np.array(d.contact.geom[:n]).reshape(-1, 2))
            self.t["contact_world"][c : c + n] = w
            c += n
        self.t["nacon"][0] = c

    def launch(self, after=None):
        def steps(d):
            for _ in range(self.substeps):
                mujoco.mj_step(self.m, d)

        self._run(steps)

    def forward(self):
        self._run(lambda d: mujoco.mj_forward(self.m, d))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    root = fixture_path("libero")
    files = {p.stem: (i, p) for i, p in suite_files(root, "goal")}
    descs = [
        compile_task(files[n][1], "goal", files[n][0], root)
        for n in ("turn_on_the_stove", "put_the_bowl_on_the_plate")
    ]
    out = tmp_path_factory.mktemp("cache")
    export_groups(descs, root, out, bank=2)
    return out, [d["task_id"] for d in descs]


@pytest.fixture
def cpu_backend(monkeypatch):
    monkeypatch.setattr(hw, "DEVICE", "cpu")
    monkeypatch.setattr(mwb, "require_gpu", lambda: (None, None, torch))
    monkeypatch.setattr(mwb, "WarpGroup", CpuGroup)


def test_warp_env_logic_on_cpu(cache, cpu_backend):
    out, tasks = cache
    env = hw.HeberoWarpBatch(out, 4, config=hw.WarpEnvConfig(max_steps=3))
    assert env.task_ids == tasks and env.map.env_task.tolist() == [0, 1, 0, 1]
    obs = env.reset(seed=0)
    assert obs.shape == (4, 300) and torch.isfinite(obs).all()
    assert torch.all(obs[:, :7] == 0)
    g = env.groups[0]
    # task code slot: the descriptors' codes; pose buffer from the bank's kinematics = a fresh forward
    assert torch.equal(obs[:, 7:43], env.task_code)
    before = obs.clone()
    g.sim.forward()
    env._observe(g)
    assert torch.allclose(env.obs[:, 43:], before[:, 43:], atol=1e-5)
    # one step: prev action in the observation, finite reward, arm moved towards +x
    site_x0 = g.sim.t["site_xpos"][:, g.site, 0].clone()
    a = torch.zeros(4, 7)
    a[:, 0] = 1.0
    obs, rew, term, trunc, succ = env.step(a)
    assert torch.allclose(obs[:, :7], a)
    assert torch.isfinite(rew).all() and not term.any() and not trunc.any()
    assert torch.all(g.sim.t["site_xpos"][:, g.site, 0] - site_x0 > 0.01)
    # truncation after max_steps resets every env: previous action cleared, step counter restarted
    env.step(a)
    obs, rew, term, trunc, succ = env.step(a)
    assert trunc.all() and torch.all(obs[:, :7] == 0) and torch.all(env.steps == 0)


def test_warp_env_success_terminates_and_resets(cache, cpu_backend):
    out, tasks = cache
    env = hw.HeberoWarpBatch(out, 2, config=hw.WarpEnvConfig(max_steps=100))
    env.reset(seed=0)
    g = env.groups[0]
    stove = [int(a) for a in g.prog["qadr"][0, 0] if a >= 0]  # env 0: turn_on_the_stove
    assert stove
    g.sim.t["qpos"][0, stove] = 1.0  # knob past its 0.5 rad threshold
    g.sim.forward()
    obs, rew, term, trunc, succ = env.step(torch.zeros(2, 7))
    assert term.tolist() == [True, False] and succ.tolist() == [True, False]
    assert rew[0] > 0.5 > rew[1]  # w_succ = 1 minus small penalties
    # the succeeded env restarted from its bank: knob back at the init value, counter at 0
    assert float(g.sim.t["qpos"][0, stove[0]]) < 0.5 and int(env.steps[0]) == 0


def test_solver_overrides_reach_the_model(cache, cpu_backend):
    out, _ = cache
    cfg = hw.WarpEnvConfig(iterations=12, ls_iterations=7, tolerance=1e-6)
    env = hw.HeberoWarpBatch(out, 2, config=cfg)
    opt = env.groups[0].sim.m.opt
    assert (opt.iterations, opt.ls_iterations, opt.tolerance) == (12, 7, 1e-6)
    default = hw.HeberoWarpBatch(out, 2).groups[0].sim.m.opt
    assert (default.iterations, default.ls_iterations, default.tolerance) == (100, 50, 1e-8)
    with pytest.raises(ValueError, match="iterations must be > 0"):
        mwb.apply_solver_options(default_model(out), {"iterations": 0})
    with pytest.raises(ValueError, match="unknown solver option"):
        mwb.apply_solver_options(default_model(out), {"noslip": 3})


def default_model(out):
    return mujoco.MjModel.from_binary_path(str(out / "group_0.mjb"))
