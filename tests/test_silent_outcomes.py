"""No silent outcomes: a flag and a --set of the same key that disagree, and a non-finite number in a
config, are one error line before any work (not ignored, not a failure per episode)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from simkit.cli import app
from simkit.core.config import build_config
from simkit.core.errors import InputError
from simkit.core.registry import load


def _one_error_line(r) -> str:
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    return lines[0]


def test_generator_flag_and_set_that_disagree_are_refused(tmp_path):
    argv = ["generate", "wrop", "--generator", "OP-1/ball_behind_screen", "--set", "generator=OP-2/nope"]
    line = _one_error_line(CliRunner().invoke(app, [*argv, "--n", "1", "--out", str(tmp_path / "o")]))
    assert "--generator OP-1/ball_behind_screen and --set generator=OP-2/nope disagree" in line
    assert not (tmp_path / "o").exists()


def test_split_flag_and_set_that_disagree_are_refused(tmp_path):
    argv = [
        "generate",
        "wrop",
        "--split",
        "exam",
        "--set",
        "split=train",
        "--n",
        "1",
        "--out",
        str(tmp_path / "o"),
    ]
    assert "--split exam and --set split=train disagree" in _one_error_line(CliRunner().invoke(app, argv))


@pytest.mark.parametrize(
    "name, item, key",
    [
        ("foa-nav", "lufs=[nan,nan]", "lufs.0"),
        ("foa-qa", "snr_choices_db=[.inf]", "snr_choices_db.0"),
        ("packing", "physics.friction=.nan", "physics.friction"),
        ("packing", "resolution=-.inf", "resolution"),
    ],
)
def test_a_non_finite_number_in_a_config_is_refused(name, item, key):
    with pytest.raises(InputError, match=rf"{key}: Input should be a finite number"):
        build_config(load(name).Config, None, [item])


def test_cli_foa_nav_nan_loudness_is_one_line_and_writes_nothing(tmp_path):
    argv = ["generate", "foa-nav", "--n", "1", "--out", str(tmp_path / "o"), "--set", "lufs=[nan,nan]"]
    assert "finite number" in _one_error_line(CliRunner().invoke(app, argv))
    assert not (tmp_path / "o").exists()
