"""Fuzzing with the message rules as properties: YAML configs, the BDDL parser, the MJCF converter's input
handling, tar members and rows files answer any input with success or one ``SimkitError`` whose message is
one line and bounded (a value is never echoed whole), and ``validate`` never raises (hypothesis, few
examples each so the suite stays fast)."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toygen import ToyConfig

import simkit
from simkit.core.config import build_config
from simkit.core.errors import MESSAGE_CHARS, SimkitError
from simkit.episodes.reader import corpus_episodes, iter_episodes
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus

FUZZ = settings(
    max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None
)
BDDL = sorted(
    (Path(simkit.__file__).parent / "data" / "hebero" / "bddl_files" / "libero_goal").glob("*.bddl")
)[:3]
MJCF = (
    '<mujoco model="m"><worldbody><body name="b" pos="0 0 0.1"><freejoint/>'
    '<geom name="g" type="box" size="0.05 0.05 0.05" mass="0.2"/></body></worldbody></mujoco>'
)
#: longest line a message may have: the message cap plus the "error: " the CLI puts before it
LIMIT = MESSAGE_CHARS + 100


def assert_one_bounded_line(msg: str) -> None:
    assert "\n" not in msg and len(msg) <= LIMIT, (len(msg), msg[:300])


def huge() -> st.SearchStrategy[str]:
    """Values much longer than any message may show (a message must cut them)."""
    return st.builds(lambda c, n: c * n, st.sampled_from(["x", "9", "[", "é", " "]), st.integers(300, 20000))


YAML_BITS = [
    "size",
    "reject_below",
    ": ",
    "\n",
    "- ",
    "[",
    "]",
    "{",
    "}",
    "&a ",
    "*a",
    "1e999",
    ".nan",
    "~",
    "'",
]


@FUZZ
@given(st.lists(st.sampled_from(YAML_BITS) | st.text(max_size=6) | huge(), max_size=12))
def test_yaml_config_file(tmp_path_factory, bits):
    p = tmp_path_factory.mktemp("cfg") / "c.yaml"
    p.write_bytes("".join(bits).encode("utf-8", "surrogatepass"))
    try:
        build_config(ToyConfig, p)
    except SimkitError as exc:
        assert_one_bounded_line(str(exc))


@FUZZ
@given(st.lists(st.sampled_from(["size", "reject_below", "nope", "a.b"]), min_size=1, max_size=3), st.data())
def test_set_values(keys, data):
    sets = [f"{k}={data.draw(huge() | st.text(max_size=20))}" for k in keys]
    try:
        build_config(ToyConfig, None, sets)
    except SimkitError as exc:
        assert_one_bounded_line(str(exc))


@FUZZ
@given(st.data())
def test_bddl_parser(data):
    from simkit.scenes.hebero import parse_bddl

    text = BDDL[data.draw(st.integers(0, len(BDDL) - 1))].read_text()
    for _ in range(data.draw(st.integers(1, 5))):
        i = data.draw(st.integers(0, len(text)))
        bit = data.draw(
            st.sampled_from(["(", ")", ":ranges", "nan", "-1e999", "\n", "x" * 5000]) | st.text(max_size=8)
        )
        cut = data.draw(st.integers(0, 40))
        text = text[:i] + bit + text[i + cut :]
    try:
        parse_bddl("fuzz.bddl", text=text)
    except SimkitError as exc:
        assert_one_bounded_line(str(exc))


@settings(
    max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None
)
@given(st.data())
def test_mjcf_converter_input(tmp_path_factory, data):
    from simkit.assets.mjcf2usd import convert_mjcf_to_usd

    text = MJCF
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text)))
        bit = data.draw(
            st.sampled_from(["<", ">", '"', "/>", "nan", "-1", "<body>", "a" * 3000]) | st.text(max_size=6)
        )
        text = text[:i] + bit + text[i + data.draw(st.integers(0, 12)) :]
    d = tmp_path_factory.mktemp("mjcf")
    src = d / "m.xml"
    src.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        convert_mjcf_to_usd(src, d / "o.usda")
    except SimkitError as exc:
        assert_one_bounded_line(str(exc))


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    out = tmp_path_factory.mktemp("fuzzb") / "c"
    generate_corpus("toy", 2, out, seed=1, episodes_per_shard=2)
    return out


def _check_corpus(c: Path) -> None:
    rep = validate_corpus(c)
    for p in rep.problems + rep.notes + rep.environment:
        assert_one_bounded_line(p)
    try:
        list(iter_episodes(corpus_episodes(c)))
    except SimkitError as exc:
        assert_one_bounded_line(str(exc))
        assert not rep.passed


MEMBER_NAMES = st.sampled_from(
    [
        "toy_00000000.info.json",
        "toy_00000000.image.png",
        "../x.json",
        "/abs.json",
        "a/b.c",
        "toy_00000001.x.y",
    ]
) | st.text(min_size=1, max_size=300)


@FUZZ
@given(
    st.lists(
        st.tuples(MEMBER_NAMES, st.binary(max_size=64), st.sampled_from([tarfile.REGTYPE, tarfile.SYMTYPE])),
        max_size=5,
    )
)
def test_tar_members(good, tmp_path_factory, members):
    c = tmp_path_factory.mktemp("tar") / "c"
    shutil.copytree(good, c)
    p = c / "shards" / "shard-000000.tar"
    with tarfile.open(p, "a") as tf:  # members of any name and type after the real ones
        for name, data, kind in members:
            info = tarfile.TarInfo(name)
            info.type, info.size = kind, (len(data) if kind == tarfile.REGTYPE else 0)
            tf.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
    _check_corpus(c)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8) | huge(),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids, max_size=3),
    max_leaves=8,
)


@FUZZ
@given(st.data())
def test_rows_files(good, tmp_path_factory, data):
    c = tmp_path_factory.mktemp("rows") / "c"
    shutil.copytree(good, c)
    rows_file = c / "shards" / "shard-000000.rows.json"
    rows = json.loads(rows_file.read_text())
    if data.draw(st.booleans()):  # replace the whole file
        rows_file.write_text(json.dumps(data.draw(JSON)))
    else:  # change one field of one row (or of one member)
        row = rows[data.draw(st.integers(0, len(rows) - 1))]
        key = data.draw(st.sampled_from(sorted(row)))
        target = row["members"][0] if key == "members" and row["members"] else row
        field = data.draw(st.sampled_from(sorted(target))) if target is not row else key
        target[field] = data.draw(JSON)
        rows_file.write_text(json.dumps(rows))
    _check_corpus(c)
