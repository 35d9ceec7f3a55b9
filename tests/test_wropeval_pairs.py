"""``simkit export wrop-pairs``: the blind rating page on a tiny rendered exam (Workbench, 48 frames,
128 x 72, two samples), its determinism, bad input, and a vote round trip in headless Chromium."""

import json
import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

from simkit.cli import app
from simkit.eval.wrop.elo import elo_ratings, read_votes
from simkit.eval.wrop.pairs import Pair, plan_pairs
from simkit.eval.wrop.video import iter_exam

pytestmark = pytest.mark.slow

MODELS = ("ground_truth", "last_frame", "deleted")


@pytest.fixture(scope="module")
def exam(tmp_path_factory):
    """A two-sample exam and three prediction folders made by ``export wrop-baselines``."""
    from simkit.executors.run import generate_corpus

    root = tmp_path_factory.mktemp("pairs")
    cfg = {"generator": "OS-3/head_on", "split": "exam", "frames": 48, "width": 128, "height": 72}
    cfg["visibility_points"] = 64
    s = generate_corpus("wrop", 2, root / "exam", seed=0, config=cfg, workers=1, progress=False)
    assert s.failed == 0
    args = ["export", "wrop-baselines", "--exam", str(root / "exam"), "--out", str(root / "base")]
    r = CliRunner().invoke(app, [*args, "--kinds", ",".join(MODELS), "--no-progress"])
    assert r.exit_code == 0, r.output
    return root


def _export(exam, out, *extra, models=MODELS):
    preds = [a for m in models for a in ("--pred", str(exam / "base" / m))]
    args = ["export", "wrop-pairs", "--exam", str(exam / "exam"), *preds, "--out", str(out), "--no-progress"]
    return CliRunner().invoke(app, [*args, *extra])


def test_plan_covers_every_pair_once_with_seeded_sides():
    avail = {"s1": ["x", "y", "z"], "s0": ["y", "x"]}
    pairs = plan_pairs(avail, seed=3)
    assert len(pairs) == 4
    assert {(p.sample, frozenset((p.left, p.right))) for p in pairs} == {
        ("s0", frozenset("xy")),
        ("s1", frozenset("xy")),
        ("s1", frozenset("xz")),
        ("s1", frozenset("yz")),
    }
    assert plan_pairs(dict(reversed(list(avail.items()))), seed=3) == pairs  # input order is irrelevant
    assert plan_pairs(avail, seed=3, max_pairs=2) == pairs[:2]
    # sides are random: over many seeds each model is on the left about half of the time
    lefts = [p.left == "x" for s in range(400) for p in plan_pairs({"k": ["x", "y"]}, seed=s)]
    assert 0.4 < np.mean(lefts) < 0.6
    assert plan_pairs({"k": ["x"]}) == []
    assert plan_pairs({"k": ["y", "x"]}, seed=0)[0] in (Pair("k", "x", "y"), Pair("k", "y", "x"))


def test_page_is_blind_deterministic_and_self_contained(exam, tmp_path):
    r = _export(exam, tmp_path / "p1", "--seed", "7")
    assert r.exit_code == 0, r.output
    assert "6 pairs of 3 models" in r.output
    html = (tmp_path / "p1" / "index.html").read_text()
    plan = json.loads((tmp_path / "p1" / "pairs.json").read_text())["pairs"]
    assert len(plan) == 6
    keys = [s.key for s in iter_exam(exam / "exam")]
    assert sorted({p["sample"] for p in plan}) == sorted(keys)
    # no network reference; every video the page names is next to it; file names do not name a model
    assert "http://" not in html and "https://" not in html
    data = json.loads(html.split('id="pairs-data">')[1].split("</script>")[0])
    for row in data["pairs"]:
        for src in (row["input"], row["a"][1], row["b"][1]):
            assert (tmp_path / "p1" / src).is_file() and not any(m in src for m in MODELS)
    # continuations given as mp4 are copied byte for byte; the input clip decodes to the exam's input
    row = data["pairs"][0]
    gt = exam / "base" / row["a"][0] / f"{row['sample']}.mp4"
    assert (tmp_path / "p1" / row["a"][1]).read_bytes() == gt.read_bytes()
    same = _export(exam, tmp_path / "p2", "--seed", "7")
    assert same.exit_code == 0
    assert (tmp_path / "p2" / "index.html").read_bytes() == html.encode()
    assert sorted(p.name for p in (tmp_path / "p2" / "videos").iterdir()) == sorted(
        p.name for p in (tmp_path / "p1" / "videos").iterdir()
    )
    assert _export(exam, tmp_path / "p3", "--seed", "8").exit_code == 0
    assert json.loads((tmp_path / "p3" / "pairs.json").read_text())["pairs"] != plan


