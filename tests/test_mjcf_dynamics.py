"""MJCF -> USD joint dynamics, actuators and articulation roots: round trips against MuJoCo's compiled
model, usd-core's UsdValidation validators and isaaclab-robot-doctor on the LIBERO articulated assets."""

import math

import pytest

pytest.importorskip("mujoco")
pytest.importorskip("pxr")

import mujoco
from pxr import Usd, UsdPhysics, UsdValidation
from typer.testing import CliRunner

from simkit.assets.mjcf2usd import check_physics, convert_mjcf_to_usd, load_mjcf
from simkit.core.errors import InputError

ARM = """<mujoco model="arm">
  <compiler angle="degree"/>
  <default><joint armature="0.02"/></default>
  <worldbody>
    <body name="base" pos="0 0 0.5">
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
      <body name="link" pos="0 0 0.2">
        <joint name="shoulder" type="hinge" axis="0 1 0" range="-90 90" damping="0.7" stiffness="3"
               ref="10" springref="20" frictionloss="0.15" actuatorfrcrange="-40 40"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.5"/>
        <body name="slider" pos="0.3 0 0">
          <joint name="rail" type="slide" axis="1 0 0" range="0 0.1" damping="5" armature="0.3"/>
          <geom type="box" size="0.02 0.02 0.02" mass="0.2"/>
          <body name="wrist" pos="0.05 0 0">
            <joint name="twist" type="hinge" axis="1 0 0"/>
            <geom type="sphere" size="0.02" mass="0.1"/>
            <body name="tip" pos="0.05 0 0">
              <joint name="bend" type="hinge" axis="0 0 1"/>
              <geom type="sphere" size="0.01" mass="0.05"/>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position name="servo" joint="shoulder" kp="50" kv="4" gear="2" forcelimited="true" forcerange="-12 12"/>
    <velocity name="feed" joint="rail" kv="30" ctrllimited="true" ctrlrange="-0.25 0.25"/>
    <motor name="spin" joint="twist" gear="3" ctrllimited="true" ctrlrange="-1.5 1.5"/>
    <general name="odd" joint="bend" gainprm="2" biastype="affine" biasprm="1 -2 0"/>
  </actuator>
</mujoco>"""


def _attr(prim, name):
    a = prim.GetAttribute(name)
    return a.Get() if a and a.HasAuthoredValue() else None


def _validation_errors(path) -> list[str]:
    """Every error of all of usd-core's registered UsdValidation validators (30 in usd-core 26.11)."""
    validators = UsdValidation.ValidationRegistry().GetOrLoadAllValidators()
    ctx = UsdValidation.ValidationContext(validators)
    errors = ctx.Validate(Usd.Stage.Open(str(path)))
    return [f"{e.GetName()}: {e.GetMessage()}" for e in errors]


