"""Fuzzing: the config loader, the shard reader and the BDDL parser answer any input with success or one
clear ``SimkitError``, never another exception (hypothesis, random and mutated inputs)."""

from __future__ import annotations

import contextlib
import shutil

import pytest
from conftest import bundled_bddl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toygen import ToyConfig

from simkit.adapters.reader import CorpusReader
from simkit.core.config import build_config
from simkit.core.errors import SimkitError
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus

FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None
)

YAML_BITS = [
    "size",
    "reject_below",
    ":",
    " ",
    "\n",
    "- ",
    "[",
    "]",
    "{",
    "}",
    "'",
    '"',
    "&a",
    "*a",
    "!!python/object",
    "1e999",
    ".nan",
    "-3",
    "0x10",
    "~",
    "#",
    "\t",
    "?",
    "<<: *a",
    "size: 4",
    "\xff",
    "\x00",
]


@FUZZ
@given(st.lists(st.sampled_from(YAML_BITS) | st.text(max_size=6), max_size=25))
def test_config_file_fuzz(tmp_path_factory, bits):
    p = tmp_path_factory.mktemp("cfg") / "c.yaml"
    p.write_bytes("".join(bits).encode("utf-8", "surrogatepass"))
    with contextlib.suppress(SimkitError):
        build_config(ToyConfig, p)


@FUZZ
@given(
    st.lists(
        st.text(max_size=12) | st.sampled_from(["size=", "size=[", "=1", "a.b.c=2", "size=1e400"]), max_size=4
    )
)
def test_config_set_fuzz(sets):
    with contextlib.suppress(SimkitError):
        build_config(ToyConfig, None, sets)


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    out = tmp_path_factory.mktemp("fuzz") / "c"
    generate_corpus("toy", 3, out, seed=1, episodes_per_shard=3)
    return out


@FUZZ
@given(
    st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 255)), min_size=1, max_size=8),
    st.integers(0, 2),
)
def test_shard_reader_and_validate_fuzz(good, tmp_path_factory, edits, mode):
    """Random byte edits, truncations and appended bytes: the reader raises SimkitError or yields the
    original samples; validate never raises and fails whenever the reader refuses."""
    c = tmp_path_factory.mktemp("f") / "c"
    shutil.copytree(good, c)
    p = c / "shards" / "shard-000000.tar"
    b = bytearray(p.read_bytes())
    for pos, val in edits:
        b[pos % len(b)] = val
    if mode == 1:
        b = b[: edits[0][0] % len(b)]
    elif mode == 2:
        b += bytes(v for _, v in edits)
    p.write_bytes(bytes(b))
    try:
        got = [
            (s["__key__"], s["image"].tobytes(), s["values"].tobytes(), s["info"]) for s in CorpusReader(c)
        ]
        refused = False
    except SimkitError:
        refused = True
    rep = validate_corpus(c)
    if refused:
        assert not rep.passed
    else:
        want = [
            (s["__key__"], s["image"].tobytes(), s["values"].tobytes(), s["info"]) for s in CorpusReader(good)
        ]
        assert got == want


def _bddl_texts() -> list[str]:
    return [p.read_text() for p in sorted(bundled_bddl("libero_goal").glob("*.bddl"))[:4]]


@FUZZ
@given(st.data())
def test_bddl_parser_fuzz(data):
    from simkit.scenes.hebero import parse_bddl

    texts = _bddl_texts()
    text = data.draw(st.sampled_from(texts))
    for _ in range(data.draw(st.integers(1, 6))):
        i = data.draw(st.integers(0, len(text)))
        op = data.draw(st.integers(0, 3))
        if op == 0:
            text = text[:i] + text[i + data.draw(st.integers(1, 40)) :]
        elif op == 1:
            text = (
                text[:i]
                + data.draw(st.sampled_from(["(", ")", ":ranges", "nan", "inf", "-1e999", "\n", "x"]))
                + text[i:]
            )
        elif op == 2:
            text = text[:i] + data.draw(st.text(max_size=8)) + text[i:]
        else:
            j = data.draw(st.integers(0, len(text)))
            text = text[:i] + text[j:] + text[i:j]
    with contextlib.suppress(SimkitError):
        parse_bddl("fuzz.bddl", text=text)
