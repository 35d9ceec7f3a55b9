"""The compiled-model cache of Hebero task scenes (simkit.sims.hebero.model_cache).

An env built from the cache behaves bit-identically to one built afresh; a corrupt or mismatching entry is
rebuilt with one warning; the entry changes when an input (asset file, descriptor, option) changes; the
cache folder is the one the user names. Every test points SIMKIT_CACHE at its own temporary folder
(conftest.py points it at a session folder for the whole suite: tests never write the user's cache).
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco")

from simkit.core.paths import user_cache_dir
from simkit.sims.hebero import model_cache as mc

TASKS = ["goal/turn_on_the_stove", "goal/open_the_middle_drawer_of_the_cabinet"]
STOVE = TASKS[0]


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("SIMKIT_CACHE", str(d))
    return d


def entries(cache: Path) -> list[Path]:
    return sorted((cache / "hebero" / "models").glob("*.entry"))


def rollout(env, steps: int = 6) -> list[np.ndarray]:
    obs, info = env.reset(seed=11)
    out = [obs, info["success"]]
    rng = np.random.default_rng(3)
    for _ in range(steps):
        obs, rew, term, trunc, info = env.step(rng.uniform(-1, 1, (env.num_envs, 7)))
        out += [obs, rew, term, trunc]
    out.append(np.stack([env.tasks[t].bank_state(2) for t in range(len(env.tasks))]))
    return out


def model_arrays(m) -> dict[str, np.ndarray]:
    return {
        k: getattr(m, k) for k in dir(m) if not k.startswith("_") and isinstance(getattr(m, k), np.ndarray)
    }


def test_cache_dir_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("SIMKIT_CACHE", str(tmp_path / "c"))
    assert user_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("SIMKIT_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert user_cache_dir() == tmp_path / "x" / "simkit"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # not absolute: ignored, as the XDG spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_cache_dir() == tmp_path / "home" / ".cache" / "simkit"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert user_cache_dir() == tmp_path / "home" / ".cache" / "simkit"
    assert mc.models_dir() == tmp_path / "home" / ".cache" / "simkit" / "hebero" / "models"


def test_env_from_cache_equals_fresh_env(cache, caplog):
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    fresh = HeberoVectorEnv(num_envs=4, tasks=TASKS, model_cache=False)
    cold = HeberoVectorEnv(num_envs=4, tasks=TASKS)  # compiles and stores
    assert len(entries(cache)) == 2
    stamps = [e.stat().st_mtime_ns for e in entries(cache)]
    with caplog.at_level(logging.WARNING, "simkit.hebero.cache"):
        warm = HeberoVectorEnv(num_envs=4, tasks=TASKS)  # reads the binaries
    assert caplog.records == []
    assert [e.stat().st_mtime_ns for e in entries(cache)] == stamps  # read, not written again
    assert all(t.scene.spec is None for t in cold.tasks + warm.tasks)
    assert all(t.scene.spec is not None for t in fresh.tasks)
    for a, b in zip(fresh.tasks, warm.tasks):
        ma, mb = model_arrays(a.model), model_arrays(b.model)
        assert ma.keys() == mb.keys() and len(ma) > 100
        for k in ma:
            np.testing.assert_array_equal(ma[k], mb[k], err_msg=k)
        assert a.scene.binding.bodies == b.scene.binding.bodies
        assert a.scene.binding.sites == b.scene.binding.sites
        assert a.scene.binding.touch == b.scene.binding.touch
        assert a.scene.warnings == b.scene.warnings
        np.testing.assert_array_equal(a.slot_id, b.slot_id)
    ref = rollout(fresh)
    for env in (cold, warm):
        got = rollout(env)
        assert len(got) == len(ref)
        for x, y in zip(ref, got):
            np.testing.assert_array_equal(x, y)
    assert np.abs(ref[-5] - ref[0]).max() > 1e-3  # the rollout moved the arms: a real comparison


def test_corrupt_or_stale_entry_is_rebuilt(cache, caplog):
    from simkit.envs.hebero.tasks import descriptors

    desc = descriptors([STOVE])[0]
    ref = mc.cached_scene(desc)  # a miss: compiled afresh (build_scene), then stored
    (entry,) = entries(cache)
    good = entry.read_bytes()
    blob = bytearray(good)
    blob[len(blob) // 2] ^= 0xFF  # one flipped byte inside the model binary
    entry.write_bytes(bytes(blob))
    with caplog.at_level(logging.WARNING, "simkit.hebero.cache"):
        sc = mc.cached_scene(desc)
    assert len(caplog.records) == 1 and "corrupt" in caplog.records[0].getMessage()
    assert "rebuilt" in caplog.records[0].getMessage()
    assert entry.read_bytes() == good  # compiled and stored again: the same bytes as the first time
    np.testing.assert_array_equal(sc.data.qpos, ref.data.qpos)
    entry.write_bytes(b"truncated")
    caplog.clear()
    with caplog.at_level(logging.WARNING, "simkit.hebero.cache"):
        mc.cached_scene(desc)
    assert len(caplog.records) == 1 and "not a compiled-model cache entry" in caplog.records[0].getMessage()
    with pytest.raises(ValueError, match="corrupt"):
        mc.decode_entry(bytes(blob))
    header, _ = mc.decode_entry(entry.read_bytes())
    assert header["task_id"] == STOVE and len(header["inputs"]) > 10
    assert header["key"] == mc.entry_key(header["recipe"], header["inputs"])
    caplog.clear()
    stamp = entry.stat().st_mtime_ns
    with caplog.at_level(logging.WARNING, "simkit.hebero.cache"):
        again = mc.cached_scene(desc)  # intact again: read, no warning, not rewritten
    assert caplog.records == [] and entry.stat().st_mtime_ns == stamp
    np.testing.assert_array_equal(again.data.qpos, ref.data.qpos)


def test_key_follows_every_input(cache, imperfect_libero_root, tmp_path, caplog):
    """An asset file edited after the entry was written: the entry no longer matches and is rebuilt;
    the recipe changes with the descriptor, the options and the asset root."""
    from simkit.envs.hebero.tasks import descriptors

    root = tmp_path / "root"
    shutil.copytree(imperfect_libero_root, root)
    desc = descriptors([STOVE], root)[0]
    rec = mc.recipe(desc, root, visual=False)
    assert rec == mc.recipe(dict(desc), root, visual=False)
    assert rec != mc.recipe(desc, root, visual=True)
    assert rec != mc.recipe(desc, root, visual=False, with_robot=False)
    assert rec != mc.recipe(desc, imperfect_libero_root, visual=False)
    assert rec != mc.recipe({**desc, "instruction": desc["instruction"] + "!"}, root, visual=False)
    mc.cached_scene(desc, root)
    (entry,) = entries(cache)
    assert entry.name == f"{rec}.entry"
    header, _ = mc.decode_entry(entry.read_bytes())
    xml = root / desc["fixtures"]["flat_stove_1"]["asset"]
    assert str(xml.resolve()) in header["inputs"]
    xml.write_text(xml.read_text() + "\n<!-- edited -->\n")  # same model, other bytes: other key
    with caplog.at_level(logging.WARNING, "simkit.hebero.cache"):
        sc = mc.cached_scene(desc, root)
    (msg,) = [r.getMessage() for r in caplog.records]
    assert "input file(s) changed" in msg and "flat_stove.xml" in msg
    assert sc.model.nq > 0
    new, _ = mc.decode_entry(entry.read_bytes())
    assert new["recipe"] == header["recipe"] and new["key"] != header["key"]
    assert new["inputs"][str(xml.resolve())] != header["inputs"][str(xml.resolve())]


def test_unwritable_cache_still_builds(tmp_path, monkeypatch, caplog):
    from simkit.envs.hebero.tasks import descriptors

    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("SIMKIT_CACHE", str(blocker / "cache"))  # under a file: cannot be made
    with caplog.at_level(logging.WARNING, "simkit.hebero.cache"):
        sc = mc.cached_scene(descriptors([STOVE])[0])
    assert sc.model.nq > 0
    assert any("not written" in r.getMessage() for r in caplog.records)


@pytest.mark.slow
def test_layout_bank_from_cached_scene_equals_fresh_builds(cache):
    """The GPU export's layout bank draws every entry on one cached (physics-only) task scene; entry b
    equals what a fresh full build with seed b gives (mapped onto the union model), bit for bit."""
    from simkit.envs.hebero.tasks import descriptors
    from simkit.sims.hebero.batched_tasks import compile_program
    from simkit.sims.hebero.layout_groups import group_tasks
    from simkit.sims.hebero.layout_models import build_group_model, task_layouts, task_state_on_union
    from simkit.sims.hebero.scene import build_scene

    (desc,) = descriptors([STOVE])
    (g,) = group_tasks([desc])
    gm = build_group_model(g, {STOVE: desc}, None)
    bank = task_layouts(gm, desc, None, n=2, seed0=5)
    assert len(entries(cache)) == 1  # the task model, compiled once for both entries
    names, ents = g.names[STOVE], [e.name for e in g.entities]
    for b in range(2):
        sc = build_scene(desc, None, np.random.default_rng(5 + b))  # visual meshes included, as before
        want = (bank.qpos[b], bank.mocap_pos[b], bank.mocap_quat[b])
        got = tuple(np.full_like(w, np.nan) for w in want)
        task_state_on_union(gm, sc, *got)  # only the task's own entities are written
        for w, x in zip(want, got):
            written = ~np.isnan(x)
            assert written.sum() >= 3
            np.testing.assert_array_equal(x[written], w[written])
        if b == 0:
            prog = compile_program(desc, sc.binding, sc.data, gm.model, names, ents)
            for k, v in vars(prog).items():
                np.testing.assert_array_equal(np.asarray(v), np.asarray(getattr(bank.program, k)), err_msg=k)


def test_cli_compile_models_argument_errors(cache):
    from typer.testing import CliRunner

    from simkit.cli import app

    r = CliRunner().invoke(app, ["compile", "hebero", "--suite", "goal"])
    assert r.exit_code == 2 and "give --out (the descriptor folder), --models" in r.output
    r = CliRunner().invoke(app, ["compile", "hebero", "--visual", "--out", str(cache / "d")])
    assert r.exit_code == 2 and "--visual applies to --models only" in r.output
    r = CliRunner().invoke(app, ["compile", "hebero", "--models", "--render"])
    assert r.exit_code == 2 and "--render writes to --out" in r.output
    assert not cache.exists()  # nothing compiled, nothing written


@pytest.mark.slow
def test_cli_compile_models_fills_the_cache(cache, caplog):
    """``simkit compile hebero --models`` compiles each task model once; a second run finds them all;
    an env built afterwards reads them (no compile, no cache write)."""
    from typer.testing import CliRunner

    from simkit.cli import app
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    r = CliRunner().invoke(app, ["compile", "hebero", "--models", "--suite", "goal"])
    assert r.exit_code == 0, r.output
    assert f"compiled 10 task model(s), 0 cached, 0 error(s) -> {cache / 'hebero' / 'models'}" in r.output
    assert len(entries(cache)) == 10
    stamps = {e: e.stat().st_mtime_ns for e in entries(cache)}
    r = CliRunner().invoke(app, ["compile", "hebero", "--models", "--suite", "goal"])
    assert r.exit_code == 0 and "compiled 0 task model(s), 10 cached, 0 error(s)" in r.output
    with caplog.at_level(logging.WARNING, "simkit.hebero.cache"):
        env = HeberoVectorEnv(num_envs=10, suite="goal")
    assert caplog.records == [] and {e: e.stat().st_mtime_ns for e in entries(cache)} == stamps
    assert len(env.tasks) == 10
