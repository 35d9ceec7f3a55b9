"""The WROP catalogue: distinct structural recipes, the paper's family counts, the exam at full size, and the
catalogue page (``simkit list wrop --catalogue``)."""

import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from simkit.core.seeding import episode_rng
from simkit.generators.wrop import WropConfig, WropGenerator, catalogue
from simkit.generators.wrop.base import EXAM_OFFSET, FAMILIES, Composition, Task
from simkit.generators.wrop.catalogue_page import PAPER_COUNTS, markdown, row, strip, thumbnail_name
from simkit.generators.wrop.recipe import Recipe, compose_owner, duplicates, structural_recipe
from simkit.scenes.wrop.params import Choice, Uniform


@pytest.mark.slow  # one compose per generator: about 0.1 s each, some line-of-sight planners take seconds
def test_no_two_generators_share_a_structural_recipe():
    pairs = duplicates(catalogue())
    assert pairs == [], "generators with the same structural recipe: " + "; ".join(
        f"{a} and {b}" for a, b in pairs
    )


def test_a_subclass_that_only_changes_ranges_shares_its_parents_compose():
    base = catalogue()["OP-1/ball_behind_screen"]
    wider = type("Wider", (base,), {"name": "wider", "structural": dict(base.structural)})
    assert compose_owner(wider) == compose_owner(base)
    # same ranges too: a copy, named with its original
    assert duplicates({base.id(): base, "OP-1/wider": wider}) == [(base.id(), "OP-1/wider")]
    # other ranges: the recipe differs in its parameter space only
    wider.structural = {**base.structural, "radius": Uniform(0.1, 0.4)}
    a, b = structural_recipe(base), structural_recipe(wider)
    assert (a.kinds, a.compose, a.events) == (b.kinds, b.compose, b.events) and a.space != b.space
    assert duplicates({base.id(): base, "OP-1/wider": wider}) == []


def test_recipe_tells_apart_object_kinds_and_events():
    class Probe(Task):
        family, name = "OP-1", "probe"
        structural = {"kind": Choice(["sphere"])}

        def compose(self, s, clip, look):
            from simkit.generators.wrop.kit import Track, body

            ball = body(
                "target", "target", s["kind"], 0.2, look, "target", Track.static(clip.frames, (0, 0, 0.2))
            )
            return Composition([look.ground(clip.frames), ball], {"start": clip.cut}, "start", [], "p", "o")

    r = structural_recipe(Probe)
    assert isinstance(r, Recipe)
    assert r.kinds == frozenset({"sphere"}) and r.events == frozenset({"start"})  # the ground is not a kind
    assert r.space == (("kind", "Choice", "one of sphere"),)
    assert r.compose.endswith("Probe.compose")


def test_family_counts_are_the_papers():
    r = subprocess.run(
        [sys.executable, "-m", "simkit.cli", "list", "wrop"], capture_output=True, text=True, check=True
    )
    lines = r.stdout.strip().splitlines()
    fams = Counter(line.split("/")[0] for line in lines)
    assert dict(fams) == PAPER_COUNTS and len(lines) == 150


@pytest.mark.slow
def test_exam_has_two_samples_per_generator_composing_at_the_papers_clip():
    # `generate wrop --split exam --n 2N`: episode i -> task i mod N, structural seeds in the exam range; every
    # exam sample composes at 120 frames within the engine's redraw budget (no rendering here)
    cat = catalogue()
    g = WropGenerator()
    g.setup(WropConfig(generator="all", split="exam", frames=120))
    n = 2 * len(cat)
    per_task: Counter = Counter()
    train_seeds = {g.draw_seeds(episode_rng(0, "wrop", i), "train")[0] for i in range(n)}
    for i in range(n):
        task_cls = g.tasks[i % len(g.tasks)]
        for redraw in range(g.max_redraws + 1):
            st, su = g.draw_seeds(episode_rng(0, "wrop", i, redraw), "exam")
            assert st >= EXAM_OFFSET and st not in train_seeds
            try:
                _, _, _, comp = g.compose(task_cls, st, su)
            except ValueError:
                continue
            assert comp.events[comp.key_event] >= 60
            per_task[task_cls.id()] += 1
            break
    assert set(per_task) == set(cat) and set(per_task.values()) == {2}


