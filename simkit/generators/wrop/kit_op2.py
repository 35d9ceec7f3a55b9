"""OP-2 (object static occlusion) choreography: static objects, occluders of any shape and pose, and the
frames on which each object is hidden or clear, predicted from the camera projection.

The OP-2 tasks move occluders of many kinds (screens that slide, rise, swing on a hinge, turn about their
axis or travel in depth, a rolling ball, a screen with a window) in front of static objects on the floor, on a
table, in a tray or stacked. Instead of a per-task rule, :func:`occlusion_frames` predicts hiding and
clearing from geometry, with the renderer's pinhole model (Blender's camera, horizontal sensor fit):

* every object is a set of outline points (:func:`outline`): sphere 120 Fibonacci surface points, box-like
  kinds (``box``, ``open_box``, ``wedge``) their 8 corners, ``cylinder``/``cup`` 2 x 48 rim points; the
  image region of a convex body is the convex hull of its projected outline points;
* an object is *hidden* on a frame when, for every camera of :func:`jitter_cameras` (the nominal view and
  the 8 corners of the surface camera jitter box of :data:`simkit.generators.wrop.base.SURFACE`), its
  projected outline lies inside the hull of one occluder whose centre is nearer to the camera than the
  object's centre, at least ``cover`` m (measured at the object's distance, i.e. ``cover / depth``
  in the image) from the hull's edges;
* an occluder standing on the floor is extended below it (the opaque ground hides what is under its
  bottom edge), one sunk entirely below the floor hides nothing;
* an object is *clear* on a frame when, for every camera, its projected outline lies inside the frame and
  is separated by more than ``clear`` m at its distance (separating axis test) from the hull of every
  occluder whose centre is nearer to the camera than its own (an occluder behind it cannot hide it).

The image of a convex polyhedron is exactly the hull of its projected corners, so for box occluders the
prediction is exact up to the inflation margins; the hull of a sphere's surface points lies inside its
silhouette (a conservative occluder). Visibility is a monotone function of the camera pose for these
scenes, so checking the corners of the jitter box covers every jitter the surface draw can make.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simkit.generators.wrop.base import Clip, Look
from simkit.generators.wrop.kit import NOUN, SCREEN_T, body, half_height, jitter_cameras, listing, screen
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion, ease
from simkit.scenes.wrop.spec import Camera, SceneObject, Track

#: margin (m, at the object's distance) by which an occluder must overlap an object for it to count as hidden
COVER = 0.05
#: margin (m, at the object's distance) that must separate an object from every occluder for it to be clear
CLEAR = 0.05
#: image aspect (height / width) assumed for the in-frame test (the wrop defaults and the paper are 16:9)
ASPECT = 9 / 16


def _camera_matrix(cam: Camera) -> np.ndarray:
    """Camera-to-world rotation (3, 3) of ``cam`` (columns right, up, back), cached per pose."""
    key = (tuple(cam.location), tuple(cam.look_at))
    if key not in _CAMERA_MATRICES:
        from simkit.core.scene import look_at_matrix

        _CAMERA_MATRICES[key] = look_at_matrix(np.asarray(key[0], float), np.asarray(key[1], float))
    return _CAMERA_MATRICES[key]


_CAMERA_MATRICES: dict[tuple, np.ndarray] = {}


def project(cam: Camera, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Image coordinates (N, 2) and depths (N,) m of world points ``pts`` (N, 3) seen by ``cam``.

    Image coordinates are centred (0 = optical axis) in units of the image width: ``u = (lens/sensor)
    x_c / -z_c``, ``v = (lens/sensor) y_c / -z_c`` with (x_c, y_c, z_c) camera coordinates (-z forward, +y up),
    so the frame spans |u| <= 1/2, |v| <= aspect/2. Depth is -z_c.
    """
    R = _camera_matrix(cam)
    pc = (np.asarray(pts, float) - np.asarray(cam.location, float)) @ R
    depth = -pc[:, 2]
    k = cam.lens_mm / cam.sensor_mm
    return k * pc[:, :2] / depth[:, None], depth


