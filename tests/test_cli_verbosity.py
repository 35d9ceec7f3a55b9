"""simkit -q / -v / --log-level (any command, before or after its name), config --json, progress callbacks."""

from __future__ import annotations

import json
import logging
import re

import pytest
from typer.testing import CliRunner

from simkit.cli import app, hoist_verbosity
from simkit.core import verbosity


def cli(*argv):
    r = CliRunner().invoke(app, [str(a) for a in argv])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("verbosity") / "c"
    code, stdout, stderr = cli("-q", "generate", "toy", "--n", "3", "--out", out, "--seed", "1")
    assert (code, stdout, stderr) == (0, "", "")  # -q: no summary table, no progress
    return out


def test_verbosity_flags_move_before_the_command_but_not_past_a_double_dash():
    args = ["validate", "DIR", "-q", "--log-level", "debug", "--json", "--", "-v"]
    assert hoist_verbosity(args) == ["-q", "--log-level", "debug", "validate", "DIR", "--json", "--", "-v"]
    assert hoist_verbosity(["inspect", "--log-level=error", "D"]) == ["--log-level=error", "inspect", "D"]


def test_quiet_validate_says_nothing_on_a_pass_and_normal_says_pass(corpus):
    assert cli("validate", corpus, "-q") == (0, "", "")
    code, out, _ = cli("validate", corpus)
    assert code == 0 and out.startswith(f"PASS {corpus}: 3 episodes")


def test_quiet_still_prints_damage(corpus, tmp_path):
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(corpus, bad)
    (bad / "corpus.json").write_text("{", encoding="utf-8")
    code, out, err = cli("-q", "validate", bad)
    assert code == 1 and "FAIL" in out + err


def test_verbose_shows_simkit_debug_lines_and_default_does_not(corpus):
    code, _, err = cli("-v", "validate", corpus)
    assert code == 0 and "DEBUG simkit.validate:" in err and "checking 3 episodes in 1 shards" in err
    code, _, err = cli("validate", corpus, "--log-level", "INFO")
    assert code == 0 and "DEBUG" not in err


def test_quiet_inspect_keeps_the_stats_and_drops_the_wrote_lines(corpus, tmp_path):
    code, out, err = cli("inspect", corpus, "--out", tmp_path / "pics", "-q")
    assert code == 0 and json.loads(out)["ok"] == 3 and "wrote" not in err
    code, out, err = cli("inspect", corpus, "--out", tmp_path / "pics")
    assert code == 0 and "wrote" in err


def test_disagreeing_or_unknown_levels_are_bad_input():
    code, _, err = cli("-q", "-v", "list")
    assert code == 2 and err == "error: -q, -v and --log-level disagree; give one of them\n"
    code, _, err = cli("--log-level", "loud", "list")
    assert code == 2 and err.startswith("error: --log-level loud: expected one of debug | info")


def test_set_level_filters_simkit_loggers_and_reaches_workers(capsys, monkeypatch):
    monkeypatch.delenv(verbosity.ENV, raising=False)
    log = logging.getLogger("simkit.somewhere")
    try:
        verbosity.set_level("warning")
        log.info("an info line")
        log.warning("a warning line")
        assert verbosity.quiet() and not verbosity.show_progress()
        assert capsys.readouterr().err == "WARNING simkit.somewhere: a warning line\n"
        import os

        assert os.environ[verbosity.ENV] == "warning"  # what a spawned worker's apply_env() reads
        os.environ[verbosity.ENV] = "debug"
        verbosity.apply_env()
        log.debug("a debug line")
        assert capsys.readouterr().err == "DEBUG simkit.somewhere: a debug line\n"
    finally:
        verbosity.set_level("info")


def test_config_json_lists_keys_and_fields():
    from simkit.core.config import config_keys
    from simkit.core.registry import load

    code, out, _ = cli("config", "packing", "--json")
    assert code == 0
    d = json.loads(out)
    cls = load("packing")
    assert d["generator"] == "packing" and d["version"] == cls.version
    assert [k["key"] for k in d["config"]] == [k.key for k in config_keys(cls.Config)]
    assert d["config"][0] == {
        "key": "tier_mix.easy",
        "type": "float",
        "default": 1.0,
        "range": ">= 0",
        "description": cls.Config.model_fields["tier_mix"].annotation.model_fields["easy"].description,
    }
    assert [f["name"] for f in d["fields"]] == [f.name for f in cls.fields]
    assert d["fields"][1]["shape"] == ["T+1", "L", "W"] and d["fields"][1]["dtype"] == "int16"


