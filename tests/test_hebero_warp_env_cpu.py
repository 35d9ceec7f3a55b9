"""HeberoWarpBatch's batched logic (control, observation, success, reward, autoreset) on the CPU.

The GPU simulator (WarpGroup) is replaced by a stand-in that steps each world with MuJoCo on the
CPU and exposes the same torch views; everything else is the GPU backend's own code.
"""

import mujoco
import numpy as np
import pytest
import torch

import simkit.envs.hebero.warp as hw
import simkit.sims.hebero.warp_batch as mwb
from simkit.core.errors import InputError
from simkit.scenes.hebero import compile_task, suite_files
from simkit.sims.hebero.layout_models import export_groups

VIEWS = ("qpos", "qvel", "ctrl", "xpos", "xquat", "xanchor", "xaxis", "site_xpos", "mocap_pos", "mocap_quat")


class CpuGroup:
    """WarpGroup's interface over one MuJoCo CPU (model, data) per world."""

    def __init__(self, mjm, nworld, substeps=25, nconmax=96, njmax=384, solver=None, overrides=None):
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
        #: after the substeps compute the position stage at the new state, like the CPU backend
        self.position_stage = True

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
            if self.position_stage:
                mujoco.mj_fwdPosition(self.m, d)  # kinematics and contacts at the new state

        self._run(steps)

    def forward(self):
        self._run(lambda d: mujoco.mj_forward(self.m, d))


@pytest.fixture(scope="module")
def cache(tmp_path_factory, libero_root):
    root = libero_root
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
    env = hw.HeberoWarpBatch(out, 4, config={"horizon": 3})
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
    # truncation after horizon steps resets every env: previous action cleared, step counter restarted
    env.step(a)
    obs, rew, term, trunc, succ = env.step(a)
    assert trunc.all() and torch.all(obs[:, :7] == 0) and torch.all(env.steps == 0)


def test_warp_env_success_terminates_and_resets(cache, cpu_backend):
    out, tasks = cache
    env = hw.HeberoWarpBatch(out, 2, config={"horizon": 100})
    env.reset(seed=0)
    g = env.groups[0]
    stove = [int(a) for a in g.prog["qadr"][0, 0] if a >= 0]  # env 0: turn_on_the_stove
    assert stove
    g.sim.t["qpos"][0, stove] = 1.0  # knob past its 0.5 rad threshold
    g.sim.forward()
    obs, rew, term, trunc, succ = env.step(torch.zeros(2, 7))
    assert term.tolist() == [True, False] and succ.tolist() == [True, False]
    assert rew[0] > 5 > 0.5 > rew[1]  # w_succ = 10 (HeberoConfig) minus small penalties
    # the succeeded env restarted from its bank: knob back at the init value, counter at 0
    assert float(g.sim.t["qpos"][0, stove[0]]) < 0.5 and int(env.steps[0]) == 0


