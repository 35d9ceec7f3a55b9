"""Numeric thresholds of LIBERO's goal predicates (shared by the compiler and the simulators).

The numbers are LIBERO's (``libero/envs/predicates``, ``libero/envs/object_states``,
``objects/articulated_objects.py``; Liu et al. 2023). Descriptors record them per goal atom
(:func:`thresholds_for`); :mod:`simkit.sims.hebero.predicates` evaluates them on live MuJoCo state.
"""

from __future__ import annotations

ON_XY_RADIUS = 0.03  #: m, On(object, object) horizontal tolerance (LIBERO check_ontop)
ON_SITE_BELOW = 0.005  #: m, On(object, site): lower band below the site's top face (LIBERO SiteObject.under)
ON_SITE_ABOVE = 0.10  #: m, On(object, site): band above the site's top face (LIBERO other_height)
IN_Z_MARGIN = 0.01  #: m, In(object, site): lower bound lowered by this (LIBERO SiteObject.in_box)
UP_HEIGHT = 1.0  #: m, Up(object)

#: LIBERO workspace target zones: half height 0.007 m, centre 0.02 m above the table body top
#: minus the half table thickness (see ``TargetZone``); simkit places the site at the table top - 0.005 m
ZONE_HALF_HEIGHT = 0.007
ZONE_Z_BELOW_TOP = 0.005

#: category -> articulation tests on a joint position q (m for slides, rad for hinges), from LIBERO
#: ``articulated_objects.py``: each entry is (comparison, threshold); ">" means q > threshold.
ARTICULATION: dict[str, dict[str, tuple[str, float]]] = {
    "wooden_cabinet": {"open": ("<", -0.14), "close": (">", 0.0)},
    "white_cabinet": {"open": ("<", -0.14), "close": (">", 0.0)},
    "microwave": {"open": ("<", -1.3), "close": (">", -0.005)},
    "short_cabinet": {"open": (">", 0.10), "close": ("<", 0.0)},
    "short_fridge": {"open": (">", 2.0), "close": ("<", 0.0)},
    "flat_stove": {"turnon": (">=", 0.5), "turnoff": ("<", 0.0)},
}


def thresholds_for(pred: str, args: list[str], arg_categories: list[str], is_region: list[bool]) -> dict:
    """The documented numeric thresholds of one goal atom (stored in descriptors).

    Args:
        pred: lower-case predicate name. args: argument names.
        arg_categories: category of each argument (a region's is its asset's).
        is_region: whether each argument is a region.

    Returns:
        a JSON-able dict (empty for predicates without numbers).
    """
    if pred == "on":
        if is_region[1]:
            return {"test": "site_band", "below_m": ON_SITE_BELOW, "above_m": ON_SITE_ABOVE}
        return {"test": "object_on_object", "xy_radius_m": ON_XY_RADIUS, "contact": True}
    if pred == "in":
        if is_region[1]:
            return {"test": "site_box", "z_margin_m": IN_Z_MARGIN}
        return {"test": "object_aabb", "contact": True}
    if pred in ("open", "close", "turnon", "turnoff"):
        spec = ARTICULATION.get(arg_categories[0], {}).get(pred)
        if spec is None:
            return {"test": "joint", "unsupported_category": arg_categories[0]}
        return {
            "test": "joint",
            "quantifier": "any" if pred in ("open", "turnon") else "all",
            "comparison": spec[0],
            "qpos": spec[1],
        }
    if pred == "up":
        return {"test": "height", "z_min_m": UP_HEIGHT}
    return {}
