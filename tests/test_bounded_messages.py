"""Error messages are bounded: a value is shown in at most ~200 characters with its length, YAML configs are
bounded in size and alias expansion, and no error line can grow with its input."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from simkit.cli import app
from simkit.core.config import MAX_YAML_BYTES, MAX_YAML_VALUES, build_config, load_yaml
from simkit.core.errors import InputError, SimkitError, short_repr
from simkit.core.registry import load


def alias_bomb(levels: int = 8, width: int = 9) -> str:
    """A YAML document whose key ``snr_choices_db`` stands for ``width ** levels`` numbers."""
    lines = [f"l0: &l0 [{', '.join(['0'] * width)}]"]
    for k in range(1, levels):
        lines.append(f"l{k}: &l{k} [{', '.join([f'*l{k - 1}'] * width)}]")
    lines.append(f"snr_choices_db: *l{levels - 1}")
    return "\n".join(lines) + "\n"


def test_short_repr_names_the_length_of_what_it_leaves_out():
    assert short_repr("abc") == "'abc'"
    s = short_repr("x" * 5000)
    assert s == repr("x" * 200) + "... (5000 characters)"
    big = short_repr(list(range(10**6)))
    assert len(big) < 260 and big.endswith("(1000000 items)")


def test_a_simkit_error_message_is_bounded():
    msg = str(SimkitError("y" * 10**6))
    assert len(msg) < 2100 and "of 1000000 characters left out" in msg


def test_an_alias_bomb_is_refused_before_it_expands(tmp_path):
    p = tmp_path / "bomb.yaml"
    p.write_text(alias_bomb())
    cls = load("foa-qa")
    with pytest.raises(InputError) as exc:
        build_config(cls.Config, p)
    msg = str(exc.value)
    assert msg.startswith(f"{p}: config refused: expands to more than {MAX_YAML_VALUES} values")
    assert len(msg) < 300


def test_a_small_alias_document_still_loads():
    assert load_yaml("a: &x [1, 2]\nb: *x\n") == {"a": [1, 2], "b": [1, 2]}


def test_an_oversized_config_file_is_refused_by_size(tmp_path):
    p = tmp_path / "big.yaml"
    p.write_text("size: 8\n" + "# padding\n" * (MAX_YAML_BYTES // 10 + 1))
    with pytest.raises(InputError, match=r"config refused: \d+ bytes, more than"):
        build_config(load("toy").Config, p)


def test_an_alias_bomb_in_set_is_refused():
    bomb = "[" + ", ".join(["&a [0,0,0,0,0,0,0,0,0,0]"] + ["*a"] * 9) + "]"
    assert load_yaml(bomb)  # small: loads
    deep = "&a0 [0,0,0,0,0,0,0,0,0,0]"
    for k in range(1, 7):
        deep = f"&a{k} [{deep}, " + ", ".join([f"*a{k - 1}"] * 9) + "]"
    with pytest.raises(InputError, match=r"--set snr_choices_db: value of .* expands to more than"):
        build_config(load("foa-qa").Config, None, [f"snr_choices_db={deep}"])


def test_an_invalid_huge_value_is_shown_cut_with_its_length():
    with pytest.raises(InputError) as exc:
        build_config(load("toy").Config, None, ["size=" + "9" * 100 + "x" * 20000])
    msg = str(exc.value)
    assert "... (20100 characters)" in msg and len(msg) < 1000


def test_many_invalid_items_are_summarised():
    values = "[" + ", ".join(["x"] * 5000) + "]"
    with pytest.raises(InputError) as exc:
        build_config(load("foa-qa").Config, None, [f"snr_choices_db={values}"])
    msg = str(exc.value)
    assert "and 4992 more" in msg and len(msg) < 2100


def test_cli_alias_bomb_is_one_short_line(tmp_path):
    p = tmp_path / "bomb.yaml"
    p.write_text(alias_bomb())
    r = CliRunner().invoke(
        app, ["generate", "foa-qa", "--n", "1", "--out", str(tmp_path / "o"), "--config", str(p)]
    )
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and len(lines[0]) < 300
    assert not (tmp_path / "o").exists()


def test_a_deeply_nested_or_unbuildable_value_is_refused_in_one_line():
    with pytest.raises(InputError, match=r"nests \[ \] or \{ \} more than 100 levels deep"):
        build_config(load("toy").Config, None, ["size=" + "[" * 20000])
    with pytest.raises(InputError, match="holds a value that cannot be read"):
        build_config(load("toy").Config, None, ["size=" + "9" * 5000])
    assert load_yaml("a: '[[[['\nb: [[1], {c: [2]}]\n") == {"a": "[[[[", "b": [[1], {"c": [2]}]}


def test_a_yaml_reader_error_is_one_line(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("\x08")
    with pytest.raises(InputError) as exc:
        build_config(load("toy").Config, p)
    assert "\n" not in str(exc.value) and "malformed YAML: unacceptable character" in str(exc.value)