def outline(kind: str, dims: Sequence[float], inflate: float = 0.0) -> np.ndarray:
    """Outline points (N, 3) of a primitive centred at the origin (local frame), grown by ``inflate`` m."""
    d = [float(x) for x in dims]
    if kind == "sphere":
        i = np.arange(120) + 0.5
        zc = 1 - 2 * i / 120
        ph = np.pi * (1 + 5**0.5) * i
        r = np.sqrt(1 - zc * zc)
        return (d[0] + inflate) * np.stack([r * np.cos(ph), r * np.sin(ph), zc], 1)
    if kind in ("cylinder", "cup"):
        a = np.linspace(0, 2 * np.pi, 48, endpoint=False)
        r, hh = d[0] + inflate, d[1] / 2 + inflate
        ring = np.stack([r * np.cos(a), r * np.sin(a)], 1)
        return np.concatenate([np.c_[ring, np.full(48, -hh)], np.c_[ring, np.full(48, hh)]])
    h = np.asarray(d) / 2 + inflate
    return h * np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], float)


def world_outline(obj: SceneObject, frame: int, inflate: float = 0.0) -> np.ndarray:
    """Outline points (N, 3) of ``obj`` at ``frame`` in world coordinates (its track's matrix applied), with z
    clamped to the ground top (z >= 0: the camera is above the ground, so parts below it neither show nor
    hide; exact for boxes that stay upright)."""
    p = outline(obj.kind, obj.dims, inflate)
    m = obj.pose.matrix(frame)
    w = p @ m[:3, :3].T + m[:3, 3]
    w[:, 2] = np.maximum(w[:, 2], 0.0)  # what lies below the ground top is never seen nor hides anything
    return w


def _hull(pts: np.ndarray) -> np.ndarray:
    """Vertices (K, 2) of the 2-D convex hull of ``pts`` (N, 2), counter-clockwise (Andrew's monotone chain)."""
    p = sorted(set(map(tuple, pts.tolist())))
    if len(p) < 3:
        return np.asarray(p, float)

    def half(seq) -> list:
        out: list = []
        for q in seq:
            while (
                len(out) >= 2
                and (
                    (out[-1][0] - out[-2][0]) * (q[1] - out[-2][1])
                    - (out[-1][1] - out[-2][1]) * (q[0] - out[-2][0])
                )
                <= 0
            ):
                out.pop()
            out.append(q)
        return out

    lower, upper = half(p), half(reversed(p))
    return np.asarray(lower[:-1] + upper[:-1], float)


def _inside(pts: np.ndarray, hull: np.ndarray, margin: float) -> bool:
    """Whether every point (N, 2) lies inside the counter-clockwise convex polygon ``hull`` (K, 2), at least
    ``margin`` from each of its edges."""
    if len(hull) < 3:
        return False
    e = np.roll(hull, -1, axis=0) - hull  # (K, 2) edges
    rel = pts[:, None, :] - hull[None, :, :]  # (N, K, 2)
    cross = (e[None, :, 0] * rel[..., 1] - e[None, :, 1] * rel[..., 0]) / np.linalg.norm(e, axis=1)[None, :]
    return bool(np.all(cross > margin))


def _disjoint(a: np.ndarray, b: np.ndarray, margin: float) -> bool:
    """Whether convex polygons ``a`` and ``b`` (K, 2) are more than ``margin`` apart along some edge normal
    (separating axis theorem)."""
    for poly in (a, b):
        e = np.roll(poly, -1, axis=0) - poly
        n = np.stack([-e[:, 1], e[:, 0]], 1) / np.maximum(np.linalg.norm(e, axis=1), 1e-12)[:, None]
        pa, pb = a @ n.T, b @ n.T  # (Ka, K), (Kb, K)
        if np.any((pa.max(0) + margin < pb.min(0)) | (pb.max(0) + margin < pa.min(0))):
            return True
    return False