def test_joint_dynamics_and_actuators_round_trip(tmp_path):
    """Drive stiffness/damping, targets, maxForce, maxJointVelocity, armature and frictionloss equal the
    MJCF's, per degree on revolute joints (UsdPhysics DriveAPI units); the general actuator is listed
    as not written; the articulation root sits on the root body."""
    src = tmp_path / "arm.xml"
    src.write_text(ARM)
    rep = convert_mjcf_to_usd(src, tmp_path / "arm.usda")
    assert check_physics(rep.out) == [] and _validation_errors(rep.out) == []
    stage = Usd.Stage.Open(str(rep.out))
    j = {n: stage.GetPrimAtPath(f"/arm/joints/{n}") for n in ("shoulder", "rail", "twist", "bend")}
    deg = math.pi / 180  # N m/rad -> N m/deg
    shoulder = UsdPhysics.DriveAPI.Get(j["shoulder"], "angular")
    # passive spring 3 N m/rad + position servo kp 50 through gear 2 (kp gear^2); damping 0.7 + kv 4 * 2^2
    assert shoulder.GetStiffnessAttr().Get() == pytest.approx((3 + 50 * 4) * deg, rel=1e-6)
    assert shoulder.GetDampingAttr().Get() == pytest.approx((0.7 + 4 * 4) * deg, rel=1e-6)
    # USD measures the joint from the converted pose, qpos0 = ref = 10 deg: springref 20 -> 10, range -> -100..80
    assert shoulder.GetTargetPositionAttr().Get() == pytest.approx(10.0, rel=1e-6)
    rev = UsdPhysics.RevoluteJoint(j["shoulder"])
    assert (rev.GetLowerLimitAttr().Get(), rev.GetUpperLimitAttr().Get()) == pytest.approx((-100.0, 80.0))
    assert shoulder.GetTypeAttr().Get() == "force"
    assert shoulder.GetMaxForceAttr().Get() == pytest.approx(24.0)  # min(40 joint, 12 * gear 2)
    assert _attr(j["shoulder"], "physxJoint:jointFriction") == pytest.approx(0.15)
    assert _attr(j["shoulder"], "physxJoint:armature") == pytest.approx(0.02)  # from the default class
    # usd-core does not register PhysxSchema, so GetAppliedSchemas() hides it: read the authored list op
    assert j["shoulder"].GetMetadata("apiSchemas").ApplyOperations([]).count("PhysxJointAPI") == 1
    rail = UsdPhysics.DriveAPI.Get(j["rail"], "linear")
    assert rail.GetDampingAttr().Get() == pytest.approx(5 + 30)  # N s/m, no angle conversion
    assert rail.GetStiffnessAttr().Get() == 0.0
    assert _attr(j["rail"], "physxJoint:armature") == pytest.approx(0.3)
    assert _attr(j["rail"], "physxJoint:maxJointVelocity") == pytest.approx(0.25)  # m/s
    assert _attr(j["rail"], "physxJoint:jointFriction") is None  # frictionloss 0: nothing authored
    twist = UsdPhysics.DriveAPI.Get(j["twist"], "angular")
    assert twist.GetStiffnessAttr().Get() == 0.0 and twist.GetDampingAttr().Get() == 0.0
    assert twist.GetMaxForceAttr().Get() == pytest.approx(4.5)  # motor: ctrlrange 1.5 * gear 3
    assert not j["bend"].HasAPI(UsdPhysics.DriveAPI, "angular")
    assert any("'odd'" in n for n in rep.not_written), rep.not_written
    assert rep.articulation_roots == ["/arm/base"]
    assert stage.GetPrimAtPath("/arm/base").HasAPI(UsdPhysics.ArticulationRootAPI)
    assert sum(p.HasAPI(UsdPhysics.ArticulationRootAPI) for p in stage.Traverse()) == 1
    assert rep.written["drive"] == 3 and rep.written["frictionloss"] == 1 and rep.written["armature"] == 4


def test_hinge_velocity_limit_is_degrees_per_second(tmp_path):
    src = tmp_path / "wheel.xml"
    src.write_text(ARM.replace('<velocity name="feed" joint="rail"', '<velocity name="feed" joint="twist"'))
    rep = convert_mjcf_to_usd(src, tmp_path / "wheel.usda")
    stage = Usd.Stage.Open(str(rep.out))
    twist = stage.GetPrimAtPath("/wheel/joints/twist")
    # velocity servo on the hinge: ctrlrange 0.25 rad/s of the actuator, gear 1 -> deg/s
    assert _attr(twist, "physxJoint:maxJointVelocity") == pytest.approx(math.degrees(0.25), rel=1e-6)
    assert UsdPhysics.DriveAPI.Get(twist, "angular").GetDampingAttr().Get() == pytest.approx(
        30 * math.pi / 180
    )


ARTICULATED = [
    "basin_faucet",
    "faucet",
    "flat_stove",
    "microwave",
    "short_cabinet",
    "short_fridge",
    "slide_cabinet",
    "white_cabinet",
    "window",
    "wooden_cabinet",
    "yellow_cabinet",
    "yellow_stove",
]


@pytest.fixture(scope="module")
def libero_articulated(tmp_path_factory, libero_root):
    """The LIBERO articulated assets (every MJCF file with joints in the installed tree), converted."""
    found = sorted(p.stem for p in (libero_root / "assets/articulated_objects").glob("*.xml"))
    assert found == ARTICULATED
    out = tmp_path_factory.mktemp("articulated")
    return {
        n: (
            libero_root / f"assets/articulated_objects/{n}.xml",
            convert_mjcf_to_usd(libero_root / f"assets/articulated_objects/{n}.xml", out / f"{n}.usda"),
        )
        for n in ARTICULATED
    }