def _agreement_tool():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "hebero_gpu_agreement.py"
    spec = importlib.util.spec_from_file_location("hebero_gpu_agreement", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def cpu_env(cache, libero_root):
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    _, tasks = cache
    env = HeberoVectorEnv(num_envs=2, tasks=tasks, libero_root=libero_root, config={"bank_size": 2, **REPLAY})
    yield env
    env.close()


REPLAY = {"terminate_on_success": False, "horizon": 10**6}


def test_same_start_and_steps_as_the_cpu_env(cache, cpu_env, cpu_backend):
    """Bank entry b of the GPU env (union model, stand-in physics) is the CPU env's bank entry b (the
    task's own model): the same 300-dim observation; the same actions then give the same observations
    and rewards (float32 state on the GPU side)."""
    out, tasks = cache
    gpu = hw.HeberoWarpBatch(
        out, 2, config={"bank_size": 2, **REPLAY}, warp=hw.WarpEnvConfig(autoreset=False)
    )
    starts = []
    for entry in (0, 1):
        og = gpu.reset_to_bank(entry).double().numpy()
        oc, _ = cpu_env.reset(options={"bank_entry": entry})
        assert np.allclose(og, oc, atol=1e-5), np.abs(og - oc).max()
        starts.append(oc.copy())
    assert np.abs(starts[0][:, 66:] - starts[1][:, 66:]).max() > 0.01  # the two entries are two layouts
    rng = np.random.default_rng(0)
    a = np.zeros((2, 7))
    for _ in range(8):
        a = np.clip(a + rng.normal(0, 0.3, (2, 7)), -1, 1)
        oc, rc, tc, uc, ic = cpu_env.step(a)
        og, rg, tg, ug, sg = gpu.step(torch.as_tensor(a, dtype=torch.float32))
        assert np.allclose(og.double().numpy(), oc, atol=2e-5), np.abs(og.double().numpy() - oc).max()
        assert np.allclose(rg.double().numpy(), rc, rtol=1e-3, atol=1e-4)
        assert sg.numpy().tolist() == ic["success"].tolist()
    with pytest.raises(InputError, match="bank entry"):
        gpu.reset_to_bank(2)
    with pytest.raises(InputError, match="bank_entry"):
        cpu_env.reset(options={"bank_entry": 5})


@pytest.mark.slow
def test_scripted_demos_agree_from_bank_starts(cache, cpu_env, cpu_backend):
    """The agreement tool's pipeline on 2 goal tasks: scripted demos recorded in the CPU env from bank
    entry 0 reach the goal; replayed there they give the same run bit for bit; replayed on the GPU
    env (stand-in physics) they reach the same predicate outcome with objects within 5 mm."""
    tool = _agreement_tool()
    out, tasks = cache
    actions = tool.record_demos(cpu_env, 300)
    assert actions.shape[0] == 2 and 20 < actions.shape[1] < 300
    cpu1, cpu2 = tool.replay_cpu(cpu_env, actions), tool.replay_cpu(cpu_env, actions)
    assert np.array_equal(cpu1["obs"], cpu2["obs"])  # deterministic replay
    assert cpu1["success"].any(0).all()  # both goals reached on the CPU
    gpu = hw.HeberoWarpBatch(
        out, 2, config={"bank_size": 2, **REPLAY}, warp=hw.WarpEnvConfig(autoreset=False)
    )
    report = tool.compare(cpu1, tool.replay_gpu(gpu, actions), tasks, steps=100)
    for tid, r in report.items():
        assert r["cpu_success"] and r["gpu_success"], (tid, r)
        assert r["max_slot_pos_err_m"] < 5e-3 and r["max_grip_pos_err_m"] < 5e-3, (tid, r)


def test_solver_settings_reach_both_backends(cache, cpu_backend, libero_root):
    """HeberoConfig's solver fields are written into the models of both backends (None keeps the model's)."""
    from simkit.envs.hebero.config import HeberoConfig
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    out, tasks = cache
    solver = {"solver_iterations": 7, "solver_ls_iterations": 3, "solver_tolerance": 1e-5}
    gpu = hw.HeberoWarpBatch(out, 2, config=solver)
    cpu = HeberoVectorEnv(num_envs=1, tasks=tasks[:1], libero_root=libero_root, **solver)
    for m in [g.sim.m for g in gpu.groups] + [t.model for t in cpu.tasks]:
        assert (m.opt.iterations, m.opt.ls_iterations, m.opt.tolerance) == (7, 3, 1e-5)
    cpu.close()
    model = hw.HeberoWarpBatch(out, 2).groups[0].sim.m  # defaults: the compiled model's own values
    HeberoConfig().apply_solver(model)
    assert (model.opt.iterations, model.opt.ls_iterations, model.opt.tolerance) == (100, 50, 1e-8)
    with pytest.raises(InputError, match="solver_iterations"):
        hw.HeberoWarpBatch(out, 2, config={"solver_iterations": 0})


def test_make_vec_warp_takes_the_cpu_config(cache, cpu_backend):
    """gymnasium.make_vec(..., backend="warp") takes the CPU backend's config dict and keyword fields;
    GPU-only knobs go in ``warp``; bad values are one InputError line."""
    import gymnasium

    out, tasks = cache
    kw = {"num_envs": 2, "tasks": tasks, "backend": "warp", "cache_dir": out, "output": "numpy"}
    env = gymnasium.make_vec(
        "simkit/Hebero-v0",
        **kw,
        config={"horizon": 5, "pos_scale": 0.02},
        max_episode_steps=4,
        warp={"nconmax": 32},
    )
    batch = env.unwrapped.batch
    assert (batch.config.horizon, batch.config.pos_scale, batch.cfg.nconmax) == (4, 0.02, 32)
    assert batch.groups[0].sim.substeps == 25  # round(1 / (20 Hz * 2 ms))
    obs, info = env.reset(seed=0)
    obs, rew, term, trunc, info = env.step(np.zeros((2, 7), np.float32))
    assert obs.shape == (2, 300) and isinstance(obs, np.ndarray)
    assert np.allclose(rew, -info["r_joint_vel"] - info["r_joint_limit"] - info["r_vel_limit"], atol=1e-6)
    assert np.all(info["r_smooth"] == 0) and np.all(info["r_goal"] == 0)
    for bad, match in (({"config": {"horizon": 0}}, "horizon"), ({"ik_gain": 1.0}, "ik_gain")):
        with pytest.raises(InputError, match=match):
            gymnasium.make_vec("simkit/Hebero-v0", **kw, **bad)
    with pytest.raises(InputError, match="render"):
        gymnasium.make_vec("simkit/Hebero-v0", **kw, render_mode="rgb_array")


def test_cpu_bank_mode_draws_bank_entries_deterministically(cpu_env):
    """reset_mode="bank": every reset starts each env from one of its task's bank entries, drawn by the
    env's own seeded generator (same seed, same entries)."""
    starts = [cpu_env.reset(options={"bank_entry": b})[0].copy() for b in (0, 1)]
    cpu_env.cfg.reset_mode = "bank"
    try:
        seen = set()
        for seed in range(12):
            obs = cpu_env.reset(seed=seed)[0]
            assert np.array_equal(obs, cpu_env.reset(seed=seed)[0])
            for i in range(2):
                hit = [b for b in (0, 1) if np.array_equal(obs[i], starts[b][i])]
                assert len(hit) == 1, (seed, i)
                seen.add((i, hit[0]))
        assert seen == {(0, 0), (0, 1), (1, 0), (1, 1)}  # both entries drawn for both tasks
    finally:
        cpu_env.cfg.reset_mode = "fresh"
    fresh = cpu_env.reset(seed=0)[0]
    assert not any(np.array_equal(fresh[0], s[0]) for s in starts)  # a fresh layout is none of them


def test_solver_overrides_reach_the_model(cache, cpu_backend):
    out, _ = cache
    cfg = hw.WarpEnvConfig(iterations=12, ls_iterations=7, tolerance=1e-6)
    # the GPU-only overrides win over HeberoConfig's shared solver fields
    env = hw.HeberoWarpBatch(out, 2, config={"solver_iterations": 30}, warp=cfg)
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


# ---- demos, demo-start resets, reset sources on the GPU backend (stand-in physics)

DEMO_TASKS = ["goal/turn_on_the_stove", "goal/put_the_bowl_on_the_plate"]


@pytest.fixture(scope="module")
def corpus_path(tmp_path_factory):
    """A tiny hebero-demos corpus: two demos per task (engine, 40 steps each)."""
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("demos") / "corpus"
    cmd = [
        sys.executable,
        "-m",
        "simkit",
        "generate",
        "hebero-demos",
        "--n",
        "4",
        "--out",
        str(out),
        "--seed",
        "1",
        "--set",
        f"tasks=[{','.join(DEMO_TASKS)}]",
        "--set",
        "max_steps=40",
        "--set",
        "require_success=false",
    ]  # fmt: skip  40 steps: short, unfinished demos
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def corpus_demos(corpus_path):
    """The demos of :func:`corpus_path`, read back."""
    from simkit.envs.hebero.stream import demos_from_samples
    from simkit.episodes.reader import iter_corpus

    demos = demos_from_samples(iter_corpus(corpus_path))
    assert sorted(demos) == sorted(DEMO_TASKS) and all(len(v) == 2 for v in demos.values())
    return demos


def _shared_models(gpu, cpu_env):
    """The CPU env's task models (the same scenes) as the GPU env's mapping source: built once."""
    gpu.task_models = dict(zip(cpu_env.task_names, cpu_env.tasks))
    return gpu


def test_state_map_puts_cpu_bank_states_on_the_union_model(cache, cpu_env, cpu_backend):
    """A CPU task-model state mapped onto the union model by name is the cache's own bank entry there:
    same qpos, mocap poses and kinematics (the bank was written from the same layouts)."""
    out, tasks = cache
    gpu = _shared_models(hw.HeberoWarpBatch(out, 2), cpu_env)
    tms = gpu.task_models
    g = gpu.groups[0]
    for tid in tasks:
        t = g.cache_tasks.index(tid)
        rows = g.union_rows(tid, tms[tid].model, np.stack([tms[tid].bank_state(b) for b in (0, 1)]))
        bank = g.pool.sections["bank"][t][0]
        for k in ("qpos", "mocap_pos", "mocap_quat", "xpos", "site_xpos", "xmat"):
            assert np.allclose(rows[k], bank[k], atol=1e-6), (tid, k, np.abs(rows[k] - bank[k]).max())
        assert np.all(rows["qvel"] == 0)


def test_r_demo_and_phi_agree_with_the_cpu_env(cache, cpu_env, cpu_backend, corpus_demos):
    """Demo-start reset on the CPU env, the same demo and cursor on the GPU env (stand-in physics):
    the same first observation (the demo's state at the cursor); replaying the demo's actions from
    there, both give the same phi and r_demo, near its maximum (every pose term tracked)."""
    out, tasks = cache
    gpu = hw.HeberoWarpBatch(out, 2, config=REPLAY, warp=hw.WarpEnvConfig(autoreset=False))
    _shared_models(gpu, cpu_env).set_demos(corpus_demos)
    cpu_env.set_demos(corpus_demos, demo_start=True)
    try:
        oc, _ = cpu_env.reset(seed=3)
        demo, r = cpu_env.stream.demo.copy(), cpu_env.stream.r.copy()
        og = gpu.reset_to_demo(torch.as_tensor(demo), torch.as_tensor(r)).double().numpy()
        assert np.allclose(og, oc, atol=2e-5), np.abs(og - oc).max()
        ds = [corpus_demos[cpu_env.task_names[e]][demo[e]] for e in range(2)]
        w = cpu_env.cfg.demo_reward
        top = w.ee_pos + w.arm_qpos + w.arm_qvel + w.gripper + w.objects + w.articulation
        for k in range(4):
            a = np.stack([d.actions[min(r[e] + k, d.length - 1)] for e, d in enumerate(ds)])
            _, _, _, _, ic = cpu_env.step(a)
            gpu.step(torch.as_tensor(a, dtype=torch.float32))
            tg = {n: v.double().numpy() for n, v in gpu.demo_terms.items()}
            assert np.allclose(tg["phi"], ic["phi"], atol=1e-6) and np.array_equal(
                tg["demo_id"], ic["demo_id"]
            )
            assert np.allclose(tg["r_demo"], ic["r_demo"], atol=2e-3), (tg["r_demo"], ic["r_demo"])
            assert np.all(ic["r_demo"] > top - w.arm_qvel - 0.05)
            # the action reference: the demo's action at the new cursor (the next action replayed)
            nxt = np.stack([d.actions[min(r[e] + k + 1, d.length - 1)] for e, d in enumerate(ds)])
            assert np.array_equal(ic["a_demo"], nxt) and np.allclose(tg["a_demo"], nxt, atol=1e-7)
    finally:
        cpu_env.stream = None


def test_demo_pack_round_trip(corpus_demos, tmp_path):
    """A demo pack holds every demo's arrays (to float32 precision) and column names; a file that is
    no pack gives one InputError naming it."""
    from simkit.envs.hebero.stream import PACK_FIELDS, load_demo_pack, save_demo_pack

    back = load_demo_pack(save_demo_pack(corpus_demos, tmp_path / "demos.npz"))
    assert sorted(back) == sorted(corpus_demos)
    for tid, pool in corpus_demos.items():
        assert len(back[tid]) == len(pool)
        for a, b in zip(pool, back[tid]):
            assert (a.seed, a.success, a.object_names, a.articulation_names) == (
                b.seed,
                b.success,
                b.object_names,
                b.articulation_names,
            )
            for f in PACK_FIELDS:
                x, y = getattr(a, f), getattr(b, f)
                assert (
                    x.shape == y.shape and x.dtype == y.dtype and np.allclose(x, y, rtol=1e-6, atol=1e-6)
                ), f
    bad = tmp_path / "bad.npz"
    bad.write_text("no zip")
    with pytest.raises(InputError, match="demo pack"):
        load_demo_pack(bad)


def test_demo_dataset_pairs_every_demo_state_with_its_action(cache, cpu_env, cpu_backend, corpus_demos):
    """Behaviour-cloning pairs on the GPU env: every (demo, cursor m < T) exactly once, even where a
    task has fewer envs than demos (3 envs: task 1 has one env for its two demos): the observation
    holds the demo's arm joints at m and its action m - 1 as the previous action; the label is action m."""
    out, tasks = cache
    gpu = _shared_models(hw.HeberoWarpBatch(out, 3, config=REPLAY), cpu_env)
    gpu.set_demos(corpus_demos)
    data = gpu.demo_dataset()
    for k, tid in enumerate(tasks):
        ds = corpus_demos[tid]
        rows = data["task"] == k
        assert int(rows.sum()) == sum(d.length for d in ds)
        got = torch.cat([data["obs"][rows][:, 43:50], data["obs"][rows][:, :7], data["actions"][rows]], 1)
        want = np.concatenate(
            [
                np.concatenate([d.joint_states[:-1], np.vstack([np.zeros(7), d.actions[:-1]]), d.actions], 1)
                for d in ds
            ]
        )
        got_s, want_s = got.double().numpy(), want
        got_s, want_s = got_s[np.lexsort(got_s.T[::-1])], want_s[np.lexsort(want_s.T[::-1])]
        assert np.allclose(got_s, want_s, atol=2e-5), np.abs(got_s - want_s).max()
    # from the first motion: a demo's leading still steps (the settle phase) are left out, nothing else
    moved = gpu.demo_dataset(from_first_motion=True)
    for k, tid in enumerate(tasks):
        first = [int(np.argmax(np.abs(d.actions[:, :6]).sum(1) > 0)) for d in corpus_demos[tid]]
        assert all(f > 0 for f in first)  # the scripted demos wait while the objects settle
        rows = moved["task"] == k
        assert int(rows.sum()) == sum(d.length - f for d, f in zip(corpus_demos[tid], first))
        assert torch.all(moved["actions"][rows][:, :6].abs().sum(1)[:1] > 0)


def test_trainer_clones_the_demos_and_resumes_on_the_gpu_env(
    cache, cpu_backend, corpus_path, corpus_demos, tmp_path
):
    """tools/train_hebero.py on the GPU env (stand-in physics): behaviour cloning on every demo pair
    lowers the loss; --session-s pauses the run with its state kept and --resume finishes it without
    cloning again (one PPO iteration with BC steps, the evaluation, the table)."""
    import importlib.util
    import json
    from pathlib import Path

    pytest.importorskip("rsl_rl")
    path = Path(__file__).resolve().parents[1] / "tools" / "train_hebero.py"
    spec = importlib.util.spec_from_file_location("train_hebero", path)
    trainer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trainer)
    cache_dir, tasks = cache
    out = tmp_path / "run"
    argv = ["--tasks", ",".join(tasks), "--backend", "warp", "--cache", str(cache_dir), "--num-envs", "2",
            "--budget-s", "0.01", "--horizon", "4", "--steps-per-env", "2", "--variants", "demo",
            "--demos", str(corpus_path), "--bc-epochs", "40", "--bc-steps", "2", "--bc-batch", "64",
            "--init-std", "0.2", "--curriculum", "--p-demo", "0.5", "--out", str(out)]  # fmt: skip
    assert trainer.main([*argv, "--session-s", "1e-9"]) == 0
    state = json.loads((out / "demo" / "state.json").read_text())
    assert state["it"] == 0 and not (out / "results.json").exists()
    bc = state["bc"]
    # the pairs from each demo's first arm motion on (the trainer's default; --bc-settle keeps the rest)
    first = [int(np.argmax(np.abs(d.actions[:, :6]).sum(1) > 0)) for v in corpus_demos.values() for d in v]
    assert bc["pairs"] == sum(d.length for v in corpus_demos.values() for d in v) - sum(first)
    assert len(bc["losses"]) == 40 and bc["losses"][-1] < 0.5 * bc["losses"][0], bc
    assert trainer.main([*argv, "--resume"]) == 0
    res = json.loads((out / "results.json").read_text())["results"]["demo"]
    assert res["iterations"] == 1 and res["bc"] == bc and list(res["tasks"]) == tasks
    assert res["p_demo"] == 0.5 and len(res["start_lo"]) == len(tasks)  # the curriculum's windows
    assert all(0.65 - 1e-9 <= lo <= 0.75 for lo in res["start_lo"])  # one update at most moved each
    assert (
        res["curve"][-1]["eval_sr"] == res["tasks"] and (out / "demo" / "checkpoints" / "policy.pt").exists()
    )


