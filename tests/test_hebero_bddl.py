"""Hebero BDDL parser and descriptor compiler on the real LIBERO task files."""

import json

import pytest
from conftest import bundled_bddl, fixture_path
from typer.testing import CliRunner

from simkit.core.errors import InputError
from simkit.scenes.hebero import (
    N_ENTITY_SLOTS,
    TASK_CODE_DIM,
    compile_suites,
    compile_task,
    load_descriptor,
    parse_bddl,
    suite_files,
)

GOOD = """(define (problem LIBERO_Tabletop_Manipulation)
  (:domain robosuite)
  (:language Put the bowl on the plate)
  (:regions
    (bowl_region (:target main_table) (:ranges ((0.1 0.2 0.3 0.4))) (:yaw_rotation ((0.0 1.5))))
    (cook_region (:target flat_stove_1))
  )
  (:fixtures main_table - table flat_stove_1 - flat_stove)
  (:objects bowl_1 bowl_2 - akita_black_bowl plate_1 - plate)
  (:obj_of_interest bowl_1 plate_1)
  (:init (On bowl_1 main_table_bowl_region) (Turnoff flat_stove_1))
  (:goal (And (On bowl_1 plate_1) (Or (Turnon flat_stove_1) (Not (In bowl_2 flat_stove_1_cook_region)))))
)
"""


def _err(tmp_path, text):
    p = tmp_path / "bad.bddl"
    p.write_text(text)
    with pytest.raises(InputError) as ei:
        parse_bddl(p)
    return ei.value


def test_all_130_libero_task_files_parse():
    # the 40 bundled with simkit (four Hebero suites) and LIBERO's other 90 (libero_90, tests/fixtures)
    files = sorted(bundled_bddl().glob("*/*.bddl")) + sorted(
        fixture_path("libero", "bddl_files").glob("*/*.bddl")
    )
    assert len(files) == 130 and len({f.relative_to(f.parents[1]) for f in files}) == 130
    preds = set()
    for f in files:
        p = parse_bddl(f)
        assert p.language and p.goal[0] == "and"
        stack = [p.goal]
        while stack:
            g = stack.pop()
            if g[0] in ("and", "or", "not"):
                stack += g[1:]
            else:
                preds.add(g[0])
    assert {"on", "in", "open", "close", "turnon", "turnoff"} <= preds


def test_parse_structure(tmp_path):
    p = tmp_path / "t.bddl"
    p.write_text(GOOD)
    prob = parse_bddl(p)
    assert prob.objects == {"bowl_1": "akita_black_bowl", "bowl_2": "akita_black_bowl", "plate_1": "plate"}
    r = prob.regions["main_table_bowl_region"]
    assert r.ranges == [(0.1, 0.2, 0.3, 0.4)] and r.yaw == [(0.0, 1.5)]
    assert prob.goal == [
        "and",
        ["on", "bowl_1", "plate_1"],
        ["or", ["turnon", "flat_stove_1"], ["not", ["in", "bowl_2", "flat_stove_1_cook_region"]]],
    ]


def test_unbalanced_parentheses_names_line_and_column(tmp_path):
    e = _err(tmp_path, GOOD.replace("(:obj_of_interest bowl_1 plate_1)", "(:obj_of_interest bowl_1 plate_1"))
    assert e.line == 10 and e.column == 3 and "never closed" in e.reason
    # a ')' missing at the end of a line: located by the closing paren on the next line
    e = _err(
        tmp_path,
        GOOD.replace(
            "(Not (In bowl_2 flat_stove_1_cook_region)))))",
            "(Not (In bowl_2 flat_stove_1_cook_region)))\n  )",
        ),
    )
    assert (e.line, e.column) == (12, 3) and "never closed" in e.reason  # the (:goal section

    e = _err(tmp_path, GOOD + ")")
    assert (e.line, e.column) == (14, 1)
    assert e.reason == "unexpected ')' after the end of the top-level expression"
    assert str(e).startswith(str(tmp_path / "bad.bddl") + ":")


def test_unknown_predicate(tmp_path):
    e = _err(tmp_path, GOOD.replace("(On bowl_1 plate_1)", "(Onto bowl_1 plate_1)"))
    assert "unknown predicate 'Onto'" in e.reason and e.line == 12 and e.column == 16


def test_region_on_missing_fixture(tmp_path):
    e = _err(tmp_path, GOOD.replace("(:target main_table)", "(:target kitchen_shelf_1)"))
    assert "kitchen_shelf_1" in e.reason and e.line == 5
    # a site region on an undeclared asset is dropped with a warning, but then cannot be used
    e = _err(tmp_path, GOOD.replace("(cook_region (:target flat_stove_1))", "(cook_region (:target oven_1))"))
    assert "flat_stove_1_cook_region" in e.reason and "no declared" in e.reason


def test_wrong_arity_and_undeclared_name(tmp_path):
    assert "takes 2" in _err(tmp_path, GOOD.replace("(On bowl_1 plate_1)", "(On bowl_1)")).reason
    assert "'cup_1'" in _err(tmp_path, GOOD.replace("(On bowl_1 plate_1)", "(On cup_1 plate_1)")).reason


