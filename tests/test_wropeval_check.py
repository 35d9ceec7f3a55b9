"""The OP/OS checker, the corruptions and the wrop-fit / wrop-check / wrop-baselines commands on a tiny
rendered exam (Workbench, 48 frames, 128 x 72: four samples, about 15 s)."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from simkit.cli import app
from simkit.eval.wrop.check import check_prediction, reference
from simkit.eval.wrop.corrupt import corrupt, is_violation
from simkit.eval.wrop.evidence import object_boxes
from simkit.eval.wrop.video import iter_exam

pytestmark = pytest.mark.slow

#: generator selection -> samples (OS-2 renders ball_platform_removed and ball_rolls_off_edge)
CORPORA = {"OP-1/ball_behind_screen": 1, "OS-2": 2, "OS-3/head_on": 1}


@pytest.fixture(scope="module")
def exams(tmp_path_factory):
    from simkit.executors.run import generate_corpus

    root = tmp_path_factory.mktemp("exam")
    out = {}
    for task, n in CORPORA.items():
        cfg = {
            "generator": task,
            "split": "exam",
            "frames": 48,
            "width": 128,
            "height": 72,
            "visibility_points": 64,
        }
        d = root / task.replace("/", "_")
        s = generate_corpus("wrop", n, d, seed=0, config=cfg, workers=1, progress=False)
        assert s.failed == 0
        out[task] = d
    return out


@pytest.fixture(scope="module")
def samples(exams):
    return {s.generator_id: s for d in exams.values() for s in iter_exam(d)}


def test_projected_boxes_contain_the_renderers_image_positions(samples):
    for s in samples.values():
        t = s.trajectory
        W, H = t["resolution"]
        for name in t["objects"]:
            b = object_boxes(t, name, W, H)
            xy = np.asarray(t["objects"][name]["image_xy"])
            x, y = xy[:, 0] * W, (1 - xy[:, 1]) * H
            assert np.all((b[:, 0] <= x + 1e-6) & (x <= b[:, 2] + 1e-6)), name
            assert np.all((b[:, 1] <= y + 1e-6) & (y <= b[:, 3] + 1e-6)), name


def test_ground_truth_passes_and_violations_fail(samples):
    for task, s in samples.items():
        ref = reference(s)
        gt = check_prediction(s, corrupt(s, "ground_truth"), ref)
        assert gt["passed"] and gt["score"] > 0.97, (task, gt)
        assert gt["count_found"] == gt["count_expected"] >= 1
        assert all(o["frames"] >= 5 for o in gt["objects"].values()), gt["objects"]
        for kind in ("deleted", "teleported", "last_frame"):
            r = check_prediction(s, corrupt(s, kind), ref)
            assert not r["passed"] and r["score"] < 0.5, (task, kind, r["score"])
        for kind in ("deleted", "teleported"):
            assert is_violation(s, kind)
    # falling / colliding objects frozen in place, or moving on as if nothing happened: violations
    for task in ("OS-2/ball_platform_removed", "OS-3/head_on"):
        s = samples[task]
        for kind in ("frozen", "passed_through"):
            r = check_prediction(s, corrupt(s, kind))
            assert is_violation(s, kind) and not r["passed"] and r["score"] < 0.6, (task, kind, r["score"])
    # the ball behind the screen keeps its speed: an inertial continuation is the legal outcome
    s = samples["OP-1/ball_behind_screen"]
    assert not is_violation(s, "passed_through")
    assert check_prediction(s, corrupt(s, "frozen"))["score"] < 0.2  # stopped, never reappears
    # the hidden ball drawn over the screen: presence is fine, the hidden-object check fails
    gt = check_prediction(s, corrupt(s, "ground_truth"))
    xray = check_prediction(s, corrupt(s, "seen_through"))
    assert gt["seen_through"] < 0.05 and xray["seen_through"] > 0.9 and xray["score"] > 0.97
    assert is_violation(s, "seen_through") and not xray["passed"]
    head_on = samples["OS-3/head_on"]  # nothing is hidden: no hidden-object check, no such violation
    assert check_prediction(head_on, corrupt(head_on, "ground_truth"))["seen_through"] is None
    assert not is_violation(head_on, "seen_through")


def test_commands_on_baselines(exams, tmp_path):
    run = CliRunner().invoke
    d = exams["OS-3/head_on"]
    base = tmp_path / "base"
    r = run(app, ["export", "wrop-baselines", "--exam", str(d), "--out", str(base), "--no-progress"])
    assert r.exit_code == 0, r.output
    viol = json.loads((base / "violations.json").read_text())
    key = next(iter_exam(d)).key
    assert viol["deleted"] == [key] and (base / "frozen" / f"{key}.mp4").stat().st_size > 1000
    again = tmp_path / "again"
    run(app, ["export", "wrop-baselines", "--exam", str(d), "--out", str(again), "--kinds", "deleted"])
    assert (again / "deleted" / f"{key}.mp4").read_bytes() == (base / "deleted" / f"{key}.mp4").read_bytes()

    ok = run(
        app,
        [
            "eval",
            "wrop-check",
            "--exam",
            str(d),
            "--pred",
            str(base / "ground_truth"),
            "--out",
            str(tmp_path / "c"),
        ],
    )
    assert ok.exit_code == 0, ok.output
    fam = next(line for line in ok.output.splitlines() if line.startswith("OS-3"))
    cells = fam.split()  # family n check score pass_rate count_rate
    assert cells[1:3] == ["1", "conserve"] and float(cells[3]) > 0.95 and float(cells[4]) == 1.0
    rows = json.loads((tmp_path / "c" / "check.json").read_text())["samples"]
    assert rows[0]["passed"] and rows[0]["score"] > 0.95
    bad = run(app, ["eval", "wrop-check", "--exam", str(d), "--pred", str(base / "deleted")])
    line = next(x for x in bad.output.splitlines() if x.startswith("OS-3"))
    assert float(line.split()[3]) < 0.1 and float(line.split()[4]) == 0.0

    fit = run(
        app,
        [
            "eval",
            "wrop-fit",
            "--exam",
            str(d),
            "--pred",
            str(base / "ground_truth"),
            "--out",
            str(tmp_path / "f"),
        ],
    )
    assert fit.exit_code == 0, fit.output
    m = json.loads((tmp_path / "f" / "fit.json").read_text())["samples"][0]
    assert m["mse"] < 2e-4 and m["ssim"] > 0.97 and m["psnr"] > 37  # only the H.264 re-encode differs
    assert "note: lpips skipped" in fit.output and "OS-3/head_on" in fit.output


def test_bad_predictions_are_one_line_each_and_the_rest_is_scored(exams, samples, tmp_path):
    from simkit.core.episode import Video
    from simkit.episodes.codecs import encode

    d = exams["OS-2"]
    first, second = iter_exam(d)
    preds = tmp_path / "pred"
    preds.mkdir()
    (preds / f"{first.key}.mp4").write_bytes(encode(Video(second.target_video, fps=24))[1])
    run = CliRunner().invoke
    r = run(app, ["eval", "wrop-check", "--exam", str(d), "--pred", str(preds), "--out", str(tmp_path / "c")])
    assert r.exit_code == 0, r.output
    assert f"{second.key}.mp4: missing prediction" in r.output and "scored 1 of 2" in r.output
    rows = json.loads((tmp_path / "c" / "check.json").read_text())["samples"]
    assert [x["key"] for x in rows] == [first.key] and not rows[0]["passed"]  # another sample's video fails
    (preds / f"{second.key}.mp4").write_bytes(encode(Video(np.zeros((24, 64, 64, 3), np.uint8), fps=24))[1])
    r = run(app, ["eval", "wrop-fit", "--exam", str(d), "--pred", str(preds)])
    assert r.exit_code == 0 and "wrong size 64x64" in r.output and "scored 1 of 2" in r.output
    assert "Traceback" not in r.output
    r = run(app, ["eval", "wrop-check", "--exam", str(tmp_path), "--pred", str(preds)])
    assert r.exit_code == 2 and "corpus" in r.output and "Traceback" not in r.output


def test_elo_per_family_reads_the_exam_metadata(exams, tmp_path):
    import csv

    from simkit.eval.wrop.video import exam_groups

    d = exams["OS-2"]
    groups = exam_groups(d)
    assert sorted(g["generator_id"] for g in groups.values()) == [
        "OS-2/ball_platform_removed",
        "OS-2/ball_rolls_off_edge",
    ]
    keys = sorted(groups)
    p = tmp_path / "votes.csv"
    with p.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["rater", "sample", "model_a", "model_b", "winner"])
        for r in range(6):
            for k in keys:
                w.writerow([f"r{r}", k, "good", "bad", "a" if r < 5 else "tie"])
        w.writerow(["r0", "not_in_exam", "good", "bad", "b"])
    r = CliRunner().invoke(
        app, ["eval", "wrop-elo", "--votes", str(p), "--exam", str(d), "--bootstrap", "50"]
    )
    assert r.exit_code == 0, r.output
    assert "1 voted samples are not in" in r.output
    fam = r.output.split("\nOS-2\n")[1]
    good = next(line for line in fam.splitlines() if " good " in line)
    assert float(good.split()[2]) > 1600  # 11 of 12 games won, one tie


@pytest.mark.parametrize("command", ["wrop-fit", "wrop-check"])
def test_a_file_given_as_pred_is_named_not_a_directory(command, tmp_path):
    (tmp_path / "f").write_text("x")
    r = CliRunner().invoke(app, ["eval", command, "--exam", str(tmp_path), "--pred", str(tmp_path / "f")])
    assert r.exit_code == 2 and f"--pred {tmp_path / 'f'}: not a directory" in r.output


@pytest.mark.parametrize(
    "args",
    [
        ["export", "wrop-baselines", "--exam", "{c}", "--out", "{o}"],
        ["eval", "wrop-check", "--exam", "{c}", "--pred", "{p}", "--out", "{o}"],
        ["eval", "wrop-fit", "--exam", "{c}", "--pred", "{p}", "--out", "{o}"],
        ["eval", "wrop-elo", "--votes", "{v}", "--exam", "{c}", "--out", "{o}"],
    ],
)
def test_a_corpus_of_another_generator_is_refused_before_out_is_created(args, tmp_path):
    from simkit.executors.run import generate_corpus

    c, o, p, v = tmp_path / "toy", tmp_path / "out", tmp_path / "pred", tmp_path / "votes.csv"
    generate_corpus("toy", 1, c, seed=0)
    p.mkdir()
    v.write_text("rater,sample,model_a,model_b,winner\nr,s,a,b,a\n")
    r = CliRunner().invoke(app, [a.format(c=c, o=o, p=p, v=v) for a in args])
    assert r.exit_code == 2 and f"{c}: a 'toy' corpus, not a wrop exam" in r.output
    assert not o.exists()


@pytest.mark.parametrize("command", ["wrop-fit", "wrop-check"])
def test_an_unwritable_out_folder_is_one_line_like_every_command(command, exams, tmp_path):
    f, p = tmp_path / "f", tmp_path / "pred"
    f.write_text("x")
    p.mkdir()
    run = CliRunner().invoke
    for out, reason in ((f, "exists and is not a folder"), (f / "sub", f"is under {f}, which is a file")):
        r = run(app, ["eval", command, "--exam", str(exams["OS-2"]), "--pred", str(p), "--out", str(out)])
        assert r.exit_code == 2 and f"error: --out {out}: {reason}" in r.output, r.output
    assert f.read_text() == "x"
