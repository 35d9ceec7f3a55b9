"""Expectations about a rendered WROP scene and the checker that verifies them.

A task declares what must be true of its rendered sample as a list of plain
dicts (stored in the episode metadata); :func:`evaluate` checks them against the
trajectory the renderer measured (visibility from camera ray casts, world
positions and axis-aligned bounding boxes of the evaluated meshes, image
positions). This is the event checker of the audit: for OP families the
target is invisible during the occlusion window and visible (on the right side)
after; for OS families contact happens at the declared frame, nothing
interpenetrates, and momentum is conserved at impacts.

Kinds (``frames`` are lists of 0-based frame numbers):

============== ===================================================================================
``hidden``      visibility of ``object`` <= ``max`` (default 0.05) on every frame in ``frames``
``visible``     visibility of ``object`` >= ``min`` (default 0.6) on every frame in ``frames``
``side``        sign of (object - reference) along ``axis`` (image x by default, or world) is ``sign``
``contact``     AABB gap between ``a`` and ``b`` <= ``tol`` at ``frame`` and > ``tol`` at ``frame - 1``
``touching``    gap <= ``tol`` on every frame in ``frames``
``apart``       gap > ``tol`` on every frame in ``frames``
``no_penetration`` overlap depth of ``a`` and ``b`` <= ``tol`` on every frame
``momentum``    sum m v along ``axis`` just before ``frame`` equals the sum just after (rel. ``rtol``);
                v from one-sided 2nd-order differences (3p0 - 4p-1 + p-2)/(2 dt), (-3p0 + 4p1 - p2)/(2 dt)
``same_place``  position of ``object`` equal (within ``tol`` m) at every frame in ``frames``
``bound``       offset ``object - reference`` constant (within ``tol`` m) over ``frames``
``velocity``    velocity of ``object`` along ``axis`` just after (or before) ``frame`` equals ``value``
============== ===================================================================================

Gaps (:func:`pair_gap`): sphere-sphere and sphere-box distances are exact for
spheres against axis-aligned boxes; other pairs use the AABB gap, the Euclidean
distance between the two boxes (0 when they touch) or minus the smallest
overlap depth when they intersect.
Gap expectations made with ``exact=True`` use :func:`solid_gap` instead: the sphere's distance to
the oriented solid (box or wedge, from the object's per-frame rotation), for tilted plates, hinged
doors and ramps, whose axis-aligned boxes are much larger than the solid.
"""

from __future__ import annotations

from typing import Any

import numpy as np

DEFAULT_TOL = 0.012  # m: polygonal sphere error (1 - cos(pi/24)) r for r <= 0.35 m is < 3 mm, plus margin


def _frames(e: dict) -> list[int]:
    return [int(f) for f in e.get("frames", [])]


def hidden(obj: str, frames, max_visibility: float = 0.05) -> dict:
    return {"kind": "hidden", "object": obj, "frames": [int(f) for f in frames], "max": max_visibility}


def visible(obj: str, frames, min_visibility: float = 0.6) -> dict:
    return {"kind": "visible", "object": obj, "frames": [int(f) for f in frames], "min": min_visibility}


def side(obj: str, reference: str, frames, sign: int, space: str = "image", axis: int = 0) -> dict:
    return {
        "kind": "side",
        "object": obj,
        "reference": reference,
        "frames": [int(f) for f in frames],
        "sign": int(sign),
        "space": space,
        "axis": int(axis),
    }


def _exact(e: dict, exact: bool) -> dict:
    """Mark a gap expectation to use :func:`solid_gap` (oriented solids) instead of :func:`pair_gap`."""
    if exact:
        e["exact"] = True
    return e


def contact(a: str, b: str, frame: int, tol: float = DEFAULT_TOL, exact: bool = False) -> dict:
    return _exact({"kind": "contact", "a": a, "b": b, "frame": int(frame), "tol": tol}, exact)


def touching(a: str, b: str, frames, tol: float = DEFAULT_TOL, exact: bool = False) -> dict:
    return _exact({"kind": "touching", "a": a, "b": b, "frames": [int(f) for f in frames], "tol": tol}, exact)


def apart(a: str, b: str, frames, tol: float = DEFAULT_TOL, exact: bool = False) -> dict:
    return _exact({"kind": "apart", "a": a, "b": b, "frames": [int(f) for f in frames], "tol": tol}, exact)