def _grounded(pts: np.ndarray) -> np.ndarray:
    """An occluder's outline (N, 3) extended 1 m below the ground where it stands on it: the ground is opaque,
    so nothing is seen below an occluder's bottom edge that rests on the floor."""
    low = pts[pts[:, 2] <= 1e-6]
    return np.concatenate([pts, low - [0.0, 0.0, 1.0]]) if len(low) else pts


def _static(obj: SceneObject) -> bool:
    t = obj.pose
    return bool(np.ptp(t.position, axis=0).max() == 0 and np.ptp(t.rotation, axis=0).max() == 0)


def _view_state(
    uv: np.ndarray, depth: float, margins: tuple[float, float], occ: list[tuple[np.ndarray, np.ndarray]]
) -> tuple[bool, bool]:
    """(covered, clear) in one camera: ``uv`` the target's projected outline, ``depth`` its centre's, ``margins`` the image
    margins (cover, clear), ``occ`` (image points, depths) per occluder. Bounding boxes reject most pairs
    before any hull is built."""
    mc, mk = margins
    t_lo, t_hi = uv.min(0), uv.max(0)
    covered, clear, hull_t = False, True, None
    for uv_o, d_o in occ:
        o_lo, o_hi = uv_o.min(0), uv_o.max(0)
        if not covered and np.all(t_lo - mc > o_lo) and np.all(t_hi + mc < o_hi) and d_o.mean() < depth:
            covered = _inside(uv, _hull(uv_o), mc)
        if clear and d_o.mean() < depth and np.all(t_lo - mk < o_hi) and np.all(o_lo < t_hi + mk):
            hull_t = _hull(uv) if hull_t is None else hull_t
            clear = _disjoint(hull_t, _hull(uv_o), mk)
    in_frame = bool(np.all(np.abs(uv[:, 0]) < 0.5 - mk) and np.all(np.abs(uv[:, 1]) < ASPECT / 2 - mk))
    return covered, clear and in_frame


def occlusion_frames(
    target: SceneObject,
    occluders: Sequence[SceneObject],
    cams: Sequence[Camera],
    frames: int,
    cover: float = COVER,
    clear: float = CLEAR,
) -> tuple[list[int], list[int]]:
    """(hidden frames, clear frames) of ``target`` behind ``occluders`` over frames 0 .. ``frames``-1, for all
    ``cams`` (see the module docstring). Clear frames also require the inflated target inside the frame."""
    hidden, clr = [], []
    fixed = _static(target)
    cache: dict[int, tuple] = {}
    for f in range(frames):
        if not fixed or not cache:
            pts = world_outline(target, f)
            centre = target.pose.position[f]
            cache = {}
            for i, c in enumerate(cams):
                uv = project(c, pts)[0]
                dc = float(project(c, centre[None, :])[1][0])
                cache[i] = (uv, dc, (cover / dc, clear / dc))
        occ = [_grounded(p) for p in (world_outline(o, f) for o in occluders) if p[:, 2].max() > 1e-6]
        is_hidden = is_clear = True
        for i, cam in enumerate(cams):
            uv, depth, margins = cache[i]
            covered, clear_here = _view_state(uv, depth, margins, [project(cam, p) for p in occ])
            is_hidden &= covered
            is_clear &= clear_here
            if not is_hidden and not is_clear:
                break
        if is_hidden:
            hidden.append(f)
        if is_clear:
            clr.append(f)
    return hidden, clr


def static_scene(
    clip: Clip,
    look: Look,
    view: dict | None,
    targets: Sequence[SceneObject],
    occluders: Sequence[SceneObject],
    props: Sequence[SceneObject] = (),
    visible_min: float = 0.6,
) -> tuple[list[SceneObject], list[X.Expectation], dict[str, list[int]]]:
    """Objects, expectations and hidden frames per target of an OP-2 scene.

    ``targets`` are the static objects whose permanence is tested (their tracks set), ``occluders`` the moving
    (or turning) occluders, ``props`` static scenery that is not measured for hiding (a table, a tray, a wall).
    Expectations per target: ``hidden`` on its predicted hidden frames, ``visible`` (>= ``visible_min``) on its
    clear frames, ``same_place`` on every frame (a static object never moves).

    Raises:
        ValueError: a target is never clear (its restoration cannot be seen).
    """
    T = clip.frames
    cams = jitter_cameras(view)
    objs = [look.ground(T), *occluders, *props, *targets]
    exps: list[X.Expectation] = []
    hidden: dict[str, list[int]] = {}
    for t in targets:
        hid, clr = occlusion_frames(t, occluders, cams, T)
        if not clr:
            raise ValueError(f"{t.name} is never clear of the occluders")
        if hid:
            exps.append(X.hidden(t.name, hid))
        exps += [X.visible(t.name, clr, visible_min), X.same_place(t.name, list(range(T)))]
        hidden[t.name] = hid
    return objs, exps, hidden


