"""Triton's LLVM is loaded before software OpenGL puts the system's LLVM into the process (simkit.core.llvm).

Each case runs in a fresh interpreter, so what the pytest process loaded before does not count. Stand-in
packages play Triton (a copy of one of numpy's compiled modules as the library), which shows the mechanism
beside the CPU build of PyTorch; the last case renders and then imports the real Triton where it is
installed (PyPI's CUDA build of PyTorch): the order that crashed with SIGSEGV before.
"""

import json
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest

# argv: root of the stand-in packages, "standin" or "real" (which LLVM_LIBRARIES to use), then the steps.
# Prints one JSON line: per step, its result and whether stand-in 1 / 2 are mapped and an LLVM is global.
CHILD = """
import json, logging, os, sys
root, which, steps = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, root)
logging.basicConfig(level=logging.WARNING, format="LOG %(message)s")
import numpy  # the stand-ins copy one of numpy's modules, which links numpy's bundled OpenBLAS
from simkit.core import llvm
one, two = (("standin1", "_C/libstandin*.so"),), (("standin2", "_C/libstandin*.so"),)
if which == "standin":
    llvm.LLVM_LIBRARIES = one
libs = [os.path.realpath(os.path.join(root, f"standin{i}", "_C", "libstandin.so")) for i in (1, 2)]
out = {}
for step in steps:
    if step == "load":
        out[step] = [str(p) for p in llvm.load_llvm_libraries()]
    elif step == "late":  # stand-in 2 asked for only now
        llvm.LLVM_LIBRARIES = one + two
        out[step] = [str(p) for p in llvm.load_llvm_libraries()]
    elif step == "session":
        from simkit.renderers.blender import get_session
        get_session()
    elif step == "blender":
        from simkit.renderers.blender import RenderSettings, get_session
        from simkit.scenes.wrop import Scene, SceneObject, Sun, Track, material, orbit_camera
        box = SceneObject("b", "target", "box", (0.4, 0.4, 0.4), material("red"), Track.static(2, (0, 0, 0.2)))
        cam = orbit_camera((0, 0, 0.2), 4.0, 0.0, 0.3)
        ses = get_session()
        ses.reset()
        ses.configure(RenderSettings(width=16, height=16), 2, 24.0)
        ses.build(Scene(2, 24.0, [box], cam, Sun(0.3, 0.8), (0.7, 0.8, 0.9)))
        out[step] = list(ses.render(2).shape)
    elif step == "mujoco":
        from simkit.sims.nav.frames import FrameRenderer
        cam = FrameRenderer([((1, 1, 0), (2, 2, 1), "wall")], (4, 4), 16, 12)
        out[step] = list(cam.render((0.5, 0.5, 0.0), 1.0)[0].shape)
    elif step == "triton":
        import torch, triton
        out[step] = [triton.__version__, float(torch.ones(3).sum())]
    maps = open("/proc/self/maps").read()
    out[step + "_mapped"] = [lib in maps for lib in libs]
    out[step + "_global"] = llvm.llvm_in_global_scope()
out["llvm_mapped"] = "libLLVM" in open("/proc/self/maps").read()
out["imported"] = [m for m in ("standin1", "standin2") if m in sys.modules]
print("OUT" + json.dumps(out))
"""


def _standins(root: Path) -> Path:
    """Packages ``standin1`` and ``standin2`` under ``root``, each with ``_C/libstandin.so`` a real ELF shared
    library (a copy of one of numpy's compiled modules) and an ``__init__`` that raises, so an import shows."""
    src = next(p for p in sorted(Path(np.__file__).parent.rglob("*.so")) if "test" not in p.name)
    for name in ("standin1", "standin2"):
        (root / name / "_C").mkdir(parents=True)
        (root / name / "__init__.py").write_text(f"raise ImportError('{name} must not be imported')\n")
        (root / name / "_C" / "libstandin.so").write_bytes(src.read_bytes())
    return root


def _run(tmp_path: Path, which: str, *steps: str) -> tuple[dict, str]:
    argv = [sys.executable, "-c", CHILD, str(_standins(tmp_path)), which, *steps]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (r.returncode, r.stderr[-3000:])
    return json.loads(r.stdout.split("OUT", 1)[1]), r.stderr


def _lib(tmp_path: Path, i: int) -> str:
    return str((tmp_path / f"standin{i}" / "_C" / "libstandin.so").resolve())


def test_library_is_found_without_importing_its_package_and_loaded_once(tmp_path):
    out, _ = _run(tmp_path, "standin", "load", "load")
    assert out["load"] == [_lib(tmp_path, 1)]  # the second call reports the library the first one loaded
    assert out["load_mapped"] == [True, False] and out["imported"] == []
    assert not out["load_global"]  # RTLD_LOCAL: none of its symbols enters the global scope


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["blender", "mujoco"])
def test_loaded_before_software_opengl_and_refused_after(tmp_path, backend):
    pytest.importorskip("bpy" if backend == "blender" else "mujoco")
    steps = ("session", backend, "late") if backend == "blender" else (backend, "late")
    out, err = _run(tmp_path, "standin", *steps)
    if backend == "blender":  # the session maps it when bpy is imported, before anything is drawn
        assert out["session_mapped"][0] and not out["session_global"]
    assert out[backend] in ([2, 16, 16, 3], [12, 16, 3])
    assert out[f"{backend}_mapped"] == [True, False] and out["imported"] == []
    # an LLVM is in the global scope after the render exactly when software OpenGL (Mesa) drew it
    assert out[f"{backend}_global"] == out["llvm_mapped"]
    if not out["llvm_mapped"]:
        pytest.skip("this machine draws without software OpenGL: no LLVM of the system was loaded")
    # once it is, a library not loaded yet is refused with one warning (loading it would crash), so the
    # stand-in 1 mapped above was loaded before Mesa's LLVM came in
    assert out["late"] == [_lib(tmp_path, 1)] and out["late_mapped"] == [True, False]
    assert err.count("would crash it") == 1
    assert "import standin2 before the first Blender or MuJoCo render" in err


@pytest.mark.slow
def test_real_triton_imports_after_blender_and_mujoco_rendered(tmp_path):
    if find_spec("triton") is None or find_spec("bpy") is None:
        pytest.skip("needs Triton (PyPI's default, CUDA build of PyTorch) and bpy")
    steps = ["blender", *(["mujoco"] if find_spec("mujoco") else []), "triton"]
    out, _ = _run(tmp_path, "real", *steps)
    assert out["blender"] == [2, 16, 16, 3] and out["triton"][1] == 3.0
    assert out["triton_global"] == out["llvm_mapped"]