def no_penetration(a: str, b: str, tol: float = DEFAULT_TOL, exact: bool = False) -> dict:
    return _exact({"kind": "no_penetration", "a": a, "b": b, "tol": tol}, exact)


def momentum(objects: list[str], masses: list[float], frame: int, axis: int = 0, rtol: float = 0.03) -> dict:
    return {
        "kind": "momentum",
        "objects": list(objects),
        "masses": [float(m) for m in masses],
        "frame": int(frame),
        "axis": int(axis),
        "rtol": rtol,
    }


def same_place(obj: str, frames, tol: float = 0.005) -> dict:
    return {"kind": "same_place", "object": obj, "frames": [int(f) for f in frames], "tol": tol}


def bound(obj: str, reference: str, frames, tol: float = 0.005) -> dict:
    return {
        "kind": "bound",
        "object": obj,
        "reference": reference,
        "frames": [int(f) for f in frames],
        "tol": tol,
    }


def aabb_gap(amin: np.ndarray, amax: np.ndarray, bmin: np.ndarray, bmax: np.ndarray) -> np.ndarray:
    """Gap (m) between boxes per frame: arrays (T, 3) -> (T,). Positive = distance, negative = -overlap depth."""
    sep = np.maximum(amin - bmax, bmin - amax)  # (T, 3): > 0 where separated along that axis
    pos = np.linalg.norm(np.maximum(sep, 0.0), axis=-1)
    return np.where(np.any(sep > 0, axis=-1), pos, np.max(sep, axis=-1))


def pair_gap(objs: dict[str, Any], a: str, b: str) -> np.ndarray:
    """Gap (m) per frame between objects ``a`` and ``b`` of a trajectory: sphere-sphere centre distance minus
    radii, sphere-box distance from the centre to the box's AABB minus the radius, else :func:`aabb_gap`."""
    for n in (a, b):
        if n not in objs:
            raise KeyError(f"object {n!r} not in the trajectory")
    A, B = objs[a], objs[b]
    if B.get("kind") == "sphere" and A.get("kind") != "sphere":
        A, B = B, A
    if A.get("kind") == "sphere":
        ca, ra = np.asarray(A["position"], float), float(A["dims"][0])
        if B.get("kind") == "sphere":
            return np.linalg.norm(ca - np.asarray(B["position"], float), axis=-1) - ra - float(B["dims"][0])
        bmin, bmax = np.asarray(B["bbox_min"], float), np.asarray(B["bbox_max"], float)
        q = np.clip(ca, bmin, bmax)
        d = np.linalg.norm(ca - q, axis=-1)
        inside = np.all((ca > bmin) & (ca < bmax), axis=-1)
        return np.where(inside, -ra, d - ra)
    return aabb_gap(
        np.asarray(A["bbox_min"], float),
        np.asarray(A["bbox_max"], float),
        np.asarray(B["bbox_min"], float),
        np.asarray(B["bbox_max"], float),
    )


def _triangle_distance(px: np.ndarray, pz: np.ndarray, a: float, c: float) -> tuple[np.ndarray, np.ndarray]:
    """(distance outside, depth inside) of points (px, pz) (n,) to the wedge's cross-section, the triangle
    (-a, -c), (a, -c), (a, c) in the local x-z plane (distance 0 inside; depth 0 outside)."""
    verts = np.array([[-a, -c], [a, -c], [a, c]])
    p = np.stack([px, pz], -1)
    dists, signed = [], []
    for k in range(3):
        v0, v1 = verts[k], verts[(k + 1) % 3]
        e = v1 - v0
        t = np.clip(((p - v0) @ e) / float(e @ e), 0.0, 1.0)
        dists.append(np.linalg.norm(p - (v0 + t[:, None] * e), axis=-1))
        n = np.array([e[1], -e[0]]) / np.linalg.norm(e)  # outward normal (vertices are counter-clockwise)
        signed.append((p - v0) @ n)
    s = np.stack(signed, -1)
    inside = np.all(s <= 0, axis=-1)
    d = np.min(np.stack(dists, -1), axis=-1)
    return np.where(inside, 0.0, d), np.where(inside, -np.max(s, axis=-1), 0.0)


