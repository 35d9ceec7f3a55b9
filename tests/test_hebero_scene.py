"""Hebero MuJoCo task scenes and goal predicates on the real libero_goal tasks (installed LIBERO assets)."""

import os
import subprocess
import sys

import mujoco
import numpy as np
import pytest

from simkit.core.errors import InputError
from simkit.scenes.hebero import compile_task, suite_files
from simkit.sims.hebero.predicates import ON_XY_RADIUS
from simkit.sims.hebero.scene import build_scene, settle

EPS = 1e-4


def _desc(root, suite, name):
    for i, p in suite_files(root, suite):
        if p.stem == name:
            return compile_task(p, suite, i, root)
    raise AssertionError(name)


def _scene(root, name, robot=False, seed=0):
    return build_scene(_desc(root, "goal", name), root, np.random.default_rng(seed), with_robot=robot)


def _set_obj(scene, name, pos):
    m, d = scene.model, scene.data
    j = scene.binding.bodies[name]
    adr = m.jnt_qposadr[m.body_jntadr[j]]
    d.qpos[adr : adr + 3] = pos
    d.qpos[adr + 3 : adr + 7] = [1, 0, 0, 0]
    d.qvel[:] = 0
    mujoco.mj_forward(m, d)


def _joint(scene, name):
    return scene.model.jnt_qposadr[mujoco.mj_name2id(scene.model, mujoco.mjtObj.mjOBJ_JOINT, name)]


@pytest.mark.slow
def test_goal_tasks_build_and_rest_for_5_seconds(libero_root):
    root = libero_root
    for i, p in suite_files(root, "goal"):
        d = compile_task(p, "goal", i, root)
        sc = build_scene(d, root, np.random.default_rng(i))
        top = d["arena"]["offset"][2]
        # objects start inside their sampling regions
        for atom in d["init"]:
            if atom[0] == "on" and atom[1] in d["objects"] and atom[2] in d["regions"]:
                r = d["regions"][atom[2]]
                if r["kind"] == "workspace":
                    x0, y0, x1, y1 = r["ranges_world"][0]
                    x, y = sc.data.xpos[sc.binding.bodies[atom[1]]][:2]
                    assert x0 - 1e-9 <= x <= x1 + 1e-9 and y0 - 1e-9 <= y <= y1 + 1e-9
        q0 = sc.data.qpos[sc.arm_qpos_adr].copy()
        drift = settle(sc, 5.0)
        assert np.abs(sc.data.qpos[sc.arm_qpos_adr] - q0).max() < 1e-3  # zero action holds the arm
        assert sc.model.nu == 9
        assert max(drift.values()) < 0.01, (p.stem, drift)
        assert np.all(np.isfinite(sc.data.qpos))
        for n in d["objects"]:
            assert sc.data.xpos[sc.binding.bodies[n]][2] > top - 0.01
        assert np.abs(sc.data.qvel).max() < 0.05
        # object init atoms still hold after settling, and no goal is reached by doing nothing
        for atom in d["init"]:
            if atom[1] in d["objects"]:
                assert sc.evaluator.atom(sc.data, atom), (p.stem, atom)
        assert not sc.success()


def test_region_sampling_is_seeded(libero_root):
    a = _scene(libero_root, "put_the_bowl_on_the_plate", seed=3).placements
    b = _scene(libero_root, "put_the_bowl_on_the_plate", seed=3).placements
    c = _scene(libero_root, "put_the_bowl_on_the_plate", seed=4).placements
    assert a == b and a != c


def test_on_object_flips_at_xy_radius(libero_root):
    sc = _scene(libero_root, "put_the_bowl_on_the_plate")
    m, d = sc.model, sc.data
    plate = d.xpos[sc.binding.bodies["plate_1"]].copy()
    _set_obj(sc, "akita_black_bowl_1", plate + [0, 0, 0.02])
    for _ in range(500):
        mujoco.mj_step(m, d)
    z = d.xpos[sc.binding.bodies["akita_black_bowl_1"]][2]
    plate = d.xpos[sc.binding.bodies["plate_1"]].copy()
    assert sc.success()
    for dx, want in ((ON_XY_RADIUS - EPS, True), (ON_XY_RADIUS + EPS, False)):
        _set_obj(sc, "akita_black_bowl_1", [plate[0] + dx, plate[1], z - 0.0005])
        assert sc.evaluator.touching(d, "akita_black_bowl_1", "plate_1")
        assert sc.evaluator.atom(d, ["on", "akita_black_bowl_1", "plate_1"]) is want
        assert sc.success() is want
    # lifted off the plate: no contact, not on
    _set_obj(sc, "akita_black_bowl_1", [plate[0], plate[1], z + 0.05])
    assert not sc.evaluator.atom(d, ["on", "akita_black_bowl_1", "plate_1"])