def test_demo_start_autoreset_and_final_info_on_the_gpu_env(cache, cpu_env, cpu_backend, corpus_demos):
    """RFCL-style demo starts on the GPU env: every autoreset puts an env at its demo's state at a
    fresh random cursor (arm joints = the demo's at r_e, phi = r_e / (T - 1) after the reset);
    Gymnasium's same-step keys mark exactly the finished envs."""
    out, tasks = cache
    batch = hw.HeberoWarpBatch(out, 2, config={"horizon": 2, "terminate_on_success": False})
    env = hw.HeberoWarpVecEnv(_shared_models(batch, cpu_env), "numpy")
    env.set_demos(corpus_demos, demo_start=True)
    seen = set()
    obs, _ = env.reset(seed=0)
    for step in range(6):
        st = batch.stream
        for e in range(2 if step % 2 == 0 else 0):  # just reset (horizon 2): at the demo's state at r_e
            d = corpus_demos[tasks[e]][int(st.demo[e])]
            assert np.allclose(obs[e, 43:50], d.joint_states[int(st.r[e])], atol=1e-5), (step, e)
            seen.add((e, int(st.demo[e]), int(st.r[e])))
        # a constant action: the previous-action part of an observation tells a finished episode's last
        # observation from the one a reset returns, also where the demo holds still (its settle steps)
        obs, _, term, trunc, info = env.step(np.full((2, 7), 0.1, np.float32))
        assert info["r_demo"].shape == (2,) and np.all(info["r_demo"] > 0)
        if step % 2 == 0:
            assert "final_obs" not in info and not trunc.any()
        else:
            assert trunc.all() and info["_final_obs"].all() and info["_final_info"].all()
            assert info["final_obs"][0].shape == (300,) and not np.allclose(info["final_obs"][0], obs[0])
            assert np.allclose(info["final_obs"][0][:7], 0.1) and np.allclose(obs[0, :7], 0.0)
            assert np.array_equal(info["final_info"]["phi"], info["phi"])
    assert len(seen) > 4  # fresh draws of demo and cursor at every reset


