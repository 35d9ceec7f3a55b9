"""`simkit validate` catches every injected fault with a clear report and a non-zero exit, never a traceback."""

from __future__ import annotations

import io
import json
import shutil
import tarfile

import pytest
from enginehelp import simkit_cli

from simkit.episodes.corpus import write_manifest
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    out = tmp_path_factory.mktemp("good") / "c"
    generate_corpus("toy", 6, out, seed=2, episodes_per_shard=3)
    return out


@pytest.fixture
def corpus(good, tmp_path):
    dst = tmp_path / "c"
    shutil.copytree(good, dst)
    return dst


def _retar(path, edit):
    """Rewrite a tar, letting ``edit(list of (TarInfo, bytes))`` change it."""
    with tarfile.open(path) as tf:
        items = [(m, tf.extractfile(m).read()) for m in tf.getmembers()]
    items = edit(items)
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tf:
        for info, data in items:
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))


def _truncate(c):
    p = c / "shards" / "shard-000001.tar"
    p.write_bytes(p.read_bytes()[:700])


def _missing_member(c):
    _retar(
        c / "shards" / "shard-000000.tar",
        lambda items: [it for it in items if ".values." not in it[0].name or "00000001" not in it[0].name],
    )


def _edited_bytes(c):
    p = c / "shards" / "shard-000000.tar"
    b = bytearray(p.read_bytes())
    i = b.index(b'"n_values"')  # inside an info.json member
    b[i + 1] = ord("N")
    p.write_bytes(bytes(b))


def _missing_shard(c):
    (c / "shards" / "shard-000001.tar").unlink()


def _dotdot_member(c):
    def edit(items):
        info, data = items[0]
        info.name = "../escape.image.png"
        return [(info, data)] + items[1:]

    _retar(c / "shards" / "shard-000000.tar", edit)


def _absolute_member(c):
    def edit(items):
        info, data = items[0]
        info.name = "/etc/passwd.image.png"
        return [(info, data)] + items[1:]

    _retar(c / "shards" / "shard-000000.tar", edit)


def _manifest_unknown_shard(c):
    from simkit.episodes.corpus import CorpusLayout, read_manifest

    rows = read_manifest(c / "manifest.parquet")
    rows[0]["shard"] = "shard-000099.tar"
    write_manifest(CorpusLayout(c), rows)


def _garbage_manifest(c):
    (c / "manifest.parquet").write_bytes(b"not parquet at all")


def _corpus_json_gone(c):
    (c / "corpus.json").unlink()


def _not_a_tar(c):
    (c / "shards" / "shard-000000.tar").write_bytes(b"hello" * 300)


FAULTS = {
    "truncated_tar": (_truncate, "shard-000001.tar"),
    "missing_member": (_missing_member, "missing"),
    "edited_bytes": (_edited_bytes, "checksum mismatch"),
    "manifest_names_missing_shard": (_missing_shard, "missing"),
    "dotdot_member": (_dotdot_member, "unsafe member name"),
    "absolute_member": (_absolute_member, "unsafe member name"),
    "manifest_row_differs": (_manifest_unknown_shard, "differs"),
    "garbage_manifest": (_garbage_manifest, "manifest.parquet: unreadable"),
    "no_corpus_json": (_corpus_json_gone, "corpus.json: missing"),
    "not_a_tar": (_not_a_tar, "cannot be read as a tar"),
}


def test_good_corpus_passes(good):
    rep = validate_corpus(good)
    assert rep.passed and rep.episodes == 6 and rep.shards == 2


@pytest.mark.parametrize("fault", list(FAULTS))
def test_injected_fault_is_reported(corpus, fault):
    inject, needle = FAULTS[fault]
    inject(corpus)
    rep = validate_corpus(corpus)
    assert not rep.passed
    assert any(needle in p for p in rep.problems), rep.problems


@pytest.mark.parametrize("fault", ["truncated_tar", "dotdot_member", "garbage_manifest"])
def test_cli_validate_exits_nonzero_without_traceback(corpus, fault):
    FAULTS[fault][0](corpus)
    p = simkit_cli("validate", str(corpus))
    assert p.returncode == 1
    assert "Traceback" not in p.stdout + p.stderr
    assert p.stdout.splitlines()[-1].startswith("FAIL")


def test_generator_check_hook_runs(corpus):
    # change n_values in an info.json and fix its checksum in the manifest: only the generator's check can see it
    from simkit.episodes.corpus import CorpusLayout, load_rows, sha256

    p = corpus / "shards" / "shard-000000.tar"

    def edit(items):
        out = []
        for info, data in items:
            if info.name == "toy_00000000.info.json":
                d = json.loads(data)
                d["n_values"] += 1
                data = json.dumps(d).encode()
            out.append((info, data))
        return out

    _retar(p, edit)
    rows = load_rows(CorpusLayout(corpus))
    with tarfile.open(p) as tf:
        new = {m.name: tf.extractfile(m).read() for m in tf.getmembers()}
    for r in rows:
        for m in r["members"]:
            if m["name"] in new:
                m["sha256"], m["bytes"] = sha256(new[m["name"]]), len(new[m["name"]])
    rows_file = corpus / "shards" / "shard-000000.rows.json"
    rows_file.write_text(json.dumps([r for r in rows if r["shard"] == "shard-000000.tar"]))
    write_manifest(CorpusLayout(corpus), rows)
    rep = validate_corpus(corpus)
    assert rep.problems == ["toy_00000000: values length differs from info.n_values"]


def test_validate_elsewhere_when_a_config_path_is_gone(tmp_path):
    assets = tmp_path / "assets"
    assets.mkdir()
    generate_corpus("toy", 2, tmp_path / "c", config={"input_dir": str(assets)})
    assets.rmdir()  # the corpus moved to a machine without the generator's input folder
    rep = validate_corpus(tmp_path / "c")
    assert rep.passed
    assert rep.notes and "does not validate here" in rep.notes[0] and "is not a directory" in rep.notes[0]


def test_a_damaged_member_is_reported_once_not_again_by_the_generator_check(corpus):
    _edited_bytes(corpus)  # corrupts an info.json, which the toy generator's check reads
    problems = validate_corpus(corpus).problems
    assert len(problems) == 1 and "checksum mismatch" in problems[0]
