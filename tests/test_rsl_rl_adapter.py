"""rsl_rl's VecEnv adapter over the Hebero vector env, and tools/train_hebero.py with rsl_rl's PPO (CPU)."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simkit.core.errors import InputError

TASK = "goal/turn_on_the_stove"


def _trainer():
    path = Path(__file__).resolve().parents[1] / "tools" / "train_hebero.py"
    spec = importlib.util.spec_from_file_location("train_hebero", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_adapter_imports_without_rsl_rl_or_tensordict():
    code = "import sys, simkit.adapters.rsl_rl; print('rsl_rl' in sys.modules, 'tensordict' in sys.modules)"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.split() == ["False", "False"], res.stderr


def test_adapter_gives_rsl_rl_its_interface_on_the_cpu_env():
    pytest.importorskip("tensordict")
    import torch

    from simkit.adapters.rsl_rl import RslRlVecEnv
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    env = HeberoVectorEnv(num_envs=2, tasks=[TASK], horizon=2)
    venv = RslRlVecEnv(env, seed=0)
    assert (venv.num_envs, venv.num_actions, venv.max_episode_length) == (2, 7, 2)
    assert venv.device == torch.device("cpu") and venv.cfg["horizon"] == 2
    obs = venv.get_observations()
    assert obs["policy"].shape == (2, 300) and obs["policy"].dtype == torch.float32 and obs.batch_size == (2,)
    obs, rew, dones, extras = venv.step(torch.zeros(2, 7))
    assert rew.shape == (2,) and dones.tolist() == [0, 0] and not extras["time_outs"].any()
    assert venv.episode_length_buf.tolist() == [1, 1]
    obs, rew, dones, extras = venv.step(torch.zeros(2, 7))  # horizon: both truncate (time outs)
    assert dones.tolist() == [1, 1] and extras["time_outs"].tolist() == [True, True]
    assert venv.episode_length_buf.tolist() == [0, 0] and float(extras["log"]["/success"]) == 0.0
    assert venv.pop_episode_stats() == {0: [2, 0]} and venv.pop_episode_stats() == {}
    with pytest.raises(InputError, match="r_demo"):
        RslRlVecEnv(env, r_demo_weight=1.0).step(torch.zeros(2, 7))
    env.close()


def test_trainer_without_a_gpu_says_so_in_one_line(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    code = _trainer().main(["--backend", "warp", "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "GPU" in err[0], err


@pytest.mark.slow
def test_trainer_runs_rsl_rl_ppo_and_the_eval_loads_its_checkpoint(tmp_path):
    """Both variants (env reward; r_demo + demo-start resets) run rsl_rl's PPO on the CPU backend,
    write results.json, the learning curve and a TorchScript checkpoint that ``simkit eval hebero
    --policy simkit.adapters.rsl_rl:load_policy --checkpoints DIR`` evaluates."""
    pytest.importorskip("rsl_rl")
    from simkit.adapters.rsl_rl import load_policy
    from simkit.eval.hebero.evaluate import evaluate

    out, demos = tmp_path / "run", tmp_path / "demos"
    argv = ["--tasks", TASK, "--num-envs", "2", "--budget-s", "0.01", "--horizon", "6", "--steps-per-env", "4",
            "--demos", str(demos), "--generate-demos", "1", "--demo-steps", "20", "--keep-failed-demos", "--out", str(out)]  # fmt: skip
    assert _trainer().main(argv) == 0
    res = json.loads((out / "results.json").read_text())["results"]
    assert (
        sorted(res) == ["demo", "env"] and res["demo"]["demo_start"] and res["demo"]["r_demo_weight"] == 0.1
    )
    for r in res.values():
        assert r["iterations"] == 1 and r["env_steps"] == 8 and list(r["tasks"]) == [TASK]
        assert 0.0 <= r["mean_sr"] <= 1.0 and r["curve"][-1]["eval_sr"] == r["tasks"]
    assert (out / "learning_curve.png").stat().st_size > 10_000
    ckpt = out / "demo" / "checkpoints"
    act = load_policy(ckpt / "policy.pt")(np.zeros((3, 300), np.float32), {})
    assert act.shape == (3, 7) and np.all(np.abs(act) <= 1.0)
    rep = evaluate(
        "simkit.adapters.rsl_rl:load_policy", tasks=[TASK], episodes=1, max_steps=4, checkpoints=ckpt
    )
    assert [r.label for r in rep.results] == ["policy.pt"] and rep.results[0].sr.shape == (1,)
    with pytest.raises(InputError, match="TorchScript"):
        load_policy(out / "results.json")
    merged = tmp_path / "merged"  # --merge: the same table from a finished run's results.json
    assert _trainer().main(["--tasks", TASK, "--merge", str(out), "--out", str(merged)]) == 0
    assert json.loads((merged / "results.json").read_text())["results"] == res