def hide_every_target(
    why: str,
    clip: Clip,
    look: Look,
    view: dict | None,
    targets: Sequence[SceneObject],
    occluders: Sequence[SceneObject],
    props: Sequence[SceneObject] = (),
    visible_min: float = 0.6,
) -> tuple[list[SceneObject], list[X.Expectation], dict[str, list[int]]]:
    """:func:`static_scene` for a scene whose occluders must hide every target on some frame.

    Raises:
        ValueError: ``why`` (one of the targets is never hidden), or as :func:`static_scene`.
    """
    objs, exps, hidden = static_scene(clip, look, view, targets, occluders, props, visible_min)
    if any(not hidden[t.name] for t in targets):
        raise ValueError(why)
    return objs, exps, hidden


def key_frames(
    hidden: dict[str, list[int]], clip: Clip, names: Sequence[str] | None = None
) -> dict[str, int]:
    """``covered`` (first frame any of ``names`` is hidden) and ``restored`` (first frame after the last hidden
    frame). Raises ``ValueError`` when nothing is hidden, or the hiding starts before the cut or ends too late
    to see the restoration."""
    sel = [f for n, h in hidden.items() if names is None or n in names for f in h]
    if not sel:
        raise ValueError("the occluder hides nothing")
    first, last = min(sel), max(sel)
    if first < clip.cut:
        raise ValueError("the occlusion starts before the cut")
    if last >= clip.last:
        raise ValueError("the objects are still hidden on the last frame")
    return {"covered": first, "restored": last + 1}


def sweep_motion(
    clip: Clip,
    lo: float,
    hi: float,
    width: float,
    z: float,
    direction: int,
    speed: float,
    start_at: float,
    y: float = 0.0,
    lead: float = 0.2,
) -> tuple[Motion, float]:
    """(motion, speed m/s) of an occluder of ``width`` (centre height ``z``, depth ``y``) that waits with its near
    edge ``lead`` m before the span ``lo .. hi`` (m along x) on the side opposite ``direction`` and, from frame
    ``at(start_at)`` (>= cut), crosses it at constant speed: ``speed`` m/s, or faster when needed so that its far
    edge is ``lead`` m past the span 3 frames before the end of the clip."""
    T, fps, d = clip.frames, clip.fps, direction
    f0 = clip.at(start_at, lo=clip.cut)
    x_start = (lo if d > 0 else hi) - d * (width / 2 + lead)
    x_end = (hi if d > 0 else lo) + d * (width / 2 + lead)
    v = max(speed, abs(x_end - x_start) / max(T - 3 - f0, 1) * fps)
    m = Motion(T, fps, (x_start, y, z))
    m.velocity(f0, (d * v, 0.0, 0.0))
    return m, float(v)


def the_objects(n: int, noun: str = "object") -> str:
    """English phrase for ``n`` things: "the object", "both objects", "all 3 objects"."""
    return f"the {noun}" if n == 1 else (f"both {noun}s" if n == 2 else f"all {n} {noun}s")


def static_body(
    name: str, kind: str, size: float, look: Look, slot: str, T: int, x: float, y: float, z0: float = 0.0
) -> SceneObject:
    """A ``body`` (sphere radius / cube half-side / cylinder radius ``size``) resting at (x, y) on a surface at
    height ``z0`` (m), static for ``T`` frames."""
    return body(name, "target", kind, size, look, slot, Track.static(T, (x, y, z0 + half_height(kind, size))))