def solid_gap(objs: dict[str, Any], a: str, b: str) -> np.ndarray:
    """Gap (m) per frame between a sphere and an oriented solid: the distance from the sphere's centre to a
    ``box`` (any rotation) or ``wedge`` (ramp rising along local +x, see :mod:`simkit.core.scene`) in the
    solid's own frame, minus the radius; negative: minus (radius + depth of the centre inside). The solid's
    frame comes from its per-frame ``position`` and ``rotation`` quaternion (w, x, y, z). Pairs without a
    sphere, or with another solid kind, fall back to :func:`pair_gap`."""
    from simkit.core.rotations import quaternion_to_matrix

    A, B = objs[a], objs[b]
    if B.get("kind") == "sphere" and A.get("kind") != "sphere":
        A, B = B, A
    if A.get("kind") != "sphere" or B.get("kind") not in ("box", "wedge"):
        return pair_gap(objs, a, b)
    r = float(A["dims"][0])
    h = np.asarray(B["dims"], float) / 2
    centre, origin = np.asarray(A["position"], float), np.asarray(B["position"], float)
    local = np.stack([quaternion_to_matrix(q).T @ (c - o) for q, c, o in zip(B["rotation"], centre, origin)])
    if B["kind"] == "box":
        out = np.linalg.norm(local - np.clip(local, -h, h), axis=-1)
        depth = np.min(h - np.abs(local), axis=-1)
        return np.where(out > 0, out - r, -(r + np.maximum(depth, 0.0)))
    d_xz, depth_xz = _triangle_distance(local[:, 0], local[:, 2], h[0], h[2])
    dy = np.abs(local[:, 1]) - h[1]
    out = np.hypot(d_xz, np.maximum(dy, 0.0))
    depth = np.minimum(depth_xz, -dy)
    return np.where(out > 0, out - r, -(r + np.maximum(depth, 0.0)))


def velocity(
    obj: str, frame: int, value: float, axis: int = 0, side: str = "after", rtol: float = 0.03
) -> dict:
    """Velocity (m/s) of ``obj`` along world ``axis`` just ``after`` (or ``before``) ``frame`` equals ``value``
    within ``rtol`` of it plus 0.02 m/s (one-sided 2nd-order differences, as for ``momentum``)."""
    return {
        "kind": "velocity",
        "object": obj,
        "frame": int(frame),
        "value": float(value),
        "axis": int(axis),
        "side": side,
        "rtol": rtol,
    }


def _check_velocity(e: dict, objs: dict[str, Any], fps: float) -> list[str]:
    p = np.asarray(objs[e["object"]]["position"], float)[:, e["axis"]]
    f = e["frame"]
    if e["side"] == "after":
        v = (-3 * p[f] + 4 * p[f + 1] - p[f + 2]) * fps / 2
    else:
        v = (3 * p[f] - 4 * p[f - 1] + p[f - 2]) * fps / 2
    if abs(v - e["value"]) > e["rtol"] * abs(e["value"]) + 0.02:
        return [
            f"{e['object']} should move at {e['value']:+.3f} m/s {e['side']} frame {f}; moves at {v:+.3f} m/s"
        ]
    return []


#: expectation kinds added after the first set: kind -> check(expectation, trajectory objects, fps) -> problems
EXTRA_KINDS = {"velocity": _check_velocity}


