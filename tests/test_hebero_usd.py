"""MJCF -> USD conversion of the real libero_goal assets: schema checks, joints, bounding-box round trip.

The assets come from the installed LIBERO asset tree (``libero_root``); the tests of missing files use
the imperfect copy (``imperfect_libero_root``: bowl visual mesh, plate texture, arena backgrounds absent).
"""

import numpy as np
import pytest
from typer.testing import CliRunner

from simkit.assets.mjcf2usd import check_physics, convert_mjcf_to_usd, load_mjcf, usd_bbox
from simkit.core.errors import InputError

GOAL_ASSETS = [
    "articulated_objects/wooden_cabinet.xml",
    "articulated_objects/flat_stove.xml",
    "stable_scanned_objects/plate/plate.xml",
    "stable_scanned_objects/akita_black_bowl/akita_black_bowl.xml",
    "stable_hope_objects/cream_cheese/cream_cheese.xml",
    "turbosquid_objects/wine_bottle/wine_bottle.xml",
    "turbosquid_objects/wine_rack/wine_rack.xml",
]


@pytest.mark.parametrize("rel", GOAL_ASSETS)
def test_convert_goal_asset(rel, tmp_path, libero_root):
    from pxr import Usd, UsdGeom, UsdPhysics

    src = libero_root / "assets" / rel
    rep = convert_mjcf_to_usd(src, tmp_path / "a.usda")
    stage = Usd.Stage.Open(str(rep.out))
    assert stage is not None
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0 and UsdGeom.GetStageUpAxis(stage) == "Z"
    assert check_physics(rep.out) == []
    assert rep.collision_geoms > 0 and rep.rigid_bodies >= 1
    lo, hi = usd_bbox(rep.out)  # docs/hebero.md: within 1e-8 m of MuJoCo's (measured up to 6e-9)
    assert np.abs(lo - rep.bbox_lo).max() < 1e-8 and np.abs(hi - rep.bbox_hi).max() < 1e-8
    # total mass equals MuJoCo's
    import mujoco

    m = load_mjcf(src).spec.compile()
    mass = sum(
        UsdPhysics.MassAPI(p).GetMassAttr().Get()
        for p in stage.Traverse()
        if p.HasAPI(UsdPhysics.RigidBodyAPI)
    )
    assert mass == pytest.approx(float(m.body_mass.sum()), rel=1e-5)
    assert mujoco.MjData(m) is not None


def test_cabinet_and_stove_joints(tmp_path, libero_root):
    from pxr import Usd, UsdPhysics

    rep = convert_mjcf_to_usd(
        libero_root / "assets/articulated_objects/wooden_cabinet.xml", tmp_path / "cab.usda"
    )
    stage = Usd.Stage.Open(str(rep.out))
    pj = [UsdPhysics.PrismaticJoint(p) for p in stage.Traverse() if p.IsA(UsdPhysics.PrismaticJoint)]
    assert len(pj) == 3
    for j in pj:
        assert j.GetLowerLimitAttr().Get() == pytest.approx(-0.16)
        assert j.GetUpperLimitAttr().Get() == pytest.approx(0.01)
        # the joint frame's X axis maps to MuJoCo's axis (0 1 0) in the parent frame
        from pxr import Gf

        q = j.GetLocalRot0Attr().Get()
        ax = Gf.Rotation(Gf.Quatd(q)).TransformDir(Gf.Vec3d(1, 0, 0))
        assert np.allclose(list(ax), [0, 1, 0], atol=1e-5)
    rep = convert_mjcf_to_usd(
        libero_root / "assets/articulated_objects/flat_stove.xml", tmp_path / "stove.usd"
    )
    stage = Usd.Stage.Open(str(rep.out))
    rj = [UsdPhysics.RevoluteJoint(p) for p in stage.Traverse() if p.IsA(UsdPhysics.RevoluteJoint)]
    assert len(rj) == 1
    assert rj[0].GetLowerLimitAttr().Get() == pytest.approx(np.degrees(-0.005), abs=1e-4)
    assert rj[0].GetUpperLimitAttr().Get() == pytest.approx(np.degrees(2.1), abs=1e-4)
    # the repeated texture name is reported, not fatal
    assert any("tex-stove_knob" in w for w in rep.warnings)


def test_missing_visual_mesh_is_one_warning(tmp_path, imperfect_libero_root):
    src = imperfect_libero_root / "assets/stable_scanned_objects/akita_black_bowl/akita_black_bowl.xml"
    rep = convert_mjcf_to_usd(src, tmp_path / "bowl.usda")
    mesh_w = [w for w in rep.warnings if "akita_black_bowl_vis.msh" in w]
    assert len(mesh_w) == 1 and "visual" in mesh_w[0]
    assert rep.visual_geoms == 0 and rep.collision_geoms == 40


def test_msh_and_obj_meshes_are_read(tmp_path, libero_root):
    from pxr import Usd, UsdGeom

    # wine_bottle: visual meshes in MuJoCo's legacy .msh format, collision meshes in OBJ
    rep = convert_mjcf_to_usd(
        libero_root / "assets/turbosquid_objects/wine_bottle/wine_bottle.xml", tmp_path / "w.usda"
    )
    stage = Usd.Stage.Open(str(rep.out))
    meshes = [UsdGeom.Mesh(p) for p in stage.Traverse() if p.IsA(UsdGeom.Mesh)]
    vis = [m for m in meshes if "/visual/" in str(m.GetPath())]
    assert len(vis) == 3 and all(len(m.GetPointsAttr().Get()) > 50 for m in vis)


