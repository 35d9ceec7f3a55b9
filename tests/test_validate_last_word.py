"""`simkit validate` is the last word: a stray shard, another episode's content with refreshed checksums, an
edited corpus.json config or an unknown format version each fail; readers and merge refuse a corpus whose
corpus.json names another generator than its episodes."""

from __future__ import annotations

import io
import json
import shutil
import tarfile

import pytest
from enginehelp import simkit_cli

from simkit.core.errors import SimkitError
from simkit.episodes.corpus import CorpusLayout, load_rows, sha256, write_manifest
from simkit.episodes.merge import merge_corpora
from simkit.episodes.reader import CorpusDamaged, corpus_episodes, iter_corpus
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    out = tmp_path_factory.mktemp("toy") / "c"
    generate_corpus("toy", 4, out, seed=3, episodes_per_shard=2)
    return out


@pytest.fixture(scope="module")
def packing(tmp_path_factory):
    out = tmp_path_factory.mktemp("packing") / "c"
    generate_corpus("packing", 2, out, seed=0, episodes_per_shard=1, config={})
    return out


@pytest.fixture
def copy(tmp_path):
    def make(src):
        dst = tmp_path / "c"
        shutil.copytree(src, dst)
        return dst

    return make


def member(root, shard, name) -> bytes:
    with tarfile.open(root / "shards" / shard) as tf:
        return tf.extractfile(name).read()


def replace_member(root, shard, name, data: bytes) -> None:
    """Put ``data`` in place of member ``name`` and refresh its size and sha256 in the rows file and the
    manifest, as a careful forger would (every checksum agrees afterwards)."""
    path = root / "shards" / shard
    with tarfile.open(path) as tf:
        items = [(m, tf.extractfile(m).read()) for m in tf.getmembers()]
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tf:
        for info, old in items:
            new = data if info.name == name else old
            info.size = len(new)
            tf.addfile(info, io.BytesIO(new))
    layout = CorpusLayout(root)
    rows = load_rows(layout)
    for r in rows:
        for m in r["members"]:
            if m["name"] == name:
                m["sha256"], m["bytes"] = sha256(data), len(data)
    rows_file = root / "shards" / shard.replace(".tar", ".rows.json")
    rows_file.write_text(json.dumps([r for r in rows if r["shard"] == shard]))
    write_manifest(layout, rows)


def edit_info(root, **changes) -> None:
    p = root / "corpus.json"
    info = json.loads(p.read_text())
    for k, v in changes.items():
        if k == "config":
            info["config"].update(v)
        else:
            info[k] = v
    p.write_text(json.dumps(info))


def test_a_copied_shard_fails_validate_of_a_finished_corpus_and_the_readers(toy, copy):
    c = copy(toy)
    shutil.copy(c / "shards" / "shard-000000.tar", c / "shards" / "shard-000099.tar")
    rep = validate_corpus(c)
    assert rep.problems == ["shard-000099.tar: extra file in shards/ that no manifest row names"]
    assert not rep.incomplete
    with pytest.raises(CorpusDamaged, match=r"shard-000099\.tar: extra shard file"):
        corpus_episodes(c)
    p = simkit_cli("validate", str(c))
    assert p.returncode == 1 and "FAIL shard-000099.tar: extra file" in p.stdout


def test_a_shard_of_an_unfinished_run_stays_a_note(toy, copy):
    c = copy(toy)  # as a run killed between writing shard 1's tar and its rows file leaves it
    (c / "shards" / "shard-000001.rows.json").unlink()
    write_manifest(CorpusLayout(c), load_rows(CorpusLayout(c)))
    edit_info(c, counts={"planned": 4, "present": 2, "ok": 2, "failed": 0, "redraws": 0})
    rep = validate_corpus(c)
    assert rep.passed, rep.problems
    assert "shards/shard-000001.tar: a shard of an unfinished run (re-run the same command)" in rep.notes
    assert rep.incomplete


def test_an_unknown_format_version_is_refused_naming_it(toy, copy, tmp_path):
    c = copy(toy)
    edit_info(c, format="simkit-corpus/2")
    rep = validate_corpus(c)
    assert len(rep.problems) == 1 and "unknown format 'simkit-corpus/2'" in rep.problems[0]
    with pytest.raises(SimkitError, match="unknown format 'simkit-corpus/2'"):
        corpus_episodes(c)
    with pytest.raises(SimkitError, match="unknown format 'simkit-corpus/2'"):
        merge_corpora([c], tmp_path / "m")
    with pytest.raises(SimkitError, match="unknown format 'simkit-corpus/2'"):
        generate_corpus("toy", 4, c, seed=3, episodes_per_shard=2)
    edit_info(c, format=None)
    assert "no format version" in validate_corpus(c).problems[0]


