"""WROP expectations as typed objects: the stored form, compose-time validation (an authoring error is raised
at once and never redrawn) and outcome claims checked against trajectories."""

import numpy as np
import pytest

from simkit.core.errors import SampleRejected
from simkit.core.scene import Material, SceneObject, Track
from simkit.core.seeding import episode_rng
from simkit.executors.worker import RunSpec, Worker
from simkit.generators.wrop import WropConfig, WropGenerator, catalogue
from simkit.generators.wrop.kit_os1 import FEW_CM, ROLL_BACK
from simkit.scenes.wrop import claims as C
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.expect import AuthoringError, Stage

SMALL = {"frames": 24, "width": 64, "height": 36, "visibility_points": 16}


def test_stored_form_is_the_dict_the_helpers_always_wrote():
    # the dicts the string-kind helpers produced (corpus metadata): key order and values unchanged
    old = [
        (X.hidden("a", [3, 4]), {"kind": "hidden", "object": "a", "frames": [3, 4], "max": 0.05}),
        (X.visible("a", (5,), 0.4), {"kind": "visible", "object": "a", "frames": [5], "min": 0.4}),
        (
            X.side("a", "b", [1], -1, space="world", axis=2),
            {
                "kind": "side",
                "object": "a",
                "reference": "b",
                "frames": [1],
                "sign": -1,
                "space": "world",
                "axis": 2,
            },
        ),
        (X.contact("a", "b", 7), {"kind": "contact", "a": "a", "b": "b", "frame": 7, "tol": 0.012}),
        (
            X.touching("a", "b", [2], 0.02, exact=True),
            {"kind": "touching", "a": "a", "b": "b", "frames": [2], "tol": 0.02, "exact": True},
        ),
        (X.apart("a", "b", [2]), {"kind": "apart", "a": "a", "b": "b", "frames": [2], "tol": 0.012}),
        (X.no_penetration("a", "b"), {"kind": "no_penetration", "a": "a", "b": "b", "tol": 0.012}),
        (
            X.momentum(["a", "b"], [1, 2], 5),
            {
                "kind": "momentum",
                "objects": ["a", "b"],
                "masses": [1.0, 2.0],
                "frame": 5,
                "axis": 0,
                "rtol": 0.03,
            },
        ),
        (X.same_place("a", [1, 2]), {"kind": "same_place", "object": "a", "frames": [1, 2], "tol": 0.005}),
        (
            X.bound("a", "b", [1, 2]),
            {"kind": "bound", "object": "a", "reference": "b", "frames": [1, 2], "tol": 0.005},
        ),
        (
            X.velocity("a", 4, -0.5, side="before"),
            {
                "kind": "velocity",
                "object": "a",
                "frame": 4,
                "value": -0.5,
                "axis": 0,
                "side": "before",
                "rtol": 0.03,
            },
        ),
    ]
    assert {type(e).kind for e, _ in old} == set(X.KINDS)  # every kind covered
    for e, d in old:
        assert e.to_dict() == d and list(e.to_dict()) == list(d)  # same keys, same order
        assert X.from_dict(d) == e
    assert X.evaluate([{"kind": "spin", "object": "a"}], {"objects": {}}) == [
        "unknown expectation kind 'spin'"
    ]
    assert "cannot be read" in X.evaluate([{"kind": "hidden", "frames": [1]}], {"objects": {}})[0]


def _stage(T=24):
    m = Material("grey", (0.5, 0.5, 0.5))
    objs = [
        SceneObject("ball", "target", "sphere", (0.1,), m, Track.static(T, (0, 0, 0.1))),
        SceneObject("big", "target", "sphere", (0.2,), m, Track.static(T, (1, 0, 0.2))),
        SceneObject("wall", "wall", "box", (0.1, 1.0, 1.0), m, Track.static(T, (0.5, 0, 0.5))),
        SceneObject("cup", "container", "cup", (0.2, 0.3), m, Track.static(T, (-1, 0, 0.15))),
    ]
    return Stage.of(objs, T)