def test_drawer_open_close_thresholds(libero_root):
    sc = _scene(libero_root, "open_the_middle_drawer_of_the_cabinet")
    d = sc.data
    mid = _joint(sc, "wooden_cabinet_1/middle_level")
    ev = sc.evaluator
    for q, want in ((-0.14 + EPS, False), (-0.14 - EPS, True)):
        d.qpos[mid] = q
        mujoco.mj_forward(sc.model, d)
        assert ev.atom(d, ["open", "wooden_cabinet_1_middle_region"]) is want
        assert sc.success() is want
    # Close over the whole cabinet needs every drawer q > 0
    for j in ("top_level", "middle_level", "bottom_level"):
        d.qpos[_joint(sc, f"wooden_cabinet_1/{j}")] = EPS
    mujoco.mj_forward(sc.model, d)
    assert ev.atom(d, ["close", "wooden_cabinet_1"])
    d.qpos[_joint(sc, "wooden_cabinet_1/bottom_level")] = -EPS
    assert not ev.atom(d, ["close", "wooden_cabinet_1"])
    assert ev.atom(d, ["close", "wooden_cabinet_1_middle_region"])  # the region only sees its own drawer
    assert ev.atom(d, ["open", "wooden_cabinet_1"]) is False


def test_stove_knob_turnon_turnoff(libero_root):
    sc = _scene(libero_root, "turn_on_the_stove")
    d = sc.data
    knob = _joint(sc, "flat_stove_1/button")
    for q, on, off in (
        (0.5 - EPS, False, False),
        (0.5, True, False),
        (-EPS, False, True),
        (0.0, False, False),
    ):
        d.qpos[knob] = q
        assert sc.evaluator.atom(d, ["turnon", "flat_stove_1"]) is on
        assert sc.evaluator.atom(d, ["turnoff", "flat_stove_1"]) is off
        assert sc.success() is on
        assert sc.evaluator.formula(
            d, ["or", ["turnon", "flat_stove_1"], ["not", ["turnoff", "flat_stove_1"]]]
        ) is (on or not off)


def test_in_drawer_region_box(libero_root):
    sc = _scene(libero_root, "open_the_top_drawer_and_put_the_bowl_inside")
    m, d = sc.model, sc.data
    sid = sc.binding.sites["wooden_cabinet_1_top_region"]
    c = d.site_xpos[sid].copy()
    half = np.abs(d.site_xmat[sid].reshape(3, 3) @ m.site_size[sid])
    cases = [
        ([0, 0, 0], True),
        ([half[0] - EPS, 0, 0], True),
        ([half[0] + EPS, 0, 0], False),
        ([0, 0, -half[2] - 0.01 + EPS], True),
        ([0, 0, -half[2] - 0.01 - EPS], False),
    ]
    for off, want in cases:
        _set_obj(sc, "akita_black_bowl_1", c + off)
        assert sc.evaluator.atom(d, ["in", "akita_black_bowl_1", "wooden_cabinet_1_top_region"]) is want, off
        assert sc.success() is want


