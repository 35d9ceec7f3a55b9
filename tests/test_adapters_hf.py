"""simkit.adapters.hf: Hugging Face datasets typed from the declared field schema, values equal to simkit's reader."""

from __future__ import annotations

import json

import datasets  # the hf extra (part of [all], which the test install has): missing fails loudly
import numpy as np
import pytest

from simkit.adapters.hf import hf_rows, load_hf_dataset, to_hf_features
from simkit.adapters.reader import CorpusReader
from simkit.core.errors import SimkitError
from simkit.executors.run import generate_corpus


def test_without_datasets_one_line_names_the_hf_extra(monkeypatch, tmp_path):
    import sys

    from simkit.core.errors import ExtraMissing

    monkeypatch.setitem(sys.modules, "datasets", None)  # as if not installed
    with pytest.raises(ExtraMissing, match=r"simkit\[hf\]"):
        to_hf_features(tmp_path)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    base = tmp_path_factory.mktemp("hf")
    made = {}
    for name, n, config in (
        ("foa-qa", 2, {"n_interferers": [0, 1]}),  # seed 0: one interferer, then none
        ("packing", 2, None),
        ("foa-nav", 1, None),
    ):
        made[name] = base / name
        generate_corpus(name, n, made[name], seed=0, config=config)
    return made


def _assert_rows_equal_reader(root, ds) -> int:
    """Every row of ``ds`` (numpy format) holds the values simkit's reader decodes for the same episode."""
    samples = list(CorpusReader(root))
    assert len(ds) == len(samples)
    for row, s in zip(ds.with_format("numpy"), samples, strict=True):
        assert row["key"] == s["__key__"]
        assert json.loads(row["meta"]) == s["meta"]
        absent = {c for c in row if c not in s and c.removesuffix("_sampling_rate") not in s} - {"key"}
        assert all(row[c] is None for c in absent), absent  # an optional field this episode lacks
        for name, value in s.items():
            if name in ("__key__", "meta"):
                continue
            col = row[name]
            if isinstance(value, tuple):  # FLAC: (float32 (T, C), rate)
                assert np.array_equal(col, value[0]) and row[f"{name}_sampling_rate"] == value[1]
            elif isinstance(value, (dict, list, str)):
                assert (json.loads(col) if not isinstance(value, str) else col) == value
            elif isinstance(value, bytes):
                assert bytes(col) == value
            else:
                assert np.array_equal(np.asarray(col), value, equal_nan=value.dtype.kind == "f"), name
    return len(samples)


def test_foa_qa_with_and_without_interferers_loads_typed_from_the_schema(corpora, tmp_path):
    root = corpora["foa-qa"]
    counts = {len(s["scene"]["interferers"]) for s in CorpusReader(root, fields=["scene"])}
    assert counts == {0, 1}  # an empty list beside a non-empty one: what breaks the inferring builder
    feats = to_hf_features(root)
    assert feats["foa"] == datasets.Array2D(shape=(None, 4), dtype="float32")
    assert feats["foa_sampling_rate"] == datasets.Value("int32")
    assert feats["scene"] == datasets.Value("string") and feats["qa"] == datasets.Value("string")
    # features (5, 128, F): optional, typed from its declaration
    assert feats["features"] == datasets.List(
        datasets.List(datasets.List(datasets.Value("float32")), length=128), length=5
    )
    ds = load_hf_dataset(root, cache_dir=tmp_path)
    assert ds.features == feats
    assert _assert_rows_equal_reader(root, ds) == 2


def test_foa_qa_audio_as_flac_bytes(corpora, tmp_path):
    from simkit.episodes.codecs import decode

    root = corpora["foa-qa"]
    ds = load_hf_dataset(root, audio="bytes", fields=["foa"], cache_dir=tmp_path)
    assert ds.features["foa"] == datasets.Value("binary") and set(ds.column_names) == {"key", "meta", "foa"}
    for row, s in zip(ds, CorpusReader(root, fields=["foa"]), strict=True):
        samples, rate = decode("flac", row["foa"])
        assert np.array_equal(samples, s["foa"][0]) and rate == s["foa"][1]


def test_packing_loads_with_declared_dtypes(corpora, tmp_path):
    root = corpora["packing"]
    ds = load_hf_dataset(root, cache_dir=tmp_path)
    f = ds.features
    assert f["actions"] == datasets.Array2D(shape=(None, 5), dtype="int32")
    assert f["heightmaps"] == datasets.List(datasets.List(datasets.List(datasets.Value("int16"))))
    assert f["heightmap_strip"] == datasets.Image()
    assert ds.data.column("heightmaps").type.value_type.value_type.value_type == "int16"  # stored as declared
    assert _assert_rows_equal_reader(root, ds) == 2


def test_foa_nav_loads_blobs_and_arrays(corpora, tmp_path):
    root = corpora["foa-nav"]
    ds = load_hf_dataset(root, cache_dir=tmp_path)
    assert ds.features["waypoints"] == datasets.Array3D(shape=(None, 8, 3), dtype="float32")
    assert ds.features["stop"] == datasets.Array2D(shape=(None, 8), dtype="bool")
    assert ds.features["rgb"] == datasets.Value("binary")  # optional mp4, off by default: None in each row
    assert [r["rgb"] for r in ds] == [None]
    assert _assert_rows_equal_reader(root, ds) == 1


def test_rows_need_no_datasets_cache_and_unknown_fields_are_named(corpora):
    rows = list(hf_rows(str(corpora["packing"]), fields=["actions"]))
    assert [r["key"] for r in rows] == [s["__key__"] for s in CorpusReader(corpora["packing"])]
    with pytest.raises(SimkitError, match="no field 'nope'"):
        to_hf_features(corpora["packing"], fields=["nope"])
    with pytest.raises(SimkitError, match="audio must be"):
        to_hf_features(corpora["packing"], audio="wav")  # type: ignore[arg-type]


def test_a_grown_corpus_is_not_read_from_the_stale_cache(corpora, tmp_path):
    import shutil

    from simkit.adapters.hf import corpus_fingerprint

    root = tmp_path / "grow"
    shutil.copytree(corpora["packing"], root)
    cache = tmp_path / "cache"
    before = corpus_fingerprint(root)
    assert len(load_hf_dataset(root, fields=["actions"], cache_dir=cache)) == 2
    generate_corpus("packing", 3, root, seed=0)  # grows the same corpus by one episode
    assert corpus_fingerprint(root) != before
    assert len(load_hf_dataset(root, fields=["actions"], cache_dir=cache)) == 3