@pytest.mark.parametrize(
    "exp, words",
    [
        (X.hidden("ghost", [3]), "field 'object': 'ghost' is not an object of the scene"),
        (X.visible("ball", [3, 24]), "field 'frames': 1 frame(s) outside 0..23"),
        (X.visible("ball", [3], 0.0), "field 'min': visibility threshold 0.0"),
        (X.side("ball", "ball", [3], 1), "fields 'object' and 'reference' name the same object"),
        (X.side("ball", "wall", [3], 0), "field 'sign': 0 is not one of [-1, 1]"),
        (X.contact("ball", "wall", -1), "field 'frame': frame -1 is not within 0..23"),
        (X.touching("ball", "wall", [3], tol=0.0), "field 'tol': 0.0 is not a positive finite number"),
        (
            X.no_penetration("ball", "cup", exact=True),
            "the exact gap is defined for a sphere and a box or wedge",
        ),
        (X.momentum(["ball", "big"], [1.0], 10), "field 'masses': 1 masses for 2 objects"),
        (X.momentum(["ball", "big"], [1.0, 2.0], 10), "masses are proportional to volume"),
        (X.momentum(["ball", "big"], [1.0, 8.0], 22), "reads 2 frame(s) before and 2 after"),
        (X.same_place("ball", []), "field 'frames': empty"),
        (X.velocity("ball", 1, 0.5, side="before"), "field 'frame': frame 1 is not within 2..23"),
    ],
)
def test_validate_names_the_field(exp, words):
    problems = exp.validate(_stage())
    assert any(words in p for p in problems), problems
    with pytest.raises(AuthoringError, match="T/x: authoring error in expectation 1") as err:
        X.validate("T/x", [X.hidden("ball", [1]), exp], _stage())
    assert not isinstance(err.value, (SampleRejected, ValueError))  # the engine never redraws it


def test_well_formed_declarations_pass():
    good = [
        X.momentum(["ball", "big", "cup"], [1.0, 8.0, 99.0], 10),  # the cup's volume is not defined: skipped
        X.no_penetration("ball", "wall", exact=True),
        X.velocity("ball", 21, 0.0),
        X.hidden("ball", [], 0.0),
    ]
    assert [p for e in good for p in e.validate(_stage())] == []


class _Counted:
    composed = 0

    def compose(self, s, clip, look):
        type(self).composed += 1
        c = super().compose(s, clip, look)  # type: ignore[misc]
        c.expectations.append(X.contact("target", "wal", c.events[c.key_event]))  # a typo of "wall"
        return c


def test_a_broken_task_fails_at_once_without_rendering_or_redrawing(tmp_path, monkeypatch):
    base = catalogue()["OS-1/ball_vs_solid_wall"]
    broken = type("Broken", (_Counted, base), {})
    spec = RunSpec("wrop", {**SMALL, "generator": base.id()}, 0, str(tmp_path), 4)
    worker = Worker(spec)
    worker.gen.tasks = [broken]
    renders = []
    monkeypatch.setattr(worker.gen, "render", lambda *a: renders.append(a))
    row = worker.produce(0)
    assert broken.composed == 1 and renders == []  # one compose, no render, no redraw
    assert row["status"] == "failed" and row["redraws"] == 0 and row["attempts"] == 1
    assert "\n" not in row["error"]
    assert row["error"].startswith(
        "AuthoringError: OS-1/ball_vs_solid_wall: authoring error in expectation "
    ), row["error"]
    assert "(contact): field 'b': 'wal' is not an object of the scene" in row["error"]


