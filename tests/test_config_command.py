"""``simkit config NAME``: config keys with type/default/range, the field table, and ``--yaml`` starter files."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from simkit.cli import app
from simkit.core.config import ConfigKey, build_config, config_keys, starter_yaml
from simkit.core.registry import available, load

runner = CliRunner()


def test_config_keys_give_type_default_range_and_description():
    keys = {k.key: k for k in config_keys(load("toy").Config)}
    assert keys["size"] == ConfigKey("size", "int", 16, ">= 2", "image side in pixels")
    assert keys["reject_below"].range == ">= 0, <= 1"
    packing = {k.key: k for k in config_keys(load("packing").Config)}
    assert packing["physics.friction"].type == "float" and packing["physics.friction"].default == 0.5
    foa = {k.key: k for k in config_keys(load("foa-qa").Config)}
    assert foa["mode"].range == "qa | foa-static" and foa["n_sources"].type == "tuple[int, int]"


@pytest.mark.parametrize("name", sorted(available()))
def test_starter_yaml_is_accepted_by_config_and_equals_the_defaults(tmp_path, name):
    model = load(name).Config
    path = tmp_path / "c.yaml"
    path.write_text(starter_yaml(model, name))
    assert build_config(model, path) == model()
    # every leaf key is commented with its description
    for key in config_keys(model):
        if key.description:
            assert f"# {key.description}" in path.read_text()


def test_cli_shows_keys_and_fields_and_writes_a_starter_config(tmp_path):
    r = runner.invoke(app, ["config", "toy"])
    assert r.exit_code == 0, r.output
    assert "reject_below" in r.output and ">= 0, <= 1" in r.output
    assert "(S, S, 3)" in r.output and "payload_bytes random bytes (optional)" in r.output
    cfg = tmp_path / "toy.yaml"
    r = runner.invoke(app, ["config", "toy", "--yaml", str(cfg)])
    assert r.exit_code == 0 and cfg.exists()
    out = tmp_path / "corpus"
    r = runner.invoke(
        app, ["generate", "toy", "--n", "1", "--out", str(out), "--config", str(cfg), "--no-progress"]
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["config", "toy", "--yaml", str(cfg)])
    assert r.exit_code == 2 and r.output.strip() == (
        f"error: --yaml {cfg}: already exists; choose a new file name, or --overwrite to replace it"
    )
    cfg.write_text("size: 8\n")
    r = runner.invoke(app, ["config", "toy", "--yaml", str(cfg), "--overwrite"])
    assert r.exit_code == 0 and "# image side in pixels" in cfg.read_text()


def test_cli_unknown_generator_is_one_line():
    r = runner.invoke(app, ["config", "nope"])
    assert r.exit_code == 2
    assert r.output.startswith("error: unknown generator 'nope'; registered:") and "Traceback" not in r.output