def test_reverse_curriculum_narrows_demo_starts_on_both_backends(cache, cpu_env, cpu_backend, corpus_demos):
    """StartCurriculum's window on both command streams: lo = 1 puts every demo start at the demo's
    last state (r_e = T - 1, the arm where the demo ends), p_demo = 0 gives the env's own starts
    (r_e = 0, not from a demo); the demo-started episodes' ends are counted per task."""
    from simkit.envs.hebero.stream import StartCurriculum

    out, tasks = cache
    batch = hw.HeberoWarpBatch(out, 2, config={"horizon": 2, "terminate_on_success": False})
    gpu = hw.HeberoWarpVecEnv(_shared_models(batch, cpu_env), "numpy")
    gpu.set_demos(corpus_demos, demo_start=True)
    cpu_env.set_demos(corpus_demos, demo_start=True)
    for env, st_of in ((gpu, lambda: batch.stream), (cpu_env, lambda: cpu_env.stream)):
        st_of().set_start_window([1.0, 1.0], 1.0, 1.0)
        obs, _ = env.reset(seed=3)
        st = st_of()
        for e in range(2):
            d = corpus_demos[tasks[e]][int(st.demo[e])]
            assert int(st.r[e]) == d.length - 1 and bool(st.from_demo[e])
            assert np.allclose(obs[e, 43:50], d.joint_states[d.length - 1], atol=1e-5)
        if env is cpu_env:  # this env's horizon is 10**6: one step before it, so both episodes end
            cpu_env.elapsed[:] = cpu_env.cfg.horizon - 1
        for _ in range(2 if env is gpu else 1):  # the GPU env's horizon is 2
            env.step(np.zeros((2, 7), np.float32))
        stats = st.pop_demo_start_stats()
        assert stats[:, 0].tolist() == [1, 1] and (stats[:, 1] <= 1).all()
        assert st.pop_demo_start_stats().sum() == 0  # popped
        st.set_start_window([0.5, 0.5], 0.8, 1.0)
        for seed in range(4):  # a window in the middle: r_e in [floor(0.5 T), ceil(0.8 T))
            env.reset(seed=seed)
            for e in range(2):
                T = corpus_demos[tasks[e]][int(st.demo[e])].length
                assert int(np.floor(0.5 * T)) <= int(st.r[e]) < int(np.ceil(0.8 * T)), (seed, e, T)
        st.set_start_window([0.5, 0.5], 0.8, 0.0)
        env.reset(seed=3)
        assert not np.asarray(st.from_demo).any() and np.asarray(st.r).tolist() == [0, 0]
    cur = StartCurriculum(3, start=0.75, width=0.3, step=0.1, threshold=0.6, min_episodes=8)
    lo = cur.update(np.array([[10, 7], [10, 5], [4, 4]]))  # passes; below the rate; too few episodes
    assert np.allclose(lo, [0.65, 0.75, 0.75]) and np.allclose(cur.hi, [0.95, 1.0, 1.0])
    for _ in range(10):
        lo = cur.update(np.array([[8, 8], [0, 0], [0, 0]]))
    assert np.allclose(lo, [0.0, 0.75, 0.75])


