"""Gymnasium registration: ``import simkit`` registers the ids, Gymnasium's ``module:id`` form needs no import.

Each case runs in a fresh interpreter, since registration is process state.
"""

import subprocess
import sys

IDS = ("simkit/Packing-v0", "simkit/Hebero-v0", "simkit/FoaNav-v0")


def run_py(code: str) -> str:
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_import_simkit_registers_without_importing_gymnasium():
    out = run_py(
        "import sys, simkit\n"
        "print('gymnasium' in sys.modules)\n"
        "import gymnasium\n"
        f"print([i in gymnasium.registry for i in {IDS!r}])"
    )
    assert out.splitlines() == ["False", "[True, True, True]"]


def test_gymnasium_imported_first_then_simkit_registers_at_once():
    out = run_py(f"import gymnasium, simkit\nprint([i in gymnasium.registry for i in {IDS!r}])")
    assert out == "[True, True, True]"


def test_module_prefixed_id_needs_no_prior_import():
    out = run_py(
        "import sys, gymnasium\n"
        "print('simkit' in sys.modules)\n"
        "env = gymnasium.make('simkit.envs:simkit/Packing-v0')\n"
        "print(type(env.unwrapped).__name__, 'simkit' in sys.modules)"
    )
    assert out.splitlines() == ["False", "PackingEnv True"]


def test_without_simkit_the_ids_are_unknown():
    # nothing runs at interpreter start: a bare Gymnasium knows no simkit id
    code = "import sys, gymnasium\nprint([i in gymnasium.registry for i in {IDS!r}], [m for m in sys.modules if m.split('.')[0] == 'simkit'])"
    assert run_py(code.replace("{IDS!r}", repr(IDS))) == "[False, False, False] []"
