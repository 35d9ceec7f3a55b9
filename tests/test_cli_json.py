"""Scripting-friendly CLI: --version, completion, --json (one object on stdout), the exit-code table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simkit import __version__
from simkit.cli import app


def cli(*argv):
    r = CliRunner().invoke(app, [str(a) for a in argv])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    out = tmp_path_factory.mktemp("json") / "c"
    code, stdout, _ = cli(
        "generate", "toy", "--n", "3", "--out", out, "--seed", "2", "--no-progress", "--json"
    )
    assert code == 0
    return out, json.loads(stdout)  # the whole stdout is one JSON object


def test_version_and_completion():
    code, out, _ = cli("--version")
    assert code == 0 and out == f"simkit {__version__}\n"
    code, out, _ = cli("--help")
    assert code == 0 and "--install-completion" in out and "--show-completion" in out


def test_generate_json_summary(made):
    out, summary = made
    assert summary["generator"] == "toy" and summary["out_dir"] == str(out)
    assert (summary["planned"], summary["produced"], summary["failed"], summary["exit_code"]) == (3, 3, 0, 0)
    assert summary["shards_written"] == 1 and summary["errors"] == []


def test_validate_json_and_plurals(made):
    out, _ = made
    code, stdout, _ = cli("validate", out, "--json")
    rep = json.loads(stdout)
    assert code == 0 and rep["status"] == "PASS" and rep["exit_code"] == 0
    assert (rep["episodes"], rep["ok"], rep["shards"], rep["problems"]) == (3, 3, 1, [])
    code, stdout, _ = cli("validate", out)
    assert stdout.strip().endswith(f"PASS {out}: 3 episodes (3 ok, 0 failed), 1 shard, 0 problems")


def test_inspect_json_is_one_object_naming_the_pictures(made, tmp_path):
    out, _ = made
    code, stdout, _ = cli("inspect", out, "--out", tmp_path / "pics", "--json")
    stats = json.loads(stdout)
    pictures = [Path(p) for p in stats["wrote"]]
    assert code == 0 and stats["ok"] == 3 and stats["damaged"] == [] and pictures
    assert all(p.is_file() and tmp_path / "pics" in p.parents for p in pictures)
    code, stdout, stderr = cli("inspect", out, "--out", tmp_path / "pics")  # without --json: the same stats
    assert code == 0 and json.loads(stdout)["ok"] == 3 and f"wrote {pictures[0]}" in stderr


def test_list_json_names_every_generator():
    code, stdout, _ = cli("list", "--json")
    rows = {r["name"]: r for r in json.loads(stdout)["generators"]}
    assert code == 0 and {"packing", "foa-qa", "wrop", "toy"} <= set(rows)
    assert rows["toy"]["version"] == "1" and rows["packing"]["extra"] == "packing"


@pytest.mark.parametrize("command", ["validate", "inspect"])
@pytest.mark.parametrize("as_json", [[], ["--json"]])
def test_missing_corpus_path_is_bad_input(command, as_json, tmp_path):
    code, stdout, stderr = cli(command, tmp_path / "nosuch", *as_json)
    assert code == 2 and stdout == ""
    assert stderr.strip() == f"error: {tmp_path / 'nosuch'}: no such corpus directory"


def test_failed_new_run_leaves_no_corpus_folder(tmp_path):
    """A run that fails before keeping any episode (no Ray at the address) removes the folder it made."""
    code, stdout, stderr = cli(
        "generate",
        "toy",
        "--n",
        "2",
        "--out",
        tmp_path / "c",
        "--executor",
        "ray",
        "--address",
        "127.0.0.1:1",
    )
    assert code == 2 and stdout == "" and stderr.startswith("error: ") and len(stderr.splitlines()) == 1
    assert not (tmp_path / "c").exists()
    (tmp_path / "mine").mkdir()  # a folder the user made stays, even when the run fails
    assert (
        cli(
            "generate",
            "toy",
            "--n",
            "2",
            "--out",
            tmp_path / "mine",
            "--executor",
            "ray",
            "--address",
            "127.0.0.1:1",
        )[0]
        == 2
    )
    assert (tmp_path / "mine").is_dir()
