"""MJCF -> USD joint semantics against MuJoCo's compiled model, and bad-input handling of the converter."""

import itertools
import math
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("mujoco")
pytest.importorskip("pxr")

import mujoco
from pxr import Usd, UsdPhysics

from simkit.assets.mjcf2usd import MAX_XML_DEPTH, check_physics, convert_mjcf_to_usd
from simkit.core.errors import InputError

LIMITED = (None, "true", "false", "auto")
RANGES = (None, (-30.0, 45.0))
AUTOLIMITS = (None, "true", "false")
ANGLES = ("degree", "radian")
TYPES = ("hinge", "slide")


def _model_xml(jtype, limited, rng, autolimits, angle) -> str:
    comp = f'<compiler angle="{angle}"' + (f' autolimits="{autolimits}"' if autolimits else "") + "/>"
    attrs = f'type="{jtype}" axis="0 1 0"'
    if limited is not None:
        attrs += f' limited="{limited}"'
    if rng is not None:
        lo, hi = rng if jtype == "hinge" and angle == "degree" else (rng[0] / 100, rng[1] / 100)
        attrs += f' range="{lo} {hi}"'
    return f"""<mujoco model="arm">{comp}
  <worldbody>
    <body name="base" pos="0 0 0.5">
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
      <body name="link" pos="0 0 0.2">
        <joint name="j" {attrs}/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.5"/>
      </body>
    </body>
  </worldbody>
</mujoco>"""


COMBOS = list(itertools.product(TYPES, LIMITED, RANGES, AUTOLIMITS, ANGLES))


def test_joint_limits_match_mujoco_for_every_attribute_combination(tmp_path):
    """All 96 combinations of limited / range / autolimits / angle for hinge and slide: the stage authors
    limits exactly when MuJoCo's compiled ``jnt_limited`` is set, with ``jnt_range`` in degrees (hinge)
    or metres (slide); unlimited joints keep UsdPhysics' -inf/inf; a model MuJoCo refuses is an
    InputError; every converted stage passes the physics checks."""
    seen = {"limited": 0, "unlimited": 0, "refused": 0}
    for k, (jtype, limited, rng, autolimits, angle) in enumerate(COMBOS):
        xml = _model_xml(jtype, limited, rng, autolimits, angle)
        src = tmp_path / f"m{k}.xml"
        src.write_text(xml)
        try:
            model = mujoco.MjModel.from_xml_string(xml)
        except ValueError:
            with pytest.raises(InputError, match="MuJoCo rejects"):
                convert_mjcf_to_usd(src, tmp_path / f"m{k}.usda")
            seen["refused"] += 1
            continue
        rep = convert_mjcf_to_usd(src, tmp_path / f"m{k}.usda")
        assert check_physics(rep.out) == [], (jtype, limited, rng, autolimits, angle)
        stage = Usd.Stage.Open(str(rep.out))
        prim = stage.GetPrimAtPath(f"/m{k}/joints/j")
        api = UsdPhysics.RevoluteJoint(prim) if jtype == "hinge" else UsdPhysics.PrismaticJoint(prim)
        assert api, f"joint prim missing for {jtype}"
        lo_attr, hi_attr = api.GetLowerLimitAttr(), api.GetUpperLimitAttr()
        case = (jtype, limited, rng, autolimits, angle)
        if model.jnt_limited[0]:
            want = model.jnt_range[0]
            if jtype == "hinge":
                want = np.degrees(want)
            assert lo_attr.HasAuthoredValue() and hi_attr.HasAuthoredValue(), case
            assert lo_attr.Get() == pytest.approx(want[0], abs=1e-4), case
            assert hi_attr.Get() == pytest.approx(want[1], abs=1e-4), case
            seen["limited"] += 1
        else:
            assert not lo_attr.HasAuthoredValue() and not hi_attr.HasAuthoredValue(), case
            assert lo_attr.Get() == -math.inf and hi_attr.Get() == math.inf, case
            seen["unlimited"] += 1
    # the table exercises all three outcomes (MuJoCo 3: autolimits defaults to true)
    assert min(seen.values()) > 0, seen
    assert seen == {"limited": 28, "unlimited": 48, "refused": 20}, seen  # the split docs/hebero.md states
    assert sum(seen.values()) == len(COMBOS) == 96