def test_missing_collision_mesh_and_non_xml(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text(
        '<mujoco><asset><mesh name="m" file="gone.obj"/></asset><worldbody><body name="b">'
        '<freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>'
    )
    with pytest.raises(InputError) as ei:
        convert_mjcf_to_usd(bad, tmp_path / "o.usda")
    assert "gone.obj" in str(ei.value) and "collision" in str(ei.value) and str(bad) in str(ei.value)
    notxml = tmp_path / "x.xml"
    notxml.write_text("this is not xml <<")
    with pytest.raises(InputError) as ei:
        convert_mjcf_to_usd(notxml, tmp_path / "o.usda")
    assert ei.value.line == 1 and "XML" in ei.value.reason
    other = tmp_path / "y.xml"
    other.write_text("<robot name='r'/>")
    with pytest.raises(InputError, match="expected <mujoco>"):
        convert_mjcf_to_usd(other, tmp_path / "o.usda")


@pytest.mark.parametrize(
    "tree", ["imperfect_libero_root", pytest.param("libero_root", marks=pytest.mark.slow)]
)  # without and with the background meshes the style files include
def test_every_arena_style_converts_with_mujocos_bounds(tmp_path, tree, request):
    """docs/hebero.md: the 13 arena style files convert, pass the checks, bounds within 1e-8 m of MuJoCo's."""
    styles = sorted((request.getfixturevalue(tree) / "assets/scenes").glob("*.xml"))
    assert len(styles) == 13
    for k, src in enumerate(styles):
        rep = convert_mjcf_to_usd(src, tmp_path / f"s{k}.usda")
        assert check_physics(rep.out) == [], src.name
        lo, hi = usd_bbox(rep.out)
        assert np.abs(lo - rep.bbox_lo).max() < 1e-8 and np.abs(hi - rep.bbox_hi).max() < 1e-8, src.name


def test_arena_file_becomes_static_colliders(tmp_path, imperfect_libero_root):
    from pxr import Usd, UsdPhysics

    src = imperfect_libero_root / "assets/scenes/libero_tabletop_base_style.xml"
    rep = convert_mjcf_to_usd(src, tmp_path / "arena.usda")
    assert rep.rigid_bodies == 0 and rep.collision_geoms == 2  # floor plane + table box
    assert check_physics(rep.out) == []
    stage = Usd.Stage.Open(str(rep.out))
    assert not any(p.HasAPI(UsdPhysics.RigidBodyAPI) for p in stage.Traverse())
    lo, hi = usd_bbox(rep.out)
    assert np.abs(lo - rep.bbox_lo).max() < 1e-3 and np.abs(hi - rep.bbox_hi).max() < 1e-3
    # every missing background texture is named once
    missing = [w for w in rep.warnings if "is missing" in w]
    assert len(missing) == len(set(missing)) >= 1


def test_mujoco_rejection_is_one_line(tmp_path, libero_root):
    src = libero_root / "assets/wall.xml"  # a fragment that uses materials it does not define
    with pytest.raises(InputError) as ei:
        convert_mjcf_to_usd(src, tmp_path / "w.usda")
    assert "MatDarkWood" in str(ei.value) and "\n" not in str(ei.value)


def test_cli_convert(tmp_path, libero_root):
    from simkit.cli import app

    runner = CliRunner()
    out = tmp_path / "plate.usda"
    res = runner.invoke(
        app,
        [
            "convert",
            "mjcf2usd",
            str(libero_root / "assets/stable_scanned_objects/plate/plate.xml"),
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "PASS" in res.output and out.is_file()
    res = runner.invoke(app, ["convert", "mjcf2usd", str(tmp_path / "none.xml"), str(out), "--overwrite"])
    assert res.exit_code == 2 and "error:" in res.output and "file not found" in res.output


def test_no_geoms_and_input_errors_come_first(tmp_path):
    empty = tmp_path / "empty.xml"
    empty.write_text(
        '<mujoco><worldbody><body name="b"><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
        "</body></worldbody></mujoco>"
    )
    with pytest.raises(InputError) as ei:
        convert_mjcf_to_usd(empty, tmp_path / "o.usda")
    assert (
        ei.value.path == str(empty) and "has no geoms" in ei.value.reason and "contype" not in ei.value.reason
    )
    visual = tmp_path / "visual.xml"
    visual.write_text(
        '<mujoco><worldbody><body name="b"><geom type="box" size="0.1 0.1 0.1" contype="0" '
        'conaffinity="0"/></body></worldbody></mujoco>'
    )
    with pytest.raises(InputError, match="every geom has contype = conaffinity = 0"):
        convert_mjcf_to_usd(visual, tmp_path / "o.usda")
    # a missing source is reported before a wrong output extension; a good source then meets the extension error
    with pytest.raises(InputError) as ei:
        convert_mjcf_to_usd(tmp_path / "none.xml", tmp_path / "o.txt")
    assert ei.value.path == str(tmp_path / "none.xml") and ei.value.reason == "file not found"
    with pytest.raises(InputError) as ei:
        convert_mjcf_to_usd(visual, tmp_path / "o.txt")
    assert ei.value.path == str(tmp_path / "o.txt") and ".usda" in ei.value.reason