def test_init_states_and_reset_boxes_on_the_gpu_env(cache, cpu_env, cpu_backend, corpus_demos):
    """LIBERO's fixed initial state k is the CPU env's on the GPU env too; reset boxes from the demos'
    starts make autoresets draw the objects inside their boxes."""
    from simkit.envs.hebero.vector_env import demo_boxes

    out, tasks = cache
    env = hw.HeberoWarpVecEnv(
        _shared_models(hw.HeberoWarpBatch(out, 2, config={"bank_size": 2}), cpu_env), "numpy"
    )
    for k in (0, 7):
        og, _ = env.reset(options={"init_state": k})
        oc, _ = cpu_env.reset(options={"init_state": k})
        assert np.allclose(og, oc, atol=2e-5), np.abs(og - oc).max()
    with pytest.raises(InputError, match="init_state"):
        env.reset(options={"init_state": 50})
    with pytest.raises(InputError, match="reset options"):
        env.reset(options={"init_state": 0, "bank_entry": 0})
    boxes = {
        t: demo_boxes([d.object_poses[0] for d in v], v[0].object_names) for t, v in corpus_demos.items()
    }
    env.set_reset_boxes(boxes)
    g = env.batch.groups[0]
    for seed in range(3):
        env.reset(seed=seed)
        for e, tid in enumerate(tasks):
            names = g.names[tid]
            for obj, (x0, y0, x1, y1) in boxes[tid].items():
                bid = mujoco.mj_name2id(g.model, mujoco.mjtObj.mjOBJ_BODY, names[obj])
                x, y = g.sim.t["xpos"][e, bid, :2].tolist()
                assert x0 - 1e-4 <= x <= x1 + 1e-4 and y0 - 1e-4 <= y <= y1 + 1e-4, (tid, obj)
    with pytest.raises(InputError, match="reset source"):
        env.batch.set_reset_source("nowhere")