def test_validate_and_inspect_report_progress_to_the_end(corpus, tmp_path):
    from simkit.episodes.inspect import inspect_corpus
    from simkit.episodes.validate import validate_corpus

    seen: list[tuple[int, int, str]] = []
    rep = validate_corpus(corpus, progress=lambda *a: seen.append(a))
    assert rep.passed and [s[:2] for s in seen] == [(1, 3), (2, 3), (3, 3)]
    seen.clear()
    inspect_corpus(corpus, tmp_path, n_samples=2, progress=lambda *a: seen.append(a))
    done = [s[0] for s in seen]
    assert done == sorted(done) and seen[-1][:2] == (6, 6)  # 3 metas + 2 pictured + the drawing
    assert "drawing pictures" in {s[2] for s in seen}


def test_late_progress_appears_only_after_its_delay_and_never_when_quiet(monkeypatch):
    from simkit.commands import LateProgress

    monkeypatch.setattr(verbosity, "show_progress", lambda enabled=True: enabled)  # as on a terminal
    with LateProgress(after_s=60.0) as quick:
        quick(1, 3, "checking")
        assert quick.bar is None  # a command that ends before the delay draws nothing
    with LateProgress(after_s=0.01) as slow:
        slow.timer.join()  # the delay has passed with no report yet: the next report shows the bar
        slow(2, 3, "checking")
        task = slow.bar.tasks[0]
        assert (task.completed, task.total, task.description) == (2, 3, "checking")
        slow(3, 3, "done")
        assert slow.bar.tasks[0].completed == 3
    assert not slow.bar.live.is_started  # removed on exit
    with LateProgress(after_s=0.0, enabled=False) as off:
        assert off.timer is None  # no timer at all
        off(1, 1, "x")
        assert off.bar is None


def test_one_progress_helper_logs_off_a_terminal_and_is_silent_when_quiet(capsys):
    # generate's episode bar, validate/inspect, the evals and the exports share simkit.core.progress
    import simkit.commands as commands
    import simkit.executors.run as run
    from simkit.core.progress import Progress, track

    assert commands.progress_bar.__module__ == "simkit.core.progress"
    assert issubclass(commands.LateProgress, Progress)
    assert isinstance(run._progress(True, 3, "toy"), Progress)
    verbosity.set_level("info")  # an earlier command of this module may have run under -q
    with run._progress(True, 3, "toy", log_every=0.0) as bar:  # generate's bar; stderr is not a terminal here
        bar.advance()
        bar(3)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[0].startswith("[toy] 1/3 episodes, ")
    assert err[1].startswith("[toy] 3/3 episodes, ")
    assert " episodes/s, ETA " in err[0] and err[1].endswith(", ETA 0 s")
    with Progress("tasks", 2, unit="tasks", log_every=0.0) as bar:  # the unit as the caller names it
        bar.advance(2)
    assert re.fullmatch(r"\[tasks\] 2/2 tasks, \d+\.\d\d tasks/s, ETA 0 s\n", capsys.readouterr().err)
    assert list(track([1, 2], "t", log_every=0.0)) == [1, 2]
    assert capsys.readouterr().err.count("[t] ") == 2
    verbosity.set_level("warning")
    try:
        with Progress("toy", 3, log_every=0.0) as bar:
            bar.advance(3)
        assert capsys.readouterr().err == ""
    finally:
        verbosity.set_level("info")


def test_say_and_info_lines_are_dropped_under_quiet(capsys):
    from simkit.commands import info, say

    try:
        say("wrote a")
        info("wrote b")
        assert capsys.readouterr() == ("wrote a\n", "wrote b\n")
        verbosity.set_level("warning")
        say("wrote a")
        info("wrote b")
        assert capsys.readouterr() == ("", "")
    finally:
        verbosity.set_level("info")


def test_after_a_command_simkit_records_still_reach_the_root_handlers(caplog):
    assert cli("-q", "list")[0] == 0
    with caplog.at_level(logging.WARNING, logger="simkit.somewhere"):
        logging.getLogger("simkit.somewhere").warning("seen by caplog")
    assert [r.getMessage() for r in caplog.records] == ["seen by caplog"]
    verbosity.set_level("info")
