"""House rules that code review would otherwise have to remember: short functions, command modules."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_no_new_function_in_simkit_over_120_lines():
    tool = _tool("check_function_length")
    found = tool.long_functions([ROOT / "simkit"], 120)
    new = [
        f"{f}:{line} {name} ({n} lines)" for f, line, name, n in found if f"{f}:{name}" not in tool.KNOWN_LONG
    ]
    assert new == []


def test_function_length_counts_decorators_and_nested_functions(tmp_path):
    tool = _tool("check_function_length")
    src = tmp_path / "m.py"
    five = "x = 1\n" * 5
    body, inner = (
        "".join("    " + ln for ln in five.splitlines(True)),
        "".join("            " + ln for ln in five.splitlines(True)),
    )
    src.write_text(
        f"@staticmethod\ndef f():\n{body}\n\nclass C:\n    def g(self):\n        def h():\n{inner}"
    )
    # f: decorator + def + 5 lines = 7; C.g: def + def h + 5 = 7; C.g.h: 6
    assert tool.long_functions([src], 5) == [
        (str(src), 1, "f", 7),
        (str(src), 11, "C.g", 7),
        (str(src), 12, "C.g.h", 6),
    ]


def test_every_listed_command_module_exists_and_registers():
    from simkit import cli

    for name in cli.COMMAND_MODULES:
        assert callable(importlib.import_module(name).register), name


def test_a_missing_command_module_is_an_error(monkeypatch):
    from simkit import cli

    monkeypatch.setattr(cli, "COMMAND_MODULES", ("simkit.commands.no_such_module",))
    with pytest.raises(ModuleNotFoundError, match=r"simkit\.commands\.no_such_module"):
        cli.register_command_modules()