def test_libero_wait_on_the_gpu_env(cache, cpu_env, cpu_backend):
    """``init_wait`` (LIBERO's 5 zero-action steps after loading its state) gives the GPU env the CPU
    env's waited start states, on explicit resets and in the rows autoresets from the reset source
    'libero' draw; the states differ from the unwaited ones (objects dropped from LIBERO's heights)."""
    out, tasks = cache
    batch = hw.HeberoWarpBatch(out, 2, config={"bank_size": 2, "init_wait": 5})
    env = hw.HeberoWarpVecEnv(_shared_models(batch, cpu_env), "numpy")
    cpu_env.cfg.init_wait = 5
    try:
        for k in (0, 7):
            og, _ = env.reset(options={"init_state": k})
            oc, _ = cpu_env.reset(options={"init_state": k})
            assert np.allclose(og, oc, atol=2e-5), np.abs(og - oc).max()
        cpu_env.cfg.init_wait = 0
        o0, _ = cpu_env.reset(options={"init_state": 7})
        assert np.abs(o0[:, 66:] - oc[:, 66:]).max() > 1e-4  # the wait moved the objects
        # autoresets from the reset source 'libero' draw waited states too
        batch.set_reset_source("libero")
        rows = batch.groups[0].pool.sections["libero"]
        waited = {tid: cpu_env.tasks[cpu_env.task_names.index(tid)] for tid in tasks}
        g = batch.groups[0]
        for tid in tasks:
            t = g.cache_tasks.index(tid)
            want = g.union_rows(
                tid, waited[tid].model, waited[tid].libero_state(7, 5, cpu_env.substeps)[None]
            )
            assert np.allclose(rows[t][0]["qpos"][7], want["qpos"][0], atol=1e-12)
    finally:
        cpu_env.cfg.init_wait = 0


