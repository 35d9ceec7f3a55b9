"""`simkit export hebero-hdf5` (LIBERO layout, robomimic's reader keys) and `hebero-lerobot` (LeRobotDataset v3.0).

The corpus: 3 scripted demos of two goal tasks with camera fields (tests/heberohelp.py), 12 control
steps each. robomimic itself is not a test dependency (its install builds egl_probe with cmake
and pulls torchvision and tensorboard); tools/check_robomimic_read.py runs its real
``SequenceDataset`` (results in docs/hebero.md), and the test below checks every key and
attribute that ``SequenceDataset`` reads, as robomimic 0.3.0's ``robomimic/utils/dataset.py``
reads them. LeRobot's own reader runs in tools/check_lerobot_read.py (Python >= 3.12).
"""

import json

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from simkit.adapters.hebero.demos import axis_angle, split_masks
from simkit.cli import app
from simkit.core.rotations import quaternion_to_matrix
from simkit.episodes.reader import iter_corpus

TASKS = ["goal/turn_on_the_stove", "goal/put_the_bowl_on_the_stove"]
STEPS = 12


def _cli(*argv):
    r = CliRunner().invoke(app, [str(a) for a in argv])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from simkit.executors.run import generate_corpus

    out = tmp_path_factory.mktemp("exports") / "demos"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SIMKIT_GENERATORS", "hebero-demos=heberohelp:CameraDemos")
        generate_corpus(
            "hebero-demos",
            3,
            out,
            seed=3,
            config={"tasks": TASKS, "max_steps": STEPS, "require_success": False},
        )
    samples = list(iter_corpus(out))
    assert [s["demo"]["task_id"] for s in samples] == [TASKS[0], TASKS[1], TASKS[0]]
    return out, samples