def test_libero_articulated_assets_pass_usd_validation_and_round_trip(libero_articulated):
    """All 12 convert (the four standalone files MuJoCo rejects as massless via the merged path), pass
    check_physics and all UsdValidation validators with 0 errors; each has one articulation root on its
    root body; each joint's drive damping equals MuJoCo's dof_damping (per degree for hinges), and the
    joints without damping, armature or frictionloss author none."""
    merged = set()
    for name, (src, rep) in libero_articulated.items():
        assert check_physics(rep.out) == [], name
        assert _validation_errors(rep.out) == [], name
        assert len(rep.articulation_roots) == 1, name
        if any("MuJoCo rejects the standalone file" in w for w in rep.warnings):
            merged.add(name)
        model = load_mjcf(src, merged=name in merged).spec.compile()
        stage = Usd.Stage.Open(str(rep.out))
        for j in range(model.njnt):
            jname = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j)
            prim = stage.GetPrimAtPath(f"/{name}/joints/{jname}")
            hinge = model.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE
            per = math.pi / 180 if hinge else 1.0
            dof = model.jnt_dofadr[j]
            drive = UsdPhysics.DriveAPI.Get(prim, "angular" if hinge else "linear")
            if model.dof_damping[dof] > 0:
                assert drive.GetDampingAttr().Get() == pytest.approx(model.dof_damping[dof] * per, rel=1e-6)
            else:
                assert not prim.HasAPI(UsdPhysics.DriveAPI, "angular" if hinge else "linear"), (name, jname)
            assert _attr(prim, "physxJoint:armature") == (model.dof_armature[dof] or None)
            assert _attr(prim, "physxJoint:jointFriction") == (model.dof_frictionloss[dof] or None)
    assert merged == {"faucet", "microwave", "slide_cabinet", "window"}
    assert any("<region>" in w for w in libero_articulated["short_fridge"][1].warnings)


def test_isaaclab_robot_doctor_finds_no_errors(libero_articulated):
    """isaaclab-robot-doctor (the [test] extra) reports 0 ERROR findings on every articulated stage; its
    remaining warnings are the effort/velocity limits the LIBERO MJCF files do not have."""
    loader = pytest.importorskip(
        "isaaclab_robot_doctor.loader", reason="isaaclab-robot-doctor ([test] extra)"
    )
    from isaaclab_robot_doctor.checks import run_checks

    for name, (_, rep) in libero_articulated.items():
        findings = run_checks(loader.load_robot(rep.out))
        assert [f.id for f in findings if f.severity == "ERROR"] == [], name
        warned = {f.id for f in findings if f.severity == "WARN"}
        assert warned == {"joint.effort_missing", "joint.velocity_missing"}, (name, warned)


def test_articulated_stage_meets_the_doctor_rules(libero_articulated):
    """The rules isaaclab-robot-doctor checks on a USD articulation (its checks.py: exactly one
    ArticulationRootAPI prim, rigid bodies present, drives on the movable joints that have damping),
    checked here without the tool, on the cabinet whose three drawers MuJoCo damps at 50 N s/m."""
    _, rep = libero_articulated["wooden_cabinet"]
    stage = Usd.Stage.Open(str(rep.out))
    roots = [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.ArticulationRootAPI)]
    assert [str(p.GetPath()) for p in roots] == ["/wooden_cabinet/body1"]
    assert roots[0].HasAPI(UsdPhysics.RigidBodyAPI)
    slides = [p for p in stage.Traverse() if p.IsA(UsdPhysics.PrismaticJoint)]
    assert len(slides) == 3
    assert all(UsdPhysics.DriveAPI.Get(p, "linear").GetDampingAttr().Get() == 50.0 for p in slides)


def test_validators_can_fail(libero_articulated, tmp_path):
    """Negative control: a joint whose body points nowhere is an error of the UsdPhysics validators."""
    _, rep = libero_articulated["flat_stove"]
    stage = Usd.Stage.Open(str(rep.out))
    bad = tmp_path / "bad.usda"
    stage.Export(str(bad))
    stage = Usd.Stage.Open(str(bad))
    UsdPhysics.Joint(stage.GetPrimAtPath("/flat_stove/joints/button")).GetBody1Rel().SetTargets(
        ["/flat_stove/x"]
    )
    stage.GetRootLayer().Save()
    assert any("JointInvalidPrimRel" in e for e in _validation_errors(bad))


