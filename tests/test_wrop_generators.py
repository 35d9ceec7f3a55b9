"""WROP: every task generator renders a short low-resolution sample that passes the audit; seeds; checker."""

import numpy as np
import pytest
from wrophelp import wrop_sample

from simkit.core.seeding import episode_rng
from simkit.generators.wrop import WropConfig, WropGenerator, catalogue
from simkit.generators.wrop.base import EXAM_OFFSET, FAMILIES
from simkit.scenes.wrop.expect import evaluate

SMALL = {"frames": 24, "width": 64, "height": 36, "visibility_points": 96}


def make(gid, **kw):
    g = WropGenerator()
    g.setup(WropConfig(generator=gid, **{**SMALL, **kw}))
    return g


def as_stored(ep):
    """The decoded-sample view ``check`` gets (videos as raw frames, meta with params)."""
    s = {k: (v.frames if hasattr(v, "frames") else v) for k, v in ep.fields.items()}
    s["meta"] = {**ep.meta, "params": ep.params}
    return s


def test_catalogue_has_four_per_family_and_descriptions():
    cat = catalogue()
    assert len(cat) >= 24
    for fam in FAMILIES:
        assert sum(1 for c in cat.values() if c.family == fam) >= 4, fam
    for gid, cls in cat.items():
        assert gid == f"{cls.family}/{cls.name}"
        assert len(cls.description.split()) >= 40 and cls.summary
    lines = WropGenerator.list_lines()
    assert len(lines) == len(cat) and all(line.split()[0] in cat for line in lines)


@pytest.mark.slow
@pytest.mark.parametrize("gid", wrop_sample(2))  # 12 of 150; every task: tools/wrop_sweep.py
def test_sampled_generators_render_and_pass_audit(gid):
    g = make(gid)
    ep = g.generate(3, episode_rng(0, "wrop", 3))
    inp, tgt = ep.fields["input_video"].frames, ep.fields["target_video"].frames
    assert inp.shape == (12, 36, 64, 3) and tgt.shape == (12, 36, 64, 3) and inp.dtype == np.uint8
    ev = ep.meta["event_frames"][ep.meta["key_event"]]
    assert 12 <= ev < 24
    assert g.check(as_stored(ep)) == []
    tr = ep.fields["trajectory"]["objects"]
    assert all(len(o["visibility"]) == 24 for o in tr.values())


def test_structural_seed_determinism_and_surface_independence():
    g = make("OP-1/ball_behind_screen")
    cls = catalogue()["OP-1/ball_behind_screen"]
    s1, u1 = g.draw_seeds(episode_rng(5, "wrop", 2), "train")
    s2, u2 = g.draw_seeds(episode_rng(5, "wrop", 2), "train")
    assert (s1, u1) == (s2, u2) and s1 < EXAM_OFFSET
    se, _ = g.draw_seeds(episode_rng(5, "wrop", 2), "exam")
    assert se == s1 + EXAM_OFFSET
    # different surface seeds: identical structure, tracks and events; different look
    _, sa, la, ca = g.compose(cls, s1, 11)
    _, sb, lb, cb = g.compose(cls, s1, 12)
    assert sa == sb and ca.events == cb.events and ca.expectations == cb.expectations
    for oa, ob in zip(ca.objects, cb.objects):
        np.testing.assert_array_equal(oa.track.position, ob.track.position)
    assert la.flat() != lb.flat()
    # a different structural seed changes the structure
    assert g.compose(cls, s1 + 1, 11)[1] != sa


def test_checker_flags_wrong_side_reappearance():
    g = make("OP-1/ball_behind_screen")
    cls = catalogue()["OP-1/ball_behind_screen"]
    task, s, look, comp = g.compose(cls, 1234, 99)
    frames, traj = g.render(task, look, comp)
    assert evaluate(comp.expectations, traj) == []
    # break the choreography: after the occlusion the ball comes back out on the side it entered
    tgt = next(o for o in comp.objects if o.name == "target")
    f_out = comp.events["occlusion_end"]
    x = tgt.track.position[:, 0]
    xc = 0.0
    x[f_out + 1 :] = 2 * xc - x[f_out + 1 :]
    frames, traj = g.render(task, look, comp)
    problems = evaluate(comp.expectations, traj)
    assert any("should be on the" in p for p in problems), problems


