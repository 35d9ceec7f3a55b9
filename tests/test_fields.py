"""Typed episode fields: the declaration checks, the engine hook, corpus.json and validate."""

from __future__ import annotations

import json

import numpy as np
import pytest
from toygen import ToyGenerator

from simkit.core.episode import Audio, Blob, Image, Video
from simkit.core.fields import (
    FieldMismatch,
    FieldSpec,
    assert_episode,
    check_episode,
    check_value,
    field_table,
    required_names,
    schema_json,
    specs_from_json,
)
from simkit.core.generator import Generator
from simkit.episodes.corpus import CorpusLayout, read_manifest
from simkit.episodes.reader import corpus_fields
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus

HM = FieldSpec("heightmaps", "npy", "int16", ("T+1", "L", "W"), units="cells")
ACT = FieldSpec("actions", "npy", "int32", ("T", 5))


def test_value_conforms_or_names_expected_and_got():
    assert check_value(HM, np.zeros((4, 3, 2), np.int16)) is None
    assert check_value(HM, np.zeros((4, 3, 2), np.int32)) == "expected dtype int16, got int32"
    assert check_value(HM, np.zeros((4, 3), np.int16)) == "expected shape (T+1, L, W), got (4, 3)"
    assert check_value(ACT, np.zeros((3, 4), np.int32)) == "expected shape (T, 5), got (3, 4)"
    assert check_value(HM, {"a": 1}) == "expected codec npy, got json (dict)"


def test_symbolic_dims_with_offsets_agree_within_an_episode():
    dims: dict[str, int] = {}
    assert check_value(HM, np.zeros((8, 3, 2), np.int16), dims) is None
    assert dims == {"T": 7, "L": 3, "W": 2}
    assert check_value(ACT, np.zeros((7, 5), np.int32), dims) is None
    assert check_value(ACT, np.zeros((8, 5), np.int32), dims) == (
        "expected shape (T, 5) with T=7 (set by an earlier field), got (8, 5)"
    )


def test_codecs_of_media_values():
    img = FieldSpec("rgb", "png", "uint8", ("H", "W", 3))
    assert check_value(img, Image(np.zeros((4, 5, 3), np.uint8))) is None
    assert check_value(img, Image(np.zeros((4, 5, 3), np.float32))) == "expected codec png, got exr (Image)"
    vid = FieldSpec("v", "mp4", "uint8", ("F", "H", "W", 3))
    assert check_value(vid, Video(np.zeros((2, 4, 6, 3), np.uint8))) is None
    aud = FieldSpec("foa", "flac", "float32", ("S", 4))
    assert check_value(aud, Audio(np.zeros((10, 4), np.float64), 16000)) is None  # any float is stored as PCM
    assert (
        check_value(aud, Audio(np.zeros((10, 2), np.float32), 16000)) == "expected shape (S, 4), got (10, 2)"
    )
    # decoded members: FLAC decodes to (samples, rate); a Blob decodes to bytes under its own extension
    assert check_value(aud, (np.zeros((10, 4), np.float32), 16000), codec="flac") is None
    assert check_value(FieldSpec("usd", "blob"), b"#usda", codec="usda") is None
    assert check_value(FieldSpec("usd", "blob"), Blob(b"x", "usda")) is None


def test_episode_missing_undeclared_and_bad_fields():
    specs = (HM, ACT, FieldSpec("extra", "json", required=False))
    good = {"heightmaps": np.zeros((3, 2, 2), np.int16), "actions": np.zeros((2, 5), np.int32)}
    assert check_episode(specs, good) == []
    assert check_episode(specs, {"heightmaps": good["heightmaps"]}) == [
        "field 'actions': required but missing"
    ]
    assert check_episode(specs, {**good, "oops": 1}) == [
        "field 'oops': not declared in the generator's fields"
    ]
    with pytest.raises(FieldMismatch, match=r"generator 'g' broke its field declaration: field 'actions': "):
        assert_episode("g", specs, {**good, "actions": np.zeros((5, 5), np.int32)})
    assert check_episode((), {"anything": 1}) == []  # a generator that declares nothing is not checked


