"""No command writes into what it reads: a corpus's own files, an input mesh, the votes file; a config that
never ends is refused; the Elo forest plot draws an interval that does not hold its estimate."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

from simkit.cli import app
from simkit.core.config import MAX_YAML_BYTES, build_config
from simkit.core.errors import InputError
from simkit.episodes.corpus import corpus_part
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    out = tmp_path_factory.mktemp("toy") / "c"
    generate_corpus("toy", 4, out, seed=3, episodes_per_shard=2)
    return out


def _one_error_line(r, *words: str) -> None:
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert all(w in lines[0] for w in words), lines[0]


def test_corpus_part_names_the_part_an_output_lies_in(toy, tmp_path):
    assert corpus_part(toy / "shards", toy) == "shards"
    assert corpus_part(toy / "shards" / "x" / "y.png", toy) == "shards"
    assert corpus_part(toy / "corpus.json", toy) == "corpus.json"
    assert corpus_part(toy / ".partial" / "p", toy) == ".partial"
    assert corpus_part(toy / "inspect", toy) is None  # inspect's default folder, beside the corpus files
    assert corpus_part(toy / "shards" / ".." / "mine.txt", toy) is None
    assert corpus_part(tmp_path / "shards", toy) is None
    assert corpus_part(toy / "shards", tmp_path / "no-corpus") is None
    link = tmp_path / "link"
    link.symlink_to(toy / "shards")
    assert corpus_part(link / "a.png", toy) == "shards"  # through a link too


def test_inspect_into_the_shards_folder_is_refused_and_the_corpus_stays_valid(toy, tmp_path):
    c = tmp_path / "c"
    shutil.copytree(toy, c)
    for out in (c / "shards", c / "shards" / "pics", c / ".partial"):
        r = CliRunner().invoke(app, ["inspect", str(c), "--out", str(out)])
        _one_error_line(r, f"--out {out}", "inside the corpus's own")
    assert validate_corpus(c).passed and not (c / ".partial").exists()
    r = CliRunner().invoke(app, ["inspect", str(c), "--out", "/proc/simkit-pics"])
    _one_error_line(r, "cannot write in /proc")


def test_inspect_checks_out_before_reading_the_corpus(toy, tmp_path, monkeypatch):
    import simkit.episodes.inspect as mod

    monkeypatch.setattr(mod, "corpus_stats", lambda root: pytest.fail("the corpus was read first"))
    f = tmp_path / "f"
    f.write_text("x")
    r = CliRunner().invoke(app, ["inspect", str(toy), "--out", str(f / "pics")])
    _one_error_line(r, f"is under {f}, which is a file")


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "wrop-fit", "--exam", "{c}", "--pred", "{p}", "--out", "{c}/shards"],
        ["eval", "wrop-check", "--exam", "{c}", "--pred", "{p}", "--out", "{c}/shards/x"],
        ["export", "wrop-baselines", "--exam", "{c}", "--out", "{c}/shards"],
        ["export", "wrop-pairs", "--exam", "{c}", "--pred", "{p}", "--pred", "{p}2", "--out", "{c}/.partial"],
    ],
)
def test_wrop_outputs_inside_the_exam_corpus_files_are_refused(argv, toy, tmp_path):
    import json

    c = tmp_path / "c"
    shutil.copytree(toy, c)
    info = json.loads((c / "corpus.json").read_text())
    (c / "corpus.json").write_text(json.dumps({**info, "generator": "wrop"}))  # what the commands check first
    for p in (tmp_path / "p", tmp_path / "p2"):
        p.mkdir()
    before = sorted(os.listdir(c / "shards"))
    args = [a.format(c=c, p=tmp_path / "p") for a in argv]
    r = CliRunner().invoke(app, args)
    _one_error_line(r, "inside the corpus's own")
    assert sorted(os.listdir(c / "shards")) == before and not (c / ".partial").exists()


def test_wrop_elo_never_writes_over_its_votes_file(tmp_path):
    votes = tmp_path / "elo.csv"
    text = "rater,sample,model_a,model_b,winner\nr0,s,a,b,a\nr1,s,a,b,b\nr1,s,a,b,a\n"
    votes.write_text(text)
    r = CliRunner().invoke(app, ["eval", "wrop-elo", "--votes", str(votes), "--out", str(tmp_path)])
    _one_error_line(r, "would replace the --votes file")
    assert votes.read_text() == text and sorted(os.listdir(tmp_path)) == ["elo.csv"]


def test_the_forest_plot_draws_an_interval_that_misses_its_estimate(tmp_path):
    """Three votes and three resamples: the percentile interval's upper end falls below the estimate by a
    rounding error (``xerr`` was negative: a ValueError from matplotlib after the tables were written)."""
    votes = tmp_path / "v.csv"
    votes.write_text("rater,sample,model_a,model_b,winner\nr0,s,a,b,a\nr1,s,a,b,b\nr1,s,a,b,a\n")
    out = tmp_path / "o"
    r = CliRunner().invoke(
        app, ["eval", "wrop-elo", "--votes", str(votes), "--out", str(out), "--bootstrap", "3"]
    )
    assert r.exit_code == 0 and r.exception is None, r.output
    assert (out / "elo_forest.png").stat().st_size > 1000

    from simkit.eval.wrop.elo import EloResult, forest_plot

    two = np.array([1550.0, 1450.0])
    res = EloResult(
        ["a", "b"], two, two - 10, two - 5, np.array([1.0, 0.0]), np.array([3, 3]), np.array([2, 1]),
        np.array([0, 0]), np.zeros((3, 2)), 2, 3, [],
    )  # fmt: skip
    assert forest_plot(res, tmp_path / "f.png").stat().st_size > 1000


def test_a_config_that_never_ends_is_refused_not_read_until_memory_runs_out():
    from simkit.core.generator import GeneratorConfig

    with pytest.raises(InputError, match=f"more than the {MAX_YAML_BYTES} bytes a config may have"):
        build_config(GeneratorConfig, "/dev/zero")
    r = CliRunner().invoke(app, ["generate", "toy", "--n", "1", "--out", "/tmp/x", "--config", "/dev/zero"])
    _one_error_line(r, "/dev/zero", "config refused")


def test_assets_scan_never_writes_its_index_over_a_mesh(tmp_path):
    pytest.importorskip("trimesh")
    import trimesh

    meshes = tmp_path / "m"
    meshes.mkdir()
    trimesh.creation.box((1.0, 1.0, 1.0)).export(meshes / "a.obj")
    before = (meshes / "a.obj").read_bytes()
    r = CliRunner().invoke(app, ["assets", "scan", str(meshes), "--out", str(meshes / "a.obj")])
    _one_error_line(r, "a mesh file name (.obj)")
    assert (meshes / "a.obj").read_bytes() == before


@pytest.mark.parametrize(
    "argv",
    [
        ["generate", "toy", "--n", "1", "--no-progress", "--out", "{c}/shards/g"],
        ["generate", "toy", "--n", "1", "--no-progress", "--out", "{c}/.partial/g"],
        ["merge", "{o}", "--out", "{c}/shards/m"],
        ["config", "toy", "--yaml", "{c}/shards/toy.yaml"],
        ["eval", "nav", "--episodes", "1", "--out", "{c}/shards/r.json"],
    ],
)
def test_no_command_writes_into_another_corpus_shards(argv, toy, tmp_path):
    """A corpus written (or a file put) into another corpus's shards/ or .partial/ made that one fail
    validate ("extra file in shards/"): each is refused in one line, the other corpus stays valid."""
    c, o = tmp_path / "c", tmp_path / "o"
    shutil.copytree(toy, c)
    shutil.copytree(toy, o)
    r = CliRunner().invoke(app, [a.format(c=c, o=o) for a in argv])
    _one_error_line(r, "inside the corpus's own", f"(of {c.resolve()})")
    assert validate_corpus(c).passed and not (c / ".partial").exists()
