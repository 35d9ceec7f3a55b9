"""CLI promises: instant help, every command has --help, list names the generators."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from enginehelp import simkit_cli


def test_help_is_fast_and_lazy():
    code = (
        "import sys, time; t=time.perf_counter(); sys.argv=['simkit','--help']\n"
        "from simkit.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy=[m for m in ('pybullet','bpy','mujoco','torch','ray','pxr','pyarrow') if m in sys.modules]\n"
        "print('HEAVY', heavy, time.perf_counter()-t)"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("HEAVY"))
    assert "[]" in line, line
    t0 = time.perf_counter()
    simkit_cli("--help", check=True)
    assert time.perf_counter() - t0 < 1.5


def test_list_names_registered_generators():
    out = simkit_cli("list", check=True).stdout
    for name in ("packing", "foa-qa", "wrop", "toy"):
        assert name in out
    assert "cannot load" not in out, out


@pytest.mark.parametrize(
    "cmd",
    [
        ["generate"],
        ["validate"],
        ["inspect"],
        ["merge"],
        ["list"],
        ["eval"],
        ["export"],
        ["compile"],
        ["convert"],
    ],
)
def test_every_command_has_help(cmd):
    p = simkit_cli(*cmd, "--help", check=True)
    assert "Usage" in p.stdout
