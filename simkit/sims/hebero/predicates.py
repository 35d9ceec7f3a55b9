"""BDDL goal predicates evaluated from live MuJoCo state (LIBERO semantics).

Each predicate follows LIBERO's definition (``libero/envs/predicates`` and
``libero/envs/object_states``, Liu et al. 2023); the numbers are LIBERO's:

``On(a, b)``, b an object or fixture body
    ``z_b <= z_a`` and a touches b (any contact between their geoms) and
    ``||xy_a - xy_b|| < 0.03`` m (:data:`ON_XY_RADIUS`). Positions are the
    asset root bodies' world positions.
``On(a, r)``, r a region site (box of half sizes ``s`` in the site frame)
    with ``d = R_r^T (p_a - p_r)``: ``s_z - 0.005 < d_z < s_z + 0.10`` and
    ``|d_x| < s_x``, ``|d_y| < s_y`` (:data:`ON_SITE_BELOW`, :data:`ON_SITE_ABOVE`);
    for a region on an asset (not the workspace), a must also touch that asset.
    LIBERO multiplies by ``R`` rather than ``R^T``; simkit uses the proper
    world-to-site transform (identical for the axis-aligned and z-rotated
    sites of the 40 tasks up to the sign of yaw, which a box is symmetric to).
``In(a, r)``, r a region site
    ``p_a`` inside the world box ``p_r +- |R_r s|`` with the lower z bound
    lowered by 0.01 m (:data:`IN_Z_MARGIN`).
``In(a, b)``, b an object
    a touches b and ``p_a`` lies inside b's collision bounding box (world,
    axis aligned). (LIBERO's object-container variant is not used by the 40
    Hebero tasks.)
``Open(x)`` / ``Close(x)``
    over the hinge/slide joints of x (an asset: all its joints; a region site:
    the joints of the body holding the site): Open when ANY joint satisfies
    the category's open test, Close when ALL satisfy the close test
    (:data:`ARTICULATION`).
``Turnon(x)`` / ``Turnoff(x)``
    Turnon when any joint ``q >= 0.5`` rad, Turnoff when all ``q < 0.0``
    (``flat_stove``).
``Up(a)``: ``z_a >= 1.0`` m. ``true``/``false``: constants.

Task success is the goal formula (And/Or/Not over these atoms). The geometric tests are the
functions of :mod:`simkit.sims.hebero.goal_geometry`, which the batched evaluators (the CPU env's
numpy batches, the GPU backend's torch worlds) call too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simkit.scenes.hebero.predicate_thresholds import (  # noqa: F401  (re-exported: the predicates' constants)
    ARTICULATION,
    IN_Z_MARGIN,
    ON_SITE_ABOVE,
    ON_SITE_BELOW,
    ON_XY_RADIUS,
    UP_HEIGHT,
    ZONE_HALF_HEIGHT,
    ZONE_Z_BELOW_TOP,
    thresholds_for,
)
from simkit.sims.hebero import goal_geometry as geo


def touch_pairs(desc: dict) -> list[tuple[str, str]]:
    """Entity pairs that get a contact sensor: every pair with a movable object (declaration order),
    plus the pairs the goal tests (On/In on assets, On on asset regions, InContact, Stack).

    Every task of a scene thus gets the same sensors, so its models share one data layout.
    """
    regions = desc["regions"]
    names = list(desc["fixtures"]) + list(desc["objects"])
    out: list[tuple[str, str]] = [
        (a, b)
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        if b in desc["objects"] or a in desc["objects"]
    ]

    def walk(f: dict) -> None:
        if "op" in f:
            for x in f["args"]:
                walk(x)
            return
        p, args = f["predicate"], f["args"]
        pair = None
        if p in ("on", "in") and args[1] not in regions:
            pair = (args[0], args[1])
        elif p == "on" and regions[args[1]]["kind"] == "site":
            pair = (args[0], regions[args[1]]["target"])
        elif p in ("incontact", "stack"):
            pair = (args[0], args[1])
        if pair is not None and pair not in out and pair[::-1] not in out:
            out.append(pair)

    walk(desc["goal"])
    return out


@dataclass
class Binding:
    """Where the entities and regions of a task live in a compiled MuJoCo model.

    Attributes:
        bodies: entity name -> root body id of its asset.
        subtree_geoms: entity name -> collision geom ids of its asset.
        joints: entity name -> ids of its hinge/slide joints.
        categories: entity name -> category.
        sites: region name -> site id.
        site_parent: region name -> entity name owning the site (``None`` for workspace regions).
        site_joints: region name -> joint ids of the body holding the site.
        site_size: region name -> half sizes (3,) of the region box, m.
    """

    bodies: dict[str, int] = field(default_factory=dict)
    subtree_geoms: dict[str, np.ndarray] = field(default_factory=dict)
    joints: dict[str, list[int]] = field(default_factory=dict)
    categories: dict[str, str] = field(default_factory=dict)
    sites: dict[str, int] = field(default_factory=dict)
    site_parent: dict[str, str | None] = field(default_factory=dict)
    site_joints: dict[str, list[int]] = field(default_factory=dict)
    site_size: dict[str, np.ndarray] = field(default_factory=dict)
    #: (entity a, entity b) -> ``sensordata`` address of a MuJoCo contact sensor between their subtrees
    #: (both orders; only the pairs the goal needs, see :func:`touch_pairs`)
    touch: dict[tuple[str, str], int] = field(default_factory=dict)

    def joints_of(self, x: str) -> tuple[list[int], str]:
        """The articulation joints (MuJoCo joint ids) of an entity or region ``x`` and its object
        category (the region's parent's for a site; ``""`` when unknown)."""
        if x in self.sites:
            parent = self.site_parent[x]
            return self.site_joints[x], self.categories.get(parent or "", "")
        return self.joints.get(x, []), self.categories.get(x, "")


class PredicateEvaluator:
    """Evaluate BDDL atoms and goal formulas on ``(model, data)``.

    Positions are read from ``data.xpos``/``data.site_xpos`` (call
    ``mujoco.mj_forward`` or step first); contacts from ``data.contact``.
    """

    def __init__(self, model, binding: Binding):
        self.m = model
        self.b = binding

    # ---- state helpers
    def _pos(self, d, name: str) -> np.ndarray:
        """World position (3,), m: an entity's root body or a region's site."""
        if name in self.b.bodies:
            return np.asarray(d.xpos[self.b.bodies[name]])
        return np.asarray(d.site_xpos[self.b.sites[name]])

    def touching(self, d, a: str, b: str) -> bool:
        """True when any active contact pairs a geom of entity ``a`` with one of ``b``."""
        ga, gb = self.b.subtree_geoms[a], self.b.subtree_geoms[b]
        if d.ncon == 0:
            return False
        g1 = d.contact.geom1[: d.ncon]
        g2 = d.contact.geom2[: d.ncon]
        hit = (np.isin(g1, ga) & np.isin(g2, gb)) | (np.isin(g1, gb) & np.isin(g2, ga))
        return bool(hit.any())

    def qpos(self, d, joint_id: int) -> float:
        """Position of a hinge (rad) or slide (m) joint."""
        return float(d.qpos[self.m.jnt_qposadr[joint_id]])

    # ---- predicates
    def on(self, d, a: str, b: str) -> bool:
        """On(a, b): b an entity (object_on_object test) or a region site (site_band test); see module doc."""
        pa = self._pos(d, a)
        if b in self.b.sites:
            pr = np.asarray(d.site_xpos[self.b.sites[b]])
            rot = np.asarray(d.site_xmat[self.b.sites[b]]).reshape(3, 3)
            ok = bool(geo.on_region(pa, pr, rot, np.asarray(self.b.site_size[b])))
            parent = self.b.site_parent.get(b)
            if ok and parent is not None:
                ok = self.touching(d, parent, a)
            return ok
        return bool(geo.on_object(pa, self._pos(d, b))) and self.touching(d, a, b)

    def inside(self, d, a: str, b: str) -> bool:
        """In(a, b): b a region site (site_box test) or an entity (contact + collision AABB); see module doc."""
        pa = self._pos(d, a)
        if b in self.b.sites:
            pr = np.asarray(d.site_xpos[self.b.sites[b]])
            rot = np.asarray(d.site_xmat[self.b.sites[b]]).reshape(3, 3)
            return bool(geo.in_region(pa, pr, rot, np.asarray(self.b.site_size[b])))
        if not self.touching(d, a, b):
            return False
        return bool(geo.in_box(pa, *self.aabb(d, b)))

    def aabb(self, d, name: str) -> tuple[np.ndarray, np.ndarray]:
        """World axis-aligned box (lo, hi) (3,) of an entity's collision geoms (from geom AABBs), m:
        :func:`~simkit.sims.hebero.goal_geometry.box_bounds`."""
        g = np.asarray(self.b.subtree_geoms[name], int)
        aabb = np.asarray(self.m.geom_aabb)[g]
        rot = np.asarray(d.geom_xmat)[g].reshape(-1, 3, 3)
        return geo.box_bounds(np.asarray(d.geom_xpos)[g], rot, aabb[:, :3], aabb[:, 3:])

    def joints_of(self, x: str) -> tuple[list[int], str]:
        """See :meth:`Binding.joints_of`."""
        return self.b.joints_of(x)

    def articulation(self, d, pred: str, x: str) -> bool:
        """Open/Close/Turnon/Turnoff of an entity or region (:data:`ARTICULATION`); False for unknown categories."""
        joints, cat = self.joints_of(x)
        spec = ARTICULATION.get(cat, {}).get(pred)
        if spec is None or not joints:
            return False
        tests = [geo.compare(self.qpos(d, j), geo.CMP_CODES[spec[0]], spec[1]) for j in joints]
        return any(tests) if pred in ("open", "turnon") else all(tests)

    def atom(self, d, atom: list | tuple) -> bool:
        """Evaluate one atom ``[pred, *args]`` (pred lower case)."""
        p, args = atom[0], atom[1:]
        if p == "on":
            return self.on(d, *args)
        if p == "in":
            return self.inside(d, *args)
        if p in ("open", "close", "turnon", "turnoff"):
            return self.articulation(d, p, args[0])
        if p == "up":
            return bool(self._pos(d, args[0])[2] >= UP_HEIGHT)
        if p == "true":
            return True
        if p == "false":
            return False
        if p == "incontact":
            return self.touching(d, *args)
        if p == "stack":
            return (
                self.touching(d, *args)
                and self.inside(d, *args)
                and self._pos(d, args[0])[2] > self._pos(d, args[1])[2]
            )
        raise ValueError(f"predicate {p!r} cannot be evaluated")

    def formula(self, d, f: Any) -> bool:
        """Evaluate a descriptor formula (``{"op", "args"}`` / ``{"predicate", "args"}``) or a list formula."""
        if isinstance(f, dict):
            if "op" in f:
                vals = [self.formula(d, x) for x in f["args"]]
                return {"and": all, "or": any}[f["op"]](vals) if f["op"] != "not" else not vals[0]
            return self.atom(d, [f["predicate"], *f["args"]])
        if f[0] in ("and", "or", "not"):
            vals = [self.formula(d, x) for x in f[1:]]
            return all(vals) if f[0] == "and" else any(vals) if f[0] == "or" else not vals[0]
        return self.atom(d, f)
