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
        ["export", "hebero-hdf5", "{d}", "{f}/x"],
        ["export", "hebero-lerobot", "{d}", "{f}/x"],
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


SPECIAL = (
    "/proc/simkit-out"  # a folder of a special file system: nobody can create files there, root included
)


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self"), reason="needs Linux /proc")
@pytest.mark.parametrize(
    "args",
    [
        ["export", "hebero-hdf5", "{d}", SPECIAL + "/x"],
        ["list", "wrop", "--catalogue", SPECIAL + "/cat.md", "--no-thumbnails"],
        ["convert", "mjcf2usd", "{f}", SPECIAL + "/o.usda"],
        ["config", "toy", "--yaml", SPECIAL + "/toy.yaml"],
        ["eval", "nav", "--policy", "random", "--episodes", "1", "--out", SPECIAL + "/r.json"],
        ["generate", "toy", "--n", "1", "--out", SPECIAL + "/c"],
        ["merge", "{d}", "--out", SPECIAL + "/m"],
    ],
)
def test_an_out_nobody_can_write_is_one_line_before_any_work(args, tmp_path):
    f, d = tmp_path / "file", tmp_path / "folder"
    f.write_text("x")
    d.mkdir()
    r = CliRunner().invoke(app, [a.format(f=f, d=d) for a in args])
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "cannot write in /proc" in lines[0], (
        r.output
    )


def test_convert_under_a_file_is_one_line(tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    src = tmp_path / "good.xml"
    src.write_text("<mujoco/>")
    r = CliRunner().invoke(app, ["convert", "mjcf2usd", str(src), str(f / "sub" / "o.usda")])
    assert (
        r.exit_code == 2
        and r.output.strip() == f"error: OUT {f / 'sub' / 'o.usda'}: is under {f}, which is a file"
    )


def test_convert_refuses_to_write_over_its_input_and_keeps_it(tmp_path):
    a = tmp_path / "a.usda"
    a.write_text("#usda 1.0\n")
    for out in (a, tmp_path / "." / "a.usda"):
        r = CliRunner().invoke(app, ["convert", "mjcf2usd", str(a), str(out), "--overwrite"])
        assert r.exit_code == 2 and "is the input" in r.output and len(r.output.strip().splitlines()) == 1
    assert a.read_text() == "#usda 1.0\n"


def test_convert_and_config_yaml_share_one_overwrite_rule(tmp_path):
    src = tmp_path / "m.xml"
    src.write_text(
        '<mujoco><worldbody><body><geom type="box" size="0.1 0.1 0.1"/></body></worldbody></mujoco>'
    )
    for argv, out in (
        (["convert", "mjcf2usd", str(src), "{o}"], tmp_path / "o.usda"),
        (["config", "toy", "--yaml", "{o}"], tmp_path / "o.yaml"),
    ):
        out.write_text("mine")
        cmd = [a.format(o=out) for a in argv]
        r = CliRunner().invoke(app, cmd)
        assert r.exit_code == 2 and "already exists; choose a new file name, or --overwrite" in r.output
        assert out.read_text() == "mine"
        r = CliRunner().invoke(app, [*cmd, "--overwrite"])
        assert r.exit_code == 0, r.output
        assert out.read_text() != "mine"


def test_generate_overwrite_keeps_user_files_in_shards_and_partial(tmp_path):
    from simkit.executors.run import generate_corpus

    out = tmp_path / "c"
    generate_corpus("toy", 2, out, seed=1, episodes_per_shard=1)
    (out / "shards" / "notes.txt").write_text("mine")
    (out / ".partial").mkdir(exist_ok=True)
    (out / ".partial" / "keep.bin").write_bytes(b"mine")
    (out / ".partial" / "shard-000007").mkdir()
    (out / ".partial" / "shard-000007" / "README").write_text("mine")
    (out / "shards" / "shard-000005.tar.tmp").write_bytes(b"left by a killed run")
    r = CliRunner().invoke(
        app, ["generate", "toy", "--n", "2", "--out", str(out), "--seed", "2", "--overwrite"]
    )
    assert r.exit_code == 0, r.output
    assert (out / "shards" / "notes.txt").read_text() == "mine"
    assert (out / ".partial" / "keep.bin").read_bytes() == b"mine"
    assert (out / ".partial" / "shard-000007" / "README").read_text() == "mine"
    assert not (out / "shards" / "shard-000005.tar.tmp").exists()
    assert sorted(p.name for p in (out / "shards").glob("shard-*")) == [
        "shard-000000.rows.json",
        "shard-000000.tar",
    ]


def test_a_merged_corpus_has_no_empty_partial_folder(tmp_path):
    from simkit.episodes.merge import merge_corpora
    from simkit.executors.run import generate_corpus

    for k in (0, 1):
        generate_corpus("toy", 4, tmp_path / f"s{k}", seed=1, episodes_per_shard=1, shard=(k, 2))
    merge_corpora([tmp_path / "s0", tmp_path / "s1"], tmp_path / "m")
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == [
        ".lock",
        "corpus.json",
        "manifest.parquet",
        "shards",
    ]


def test_a_damaged_tar_header_is_named_as_such_not_trailing_garbage(tmp_path):
    import tarfile

    from simkit.episodes.reader import index_shard
    from simkit.executors.run import generate_corpus

    generate_corpus("toy", 2, tmp_path / "c", seed=1, episodes_per_shard=2)
    p = tmp_path / "c" / "shards" / "shard-000000.tar"
    with tarfile.open(p) as tf:
        second = tf.getmembers()[1].offset
    b = bytearray(p.read_bytes())
    b[second + 3] ^= 0x55  # one byte of the second member's name: its header checksum no longer matches
    p.write_bytes(bytes(b))
    problem = index_shard(p).problem
    assert problem is not None and problem[1].startswith(
        f"damaged member header at byte {second} (bad checksum"
    )