def test_bad_input_is_one_line_and_the_rest_is_rated(exam, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(exam / "base" / "deleted", broken)
    keys = sorted(p.stem for p in broken.glob("*.mp4"))
    (broken / f"{keys[0]}.mp4").unlink()
    (broken / f"{keys[1]}.mp4").write_bytes(b"not a video")
    preds = ["--pred", str(exam / "base" / "ground_truth"), "--pred", str(exam / "base" / "last_frame")]
    base = [
        "export",
        "wrop-pairs",
        "--exam",
        str(exam / "exam"),
        "--out",
        str(tmp_path / "o"),
        "--no-progress",
    ]
    r = CliRunner().invoke(app, [*base, *preds, "--pred", str(broken)])
    assert r.exit_code == 0, r.output
    errors = [line for line in r.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 2 and "missing prediction" in errors[0] and "cannot decode" in errors[1], errors
    assert "2 pairs of 3 models" in r.output  # only ground_truth vs last_frame on each sample
    one = CliRunner().invoke(app, [*base, "--pred", str(broken)])
    assert one.exit_code != 0 and "at least two" in one.output and "Traceback" not in one.output
    dup = CliRunner().invoke(app, [*base, *preds, "--pred", str(exam / "base" / "ground_truth")])
    assert dup.exit_code != 0 and "model names must differ" in dup.output


def _chrome(tmp_path):
    webdriver = pytest.importorskip("selenium.webdriver")
    if shutil.which("chromium") is None or shutil.which("chromedriver") is None:
        pytest.fail("Chromium and chromedriver are needed (apt-get install -y chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
    ):
        opts.add_argument(flag)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    opts.add_experimental_option(
        "prefs", {"download.default_directory": str(downloads), "download.prompt_for_download": False}
    )
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts), downloads


#: the rater's taste, by the true model: prefers the ground truth; last frame vs deleted is a tie
KEY_FOR = {
    frozenset({"ground_truth", "last_frame"}): "ground_truth",
    frozenset({"ground_truth", "deleted"}): "ground_truth",
    frozenset({"last_frame", "deleted"}): "tie",
}


def test_vote_round_trip_in_headless_chromium(exam, tmp_path):
    import time

    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    out = tmp_path / "page"
    assert _export(exam, out, "--seed", "11").exit_code == 0
    bytes_to_model = {
        (exam / "base" / m / f"{k}.mp4").read_bytes(): m
        for m in MODELS
        for k in (s.key for s in iter_exam(exam / "exam"))
    }
    driver, downloads = _chrome(tmp_path)
    try:
        driver.get(out.joinpath("index.html").as_uri())
        driver.find_element(By.ID, "rater").send_keys("rater, one")  # a comma: the CSV must quote it
        shown = driver.find_element(By.TAG_NAME, "body").text
        assert not any(m in shown or m.replace("_", " ") in shown for m in MODELS), shown  # blind
        driver.execute_script("document.activeElement.blur();")  # keys typed in the name field are no votes
        expected = []
        n = len(json.loads((out / "pairs.json").read_text())["pairs"])
        for i in range(n):
            assert driver.find_element(By.ID, "progress").text.startswith(f"pair {i + 1} of {n}")
            # who is on each side, from the bytes of the files the page plays (not from the page's data)
            sides = []
            for vid in ("video-a", "video-b"):
                src = driver.find_element(By.ID, vid).get_attribute("src")
                sides.append(bytes_to_model[(out / "videos" / src.rsplit("/", 1)[1]).read_bytes()])
            pref = KEY_FOR[frozenset(sides)]
            key = "t" if pref == "tie" else ("a" if sides[0] == pref else Keys.ARROW_RIGHT)
            ActionChains(driver).send_keys(key).perform()
            expected.append(
                (sides[0], sides[1], "tie" if pref == "tie" else ("a" if sides[0] == pref else "b"))
            )
        assert "all pairs voted" in driver.find_element(By.ID, "done").text
        # the browser decodes the clips it plays (H.264 from file://): frames of the exam's size
        for _ in range(100):
            size = driver.execute_script(
                "return ['input', 'video-a', 'video-b'].map(i => document.getElementById(i))"
                ".map(v => [v.readyState, v.videoWidth, v.videoHeight]);"
            )
            if all(r >= 2 for r, _, _ in size):
                break
            time.sleep(0.1)
        assert all(r >= 2 and w == 128 and h == 72 for r, w, h in size), size
        driver.refresh()  # votes survive a reload (local storage of the file:// page)
        assert driver.find_element(By.ID, "progress").text.endswith(f"({n} voted)")
        assert driver.find_element(By.ID, "rater").get_attribute("value") == "rater, one"
        csv_text = driver.execute_script("return window.simkitVotesCsv();")
        driver.find_element(By.ID, "download").click()
        target = downloads / "votes_rater_one.csv"
        for _ in range(100):
            if target.exists() and target.stat().st_size:
                break
            time.sleep(0.1)
        assert target.read_bytes() == csv_text.encode()  # the Blob download is the same text
    finally:
        driver.quit()
    votes, problems = read_votes(target, list(MODELS))
    assert problems == [] and len(votes) == n == 6
    assert [(v.model_a, v.model_b, v.winner) for v in votes] == expected
    assert {v.rater for v in votes} == {"rater, one"}
    assert sorted({v.sample for v in votes}) == sorted(s.key for s in iter_exam(exam / "exam"))
    res = elo_ratings(votes, n_boot=50)
    order = [res.models[i] for i in res.order()]
    assert order[0] == "ground_truth"
    i_lf, i_del = res.models.index("last_frame"), res.models.index("deleted")
    assert res.wins[res.models.index("ground_truth")] == 4 and res.ties[i_lf] == res.ties[i_del] == 2
    assert abs(res.elo[i_lf] - res.elo[i_del]) < 1.0
    cli = CliRunner().invoke(
        app, ["eval", "wrop-elo", "--votes", str(target), "--bootstrap", "50", "--exam", str(exam / "exam")]
    )
    assert cli.exit_code == 0 and "skipped" not in cli.output, cli.output
    rank1 = next(line for line in cli.output.splitlines() if line.strip().startswith("1 "))
    assert "ground_truth" in rank1