def test_microwave_mass_is_the_scenes(libero_articulated, libero_root):
    """The microwave converts as LIBERO's scene loads it: its total mass is the merged model's."""
    src, rep = libero_articulated["microwave"]
    model = load_mjcf(src, merged=True).spec.compile()
    stage = Usd.Stage.Open(str(rep.out))
    mass = sum(
        UsdPhysics.MassAPI(p).GetMassAttr().Get()
        for p in stage.Traverse()
        if p.HasAPI(UsdPhysics.RigidBodyAPI)
    )
    assert mass == pytest.approx(float(model.body_mass.sum()), rel=1e-5)
    assert mass > 1.0  # the door's visual geoms count (group 1 was outside inertiagrouprange 4 4)


def test_massless_moving_body_is_one_clear_error(tmp_path):
    src = tmp_path / "ghost.xml"
    src.write_text(
        '<mujoco><worldbody><body name="base"><geom size="0.1" mass="1"/>'
        '<body name="ghost"><joint type="hinge"/><geom size="0.1" mass="0"/></body>'
        "</body></worldbody></mujoco>"
    )
    with pytest.raises(InputError) as ei:
        convert_mjcf_to_usd(src, tmp_path / "g.usda")
    msg = str(ei.value)
    assert str(src) in msg and "'ghost'" in msg and "no mass" in msg and "\n" not in msg


def test_cli_lists_what_was_not_written(tmp_path):
    from simkit.cli import app

    src = tmp_path / "arm.xml"
    src.write_text(ARM)
    r = CliRunner().invoke(app, ["convert", "mjcf2usd", str(src), str(tmp_path / "arm.usda")])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert "joint properties written: drive x3" in r.output
    not_written = next(x for x in lines if x.startswith("not written:"))
    assert "'odd'" in not_written
    assert lines[-1].startswith("physics-schema checks: PASS;") and "not written" in lines[-1]
    assert not any(x.strip() == "physics checks: PASS" for x in lines)


@pytest.fixture
def static_cabinet(tmp_path, libero_root):
    return convert_mjcf_to_usd(
        libero_root / "assets/articulated_objects/wooden_cabinet.xml", tmp_path / "cab.usda", static=True
    )


def test_static_cabinet_is_a_fixed_base_articulation(static_cabinet):
    """With --static the carcass stays a rigid body welded to the world by a fixed joint, and the one
    articulation root sits on the asset's Xform (fixed base); validators and checks pass."""
    rep = static_cabinet
    assert rep.articulation_roots == ["/wooden_cabinet"] and rep.rigid_bodies == 4
    assert check_physics(rep.out) == [] and _validation_errors(rep.out) == []
    stage = Usd.Stage.Open(str(rep.out))
    weld = [UsdPhysics.FixedJoint(p) for p in stage.Traverse() if p.IsA(UsdPhysics.FixedJoint)]
    assert len(weld) == 1 and weld[0].GetBody0Rel().GetTargets() == []
    assert [str(t) for t in weld[0].GetBody1Rel().GetTargets()] == ["/wooden_cabinet/body1"]


def test_doctor_sees_the_static_cabinet_as_fixed_base(static_cabinet):
    doctor = pytest.importorskip(
        "isaaclab_robot_doctor.loader", reason="isaaclab-robot-doctor ([test] extra)"
    )
    from isaaclab_robot_doctor.checks import run_checks

    robot = doctor.load_robot(static_cabinet.out)
    assert robot.is_fixed_base()
    assert [f.id for f in run_checks(robot) if f.severity == "ERROR"] == []


def test_doctor_reads_the_limits_back_in_si_units(tmp_path):
    """isaaclab-robot-doctor converts maxForce and maxJointVelocity back (deg/s -> rad/s on revolute
    joints): the effort and velocity limits it reads equal the MJCF's."""
    doctor = pytest.importorskip(
        "isaaclab_robot_doctor.loader", reason="isaaclab-robot-doctor ([test] extra)"
    )
    src = tmp_path / "wheel.xml"
    src.write_text(ARM.replace('<velocity name="feed" joint="rail"', '<velocity name="feed" joint="twist"'))
    joints = {j.name: j for j in doctor.load_robot(convert_mjcf_to_usd(src, tmp_path / "w.usda").out).joints}
    assert joints["shoulder"].effort == pytest.approx(24.0)
    assert joints["twist"].effort == pytest.approx(4.5)
    assert joints["twist"].velocity == pytest.approx(0.25, rel=1e-6)  # rad/s, from deg/s in the stage
    assert joints["shoulder"].has_drive and not joints["bend"].has_drive