def shape_kinds(shapes: str, n: int, mixed: Sequence[str]) -> list[str]:
    """The body kinds of ``n`` objects: ``shapes`` for each, or, when ``shapes`` is ``"mixed"``, the kinds of
    ``mixed`` in turn (object i is ``mixed[i % len(mixed)]``)."""
    return [shapes if shapes != "mixed" else mixed[i % len(mixed)] for i in range(n)]


def object_row(
    look: Look,
    T: int,
    kinds: str | Sequence[str],
    size: float,
    xs: Sequence[float],
    y: float,
    z0: float = 0.0,
) -> list[SceneObject]:
    """Static bodies ``object1``, ``object2``... (colour slots of the same names) of ``kinds`` (one kind for
    all, or one per object) and ``size`` (m, see :func:`static_body`) at x = ``xs`` on the line y = ``y``,
    resting on a surface at height ``z0`` (m), for ``T`` frames."""
    ks = [kinds] * len(xs) if isinstance(kinds, str) else kinds
    return [
        static_body(f"object{i + 1}", k, size, look, f"object{i + 1}", T, x, y, z0)
        for i, (k, x) in enumerate(zip(ks, xs))
    ]


def object_nouns(look: Look, kinds: Sequence[str]) -> str:
    """English list of the objects ``object1``, ``object2``... of ``kinds``, e.g. "a red ball and a blue box"."""
    return listing([f"a {look.colour(f'object{i + 1}')} {NOUN[k]}" for i, k in enumerate(kinds)])


def moving_screen(name: str, look: Look, slot: str, m: Motion, width: float, height: float) -> SceneObject:
    """An opaque screen (``width`` x ``SCREEN_T`` x ``height`` m box) on the track built by ``m``."""
    return screen(name, look, slot, m.track(), width, height)


def pivot_turn(
    m: Motion, f0: int, f1: int, pivot, offset, axis: int, a0: float, a1: float, easing: str = "smooth"
) -> Motion:
    """Turn a body about a fixed hinge: over ``f0 .. f1`` the Euler angle about world ``axis`` (0 = x, 2 = z)
    goes from ``a0`` to ``a1`` rad and the centre is ``pivot + R_axis(a) offset`` (``offset``: centre minus
    hinge point at angle 0, m), so the hinge line stays put; the end pose is held afterwards.

    Rotation matrices: ``R_x(a)`` maps (x, y, z) to (x, y cos a - z sin a, y sin a + z cos a), ``R_z(a)`` maps
    it to (x cos a - y sin a, x sin a + y cos a, z) (right-handed, counter-clockwise).

    Raises:
        ValueError: ``axis`` is not 0 or 2.
    """
    if axis not in (0, 2):
        raise ValueError(f"hinge axis must be 0 (x) or 2 (z), got {axis}")
    fr = np.arange(f0, f1 + 1)
    a = a0 + (a1 - a0) * ease((fr - f0) / max(f1 - f0, 1), easing)
    p, o = np.asarray(pivot, float), np.asarray(offset, float)
    c, s = np.cos(a), np.sin(a)
    if axis == 0:
        ctr = np.stack([np.full_like(a, o[0]), o[1] * c - o[2] * s, o[1] * s + o[2] * c], 1)
    else:
        ctr = np.stack([o[0] * c - o[1] * s, o[0] * s + o[1] * c, np.full_like(a, o[2])], 1)
    m.pos[fr] = p + ctr
    m.rot[fr, axis] = a
    m.pos[f1 + 1 :] = m.pos[f1]
    m.rot[f1 + 1 :] = m.rot[f1]
    return m


__all__ = [
    "CLEAR",
    "COVER",
    "SCREEN_T",
    "jitter_cameras",
    "key_frames",
    "moving_screen",
    "occlusion_frames",
    "outline",
    "pivot_turn",
    "project",
    "static_body",
    "static_scene",
    "sweep_motion",
    "the_objects",
    "world_outline",
]