def test_descriptor_world_coordinates_and_thresholds(libero_root):
    root = libero_root
    files = {p.stem: (i, p) for i, p in suite_files(root, "goal")}
    i, p = files["push_the_plate_to_the_front_of_the_stove"]
    d = compile_task(p, "goal", i, root)
    r = d["regions"]["main_table_stove_front_region"]
    # ranges in the BDDL file: (-0.09 0.17 -0.01 0.25) in the table frame; the table top is at z 0.9
    assert r["ranges_world"][0] == pytest.approx([-0.09, 0.17, -0.01, 0.25])
    assert r["z_world"] == pytest.approx(0.90)
    assert d["goal"]["args"][0]["predicate"] == "on"
    assert d["goal"]["args"][0]["thresholds"]["test"] == "site_band"
    assert d["objects"]["plate_1"]["asset"] == "assets/stable_scanned_objects/plate/plate.xml"
    assert d["objects"]["plate_1"]["present"] is True
    i, p = files["turn_on_the_stove"]
    g = compile_task(p, "goal", i, root)["goal"]["args"][0]
    assert g["thresholds"] == {"test": "joint", "quantifier": "any", "comparison": ">=", "qpos": 0.5}


def test_compile_all_40_cache_and_codes(tmp_path, libero_root):
    root = libero_root
    rep = compile_suites(root, tmp_path)
    assert not rep.errors and len(rep.written) == 40 and not rep.cached
    descs = [json.loads(p.read_text()) for p in rep.written]
    codes = {tuple(d["task_code"]) for d in descs}
    assert len(codes) == 40
    for d in descs:
        z = d["task_code"]
        assert len(z) == TASK_CODE_DIM and set(z) <= {0, 1}
        assert sum(z[6:16]) == 1 and sum(z[16:20]) == 1 and sum(z[20:25]) == 1 and sum(z[25:]) == 0
        assert sum(z[:6]) >= 1
        assert len(d["entity_slots"]) <= N_ENTITY_SLOTS
        assert [s["slot"] for s in d["entity_slots"]] == list(range(len(d["entity_slots"])))
    long_ = [d for d in descs if d["suite"] == "long"]
    assert len(long_) == 10 and all(d["task_code"][19] == 1 for d in long_)
    rep2 = compile_suites(root, tmp_path)
    assert len(rep2.cached) == 40 and not rep2.written
    idx = json.loads((tmp_path / "index.json").read_text())
    assert len(idx) == 40 and idx["goal/turn_on_the_stove"] == "goal/turn_on_the_stove.json"
    # compiling one suite keeps the other suites' descriptors in the index (merge by task id)
    rep3 = compile_suites(root, tmp_path, ["goal"])
    assert len(rep3.cached) == 10 and len(rep3.index) == 40
    assert json.loads((tmp_path / "index.json").read_text()) == idx
    # a damaged descriptor of another suite is left out of the index, with a warning naming it
    f = tmp_path / "long" / f"{long_[0]['name']}.json"
    d = json.loads(f.read_text())
    del d["objects"]
    f.write_text(json.dumps(d))
    rep4 = compile_suites(root, tmp_path, ["goal"])
    idx4 = json.loads((tmp_path / "index.json").read_text())
    assert len(idx4) == 39 and long_[0]["task_id"] not in idx4
    assert [w for w in rep4.warnings if str(f) in w and "'objects'" in w]


def test_changed_input_recompiles_only_that_task(tmp_path, libero_root):
    import shutil

    src = libero_root
    root = tmp_path / "root"
    shutil.copytree(src / "bddl_files", root / "bddl_files")
    (root / "assets").symlink_to(src / "assets")
    out = tmp_path / "out"
    assert len(compile_suites(root, out, ["goal"]).written) == 10
    f = root / "bddl_files" / "libero_goal" / "turn_on_the_stove.bddl"
    f.write_text(f.read_text().replace("Turn on the stove", "Switch the stove on"))
    rep = compile_suites(root, out, ["goal"])
    assert [p.stem for p in rep.written] == ["turn_on_the_stove"] and len(rep.cached) == 9
    assert json.loads(rep.written[0].read_text())["instruction"] == "Switch the stove on"


def test_cli_compile_and_bad_root(tmp_path, libero_root):
    from simkit.cli import app

    runner = CliRunner()
    res = runner.invoke(
        app,
        [
            "compile",
            "hebero",
            "--suite",
            "goal",
            "--libero-root",
            str(libero_root),
            "--out",
            str(tmp_path),
        ],
    )
    assert res.exit_code == 0, res.output
    assert len(list((tmp_path / "goal").glob("*.json"))) == 10
    res = runner.invoke(
        app, ["compile", "hebero", "--libero-root", str(tmp_path / "nope"), "--out", str(tmp_path)]
    )
    assert res.exit_code == 2 and "error:" in res.output and "Traceback" not in res.output


