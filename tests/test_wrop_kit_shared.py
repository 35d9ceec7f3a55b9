"""The family helpers shared by several wrop tasks (kit_os1, and the row / box-pair helpers of kit_op2 and
kit_op3) against their geometric definitions, without Blender."""

import numpy as np
import pytest

from simkit.generators.wrop.base import Clip, Look
from simkit.generators.wrop.kit import WALL_T, half_height
from simkit.generators.wrop.kit_op2 import (
    hide_every_target,
    moving_screen,
    object_nouns,
    object_row,
    shape_kinds,
)
from simkit.generators.wrop.kit_op3 import LID_T, box_pair, box_pair_objects, lid_closed, lids_ride_then_lift
from simkit.generators.wrop.kit_os1 import roll_ball_at_barrier, wall_with_opening
from simkit.scenes.wrop.motion import Motion
from simkit.scenes.wrop.palette import FLOORS

SLOTS = ("target", "wall", "screen", "object1", "object2", "object3", "a_box", "a_lid", "b_box", "b_lid")
COLOURS = ("red", "blue", "green", "yellow", "teal", "purple", "white", "brown", "pink", "orange")


def look() -> Look:
    values = {
        "finish": "matte",
        "floor": next(iter(FLOORS)),
        "floor_pattern": "plain",
        "floor_pattern_scale": 2.0,
    }
    return Look(values, dict(zip(SLOTS, COLOURS)))


def bounds(obj):
    """(lo, hi) world corners of a static box part on frame 0."""
    c, d = obj.track.position[0], np.asarray(obj.dims)
    return c - d / 2, c + d / 2


def test_wall_with_opening_leaves_exactly_the_opening_free():
    parts = wall_with_opening(look(), 5, 0.5, 1.2, side=0.9, top=0.7, top_name="lintel")
    assert [p.name for p in parts] == ["wall_left", "wall_right", "lintel"]
    (l_lo, l_hi), (r_lo, r_hi), (t_lo, t_hi) = (bounds(p) for p in parts)
    assert r_lo[1] - l_hi[1] == pytest.approx(0.5)  # the opening's width
    assert l_lo[1] == pytest.approx(-0.25 - 0.9) and r_hi[1] == pytest.approx(0.25 + 0.9)
    assert (t_lo[1], t_hi[1]) == pytest.approx((-0.25, 0.25)) and (t_lo[2], t_hi[2]) == pytest.approx(
        (0.7, 1.2)
    )
    for lo, hi in ((l_lo, l_hi), (r_lo, r_hi), (t_lo, t_hi)):
        assert (lo[0], hi[0]) == pytest.approx((-WALL_T / 2, WALL_T / 2)) and hi[2] == pytest.approx(1.2)
    assert [p.name for p in wall_with_opening(look(), 5, 0.5, 1.2)] == ["wall_left", "wall_right"]


@pytest.mark.parametrize("passes", [True, False])
def test_roll_ball_at_barrier_reaches_the_wall_on_the_event_frame(passes):
    clip, r = Clip(48, 24.0), 0.2
    s = {"radius": r, "speed": 1.5, "restitution": 0.5, "contact_at": 0.6}
    parts = wall_with_opening(look(), clip.frames, 0.6, 1.0, top=0.5)
    c = roll_ball_at_barrier(clip, look(), s, parts, passes, -WALL_T / 2 - r, "wall_left", lane_y=0.1)
    ball = c.objects[1]
    assert ball.name == "target" and ball.dims == (r,)
    x = ball.track.position[:, 0]
    f = clip.at(0.6, lo=clip.cut)
    assert c.events == ({"crossing": f} if passes else {"contact": f})
    assert x[f] == pytest.approx(0.0 if passes else -WALL_T / 2 - r)
    assert np.allclose(ball.track.position[:, 1:], [0.1, r])  # its lane and the floor
    assert (x[-1] > x[f]) == passes  # through, or back after the contact


def test_object_row_places_each_kind_on_its_surface():
    objs = object_row(look(), 4, ["sphere", "box"], 0.15, [-0.5, 0.5], 0.6, z0=0.4)
    assert [o.name for o in objs] == ["object1", "object2"]
    for o, kind, x in zip(objs, ["sphere", "box"], [-0.5, 0.5]):
        assert np.allclose(o.track.position, [x, 0.6, 0.4 + half_height(kind, 0.15)])
    assert [o.kind for o in object_row(look(), 4, "cylinder", 0.1, [0.0, 1.0, 2.0], 0.5)] == ["cylinder"] * 3


def test_shape_kinds_and_object_nouns():
    assert shape_kinds("box", 3, ("sphere", "cylinder")) == ["box"] * 3
    assert shape_kinds("mixed", 3, ("sphere", "cylinder")) == ["sphere", "cylinder", "sphere"]
    assert object_nouns(look(), ["sphere", "box"]) == "a yellow ball and a teal block"


def test_hide_every_target_rejects_an_occluder_that_misses_an_object():
    clip = Clip(24, 24.0)
    targets = object_row(look(), clip.frames, "box", 0.15, [-0.4, 0.4], 0.5)
    far = Motion(clip.frames, clip.fps, (5.0, -0.5, 0.5))  # a screen that never comes near the row
    scr = moving_screen("screen", look(), "screen", far, 0.3, 1.0)
    with pytest.raises(ValueError, match="never hides"):
        hide_every_target("the screen never hides every object", clip, look(), None, targets, [scr])


def test_box_pair_lids_close_before_the_cut_ride_and_lift():
    clip, w, h, r = Clip(48, 24.0), 0.8, 0.26, 0.1
    boxes, lids = box_pair(clip, -0.7, 0.7, w, h, 3)
    for k, x in (("a_", -0.7), ("b_", 0.7)):
        assert np.allclose(boxes[k].pos[0], [x, 0, h / 2])
        assert np.allclose(lids[k].pos[0], [x, w + 0.3, h + 0.9])  # held aside
        assert np.allclose(lids[k].pos[clip.cut - 2], [x, 0, h + LID_T / 2])  # shut before the cut
        assert lid_closed(boxes[k], lids[k], h)[clip.cut - 2 : clip.cut + 1].all()
    boxes["a_"].move(clip.cut, 36, (0.0, 0, h / 2))
    lids_ride_then_lift(clip, boxes, lids, 36, w, h)
    assert np.allclose(lids["a_"].pos[36], [0.0, 0, h + LID_T / 2])  # rode on its box
    assert np.allclose(lids["a_"].pos[clip.frames - 3], [0.0, w + 0.3, h + 0.9])  # lifted off
    ball = Motion(clip.frames, clip.fps, (-0.7, 0, r))
    objs = box_pair_objects(look(), boxes, lids, w, h, r, ball)
    assert [o.name for o in objs] == ["a_box", "a_lid", "b_box", "b_lid", "target"]
    assert objs[-1].dims == (r,) and objs[0].dims == (w, w, h)