def test_declaration_rejects_bad_names_codecs_and_dims():
    with pytest.raises(ValueError, match="codec 'gif' is not one of"):
        FieldSpec("x", "gif")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bad symbolic dim 'T\\*2'"):
        FieldSpec("x", "npy", shape=("T*2",))
    with pytest.raises(ValueError, match="not 'meta'"):
        FieldSpec("meta", "json")
    with pytest.raises(ValueError, match="dtype 'float33' is not a numpy dtype name"):
        FieldSpec("x", "npy", "float33")
    with pytest.raises(TypeError, match=r"Bad: required_fields \['b'\] are not declared in fields"):

        class Bad(Generator):
            fields = (FieldSpec("a", "json"),)
            required_fields = ("a", "b")


def test_schema_round_trips_and_required_fields_derive_from_it():
    specs = ToyGenerator.fields
    assert specs_from_json(json.loads(json.dumps(schema_json(specs)))) == specs
    assert ToyGenerator.required_fields == required_names(specs) == ("image", "values", "info")
    assert specs_from_json(None) == ()

    class Explicit(Generator):
        fields = (FieldSpec("a", "json"),)
        required_fields = ()

        def generate(self, index, rng):  # pragma: no cover - never called
            raise NotImplementedError

    assert Explicit.required_fields == ()


def test_field_table_lists_every_field():
    table = field_table(ToyGenerator.fields)
    assert (
        table.splitlines()[2]
        == "| `image` | png | uint8 | (S, S, 3) |  |  | random pixels, red channel = tint |"
    )
    assert (
        table.splitlines()[-1]
        == "| `payload` | npy | uint8 | (P,) |  |  | payload_bytes random bytes (optional) |"
    )


def test_engine_fails_an_episode_that_breaks_the_declaration(tmp_path, monkeypatch):
    bad = (FieldSpec("image", "png", "uint8", ("S", "S", 4)), *ToyGenerator.fields[1:])
    monkeypatch.setattr(ToyGenerator, "fields", bad)
    summary = generate_corpus("toy", 1, tmp_path / "c", config={"size": 8})
    assert summary.exit_code == 3
    (row,) = read_manifest(CorpusLayout(tmp_path / "c").manifest)
    assert row["status"] == "failed"
    assert row["error"].startswith(
        "FieldMismatch: generator 'toy' broke its field declaration: "
        "field 'image': expected shape (S, S, 4), got (8, 8, 3)"
    )


def test_corpus_json_stores_the_schema_and_validate_checks_against_it(tmp_path):
    out = tmp_path / "c"
    assert generate_corpus("toy", 2, out, config={"size": 8}).exit_code == 0
    info = json.loads((out / "corpus.json").read_text())
    assert specs_from_json(info["field_schema"]) == ToyGenerator.fields
    assert corpus_fields(out) == ToyGenerator.fields
    assert info["schema"] == {
        "image": "png",
        "info": "json",
        "meta": "json",
        "values": "npy",
    }  # the older key stays
    assert validate_corpus(out).problems == []
    # a corpus whose stored declaration disagrees with its members: validate names key, field, expected vs got
    info["field_schema"][1]["dtype"] = "float64"
    (out / "corpus.json").write_text(json.dumps(info))
    problems = validate_corpus(out).problems
    assert problems == [
        "toy_00000000: field 'values': expected dtype float64, got float32",
        "toy_00000001: field 'values': expected dtype float64, got float32",
    ]
    # a corpus from before declarations (no field_schema) has nothing to check against
    del info["field_schema"]
    (out / "corpus.json").write_text(json.dumps(info))
    assert corpus_fields(out) == ()
    assert validate_corpus(out).problems == []
