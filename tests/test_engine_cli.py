"""CLI promises: help and list import no backend, every command has --help, list names the generators."""

from __future__ import annotations

import subprocess
import sys

import pytest
from enginehelp import simkit_cli


@pytest.mark.parametrize("argv", [["--help"], ["list"]])
def test_help_and_list_import_no_optional_module(argv):
    """``--help`` and ``list`` stay instant by importing no backend: no module of any extra (and not
    pyarrow) is loaded by them (counted in sys.modules, not timed)."""
    code = (
        f"import sys; sys.argv=['simkit', *{argv!r}]\n"
        "from simkit.cli import main\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n"
        "from simkit.core.extras import EXTRA_MODULES\n"
        "optional = set().union(*EXTRA_MODULES.values()) | {'pyarrow'}\n"
        "print('HEAVY', sorted(m for m in sys.modules if m.partition('.')[0] in optional))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("HEAVY"))
    assert line == "HEAVY []", line


@pytest.mark.parametrize(
    ("argv", "heavy"),
    [
        (["--help"], {"numpy", "pydantic", "pydantic_core", "scipy"}),
        (["--version"], {"numpy", "pydantic", "pydantic_core", "scipy"}),
        # typer itself builds pydantic adapters for a command's options, so only numpy is ruled out here
        (["generate", "--help"], {"numpy", "scipy"}),
    ],
)
def test_help_imports_neither_numpy_nor_pydantic(argv, heavy):
    """``simkit --help`` and ``--version`` read only the registration table and the option declarations:
    numpy, pydantic and the generator modules stay unimported (counted in sys.modules, not timed)."""
    code = (
        f"import sys; sys.argv=['simkit', *{argv!r}]\n"
        "from simkit.cli import main\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n"
        f"heavy = {sorted(heavy)!r}\n"
        "print('LOADED', sorted(m for m in sys.modules if m.partition('.')[0] in heavy or "
        "m.startswith(('simkit.generators', 'simkit.core.generator', 'simkit.core.episode'))))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("LOADED"))
    assert line == "LOADED []", line


def test_core_names_resolve_lazily():
    """The names ``simkit.core`` exports are the classes of their submodules, imported on first use."""
    import simkit.core as core
    from simkit.core.episode import Episode
    from simkit.core.errors import SampleRejected
    from simkit.core.generator import Generator

    assert core.Episode is Episode and core.Generator is Generator and core.SampleRejected is SampleRejected
    assert sorted(core.__all__) == sorted(core._LAZY)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        core.nothing  # noqa: B018


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
