"""Corpora that cannot fool their readers or ``validate``: every corruption class of ``corruptions.py``."""

from __future__ import annotations

import shutil
import warnings

import numpy as np
import pytest
from corruptions import CORRUPTIONS, PACKING_CORRUPTIONS, READER_BLIND, retar

from simkit.adapters.reader import CorpusReader
from simkit.core.errors import SimkitError
from simkit.episodes.reader import CorpusDamaged, CorpusWarning, iter_corpus
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    out = tmp_path_factory.mktemp("good") / "c"
    generate_corpus("toy", 6, out, seed=2, episodes_per_shard=3)
    return out


@pytest.fixture(scope="module")
def good_samples(good):
    return {s["__key__"]: s for s in iter_corpus(good)}


@pytest.fixture
def corpus(good, tmp_path):
    dst = tmp_path / "c"
    shutil.copytree(good, dst)
    return dst


def test_catalogue_has_at_least_25_kinds():
    assert len(CORRUPTIONS) >= 25


@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
def test_validate_reports_each_corruption_with_its_place(corpus, kind):
    inject, needle = CORRUPTIONS[kind]
    inject(corpus)
    rep = validate_corpus(corpus)
    assert not rep.passed and rep.exit_code() == 1
    assert any(needle in p for p in rep.problems), rep.problems


@pytest.mark.parametrize("kind", sorted(set(CORRUPTIONS) - READER_BLIND))
def test_reader_raises_on_each_corruption(corpus, kind):
    CORRUPTIONS[kind][0](corpus)
    with pytest.raises(SimkitError) as info:
        list(CorpusReader(corpus))
    assert str(corpus) in str(info.value)


@pytest.mark.parametrize("kind", sorted(READER_BLIND & set(CORRUPTIONS)))
def test_a_reader_blind_kind_is_consistent_to_a_reader(corpus, kind):
    """Kept honest: a kind listed as reader-blind really has every checksum and parameter consistent (a
    reader yields all its episodes), so only the generator's check in validate can catch it."""
    CORRUPTIONS[kind][0](corpus)
    assert len(list(CorpusReader(corpus))) == 6


@pytest.fixture(scope="module")
def packing_good(tmp_path_factory):
    out = tmp_path_factory.mktemp("packing") / "c"
    generate_corpus("packing", 2, out, seed=0, episodes_per_shard=1, config={})
    return out


@pytest.mark.parametrize("kind", sorted(PACKING_CORRUPTIONS))
def test_validate_re_derives_packing_labels_for_each_packing_damage(packing_good, tmp_path, kind):
    corpus = tmp_path / "c"
    shutil.copytree(packing_good, corpus)
    inject, needle = PACKING_CORRUPTIONS[kind]
    inject(corpus)
    rep = validate_corpus(corpus)
    assert not rep.passed and rep.exit_code() == 1
    assert any(needle in p for p in rep.problems), rep.problems
    if kind in READER_BLIND:
        assert len(list(CorpusReader(corpus))) == 2
    else:
        with pytest.raises(SimkitError):
            list(CorpusReader(corpus))


def test_reader_error_names_corpus_shard_and_member(corpus):
    CORRUPTIONS["flipped_json_byte"][0](corpus)
    with pytest.raises(CorpusDamaged) as info:
        list(iter_corpus(corpus))
    err = info.value
    assert (err.root, err.shard, err.member) == (corpus, "shard-000000.tar", "toy_00000000.info.json")
    assert "sha256 differs from the manifest" in str(err)


def test_skip_mode_drops_only_damaged_episodes_with_one_warning_per_shard(corpus, good_samples):
    def edit(items):  # damage two episodes of shard 0
        return [
            (i, d + b" " if i.name.endswith(("00000000.info.json", "00000001.info.json")) else d)
            for i, d in items
        ]

    retar(corpus / "shards" / "shard-000000.tar", edit)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = list(CorpusReader(corpus, on_error="skip"))
    assert [s["__key__"] for s in got] == [f"toy_{i:08d}" for i in (2, 3, 4, 5)]
    ours = [w for w in caught if issubclass(w.category, CorpusWarning)]
    assert len(ours) == 1 and "shard-000000.tar" in str(ours[0].message)
    for s in got:
        np.testing.assert_array_equal(s["image"], good_samples[s["__key__"]]["image"])


def test_reader_hands_out_exactly_the_stored_values(good, good_samples):
    from simkit.episodes.tario import iter_tar

    raw = {}
    for p in sorted((good / "shards").glob("*.tar")):
        raw.update(dict(iter_tar(p)))
    for key, s in good_samples.items():
        assert set(s) == {"__key__", "image", "values", "info", "meta"}
        assert s["image"].flags.writeable and s["values"].flags.writeable
        assert np.load(__import__("io").BytesIO(raw[f"{key}.values.npy"])).tolist() == s["values"].tolist()


def test_tampering_raises_through_dataloader_workers(corpus):
    import pickle

    import torch

    from simkit.adapters.torch import CorpusDataset

    CORRUPTIONS["flipped_png_byte"][0](corpus)
    loader = torch.utils.data.DataLoader(CorpusDataset([corpus]), batch_size=None, num_workers=2)
    with pytest.raises(CorpusDamaged, match=r"shard-000000.tar: member 'toy_00000000.image.png': sha256"):
        list(loader)
    err = CorpusDamaged(corpus, "shard-000000.tar", "x.png", "edited")
    assert str(pickle.loads(pickle.dumps(err))) == str(err)


def test_reader_reads_what_the_manifest_lists_while_a_run_goes_on(corpus, good_samples):
    """A run in progress has complete shards its manifest does not list yet: readers read the listed ones."""
    import json

    from simkit.episodes.corpus import CorpusLayout, read_manifest, write_manifest

    rows = [r for r in read_manifest(corpus / "manifest.parquet") if r["shard"] == "shard-000000.tar"]
    write_manifest(CorpusLayout(corpus), rows)
    info = json.loads((corpus / "corpus.json").read_text())
    info["counts"].update(present=3, ok=3)
    (corpus / "corpus.json").write_text(json.dumps(info))
    got = list(CorpusReader(corpus))
    assert [s["__key__"] for s in got] == [f"toy_{i:08d}" for i in range(3)]
    assert all(s["info"] == good_samples[s["__key__"]]["info"] for s in got)
    (corpus / ".partial" / "shard-000002").mkdir(parents=True)  # the run is still producing episodes
    rep = validate_corpus(corpus)
    assert rep.passed and rep.exit_code() == 0 and rep.exit_code(strict=True) == 5
    assert "shard-000001.tar: complete on disk, not yet in the manifest (a run in progress)" in rep.notes
