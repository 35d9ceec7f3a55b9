"""Every --out (or OUT argument) that can never be written is one error line, before any work."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from simkit.cli import app


@pytest.mark.parametrize(
    "args",
    [
        ["compile", "hebero", "--suite", "goal", "--out", "{f}"],
        ["compile", "hebero", "--suite", "goal", "--out", "{f}/sub"],
        ["convert", "render-task", "{d}", "--out", "{f}/x.png"],
        ["convert", "render-task", "{d}", "--out", "{d}"],
        ["eval", "hebero", "--policy", "zero", "--episodes", "1", "--out", "{f}"],
        ["export", "hebero-hdf5", "{d}", "{f}/x.hdf5"],
        ["eval", "pairs", "--gt", "{d}", "--out", "{f}/x.json"],
        ["eval", "pairs", "--gt", "{d}", "--out", "{d}"],
    ],
)
def test_an_unwritable_out_is_one_line_before_any_work(args, tmp_path):
    f, d = tmp_path / "file", tmp_path / "folder"
    f.write_text("x")
    d.mkdir()
    argv = [a.format(f=f, d=d) for a in args]
    r = CliRunner().invoke(app, argv)
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = r.output.strip().splitlines()
    assert len(lines) == 1, r.output
    reasons = (f"is under {f}, which is a file", "is a folder; give the path", "exists and is not a folder")
    assert (
        lines[0].startswith("error: ") and f"{argv[-1]}: " in lines[0] and any(x in lines[0] for x in reasons)
    )
    assert f.read_text() == "x" and list(d.iterdir()) == []