def test_on_site_regions(libero_root):
    # the workspace region in front of the stove: xy box flips at its half size
    sc = _scene(libero_root, "push_the_plate_to_the_front_of_the_stove")
    d = sc.data
    sid = sc.binding.sites["main_table_stove_front_region"]
    c = d.site_xpos[sid].copy()
    hx = sc.model.site_size[sid][0]
    z = d.xpos[sc.binding.bodies["plate_1"]][2]
    for dx, want in ((hx - EPS, True), (hx + EPS, False)):
        _set_obj(sc, "plate_1", [c[0] + dx, c[1], z])
        assert sc.success() is want
    # the burner: band above the cook_region site plus contact with the stove
    sc = _scene(libero_root, "put_the_bowl_on_the_stove")
    m, d = sc.model, sc.data
    sid = sc.binding.sites["flat_stove_1_cook_region"]
    c = d.site_xpos[sid].copy()
    _set_obj(sc, "akita_black_bowl_1", c + [0, 0, 0.03])
    for _ in range(500):
        mujoco.mj_step(m, d)
    assert sc.success()
    z = d.xpos[sc.binding.bodies["akita_black_bowl_1"]][2]
    hx = m.site_size[sid][0]
    for dx, want in ((hx - EPS, True), (hx + EPS, False)):
        _set_obj(sc, "akita_black_bowl_1", [c[0] + dx, c[1], z - 0.0005])
        assert sc.evaluator.touching(d, "akita_black_bowl_1", "flat_stove_1")
        assert sc.success() is want


def test_missing_asset_is_a_clear_error(imperfect_libero_root):
    root = imperfect_libero_root  # libero_goal assets only
    d = _desc(root, "long", "KITCHEN_SCENE3_turn_on_the_stove_and_put_the_moka_pot_on_it")
    with pytest.raises(InputError) as ei:
        build_scene(d, root)
    # the first object of the task whose model the tree lacks, named with the path it looked for
    frypan = root / "assets/stable_scanned_objects/chefmate_8_frypan/chefmate_8_frypan.xml"
    assert str(ei.value) == (
        f"{frypan}: asset of chefmate_8_frypan_1 (chefmate_8_frypan) not found under --libero-root"
    )


@pytest.mark.slow
def test_render_contact_sheet(tmp_path, libero_root):
    out = tmp_path / "desc"
    env = dict(os.environ, MUJOCO_GL=os.environ.get("MUJOCO_GL", "egl"))
    root = str(libero_root)
    cmd = [
        sys.executable,
        "-m",
        "simkit",
        "compile",
        "hebero",
        "--suite",
        "goal",
        "--libero-root",
        root,
        "--out",
        str(out),
    ]
    assert subprocess.run(cmd, env=env, capture_output=True, text=True).returncode == 0
    png = tmp_path / "sheet.png"
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "simkit",
            "convert",
            "render-task",
            str(out),
            "--libero-root",
            root,
            "--suite",
            "goal",
            "--out",
            str(png),
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    import imageio.v3 as iio

    img = iio.imread(png)
    assert img.shape[0] > 500 and img.shape[1] > 500
    assert img[..., :3].std() > 20  # real pictures, not a blank canvas


def test_dropping_visual_meshes_keeps_the_dynamics_bit_identical(libero_root):
    """docs/hebero.md: ``visual=False`` freezes masses and inertias from the full model and then drops the
    visual-only geoms, so 300 steps of the same controls give the same state, bit for bit."""
    desc, root = _desc(libero_root, "goal", "put_the_bowl_on_the_plate"), libero_root
    full = build_scene(desc, root, np.random.default_rng(0), with_robot=True, visual=True)
    lean = build_scene(desc, root, np.random.default_rng(0), with_robot=True, visual=False)
    assert lean.model.ngeom < full.model.ngeom  # something was dropped
    np.testing.assert_array_equal(lean.model.body_mass, full.model.body_mass)
    np.testing.assert_array_equal(lean.model.body_inertia, full.model.body_inertia)
    np.testing.assert_array_equal(lean.data.qpos, full.data.qpos)
    # position actuators (Panda joints and fingers): random targets around the start, a new one every 50 steps
    adr = full.model.jnt_qposadr[full.model.actuator_trnid[:, 0]]
    start = full.data.qpos.copy()
    targets = start[adr] + np.random.default_rng(1).uniform(-0.4, 0.4, (6, full.model.nu))
    for k in range(300):
        for sc in (full, lean):
            sc.data.ctrl[:] = targets[k // 50]
            mujoco.mj_step(sc.model, sc.data)
    assert np.abs(full.data.qpos[adr] - start[adr]).max() > 0.05  # the arm moved
    np.testing.assert_array_equal(lean.data.qpos, full.data.qpos)
    np.testing.assert_array_equal(lean.data.qvel, full.data.qvel)
