"""Goal predicates over batches of simulations of one task (array code, no per-simulation loop).

:class:`BatchGoal` evaluates a descriptor's goal formula on arrays of ``n`` simulations of one
task model, the fields a batched backend binds: ``qpos`` (n, nq), ``xpos`` (n, nbody, 3),
``site_xpos`` (n, nsite, 3), ``site_xmat`` (n, nsite, 9), ``geom_xpos`` (n, ngeom, 3),
``geom_xmat`` (n, ngeom, 9), ``sensordata`` (n, nsensordata). The tests and thresholds are those
of :class:`simkit.sims.hebero.predicates.PredicateEvaluator` (LIBERO's; see that module), computed by
the same functions (:mod:`simkit.sims.hebero.goal_geometry`); "a touches b" reads the MuJoCo contact
sensor :func:`~simkit.sims.hebero.predicates.touch_pairs` added for the pair (number of contacts
between the two subtrees > 0) instead of scanning ``data.contact``.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from simkit.core.xp import namespace
from simkit.sims.hebero import goal_geometry as geo
from simkit.sims.hebero.predicates import ARTICULATION, UP_HEIGHT, Binding

Arrays = Mapping[str, Any]  # numpy arrays or torch tensors
Test = Callable[[Arrays], Any]


class BatchGoal:
    """A task's goal formula compiled into array tests.

    Args:
        model: the task's ``MjModel`` (ids, ``jnt_qposadr``, ``geom_aabb``, ``site_size``).
        binding: the task's :class:`~simkit.sims.hebero.predicates.Binding` (with ``touch`` sensors).
        goal: the descriptor's goal formula.

    ``__call__(arrays)`` returns a bool array (n,): the formula per simulation. The arrays may be
    numpy arrays (the CPU env) or torch tensors of one device (:mod:`simkit.core.xp`).
    """

    def __init__(self, model, binding: Binding, goal: dict):
        self.m, self.b = model, binding
        self.test = self._compile(goal)

    def __call__(self, arrays: Arrays) -> Any:
        return self.test(arrays)

    def _compile(self, f: dict) -> Test:
        if "op" in f:
            parts = [self._compile(x) for x in f["args"]]
            if f["op"] == "not":
                return lambda a: ~parts[0](a)
            if f["op"] == "and":
                return lambda a: functools.reduce(operator.and_, [p(a) for p in parts])
            return lambda a: functools.reduce(operator.or_, [p(a) for p in parts])
        return self._atom(f["predicate"], f["args"])

    def _pos(self, name: str) -> Test:
        if name in self.b.bodies:
            bid = self.b.bodies[name]
            return lambda a: a["xpos"][:, bid]
        sid = self.b.sites[name]
        return lambda a: a["site_xpos"][:, sid]

    def _touch(self, x: str, y: str) -> Test:
        adr = self.b.touch[(x, y)]
        return lambda a: a["sensordata"][:, adr] > 0

    def _atom(self, p: str, args: list[str]) -> Test:
        if p == "on":
            return self._on(*args)
        if p == "in":
            return self._in(*args)
        if p in ("open", "close", "turnon", "turnoff"):
            return self._articulation(p, args[0])
        if p == "up":
            pos = self._pos(args[0])
            return lambda a: pos(a)[:, 2] >= UP_HEIGHT
        if p in ("true", "false"):
            val = p == "true"
            return lambda a: namespace(a["qpos"]).full((len(a["qpos"]),), val, like=a["qpos"])
        if p == "incontact":
            return self._touch(*args)
        if p == "stack":
            touch, inside = self._touch(*args), self._in(*args)
            pa, pb = self._pos(args[0]), self._pos(args[1])
            return lambda a: touch(a) & inside(a) & (pa(a)[:, 2] > pb(a)[:, 2])
        raise ValueError(f"predicate {p!r} cannot be evaluated")

    def _on(self, x: str, y: str) -> Test:
        pa = self._pos(x)
        if y in self.b.sites:
            sid, s = self.b.sites[y], np.asarray(self.b.site_size[y])
            parent = self.b.site_parent.get(y)
            touch = self._touch(x, parent) if parent is not None else None

            def on_site(a: Arrays) -> Any:
                rot = a["site_xmat"][:, sid].reshape(-1, 3, 3)
                size = namespace(rot).asarray(s, like=rot)
                ok = geo.on_region(pa(a), a["site_xpos"][:, sid], rot, size)
                return ok & touch(a) if touch is not None else ok

            return on_site
        pb, touch2 = self._pos(y), self._touch(x, y)
        return lambda a: geo.on_object(pa(a), pb(a)) & touch2(a)

    def _in(self, x: str, y: str) -> Test:
        pa = self._pos(x)
        if y in self.b.sites:
            sid, s = self.b.sites[y], np.asarray(self.b.site_size[y])

            def in_site(a: Arrays) -> Any:
                rot = a["site_xmat"][:, sid].reshape(-1, 3, 3)
                size = namespace(rot).asarray(s, like=rot)
                return geo.in_region(pa(a), a["site_xpos"][:, sid], rot, size)

            return in_site
        geoms = np.asarray(self.b.subtree_geoms[y], int)
        centre, half = np.asarray(self.m.geom_aabb[geoms, :3]), np.asarray(self.m.geom_aabb[geoms, 3:])
        touch = self._touch(x, y)

        def in_object(a: Arrays) -> Any:
            rot = a["geom_xmat"][:, geoms].reshape(-1, len(geoms), 3, 3)
            xp = namespace(rot)
            c, h = xp.asarray(centre, like=rot), xp.asarray(half, like=rot)
            lo, hi = geo.box_bounds(a["geom_xpos"][:, geoms], rot, c, h)
            return touch(a) & geo.in_box(pa(a), lo, hi)

        return in_object

    def _articulation(self, pred: str, x: str) -> Test:
        joints, cat = self.b.joints_of(x)
        spec = ARTICULATION.get(cat, {}).get(pred)
        if spec is None or not joints:
            return lambda a: namespace(a["qpos"]).full((len(a["qpos"]),), False, like=a["qpos"])
        adr = np.asarray([self.m.jnt_qposadr[j] for j in joints], int)
        cmp, thr = geo.CMP_CODES[spec[0]], spec[1]
        name = "any" if pred in ("open", "turnon") else "all"

        def articulation(a: Arrays) -> Any:
            return getattr(namespace(a["qpos"]), name)(geo.compare(a["qpos"][:, adr], cmp, thr), axis=1)

        return articulation
