"""``simkit export packing-sft``: record structure, images, history window, targets, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from simkit.cli import app
from simkit.commands.packing import export_sft
from simkit.episodes.reader import iter_corpus
from simkit.executors.run import generate_corpus
from simkit.generators.packing.generator import render_heightmap


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("sft") / "corpus"
    s = generate_corpus("packing", 3, out, seed=5, config={"tier_mix": {"easy": 1, "medium": 1, "hard": 0}})
    assert s.failed == 0
    return out


def _read(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_records_structure_and_targets(corpus, tmp_path):
    out = tmp_path / "export" / "train.jsonl"
    counts = export_sft(corpus, out, history=2, px=4)
    samples = list(iter_corpus(corpus))
    n_steps = sum(len(s["steps"]) for s in samples)
    assert counts == {"episodes": 3, "records": n_steps, "images": n_steps}
    recs = _read(out)
    assert len(recs) == n_steps
    k = 0
    for s in samples:
        T = len(s["steps"])
        L, W, H = s["case"]["container"]["size"]
        for t in range(T):
            rec = recs[k]
            k += 1
            assert set(rec) == {"messages", "images"}
            roles = [m["role"] for m in rec["messages"]]
            assert roles == ["system", "user", "assistant"]
            user = rec["messages"][1]["content"]
            # one placeholder per image: history (at most 2 steps) + the current heightmap
            assert user.count("<image>") == len(rec["images"]) == min(t, 2) + 1
            assert f"Current step {t}: heightmap <image>" in user
            assert user.count("Action: ") == min(t, 2)
            # target = the stored expert action
            target = json.loads(rec["messages"][2]["content"])
            slot, o, x, y, _z = (int(v) for v in s["actions"][t])
            assert target == {
                "slot": slot,
                "box_id": s["steps"][t]["buffer"][slot],
                "orientation": o,
                "x": x,
                "y": y,
            }
            # the buffer text lists the visible boxes with their sizes, in slot order
            for j, bid in enumerate(s["steps"][t]["buffer"]):
                size = s["case"]["boxes"][bid]["size"]
                assert f"slot {j}: box {bid} size (l={size[0]}, w={size[1]}, h={size[2]})" in user
            # images: relative to the JSONL folder; the current one is the heightmap before step t
            cur = out.parent / rec["images"][-1]
            assert not rec["images"][-1].startswith("/") and cur.exists()
            with Image.open(cur) as im:
                arr = np.asarray(im)
            assert arr.shape == (L * 4, W * 4, 3)
            np.testing.assert_array_equal(arr, render_heightmap(s["heightmaps"][t], H, 4))
            if t >= 1:
                assert rec["images"][-2].endswith(f"h{t - 1:03d}.png")
    assert "2.5 cm" in recs[0]["messages"][0]["content"]
    assert "4 pixels per cell" in recs[0]["messages"][0]["content"]


def test_history_all_and_none(corpus, tmp_path):
    export_sft(corpus, tmp_path / "all.jsonl", history=-1, limit=1, with_meta=True)
    export_sft(corpus, tmp_path / "none.jsonl", history=0, limit=1, absolute_paths=True)
    full, none = _read(tmp_path / "all.jsonl"), _read(tmp_path / "none.jsonl")
    assert len(full) == len(none)
    for t, (a, b) in enumerate(zip(full, none)):
        assert len(a["images"]) == t + 1
        assert len(b["images"]) == 1 and b["images"][0].startswith("/")
        assert a["meta"]["step"] == t and "meta" not in b


def test_cli_export_and_bad_input(corpus, tmp_path):
    runner = CliRunner()
    out = tmp_path / "cli.jsonl"
    r = runner.invoke(app, ["export", "packing-sft", str(corpus), "--out", str(out), "--limit", "1"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith(f"wrote {out}: ") and len(_read(out)) >= 4

    # a corpus of another generator: one clear error, exit 2
    toy = tmp_path / "toy"
    generate_corpus("toy", 2, toy)
    r = runner.invoke(app, ["export", "packing-sft", str(toy), "--out", str(tmp_path / "t.jsonl")])
    assert r.exit_code == 2
    assert "error:" in r.output and "needs a 'packing' corpus" in r.output and "Traceback" not in r.output

    r = runner.invoke(
        app, ["export", "packing-sft", str(tmp_path / "missing"), "--out", str(tmp_path / "m.jsonl")]
    )
    assert r.exit_code == 2 and "no such corpus directory" in r.output

    r = runner.invoke(
        app, ["export", "packing-sft", str(corpus), "--out", str(tmp_path / "h.jsonl"), "--history", "-3"]
    )
    assert r.exit_code == 2 and "--history must be -1 (all) or >= 0" in r.output


def test_two_corpora_with_same_keys_get_separate_images(corpus, tmp_path):
    other = tmp_path / "other"
    generate_corpus("packing", 2, other, seed=6, config={"tier_mix": {"easy": 1, "medium": 0, "hard": 0}})
    out = tmp_path / "both.jsonl"
    counts = export_sft([corpus, other], out, history=0)
    assert counts["episodes"] == 5
    recs = _read(out)
    first_images = [r["images"][0] for r in recs if r["images"][0].endswith("h000.png")]
    assert len(first_images) == 5 == len(set(first_images))  # packing_00000000 of both corpora differ
    assert {p.split("/")[1] for p in first_images} == {"corpus0", "corpus1"}


def _listing(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def test_bad_output_paths_and_px_fail_up_front_and_leave_nothing(corpus, tmp_path):
    runner = CliRunner()
    work = tmp_path / "w"
    work.mkdir()
    (work / "D").mkdir()  # an existing directory as --out
    (work / "f").write_text("x")  # a file where a parent directory should be
    before = _listing(work)
    for out, words in (
        (work / "D", f"--out {work / 'D'}: is a folder; give the path of the file"),
        (work / "f" / "x.jsonl", f"is under {work / 'f'}, which is a file"),
    ):
        r = runner.invoke(app, ["export", "packing-sft", str(corpus), "--out", str(out)])
        assert r.exit_code == 2 and r.output.startswith("error: ") and words in r.output, r.output
        assert "Traceback" not in r.output
    for px in ("100000", "65", "0"):
        r = runner.invoke(
            app, ["export", "packing-sft", str(corpus), "--out", str(work / "p.jsonl"), "--px", px]
        )
        assert r.exit_code == 2 and f"--px must be between 1 and 64 pixels per cell, got {px}" in r.output
    assert _listing(work) == before  # no D.tmp, no D_images/, no p.jsonl


def test_a_failed_export_leaves_nothing_and_a_rerun_replaces_the_images(corpus, tmp_path, monkeypatch):
    out = tmp_path / "e.jsonl"
    import simkit.commands.packing as mod

    real = mod.episode_records
    calls = []

    def boom(*a, **k):  # fail on the second episode, after its images were written
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk on fire")
        return real(*a, **k)

    monkeypatch.setattr(mod, "episode_records", boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        export_sft(corpus, out)
    monkeypatch.setattr(mod, "episode_records", real)
    assert _listing(tmp_path) == []
    assert export_sft(corpus, out, limit=2)["episodes"] == 2
    assert sorted(p.name for p in (tmp_path / "e_images").iterdir()) == [
        ".simkit-packing-sft",
        "packing_00000000",
        "packing_00000001",
    ]
    assert export_sft(corpus, out, limit=1)["episodes"] == 1
    episodes = [p.name for p in (tmp_path / "e_images").iterdir() if p.is_dir()]
    assert episodes == ["packing_00000000"]  # the earlier export's images are gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.jsonl", "e_images"]
    for rec in _read(out):
        assert all((tmp_path / p).is_file() for p in rec["images"])


def test_a_users_folder_named_like_the_images_is_never_replaced(corpus, tmp_path):
    from simkit.core.errors import SimkitError

    mine = tmp_path / "t_images"
    mine.mkdir()
    (mine / "holiday.png").write_bytes(b"mine")
    with pytest.raises(SimkitError, match="no earlier export wrote it"):
        export_sft(corpus, tmp_path / "t.jsonl", limit=1)
    assert (mine / "holiday.png").read_bytes() == b"mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t_images"]  # no t.jsonl, no .tmp


def test_an_export_into_the_corpus_own_files_is_refused(corpus, tmp_path):
    from simkit.core.errors import SimkitError

    before = sorted(p.name for p in (corpus / "shards").iterdir())
    for out in (corpus / "shards" / "t.jsonl", corpus / "corpus.json"):
        with pytest.raises(SimkitError, match="inside the corpus's own"):
            export_sft(corpus, out, limit=1)
    assert sorted(p.name for p in (corpus / "shards").iterdir()) == before
