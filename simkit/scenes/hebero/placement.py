"""LIBERO's placement semantics: object orientations, region shrink, fixture heights, arena tables.

Constants and formulas read from LIBERO (``hf-libero`` 0.1.4 on ``robosuite`` 1.4.0, MIT):

* object orientations (``libero/envs/objects/*.py``: each object class's ``rotation`` and
  ``rotation_axis``) as LIBERO's region samplers apply them
  (``libero/envs/regions/workspace_region_sampler.py``, ``base_region_sampler.py``): a sampler
  builds a robosuite-convention quaternion (x, y, z, w) -- one axis rotation, or for a dict of
  axes the product ``q_last * ... * q_first`` (robosuite ``quat_multiply``) -- and
  ``BDDLBaseDomain._reset_internal`` writes those four numbers into the free joint's qpos, which
  MuJoCo reads as (w, x, y, z). :func:`object_quat` returns that MuJoCo quaternion, so simkit's
  objects start in the orientation LIBERO's actually do (for ``rotation_axis="x"`` a rotation
  about world z by ``pi - angle``; for ``"z"`` and the dicts a tilt that stands HOPE bottles and
  cans up). The BDDL ``:yaw_rotation`` of a movable object's region is not used by LIBERO
  (only fixtures' regions use it, through ``MultiRegionRandomSampler`` with a true (w, x, y, z)
  quaternion about z);
* radius-shrunk regions: the tabletop, floor and coffee-table problem classes sample movable
  objects with ``TableRegionSampler`` (``ensure_object_boundary_in_range=True``: the centre is
  drawn in ``[min + r, max - r]``, r = x of the asset's ``horizontal_radius_site``); the kitchen,
  living-room and study classes use ``Libero100TableRegionSampler`` (no shrink); fixtures are never
  shrunk. When a region is narrower than 2 r the bounds cross and numpy draws between them;
* objects on a site or on another object (``libero/envs/bddl_base_domain.py``,
  ``_setup_placement_initializer`` and ``_reset_internal``): ``On(e, site)`` uses
  ``SiteRegionRandomSampler`` with ``x_ranges = [-size_x / 2, size_x / 2]`` (``size`` = the MJCF
  ``size`` of the site, a box's half extents, so a quarter of its width on each side) shrunk by
  e's radius: e's ``object`` body is drawn at the site's world x, y plus that offset (world axes;
  where the site is narrower than 4 r the bounds cross and the offset reaches ``r - size / 2`` on
  both sides); ``In(e, site)`` (``InSiteRegionRandomSampler``) draws with radius 0 and ranges
  ``[0, 0]``: the body at the site's x, y; ``On(e, object b)`` (``ObjectBasedSampler``, ranges
  ``[0, 0]``): the body at b's body x, y. (The site samplers read the site position of the freshly
  loaded model, every fixture at the origin, and turn it by the parent's sampled orientation: that
  is the site's world position after the reset);
* fixture heights: ``MultiRegionRandomSampler`` puts a fixture's ``object`` body at
  ``offset_z + z_offset - bottom_site_z`` with the problem class's ``z_offset``
  (``0.01 - table thickness`` for table arenas, -0.025 m on the floor);
* tables: the collision top LIBERO's arena actually has (measured in LIBERO's compiled model by
  ``tools/libero_dump.py``; the living-room and study tables are meshes whose tops are not the
  problem class constants) and its sliding friction (0.6 for the tabletop arena, set by
  ``BDDLBaseDomain._load_model``; 1.0 for the others).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

HALF_PI, QUARTER_PI = math.pi / 2, math.pi / 4

#: rotation of each LIBERO object class: ((min, max) rad, axis) or ({axis: (min, max)}, None)
_HOPE = ((HALF_PI, HALF_PI), "x")
_SCANNED = ((HALF_PI, HALF_PI), "x")
_TURBOSQUID = ((0.0, 0.0), "x")
_ARTICULATED = ((QUARTER_PI, HALF_PI), "x")
_UPRIGHT = ({"x": (HALF_PI, HALF_PI), "z": (HALF_PI, HALF_PI)}, None)
OBJECT_ROTATION: dict[str, tuple] = {
    # libero/envs/objects/hope_objects.py
    "alphabet_soup": ((HALF_PI, HALF_PI), "z"),
    "bbq_sauce": _HOPE,
    "butter": ((0.0, 0.0), "x"),
    "cherries": _HOPE,
    "chocolate_pudding": ((0.0, 0.0), "x"),
    "cookies": _HOPE,
    "corn": _HOPE,
    "cream_cheese": ((0.0, 0.0), "x"),
    "ketchup": _UPRIGHT,
    "macaroni_and_cheese": _UPRIGHT,
    "mayo": _UPRIGHT,
    "milk": _UPRIGHT,
    "orange_juice": _UPRIGHT,
    "popcorn": ((0.0, 0.0), "x"),
    "salad_dressing": _UPRIGHT,
    "new_salad_dressing": _UPRIGHT,
    "tomato_sauce": ((HALF_PI, HALF_PI), "z"),
    # libero/envs/objects/google_scanned_objects.py
    "simple_rack": ((0.0, 0.0), "x"),
    "white_bowl": _SCANNED,
    "akita_black_bowl": _SCANNED,
    "plate": _SCANNED,
    "basket": _SCANNED,
    "chefmate_8_frypan": _SCANNED,
    "glazed_rim_porcelain_ramekin": _SCANNED,
    "red_bowl": _SCANNED,
    # libero/envs/objects/turbosquid_objects.py
    "wooden_tray": _TURBOSQUID,
    "white_storage_box": ((0.0, 0.0), "y"),
    "wooden_shelf": _TURBOSQUID,
    "wooden_two_layer_shelf": _TURBOSQUID,
    "wine_rack": _TURBOSQUID,
    "wine_bottle": _TURBOSQUID,
    "dining_set_group": _TURBOSQUID,
    "bowl_drainer": _TURBOSQUID,
    "moka_pot": _TURBOSQUID,
    "black_book": ((-HALF_PI, -QUARTER_PI), "x"),
    "yellow_book": ((-HALF_PI, -QUARTER_PI), "x"),
    "red_coffee_mug": ((-HALF_PI, -HALF_PI), "x"),
    "desk_caddy": _TURBOSQUID,
    "porcelain_mug": ((-HALF_PI, -HALF_PI), "x"),
    "white_yellow_mug": ((-HALF_PI, -HALF_PI), "x"),
    # libero/envs/objects/articulated_objects.py (as movable objects; fixtures use their region's yaw)
    "flat_stove": ((0.0, 0.0), "y"),
}

#: problem classes whose movable objects are drawn in regions shrunk by their horizontal radius
SHRINK_PROBLEMS = frozenset(
    {"libero_tabletop_manipulation", "libero_floor_manipulation", "libero_coffee_table_manipulation"}
)

#: problem class -> z_offset (m) of its fixture sampler (LIBERO's ``self.z_offset``)
FIXTURE_Z_OFFSET = {
    "libero_tabletop_manipulation": 0.01 - 0.05,
    "libero_kitchen_tabletop_manipulation": 0.01 - 0.05,
    "libero_study_tabletop_manipulation": 0.01 - 0.05,
    "libero_living_room_tabletop_manipulation": 0.01 - 0.024,
    "libero_coffee_table_manipulation": 0.01 - 0.024,
    "libero_floor_manipulation": -0.025,
}

#: problem class -> world z (m) of the table's collision top in LIBERO's compiled arena
#: (measured with tools/libero_dump.py; the living-room and study tables are meshes)
TABLE_TOP = {
    "libero_tabletop_manipulation": 0.90,
    "libero_kitchen_tabletop_manipulation": 0.90,
    "libero_study_tabletop_manipulation": 0.88513,
    "libero_living_room_tabletop_manipulation": 0.43676,
    "libero_coffee_table_manipulation": 0.41,
}

#: problem class -> sliding friction of the table's collision geoms
TABLE_FRICTION = {"libero_tabletop_manipulation": 0.6}


def _axis_xyzw(axis: str, angle: float) -> np.ndarray:
    s, c = math.sin(angle / 2), math.cos(angle / 2)
    return {"x": np.array([s, 0, 0, c]), "y": np.array([0, s, 0, c]), "z": np.array([0, 0, s, c])}[axis]


def quat_multiply_xyzw(q1: np.ndarray, q0: np.ndarray) -> np.ndarray:
    """Hamilton product q1 * q0 of (x, y, z, w) quaternions (robosuite's ``quat_multiply``)."""
    x0, y0, z0, w0 = q0
    x1, y1, z1, w1 = q1
    return np.array(
        [
            x1 * w0 + y1 * z0 - z1 * y0 + w1 * x0,
            -x1 * z0 + y1 * w0 + z1 * x0 + w1 * y0,
            x1 * y0 - y1 * x0 + z1 * w0 + w1 * z0,
            -x1 * x0 - y1 * y0 - z1 * z0 + w1 * w0,
        ]
    )


def draw_between(rng: np.random.Generator, lo_hi) -> float:
    """One uniform draw between the two numbers of ``lo_hi`` (in either order; no draw when equal)."""
    a, b = float(min(lo_hi)), float(max(lo_hi))
    return a if a == b else float(rng.uniform(a, b))


def object_quat(category: str, rng: np.random.Generator) -> tuple[float, float, float, float]:
    """The MuJoCo orientation (w, x, y, z) LIBERO gives a movable object of ``category`` at reset.

    Draws one uniform angle per axis of the class's rotation range (none when the range is one
    value). Categories LIBERO has no class rotation for start unrotated (1, 0, 0, 0).
    """
    rot = OBJECT_ROTATION.get(category)
    if rot is None:
        return (1.0, 0.0, 0.0, 0.0)
    spec, axis = rot
    if isinstance(spec, Mapping):
        q = np.array([0.0, 0.0, 0.0, 1.0])
        for ax, lo_hi in spec.items():
            q = quat_multiply_xyzw(_axis_xyzw(ax, draw_between(rng, lo_hi)), q)
    else:
        q = _axis_xyzw(axis, draw_between(rng, spec))
    q = q / np.linalg.norm(q)
    return (float(q[0]), float(q[1]), float(q[2]), float(q[3]))  # xyzw numbers, read by MuJoCo as wxyz


def yaw_quat(yaw: float) -> tuple[float, float, float, float]:
    """(w, x, y, z) of a rotation by ``yaw`` rad about world +z."""
    return (math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2))