def test_rdemo_agreement_tool_on_the_stand_in(cache, cpu_env, cpu_backend, corpus_demos):
    """tools/hebero_gpu_agreement.py rdemo-gpu / rdemo-cpu pipeline: demo 0 of each task replayed from
    two cursors; the CPU and GPU r_demo agree per step, phi exactly."""
    tool = _agreement_tool()
    out, tasks = cache
    gpu = hw.HeberoWarpBatch(out, 2, config=tool.REPLAY, warp=hw.WarpEnvConfig(autoreset=False))
    _shared_models(gpu, cpu_env).set_demos(corpus_demos)
    res_g = tool.rdemo_gpu(gpu, corpus_demos, tasks, [0.0, 0.5], 3)
    try:
        res_c = tool.rdemo_cpu(cpu_env, corpus_demos, tasks, [0.0, 0.5], 3)
    finally:
        cpu_env.stream = None
    assert res_g["r_demo"].shape == res_c["r_demo"].shape == (2, 3, 2)
    for r in tool.compare_rdemo(res_c, res_g, tasks).values():
        assert r["max_r_demo_diff"] < 2e-3 and r["max_phi_diff"] < 1e-6 and r["mean_r_demo_cpu"] > 2.0, r


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_final_infos_follow_gymnasium_same_step_semantics(lib):
    """Only env 0 ended: final_obs[0] is its row, final_obs[1] None; final_info keeps env 0's values,
    zeros env 1's, with the masks Gymnasium's SyncVectorEnv writes."""
    from simkit.envs.hebero.vector_env import final_infos

    arr = np.array if lib == "numpy" else torch.tensor
    obs = arr([[1.0, 2.0], [3.0, 4.0]])
    info = {"success": arr([True, True]), "r_demo": arr([0.5, 0.7])}
    out = final_infos(obs, info, arr([True, False]))
    assert out["_final_obs"].tolist() == [True, False] and out["_final_info"].tolist() == [True, False]
    assert out["final_obs"].dtype == object and out["final_obs"][1] is None
    assert list(out["final_obs"][0]) == [1.0, 2.0]
    fin = out["final_info"]
    assert fin["success"].tolist() == [True, False] and fin["_success"].tolist() == [True, False]
    assert np.allclose(np.asarray(fin["r_demo"]), [0.5, 0.0]) and type(fin["r_demo"]) is type(info["r_demo"])
