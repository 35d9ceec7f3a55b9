"""Smoke test: every registered generator (and a sample of the wrop tasks) through the engine.

Two tiny episodes (the generator's ``smoke_config``) are generated into a temporary corpus, read back
and decoded; the generator's own ``check`` must find no problem, every stored field must match the
declaration written into ``corpus.json``, and ``validate`` must pass. The corpus of every registered
generator must also have the digest pinned for its version (``golden.py``): a byte change without a
version bump fails. New generators are covered by registering them: the parameters come from the
registry. Every wrop task goes through the engine with ``simkit generate wrop --generator all --n 300``
and ``simkit validate`` (tests/wrophelp.py).
"""

from __future__ import annotations

import pytest
from golden import check_golden
from wrophelp import wrop_sample

from simkit.core.fields import check_stored, specs_from_json
from simkit.core.registry import available, load
from simkit.episodes.corpus import CorpusLayout, read_manifest
from simkit.episodes.reader import corpus_info, iter_corpus
from simkit.episodes.validate import validate_corpus
from simkit.executors.run import generate_corpus


def _smoke(tmp_path, name: str, overrides: dict | None = None, golden: bool = False) -> None:
    cls = load(name)
    assert cls.fields, f"generator {name!r} declares no fields"
    config = {**cls.smoke_config, **(overrides or {})}
    out = tmp_path / name.replace("/", "_")
    summary = generate_corpus(name, 2, out, seed=3, config=config, episodes_per_shard=2)
    if summary.exit_code != 0:
        rows = read_manifest(CorpusLayout(out).manifest)
        pytest.fail(f"{name}: " + "; ".join(str(r["error"]) for r in rows if r["status"] != "ok"))
    info = corpus_info(out)
    specs = specs_from_json(info["field_schema"])
    assert specs == cls.fields
    assert info["required_fields"] == [s.name for s in cls.fields if s.required]
    gen = cls()
    gen.setup(cls.Config.model_validate(info["config"]))
    try:
        samples = list(iter_corpus(out))
        assert len(samples) == 2
        for sample in samples:
            exts = {s.name: s.codec for s in specs if s.name in sample}
            assert check_stored(specs, sample, exts) == []
            assert {s.name for s in specs if s.required} <= set(sample)
            assert gen.check(sample) == []
    finally:
        gen.teardown()
    report = validate_corpus(out)
    assert report.problems == [], report.problems
    if golden:
        check_golden(name, cls.version, out)


@pytest.mark.parametrize("name", sorted(available()))
def test_every_registered_generator_makes_two_checked_episodes(tmp_path, name):
    _smoke(tmp_path, name, golden=True)


@pytest.mark.parametrize("task", wrop_sample(1, 0.25))  # 6 of 150, none of test_wrop_generators' 12
def test_sampled_wrop_tasks_make_two_checked_episodes(tmp_path, task):
    _smoke(tmp_path, "wrop", {"generator": task})