def test_ranges_min_above_max_points_at_the_row(tmp_path):
    e = _err(
        tmp_path,
        GOOD.replace(
            "(:ranges ((0.1 0.2 0.3 0.4)))", "(:ranges (\n      (0.1 0.2 0.3 0.4)\n      (0.5 0.2 0.3 0.4)))"
        ),
    )
    assert (e.line, e.column) == (7, 7) and "min <= max" in e.reason


def _copy_root(tmp_path, src):
    import shutil

    root = tmp_path / "root"
    shutil.copytree(src / "bddl_files" / "libero_goal", root / "bddl_files" / "libero_goal")
    (root / "assets").symlink_to(src / "assets")
    return root


def test_every_broken_task_is_reported_and_the_rest_compile(tmp_path, libero_root):
    from simkit.cli import app

    root = _copy_root(tmp_path, libero_root)
    d, fresh = tmp_path / "d", tmp_path / "fresh"
    runner = CliRunner()
    args = ["compile", "hebero", "--suite", "goal", "--libero-root", str(root), "--out"]
    assert runner.invoke(app, args + [str(d)]).exit_code == 0
    g = root / "bddl_files" / "libero_goal"
    missing, binary, unbalanced = (
        g / "put_the_bowl_on_the_plate.bddl",
        g / "turn_on_the_stove.bddl",
        g / "put_the_bowl_on_the_stove.bddl",
    )
    missing.unlink()
    binary.write_bytes(bytes(range(256)) * 4)
    unbalanced.write_text(unbalanced.read_text().replace("(:obj_of_interest", "((:obj_of_interest", 1))
    for out, summary in (
        (fresh, "compiled 7 task(s), 0 cached, 3 error(s)"),
        (d, "compiled 0 task(s), 7 cached, 3 error(s)"),
    ):
        res = runner.invoke(app, args + [str(out)])
        assert res.exit_code == 2 and "Traceback" not in res.output
        assert summary in res.output
        errors = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
        assert len(errors) == 3
        assert [ln for ln in errors if str(missing) in ln and "not found" in ln]
        assert [ln for ln in errors if str(binary) in ln and "UTF-8" in ln]
        assert [ln for ln in errors if str(unbalanced) in ln and "never closed" in ln]
        # the previously good D had descriptors of the three tasks: each error line says it was removed
        assert sum("stale descriptor" in ln and "removed" in ln for ln in errors) == (3 if out == d else 0)
        idx = json.loads((out / "index.json").read_text())
        assert len(idx) == 7 and "goal/put_the_bowl_on_the_plate" not in idx
        assert "goal/turn_on_the_stove" not in idx and "goal/put_the_bowl_on_the_stove" not in idx
        # stale descriptors of the failed tasks are gone, so nothing downstream can use them
        assert sorted(p.stem for p in (out / "goal").glob("*.json")) == sorted(
            s.removesuffix(".json") for s in (p.split("/")[1] for p in idx.values())
        )
    # repairing the inputs compiles exactly the three tasks again
    src = bundled_bddl("libero_goal")
    for f in (missing, binary, unbalanced):
        f.write_bytes((src / f.name).read_bytes())
    rep = compile_suites(root, d, ["goal"])
    assert sorted(p.stem for p in rep.written) == sorted(f.stem for f in (missing, binary, unbalanced))
    assert len(rep.cached) == 7 and not rep.errors and len(rep.index) == 10


def test_damaged_descriptor_is_recompiled_and_readers_name_it(tmp_path, libero_root):
    from simkit.cli import app

    root = libero_root
    rep = compile_suites(root, tmp_path, ["goal"])
    assert len(rep.written) == 10
    f = tmp_path / "goal" / "put_the_bowl_on_the_plate.json"
    good = json.loads(f.read_text())
    assert load_descriptor(f) == good
    damaged = dict(good)
    del damaged["objects"]
    f.write_text(json.dumps(damaged))
    with pytest.raises(InputError) as ei:
        load_descriptor(f)
    assert ei.value.path == str(f) and "'objects'" in ei.value.reason
    res = CliRunner().invoke(app, ["convert", "render-task", str(tmp_path), "--libero-root", str(root)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert f"error: {f}" in res.output and "'objects'" in res.output
    rep = compile_suites(root, tmp_path, ["goal"])
    assert [p.stem for p in rep.written] == ["put_the_bowl_on_the_plate"] and len(rep.cached) == 9
    assert json.loads(f.read_text()) == good
    # an edit that keeps the layout valid is caught by the content hash
    edited = dict(good, instruction="Put the plate on the bowl")
    f.write_text(json.dumps(edited))
    with pytest.raises(InputError, match="content_sha256"):
        load_descriptor(f)
    rep = compile_suites(root, tmp_path, ["goal"])
    assert [p.stem for p in rep.written] == ["put_the_bowl_on_the_plate"]
    assert load_descriptor(f)["instruction"] == "Put the bowl on the plate"