def shrunk_ranges(ranges, radius: float) -> list[tuple[float, float, float, float]]:
    """Region rows (x_min, y_min, x_max, y_max) shrunk by ``radius`` on every side, as LIBERO's
    ``ensure_object_boundary_in_range`` does; crossed bounds (region narrower than 2 r) are
    returned sorted, the interval numpy's ``uniform`` draws from in LIBERO."""
    out = []
    for x0, y0, x1, y1 in ranges:
        a, b = sorted((x0 + radius, x1 - radius))
        c, d = sorted((y0 + radius, y1 - radius))
        out.append((a, c, b, d))
    return out


def parent_offset_box(pred: str, site_half_xy, radius: float) -> tuple[float, float, float, float]:
    """Box (x_min, y_min, x_max, y_max), m, world axes, that LIBERO draws an object's offset from its
    parent site's world x, y in: ``pred == "on"``: ``[-h / 2 + r, h / 2 - r]`` per axis (h = the
    site's MJCF half size), crossed bounds sorted; ``"in"``: the zero box.
    Source: ``SiteRegionRandomSampler`` / ``InSiteRegionRandomSampler`` (hf-libero 0.1.4)."""
    if pred != "on":
        return (0.0, 0.0, 0.0, 0.0)
    hx, hy = float(site_half_xy[0]), float(site_half_xy[1])
    a, b = sorted((-hx / 2 + radius, hx / 2 - radius))
    c, d = sorted((-hy / 2 + radius, hy / 2 - radius))
    return (a, c, b, d)


def fixture_z(problem: str, offset_z: float, bottom_site_z: float) -> float:
    """World z (m) of a fixture's ``object`` body: LIBERO's ``offset_z + z_offset - bottom_site_z``."""
    return float(offset_z + FIXTURE_Z_OFFSET.get(problem, 0.0) - bottom_site_z)