@pytest.fixture(scope="module")
def libero(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("libero") / "h5"
    r = _cli("export", "hebero-hdf5", corpus[0], out)
    assert r.exit_code == 0, r.output
    return out


def _tree(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _rodrigues(v: np.ndarray) -> np.ndarray:
    th = np.linalg.norm(v)
    k = v / th
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(th) * kx + (1 - np.cos(th)) * kx @ kx


def test_axis_angle_matches_rodrigues_and_the_identity():
    q = np.array([np.cos(0.6), np.sin(0.6) * 0.6, np.sin(0.6) * 0.8, 0.0])  # 1.2 rad about (0.6, 0.8, 0)
    assert np.allclose(axis_angle(q), 1.2 * np.array([0.6, 0.8, 0.0]))
    assert np.array_equal(axis_angle(np.array([1.0, 0, 0, 0])), np.zeros(3))
    assert split_masks(1) == ([0], []) and split_masks(3) == ([0, 1], [2])
    assert split_masks(20) == ([i for i in range(20) if i not in (9, 19)], [9, 19])


def test_libero_layout_one_file_per_task_values_round_trip(corpus, libero):
    _, samples = corpus
    again = libero.parent / "again"
    assert _cli("export", "hebero-hdf5", corpus[0], again).exit_code == 0
    assert _tree(again) == _tree(libero)  # same corpus -> same bytes
    files = sorted(p.relative_to(libero).as_posix() for p in libero.rglob("*.hdf5"))
    assert files == [
        "libero_goal/put_the_bowl_on_the_stove_demo.hdf5",
        "libero_goal/turn_on_the_stove_demo.hdf5",
    ]
    with h5py.File(libero / files[1]) as f:
        data = f["data"]
        info = json.loads(data.attrs["problem_info"])
        assert info == {
            "problem_name": "LIBERO_Tabletop_Manipulation",
            "domain_name": "robosuite",
            "language_instruction": "Turn on the stove",
        }
        assert data.attrs["bddl_file_name"] == "bddl_files/libero_goal/turn_on_the_stove.bddl"
        assert "(:language Turn on the stove)" in data.attrs["bddl_file_content"]
        assert data.attrs["macros_image_convention"] == "opencv" and data.attrs["num_demos"] == 2
        mine = [s for s in samples if s["demo"]["task_id"] == TASKS[0]]
        assert data.attrs["total"] == sum(len(s["actions"]) for s in mine)
        for i, s in enumerate(mine):
            _check_demo(data[f"demo_{i}"], s)


def _check_demo(g, s):
    t = len(s["actions"])
    assert g.attrs["num_samples"] == t and np.array_equal(g["actions"][()], s["actions"])
    assert np.array_equal(g["states"][()], s["states"][:t]) and np.array_equal(
        g.attrs["init_state"], s["states"][0]
    )
    assert g.attrs["model_file"].startswith('<mujoco model="turn_on_the_stove">')
    assert np.array_equal(g["task_rewards"][()], s["rewards"])
    assert g["dones"][-1] == int(s["demo"]["success"]) and g["dones"][:-1].sum() == 0
    for prefix, rows in (("obs", slice(0, t)), ("next_obs", slice(1, t + 1))):
        o = g[prefix]
        for k in ("joint_states", "gripper_states", "ee_pos", "agentview_rgb", "eye_in_hand_rgb"):
            assert np.array_equal(o[k][()], s[k][rows]), (prefix, k)
        assert np.array_equal(o["agentview_depth"][()][..., 0], s["agentview_depth"][rows])
        assert np.array_equal(o["object_poses"][()], s["object_poses"][rows].reshape(t, -1))
        assert np.array_equal(o["ee_states"][()], np.concatenate([o["ee_pos"][()], o["ee_ori"][()]], 1))
        rs = o["robot_states"][()]
        assert np.array_equal(rs[:, :5], np.concatenate([s["gripper_states"][rows], s["ee_pos"][rows]], 1))
        for q_xyzw, v in zip(rs, o["ee_ori"][()]):  # ee_ori is the axis-angle of the stored quaternion
            q = q_xyzw[[8, 5, 6, 7]]
            assert np.isclose(np.linalg.norm(q), 1.0) and np.allclose(_rodrigues(v), quaternion_to_matrix(q))
    # the gripper points down at the start (LIBERO's home pose): the grip site's z axis is about -z world
    assert quaternion_to_matrix(g["obs/robot_states"][0][[8, 5, 6, 7]])[2, 2] < -0.9


def test_the_keys_robomimic_sequence_dataset_reads(libero):
    """Each key as robomimic 0.3.0 ``robomimic/utils/dataset.py`` reads it with default settings and
    ``filter_by_attribute="train"``; ``env_args`` as ``FileUtils.get_env_metadata_from_dataset``."""
    import gymnasium

    path = libero / "libero_goal/turn_on_the_stove_demo.hdf5"
    with h5py.File(path, "r", swmr=True, libver="latest") as f:  # as SequenceDataset.hdf5_file opens it
        for key in ("train", "valid"):  # load_demo_info: mask/<filter> holds demo names as bytes
            names = [e.decode("utf-8") for e in np.array(f[f"mask/{key}"][:])]
            assert names == (["demo_0"] if key == "train" else ["demo_1"])
        demos = sorted(f["data"], key=lambda k: int(k[5:]))  # load_demo_info sorts by int(name[5:])
        assert demos == ["demo_0", "demo_1"]
        obs_keys = sorted(f["data/demo_0/obs"])
        for d in demos:
            n = f[f"data/{d}"].attrs["num_samples"]  # load_demo_info, load_dataset_in_memory
            for k in obs_keys:  # load_dataset_in_memory: obs/<k> and, load_next_obs=True, next_obs/<k>
                assert f[f"data/{d}/obs/{k}"].shape[0] == n == f[f"data/{d}/next_obs/{k}"].shape[0]
            for k in ("actions", "rewards", "dones"):  # robomimic's default dataset_keys, cast to float32
                assert f[f"data/{d}/{k}"][()].astype("float32").shape[0] == n
            assert isinstance(f[f"data/{d}"].attrs["model_file"], str)
        meta = json.loads(f["data"].attrs["env_args"])
        states = f["data/demo_0/states"][()]
    assert {"env_name", "type", "env_kwargs"} <= set(meta) and meta["type"] == 2  # EnvType.GYM_TYPE
    env = gymnasium.make(meta["env_name"], **meta["env_kwargs"])  # env_args rebuild simkit's env
    try:
        task = env.unwrapped.venv.tasks[0]
        assert env.unwrapped.task_name == "goal/turn_on_the_stove" and task.nstate == states.shape[1]
    finally:
        env.close()


def test_lerobot_v3_folder(corpus, tmp_path):
    import av
    import pyarrow.parquet as pq

    _, samples = corpus
    out = tmp_path / "lr"
    r = _cli("export", "hebero-lerobot", corpus[0], out)
    assert r.exit_code == 0 and "wrote 3 episode(s), 36 frame(s), 2 task(s), 2 camera(s)" in r.output, (
        r.output
    )
    info = json.loads((out / "meta/info.json").read_text())
    assert info["codebase_version"] == "v3.0" and info["fps"] == 20 and info["total_frames"] == 36
    assert info["features"]["observation.images.agentview"]["shape"] == [32, 48, 3]
    data = pq.read_table(out / "data/chunk-000/file-000.parquet").to_pydict()
    assert data["index"] == list(range(36)) and data["episode_index"] == [0] * 12 + [1] * 12 + [2] * 12
    assert np.allclose(data["timestamp"], np.tile(np.arange(12) / 20, 3))
    assert data["task_index"] == [0] * 12 + [1] * 12 + [0] * 12
    acts = np.concatenate([s["actions"] for s in samples])
    assert np.array_equal(np.array(data["action"], np.float32), acts)
    state = np.array(data["observation.state"], np.float32)
    assert np.array_equal(
        state[:, :3], np.concatenate([s["ee_pos"][:-1] for s in samples]).astype(np.float32)
    )
    tasks = pq.read_table(out / "meta/tasks.parquet")  # LeRobot reads it with pandas: index "task"
    assert json.loads(tasks.schema.metadata[b"pandas"])["index_columns"] == ["task"]
    assert tasks.to_pydict() == {
        "task_index": [0, 1],
        "task": ["Turn on the stove", "Put the bowl on the stove"],
    }
    eps = pq.read_table(out / "meta/episodes/chunk-000/file-000.parquet").to_pylist()
    assert [(e["dataset_from_index"], e["dataset_to_index"]) for e in eps] == [(0, 12), (12, 24), (24, 36)]
    assert [e["videos/observation.images.eye_in_hand/from_timestamp"] for e in eps] == [0.0, 0.6, 1.2]
    stats = json.loads((out / "meta/stats.json").read_text())
    assert np.allclose(stats["action"]["mean"], acts.mean(0)) and stats["action"]["count"] == [36]
    with av.open(str(out / "videos/observation.images.agentview/chunk-000/file-000.mp4")) as c:
        frames = np.stack([f.to_ndarray(format="rgb24") for f in c.decode(video=0)])
    want = np.concatenate([s["agentview_rgb"][:-1] for s in samples]).astype(float)
    err = np.abs(frames.astype(float) - want)
    assert frames.shape == want.shape and err.mean() < 2.0 and err.max() <= 32  # H.264 at crf 18


def test_bad_corpora_are_one_line(corpus, tmp_path):
    from simkit.executors.run import generate_corpus

    toy = tmp_path / "toy"
    generate_corpus("toy", 1, toy, seed=1)
    for cmd in ("hebero-hdf5", "hebero-lerobot"):
        r = _cli("export", cmd, toy, tmp_path / "o")
        assert (
            r.exit_code == 2
            and r.output.strip() == f"error: {toy}: not a hebero-demos corpus (generator 'toy')"
        )
    from simkit.adapters.hebero.lerobot import write_lerobot
    from simkit.adapters.hebero.libero_hdf5 import write_libero_hdf5
    from simkit.core.errors import InputError

    for write in (write_libero_hdf5, write_lerobot):
        with pytest.raises(InputError, match="the corpus holds no episodes"):
            write(tmp_path / "empty", [], None)
        assert not list(tmp_path.glob("*empty*"))
    keep = tmp_path / "mine"
    keep.mkdir()
    (keep / "notes.txt").write_text("x")
    r = _cli("export", "hebero-lerobot", corpus[0], keep)
    assert (
        r.exit_code == 2 and "is not a LeRobot dataset folder" in r.output and (keep / "notes.txt").exists()
    )
    r = _cli("export", "hebero-hdf5", corpus[0], tmp_path / "x.hdf5")
    assert r.exit_code == 2 and "is a folder of datasets now" in r.output
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(corpus[0], bad)
    shard = next((bad / "shards").glob("*.tar"))
    raw = bytearray(shard.read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # one flipped byte inside a member: the checksum no longer matches
    shard.write_bytes(bytes(raw))
    for cmd in ("hebero-hdf5", "hebero-lerobot"):
        r = _cli("export", cmd, bad, tmp_path / f"o-{cmd}")
        lines = r.output.strip().splitlines()
        assert r.exit_code == 1 and len(lines) == 1 and "simkit validate" in lines[0], r.output
        assert not (tmp_path / f"o-{cmd}").exists() and not list(tmp_path.glob(".o-*"))


def test_robomimic_sequence_dataset_reads_the_export_when_installed(libero):
    """robomimic's real reader, where it is installed (see docs/hebero.md for the environment)."""
    pytest.importorskip("robomimic.utils.dataset", reason="robomimic is not a test dependency")
    import importlib.util
    from pathlib import Path

    tool = Path(__file__).resolve().parents[1] / "tools" / "check_robomimic_read.py"
    spec = importlib.util.spec_from_file_location("check_robomimic_read", tool)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    files = sorted(libero.rglob("*_demo.hdf5"))
    assert len(files) == 2 and all(mod.check_file(str(p)) for p in files)


def test_exports_obey_quiet_and_count_the_demos_they_read(corpus, tmp_path, monkeypatch):
    # -q: nothing on stdout or stderr; without it, the "wrote" line; on a terminal the export draws one
    # progress bar over the corpus's demos (simkit.core.progress), whose total is the corpus's count
    from simkit.commands import hebero as cmd
    from simkit.core import verbosity
    from simkit.core.progress import Progress

    for name in ("hebero-hdf5", "hebero-lerobot"):
        r = CliRunner().invoke(app, ["-q", "export", name, str(corpus[0]), str(tmp_path / f"q-{name}")])
        assert r.exit_code == 0 and r.output == "", r.output
        assert any((tmp_path / f"q-{name}").rglob("*.*"))
    verbosity.set_level("info")
    r = _cli("export", "hebero-hdf5", corpus[0], tmp_path / "loud")
    assert r.exit_code == 0 and r.output.startswith("wrote "), r.output
    bars = []
    monkeypatch.setattr(verbosity, "show_progress", lambda enabled=True: enabled)  # as on a terminal
    real = Progress.__init__

    def init(self, *a, **kw):
        real(self, *a, **kw)
        bars.append(self)

    monkeypatch.setattr(Progress, "__init__", init)
    demos = list(cmd._hebero_samples(corpus[0]))
    assert len(bars) == 1 and bars[0].total == len(demos) > 0 and bars[0].done == len(demos)


def test_eval_with_damaged_demos_exits_1_as_the_exports(corpus, tmp_path):
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(corpus[0], bad)
    shard = next((bad / "shards").glob("*.tar"))
    shard.write_bytes(shard.read_bytes()[: shard.stat().st_size // 2])  # a truncated shard
    r = _cli("eval", "hebero", "--policy", "zero", "--suite", "goal", "--episodes", "1", "--demos", bad)
    lines = r.output.strip().splitlines()
    assert r.exit_code == 1 and len(lines) == 1, r.output
    assert lines[0].startswith(f"error: {bad}: shard-000000.tar: cannot be read as a tar archive"), lines[0]