def test_outcome_claims_on_trajectories():
    T = 40
    x = np.concatenate([np.linspace(-1, 0, 21), -0.021 * np.minimum(np.arange(1, 20), 4) / 4])
    traj = {"objects": {"ball": {"position": np.stack([x, np.zeros(T), np.zeros(T)], 1)}}}
    assert C.Displaced("rolls back", "ball", 0, -1, 20, 0.02).check(traj) == []
    bad = C.Displaced("rolls back", "ball", 0, -1, 20, ROLL_BACK).check(traj)
    assert bad == [
        "the outcome says 'rolls back', but ball moves -0.021 m along x from frame 20 to 39 "
        "(the words need -0.100 m or more that way)"
    ]
    assert C.Rests("stops", "ball", 24).check(traj) == [] and C.Rests("stops", "ball", 20).check(traj) != []
    assert C.Blocked("is stopped", "ball", 0, 0.001, 1).check(traj) == []
    assert C.Passes("passes", "ball", 0, 0.001, 1).check(traj) == [
        "the outcome says 'passes', but ball never ends beyond the plane x = +0.001 m"
    ]
    assert C.Passes("passes", "ball", 0, -0.5, 1).check(traj) == []


def test_ball_through_aperture_says_what_its_ball_does():
    cls = catalogue()["OS-1/ball_through_aperture"]
    for frames, want in (
        (120, "the ball hits the rim and rolls back a few centimetres, then stops"),
        (24, None),
    ):
        g = WropGenerator()
        g.setup(WropConfig(generator=cls.id(), frames=frames))
        _, s, _, c = g.compose(cls, 0, 7)  # structural seed 0: a ball that does not fit
        assert not s["fits"]
        x = next(o for o in c.objects if o.name == "target").pose.position[:, 0]
        back = x[c.events["contact"]] - x[-1]
        if want:  # production length: the approach is slowed, the rebound is a few centimetres
            assert FEW_CM <= back < ROLL_BACK and c.outcome == want
        else:
            assert back >= ROLL_BACK and c.outcome == "the ball hits the rim and rolls back"
        tracks = {"objects": {o.name: {"position": o.pose.position} for o in c.objects}}
        assert C.evaluate(c.claims, tracks) == [] and len(c.claims) >= 2


def test_a_false_outcome_claim_is_an_authoring_error():
    base = catalogue()["OS-1/ball_vs_solid_wall"]

    class Liar(base):  # type: ignore[misc, valid-type]
        def compose(self, s, clip, look):
            c = super().compose(s, clip, look)
            c.outcome = "the ball passes through the wall"
            c.claims.append(C.Passes("passes through", "target", 0, 0.0, 1))
            return c

    g = WropGenerator()
    g.setup(WropConfig(generator=base.id(), **SMALL))
    with pytest.raises(
        AuthoringError, match="false of the composed motion: the outcome says 'passes through'"
    ):
        g.compose(Liar, 0, 0)


@pytest.mark.slow
def test_audit_checks_the_outcome_against_the_stored_trajectory():
    g = WropGenerator()
    g.setup(WropConfig(generator="OS-1/ball_through_aperture", **SMALL))
    ep = next(
        ep
        for i in range(4)
        if not (ep := g.generate(i, episode_rng(0, "wrop", i))).params["structural"]["fits"]
    )
    sample = {k: (v.frames if hasattr(v, "frames") else v) for k, v in ep.fields.items()}
    sample["meta"] = {**ep.meta, "params": ep.params}
    assert g.check(sample) == []
    # the ball freezes at the rim: no expectation breaks, but "rolls back" is false
    objs = sample["trajectory"]["objects"]
    f = ep.meta["event_frames"]["contact"]
    pos = np.asarray(objs["target"]["position"], float)
    pos[f:] = pos[f]
    frozen = {
        **sample,
        "trajectory": {
            **sample["trajectory"],
            "objects": {**objs, "target": {**objs["target"], "position": pos.tolist()}},
        },
    }
    assert [p for p in g.check(frozen) if "the outcome says 'rolls back'" in p], g.check(frozen)
    other = {**sample, "meta": {**sample["meta"], "expected_outcome": "the ball rolls through the opening"}}
    assert any(p.startswith("outcome check: recorded 'the ball rolls through") for p in g.check(other))