def evaluate(expectations: list[dict[str, Any]], trajectory: dict[str, Any]) -> list[str]:
    """Check ``expectations`` against a measured ``trajectory``; return problems (empty = all hold).

    ``trajectory["objects"][name]`` must hold ``position`` (T, 3), ``visibility`` (T,), ``image_xy`` (T, 2),
    ``bbox_min``/``bbox_max`` (T, 3) (lists or arrays), and ``trajectory["fps"]``.
    """
    objs = trajectory.get("objects", {})
    fps = float(trajectory.get("fps", 24.0))
    problems: list[str] = []

    def arr(name: str, key: str) -> np.ndarray:
        if name not in objs:
            raise KeyError(f"object {name!r} not in the trajectory")
        return np.asarray(objs[name][key], float)

    for e in expectations:
        kind = e.get("kind")
        try:
            if kind in EXTRA_KINDS:
                problems += EXTRA_KINDS[kind](e, objs, fps)
            elif kind == "hidden":
                v = arr(e["object"], "visibility")
                bad = [f for f in _frames(e) if v[f] > e["max"]]
                if bad:
                    problems.append(
                        f"{e['object']} should be hidden on frames {bad[0]}..{bad[-1]} but is visible "
                        f"(visibility {v[bad[0]]:.2f} at frame {bad[0]})"
                    )
            elif kind == "visible":
                v = arr(e["object"], "visibility")
                bad = [f for f in _frames(e) if v[f] < e["min"]]
                if bad:
                    problems.append(
                        f"{e['object']} should be visible on frames {bad[0]}..{bad[-1]} but is not "
                        f"(visibility {v[bad[0]]:.2f} at frame {bad[0]})"
                    )
            elif kind == "side":
                key = "image_xy" if e.get("space", "image") == "image" else "position"
                a, b = arr(e["object"], key), arr(e["reference"], key)
                ax = e.get("axis", 0)
                bad = [f for f in _frames(e) if np.sign(a[f, ax] - b[f, ax]) != e["sign"]]
                if bad:
                    where = "left" if e["sign"] < 0 else "right"
                    problems.append(
                        f"{e['object']} should be on the {where} of {e['reference']} "
                        f"({e.get('space', 'image')} axis {ax}) on frames {bad[0]}..{bad[-1]}"
                    )
            elif kind in ("contact", "touching", "apart", "no_penetration"):
                g = (solid_gap if e.get("exact") else pair_gap)(objs, e["a"], e["b"])
                tol = e["tol"]
                if kind == "contact":
                    f = e["frame"]
                    if not abs(g[f]) <= tol:
                        problems.append(f"{e['a']} and {e['b']} should touch at frame {f}: gap {g[f]:+.4f} m")
                    if f > 0 and not g[f - 1] > tol:
                        problems.append(
                            f"{e['a']} and {e['b']} already touch before frame {f} "
                            f"(gap {g[f - 1]:+.4f} m at frame {f - 1})"
                        )
                elif kind == "touching":
                    bad = [f for f in _frames(e) if abs(g[f]) > tol]
                    if bad:
                        problems.append(
                            f"{e['a']} and {e['b']} should stay in contact; gap {g[bad[0]]:+.4f} m "
                            f"at frame {bad[0]}"
                        )
                elif kind == "apart":
                    bad = [f for f in _frames(e) if g[f] <= tol]
                    if bad:
                        problems.append(
                            f"{e['a']} and {e['b']} should not touch; gap {g[bad[0]]:+.4f} m "
                            f"at frame {bad[0]}"
                        )
                else:
                    f = int(np.argmin(g))
                    if g[f] < -tol:
                        problems.append(f"{e['a']} penetrates {e['b']} by {-g[f]:.4f} m at frame {f}")
            elif kind == "momentum":
                f, ax = e["frame"], e["axis"]
                before = after = 0.0
                scale = 0.0
                for name, m in zip(e["objects"], e["masses"]):
                    p = arr(name, "position")[:, ax]
                    # one-sided second-order differences: exact for constant velocity before the impact
                    # and for constant deceleration (friction) after it
                    vb = (3 * p[f] - 4 * p[f - 1] + p[f - 2]) * fps / 2
                    va = (-3 * p[f] + 4 * p[f + 1] - p[f + 2]) * fps / 2
                    before += m * vb
                    after += m * va
                    scale += abs(m * vb)
                if abs(after - before) > e["rtol"] * max(scale, 1e-9):
                    problems.append(
                        f"momentum not conserved at frame {f}: {before:.4f} before, "
                        f"{after:.4f} after (kg m/s)"
                    )
            elif kind == "same_place":
                p = arr(e["object"], "position")
                fr = _frames(e)
                d = max(float(np.linalg.norm(p[f] - p[fr[0]])) for f in fr)
                if d > e["tol"]:
                    problems.append(
                        f"{e['object']} should be at the same place on frames {fr}; moved {d:.4f} m"
                    )
            elif kind == "bound":
                off = arr(e["object"], "position") - arr(e["reference"], "position")
                fr = _frames(e)
                d = max(float(np.linalg.norm(off[f] - off[fr[0]])) for f in fr)
                if d > e["tol"]:
                    problems.append(
                        f"{e['object']} should move with {e['reference']} on frames {fr[0]}..{fr[-1]}; "
                        f"offset drifts {d:.4f} m"
                    )
            else:
                problems.append(f"unknown expectation kind {kind!r}")
        except (KeyError, IndexError) as exc:
            problems.append(f"expectation {kind} cannot be checked: {exc}")
    return problems