def test_corpus_json_naming_another_generator_is_refused_by_readers_and_merge(toy, copy, tmp_path):
    c = copy(toy)
    edit_info(c, generator="media")
    with pytest.raises(CorpusDamaged, match="is not episode 0 of generator 'media'"):
        list(iter_corpus(c))
    with pytest.raises(SimkitError, match="is not episode 0 of generator 'media'"):
        merge_corpora([c], tmp_path / "m")
    assert not (tmp_path / "m").exists()
    assert not validate_corpus(c, run_checks=False).passed


def test_merge_refuses_meta_of_another_seed(toy, copy, tmp_path):
    c = copy(toy)
    edit_info(c, seed=4)
    with pytest.raises(SimkitError, match=r"meta.json disagrees .* seed 3"):
        merge_corpora([c], tmp_path / "m")


def test_another_episodes_meta_with_fresh_checksums_fails(toy, copy):
    c = copy(toy)
    meta1 = json.loads(member(c, "shard-000000.tar", "toy_00000001.meta.json"))
    meta1.update(index=0, key="toy_00000000")  # the forger also fixes what names the episode
    replace_member(c, "shard-000000.tar", "toy_00000000.meta.json", json.dumps(meta1).encode())
    problems = validate_corpus(c).problems
    assert problems == [
        "shard-000000.tar: member 'toy_00000000.meta.json': its params do not match the manifest row's "
        "params_digest (another episode's meta.json?)"
    ]


def test_packing_corpus_passes(packing):
    rep = validate_corpus(packing)
    assert rep.passed, rep.problems


def test_packing_metrics_of_another_episode_fail(packing, copy):
    c = copy(packing)
    other = member(c, "shard-000001.tar", "packing_00000001.metrics.json")
    assert other != member(c, "shard-000000.tar", "packing_00000000.metrics.json")
    replace_member(c, "shard-000000.tar", "packing_00000000.metrics.json", other)
    problems = validate_corpus(c).problems
    assert problems and all(p.startswith("packing_00000000: metric ") for p in problems), problems
    assert any("packed_volume_m3" in p for p in problems)


def test_packing_edited_resolution_in_corpus_json_fails(packing, copy):
    c = copy(packing)
    edit_info(c, config={"resolution": 0.05})
    problems = validate_corpus(c).problems
    assert len(problems) == 2
    assert all("resolution 0.025 (corpus.json config: 0.05)" in p for p in problems)


def test_packing_case_and_metrics_of_another_episode_fail_on_meta_params(packing, copy):
    c = copy(packing)
    for field in ("case", "metrics", "heightmaps", "actions", "steps", "poses", "heightmap_strip"):
        ext = {"case": "json", "metrics": "json", "steps": "json", "heightmap_strip": "png"}.get(field, "npy")
        data = member(c, "shard-000001.tar", f"packing_00000001.{field}.{ext}")
        replace_member(c, "shard-000000.tar", f"packing_00000000.{field}.{ext}", data)
    problems = validate_corpus(c).problems
    assert problems and all("meta.json params.structural." in p for p in problems), problems


def test_only_the_config_values_a_generator_echoes_are_compared():
    from simkit.episodes.corpus import config_fault, echoed_config

    info = {
        "config": {"resolution": 0.025, "height": 36, "lufs": [-32.0, -20.0]},
        "config_params": ["resolution"],
    }
    echoed = echoed_config(info)
    assert echoed == {"resolution": 0.025}
    # a task's object height and a level drawn from a range share config keys' names, not their values
    drawn = {"params": {"structural": {"height": 0.8594, "lufs": -31.8}, "surface": {"resolution": 0.025}}}
    assert config_fault(drawn, echoed) is None
    fault = config_fault({"params": {"surface": {"resolution": 0.05}}}, echoed)
    assert fault is not None and "resolution 0.05" in fault and "0.025" in fault
    assert echoed_config({"config": {"resolution": 0.025}}) == {}  # no list in corpus.json: nothing compared