def test_degree_range_is_converted_once(tmp_path):
    """A hinge range of -30..45 given in degrees and the same range given in radians both end as -30..45 deg."""
    for angle, rng in (("degree", "-30 45"), ("radian", f"{math.radians(-30)} {math.radians(45)}")):
        xml = _model_xml("hinge", "true", None, None, angle).replace(
            'limited="true"', f'limited="true" range="{rng}"'
        )
        src = tmp_path / f"{angle}.xml"
        src.write_text(xml)
        rep = convert_mjcf_to_usd(src, tmp_path / f"{angle}.usda")
        stage = Usd.Stage.Open(str(rep.out))  # keep the stage alive while its prims are read
        api = UsdPhysics.RevoluteJoint(stage.GetPrimAtPath(f"/{angle}/joints/j"))
        assert (api.GetLowerLimitAttr().Get(), api.GetUpperLimitAttr().Get()) == pytest.approx(
            (-30.0, 45.0), abs=1e-4
        )


def test_cli_convert_passes_checks_with_unlimited_joints(tmp_path):
    src = tmp_path / "free_arm.xml"
    src.write_text(_model_xml("hinge", "false", (-30.0, 45.0), None, "degree"))
    out = tmp_path / "free_arm.usda"
    r = subprocess.run(
        [sys.executable, "-m", "simkit", "convert", "mjcf2usd", str(src), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert out.is_file() and check_physics(out) == []


def test_non_finite_mass_and_inertia_fail_the_physics_checks(tmp_path):
    src = tmp_path / "arm.xml"
    src.write_text(_model_xml("slide", "true", (-30.0, 45.0), None, "degree"))
    rep = convert_mjcf_to_usd(src, tmp_path / "arm.usda")
    stage = Usd.Stage.Open(str(rep.out))
    body = stage.GetPrimAtPath("/arm/link")
    UsdPhysics.MassAPI(body).GetMassAttr().Set(float("inf"))
    UsdPhysics.MassAPI(stage.GetPrimAtPath("/arm/base")).GetDiagonalInertiaAttr().Set(
        (1.0, float("nan"), 1.0)
    )
    stage.GetRootLayer().Save()
    problems = check_physics(rep.out)
    assert any("/arm/link" in p and "mass inf" in p for p in problems), problems
    assert any("/arm/base" in p and "inertia" in p for p in problems), problems


def test_half_open_or_reversed_limits_fail_the_physics_checks(tmp_path):
    src = tmp_path / "arm.xml"
    src.write_text(_model_xml("hinge", "true", (-30.0, 45.0), None, "degree"))
    rep = convert_mjcf_to_usd(src, tmp_path / "arm.usda")
    stage = Usd.Stage.Open(str(rep.out))
    api = UsdPhysics.RevoluteJoint(stage.GetPrimAtPath("/arm/joints/j"))
    api.GetLowerLimitAttr().Set(50.0)
    stage.GetRootLayer().Save()
    assert any("neither unlimited nor finite and ordered" in p for p in check_physics(rep.out))
    api.GetLowerLimitAttr().Set(-math.inf)
    api.GetUpperLimitAttr().Set(45.0)
    stage.GetRootLayer().Save()
    assert any("neither unlimited nor finite and ordered" in p for p in check_physics(rep.out))


def _chain(depth: int) -> str:
    body = "".join(
        f'<body name="b{i}" pos="0 0 0.01"><joint type="hinge"/><geom size="0.01" mass="0.1"/>'
        for i in range(depth)
    )
    return f"<mujoco><worldbody>{body}{'</body>' * depth}</worldbody></mujoco>"


def test_deep_nesting_is_a_clear_input_error(tmp_path):
    """A chain nested past MAX_XML_DEPTH is one InputError naming the depth (mujoco + worldbody + bodies +
    the innermost geom), not a RecursionError; a 300-link chain still converts."""
    depth = 3 * MAX_XML_DEPTH
    src = tmp_path / "deep.xml"
    src.write_text(_chain(depth))
    with pytest.raises(InputError, match=f"nested {depth + 3} deep; at most {MAX_XML_DEPTH}"):
        convert_mjcf_to_usd(src, tmp_path / "deep.usda")
    ok = tmp_path / "long.xml"
    ok.write_text(_chain(300))
    rep = convert_mjcf_to_usd(ok, tmp_path / "long.usda")
    assert rep.joints == 299 and check_physics(rep.out) == []