def test_catalogue_rows_and_page():
    cat = catalogue()
    r = row(cat["OP-3/marked_cups_swap"])
    assert r["family"] == "OP-3" and r["params"]["swaps"] == "integer 0..2"
    assert r["key_event"] == "manipulation_start" and r["events"]["manipulation_start"] == 60
    # several legal outcomes of one sample: the ball ends under its cup on either side, whatever the swaps
    assert len(r["outcomes"]) == 1 and len(r["outcomes"][0]) == 2
    assert all("revealed under" in o for o in r["outcomes"][0])
    turn = row(cat["OP-3/turntable_rotate"])  # numbers in the wording do not make new outcomes
    assert len(turn["outcomes"]) == 1
    passing = row(cat["OS-1/ball_through_aperture"])  # structure decides: passes or is blocked
    assert len(passing["outcomes"]) == 2 and all(len(o) == 1 for o in passing["outcomes"])
    page = markdown([r, turn, passing], {r["id"]: "wrop_catalogue/" + thumbnail_name(r["id"])})
    assert (
        "| OP-3 | container permanence | 2 | 35 |" in page
        and "| OS-1 | Baillargeonian obstruction | 1 | 20 |" in page
    )
    assert "![OP-3/marked_cups_swap: input | cut | target](wrop_catalogue/OP-3_marked_cups_swap.png)" in page
    assert page.count("![") == 1  # generators without a thumbnail get no image link
    assert "`swaps` integer 0..2" in page and "key event: `manipulation_start` at frame 60" in page
    assert f"- outcomes: {r['outcomes'][0][0]} *or* {r['outcomes'][0][1]}\n" in page
    assert page.index("## OP-3") < page.index("## OS-1")


def test_thumbnail_strip_layout():
    inp = np.zeros((6, 4, 5, 3), np.uint8)
    tgt = np.full((6, 4, 5, 3), 100, np.uint8)
    tgt[2] = 7
    s = strip(inp, tgt, event=8)  # absolute frame 8 = target frame 2
    assert s.shape == (4, 4 * 5 + 3 * 2 + 4 + 2, 3)
    assert (s[:, 2 * 5 + 2 * 2 : 2 * 5 + 2 * 2 + 4, 0] == 220).all()  # the red cut bar after two input tiles
    assert (s[:, 20:25] == 7).all() and (s[:, -5:] == 100).all()


@pytest.mark.slow
def test_catalogue_command_writes_the_page_and_small_thumbnails(tmp_path):
    page = tmp_path / "docs" / "wrop_catalogue.md"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "simkit.cli",
            "list",
            "wrop",
            "--catalogue",
            str(page),
            "--only",
            "OS-2/ball_platform_removed",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    png = tmp_path / "docs" / "wrop_catalogue" / "OS-2_ball_platform_removed.png"
    assert png.is_file() and png.stat().st_size < 12_000
    from PIL import Image

    with Image.open(png) as im:
        assert im.size == (4 * 128 + 3 * 2 + 4 + 2, 72)
        arr = np.asarray(im.convert("RGB"))
    assert arr[:, 260:264, 0].min() > 200 and arr[:, 260:264, 1].max() < 30  # the cut bar is red
    text = page.read_text()
    assert (
        "### `OS-2/ball_platform_removed`" in text and "wrop_catalogue/OS-2_ball_platform_removed.png" in text
    )
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [png.name, page.name]
    bad = subprocess.run(
        [sys.executable, "-m", "simkit.cli", "list", "wrop", "--catalogue", str(page), "--only", "OP-9"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "--only OP-9" in bad.stderr and "Traceback" not in bad.stderr
    for argv, says in (
        (["list", "--catalogue", str(tmp_path / "x.md")], "needs a generator"),
        (["list", "wrop", "--catalogue", str(tmp_path)], "is a folder"),
        (["list", "packing", "--catalogue", str(tmp_path / "p.md")], "has no catalogue"),
    ):
        r = subprocess.run([sys.executable, "-m", "simkit.cli", *argv], capture_output=True, text=True)
        assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, (argv, r.stderr)
    assert not (tmp_path / "x.md").exists() and not (tmp_path / "p.md").exists()


def test_list_keeps_one_line_per_generator():
    r = subprocess.run(
        [sys.executable, "-m", "simkit.cli", "list", "wrop"], capture_output=True, text=True, check=True
    )
    lines = r.stdout.strip().splitlines()
    assert len(lines) == len(catalogue())
    for line in lines:
        gid, summary = line.split(None, 1)
        assert gid in catalogue() and summary == catalogue()[gid].summary and gid.split("/")[0] in FAMILIES