def test_audit_flags_tampering():
    g = make("OS-3/head_on")
    ep = g.generate(0, episode_rng(0, "wrop", 0))
    s = as_stored(ep)
    assert g.check(s) == []
    bad = dict(s, meta={**s["meta"], "structural_seed": s["meta"]["structural_seed"] + 1})
    assert any("structural" in p for p in g.check(bad))
    short = dict(s, target_video=s["target_video"][:-1])
    assert any("frames" in p for p in g.check(short))
    jump = dict(s, target_video=255 - s["target_video"])
    assert any("cut" in p for p in g.check(jump))


@pytest.mark.parametrize("gid", ["OP-1/ball_behind_screen", "OP-1/two_screens"])
def test_occlusion_events_agree_with_measured_visibility(gid):
    # the declared events are nominal-camera projections; the rendered (jittered) camera agrees within 2 frames,
    # and the key screen starts to cover the target only after the cut
    g = make(gid, frames=120, visibility_points=128)
    ep = g.generate(0, episode_rng(0, "wrop", 0))
    ev, cut = ep.meta["event_frames"], ep.meta["cut_frame"]
    vis = np.array(ep.fields["trajectory"]["objects"]["target"]["visibility"])
    assert cut <= ev["occlusion_onset"] < ev["occlusion_start"] <= ev["occlusion_end"] < ev["reappearance"]
    zero = np.nonzero(vis[cut:] == 0.0)[0] + cut
    assert abs(zero.min() - ev["occlusion_start"]) <= 2 and abs(zero.max() - ev["occlusion_end"]) <= 2
    assert np.all(vis[zero.min() : zero.max() + 1] == 0.0)  # one contiguous hidden span
    occluded = np.nonzero(vis[cut:] < 0.97)[0] + cut
    assert abs(occluded.min() - ev["occlusion_onset"]) <= 2
    assert np.all(vis[cut - 6 : cut] >= 0.97), vis[
        cut - 6 : cut
    ]  # nothing of the key occlusion before the cut
    assert vis[ev["reappearance"] + 2] > 0.0


def test_cylinder_screen_matches_its_description():
    # "a screen 0.30 m taller than itself (about 1.6 to 2 times its height)"
    g = make("OP-1/cylinder_behind_screen", frames=120)
    cls = catalogue()["OP-1/cylinder_behind_screen"]
    assert "0.30 m taller" in cls.description
    ratios = []
    for seed in range(30):
        _, s, _, c = g.compose(cls, seed, 7)
        cyl = next(o for o in c.objects if o.name == "target")
        scr = next(o for o in c.objects if o.name == "screen")
        assert scr.dims[2] - cyl.dims[1] == pytest.approx(0.30, abs=1e-9)
        ratios.append(scr.dims[2] / cyl.dims[1])
    assert min(ratios) >= 1.55 and max(ratios) <= 2.05


def test_os1_input_half_shows_the_approach():
    from simkit.generators.wrop.kit import OS1_APPROACH

    # the mover starts at most OS1_APPROACH m before its event position, whatever the clip length ...
    for gid in [k for k in catalogue() if k.startswith("OS-1/")]:
        g, cls = make(gid, frames=120), catalogue()[gid]
        for seed in range(10):
            _, s, _, c = g.compose(cls, seed, 3)
            mover = next(o for o in c.objects if o.role == "target")
            f = c.events[c.key_event]
            assert mover.track.position[f, 0] - mover.track.position[0, 0] <= OS1_APPROACH + 1e-9
            # one barrier run records its speed; a task running two (one per lane) records each run's
            runs = [c.derived] + [v for v in c.derived.values() if isinstance(v, dict)]
            speeds = [r["speed_m_per_s"] for r in runs if "speed_m_per_s" in r]
            assert speeds and max(speeds) <= s["speed"] + 1e-9, gid
    # ... so in a paper-length clip the ball is in view for (nearly) all of the input half
    g = make("OS-1/ball_through_aperture", frames=120, visibility_points=64)
    ep = g.generate(0, episode_rng(0, "wrop", 0))
    vis = np.array(ep.fields["trajectory"]["objects"]["target"]["visibility"][:60])
    assert (vis > 0.3).mean() >= 0.9, vis
