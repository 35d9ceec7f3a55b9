"""Shared choreography of the task families, so each task module stays a short declaration.

Geometry conventions of all tasks: ground top at z = 0; the camera looks from the -y side
(azimuth 0) unless a task's ``view`` says otherwise; occluders stand at y = 0 and occluded
objects at ``DEPTH`` = 0.5 m behind them; ``VIEW_X`` bounds the x range regarded as in view
for the nominal camera (7 m away, 35 mm lens: half-width 7 tan(27.2 deg) = 3.6 m at y = 0).
Margins (``COVER_MARGIN``, ``CLEAR_MARGIN``) absorb perspective and the surface camera jitter
(+-3 deg azimuth shifts an object 0.5 m behind a screen by 0.5 tan 3 deg = 0.026 m).
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from simkit.generators.wrop.base import Clip, Composition, Look, Task
from simkit.scenes.wrop import claims as C
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import G, Motion, collide_1d, fall_frames, fall_height
from simkit.scenes.wrop.spec import Material, SceneObject, Track

DEPTH = 0.5
VIEW_X = 3.0
COVER_MARGIN = 0.08
CLEAR_MARGIN = 0.15
SCREEN_T = 0.08
WALL_T = 0.12

NOUN = {"sphere": "ball", "box": "block", "cylinder": "cylinder"}


def body(name: str, role: str, kind: str, size: float, look: Look, slot: str, track: Track) -> SceneObject:
    """A target body of characteristic ``size``: sphere radius, cube half-side, cylinder radius (height 2.4 r);
    the slot's prop instead when the task opts the slot in (``Task.mesh_slots``) and the surface drew one."""
    dims = {"sphere": (size,), "box": (2 * size, 2 * size, 2 * size), "cylinder": (size, 2.4 * size)}[kind]
    return look.solid(name, role, kind, dims, slot, track)


def half_height(kind: str, size: float) -> float:
    return {"sphere": size, "box": size, "cylinder": 1.2 * size}[kind]


def screen(name: str, look: Look, slot: str, track: Track, width: float, height: float) -> SceneObject:
    return SceneObject(name, "occluder", "box", (width, SCREEN_T, height), look.mat(slot), track)


def clear(m: Material, alpha: float = 0.25) -> Material:
    """``m`` as a clear material (a pane of tinted glass or clear plastic, opacity ``alpha`` <=
    :data:`~simkit.core.scene.CLEAR_ALPHA`, glossy): objects behind it stay visible in the image and in the
    measured visibility (it is left out of the hiding ray casts; see
    :mod:`simkit.renderers.blender.visibility`)."""
    return dataclasses.replace(m, alpha=alpha, roughness=min(m.roughness, 0.1), name=f"clear {m.name}")


def listing(items: list[str]) -> str:
    """English list: "x", "x and y", "x, y and z"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def in_view(x: float) -> bool:
    return abs(x) <= VIEW_X


# -- OP-1: a mover passes behind screens --------------------------------------------------------------
def _image_x(cam, pts: np.ndarray) -> np.ndarray:
    """Horizontal image coordinate (pinhole, horizontal sensor fit; 0 = left edge, 1 = right) of world ``pts``
    (N, 3) seen by ``cam`` (:class:`~simkit.scenes.wrop.spec.Camera`); same model as the renderer's
    ``image_xy`` (Blender's camera: ``u = 1/2 + (lens/sensor) x/(-z)`` in camera coordinates)."""
    from simkit.core.rotations import quaternion_to_matrix
    from simkit.scenes.wrop.spec import look_at_quaternion

    R = quaternion_to_matrix(
        look_at_quaternion(np.asarray(cam.location, float), np.asarray(cam.look_at, float))
    )
    pc = (np.asarray(pts, float) - np.asarray(cam.location, float)) @ R  # camera coordinates, -z forward
    return 0.5 + (cam.lens_mm / cam.sensor_mm) * pc[:, 0] / -pc[:, 2]


def _outline(kind: str, size: float) -> np.ndarray:
    """Points (N, 3) on the outline of a ``body`` of ``kind``/``size`` centred at the origin: the image
    extent of the body is the extent of these points (sphere: 400 Fibonacci points on its surface, box:
    8 corners, cylinder: 2 x 48 rim points)."""
    if kind == "sphere":
        i = np.arange(400) + 0.5
        zc = 1 - 2 * i / 400
        ph = np.pi * (1 + 5**0.5) * i
        r = np.sqrt(1 - zc * zc)
        return size * np.stack([r * np.cos(ph), r * np.sin(ph), zc], 1)
    if kind == "box":
        return size * np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], float)
    a = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    ring = np.stack([size * np.cos(a), size * np.sin(a)], 1)
    hh = half_height(kind, size)
    return np.concatenate([np.c_[ring, np.full(48, -hh)], np.c_[ring, np.full(48, hh)]])


def cross_behind(
    s: dict,
    clip: Clip,
    look: Look,
    kind: str,
    size: float,
    screens: list[tuple[float, float]],
    key: int = -1,
    screen_margin: float = 0.4,
    view: dict | None = None,
) -> Composition:
    """A ``kind`` target of ``size`` moves along x (direction ``s['direction']``) at constant speed behind
    ``screens`` [(centre x, width)] at y = 0 (target at y = ``DEPTH``), seen by the task's ``view``.

    Timing: the target's centre is within ``cover = w/2 - size - COVER_MARGIN`` of the key screen's centre on
    ``at(s['hide_for'])`` frames, starting no earlier than ``at(s['hide_at'])`` and late enough that the key
    screen starts to cover the target no earlier than the cut (so the whole occlusion is in the target half).

    Event frames (``events``) are where the target's image extent, projected with the nominal camera of
    ``view`` (no surface jitter), meets the key screen's image extent (the same pinhole model the renderer
    uses; the screen is taller than the target, so only the horizontal extent matters):
    ``occlusion_onset`` = first frame the screen covers part of the target; ``occlusion_start`` (the key
    event) = first frame it covers all of it; ``occlusion_end`` = last fully covered frame;
    ``reappearance`` = first frame after it with part of the target uncovered. The measured ``visibility``
    is 0 from ``occlusion_start`` to ``occlusion_end`` and below 1 from ``occlusion_onset`` to
    ``reappearance`` up to two frames at either end (the surface camera jitter moves the screen edge by at
    most about 0.03 m on the target's plane, and ``visibility`` is a 96..4096-point estimate).
    The ``hidden``/``visible`` expectations the checker verifies use margins (``COVER_MARGIN``,
    ``CLEAR_MARGIN``) instead, so they hold for every jitter.

    Raises:
        ValueError: the clip is too short for this choreography (the generator redraws).
    """
    T, fps = clip.frames, clip.fps
    d = int(s["direction"])
    hh = half_height(kind, size)
    sh = 2 * hh + screen_margin
    xc, w = screens[key]
    cover = w / 2 - size - COVER_MARGIN
    coverage = _screen_coverage(kind, size, _nominal_camera(view), xc, w, sh)
    f_in, k, v = _crossing_timing(s, clip, coverage, xc, d, cover, w / 2 + size + CLEAR_MARGIN)
    f_out = f_in + k
    x = xc - d * cover + d * v * (np.arange(T) - f_in)
    m = Motion(T, fps, (x[0], DEPTH, hh))
    m.velocity(0, (d * v * fps, 0.0, 0.0))
    if kind == "sphere":
        m.roll(size)
    target = body("target", "target", kind, size, look, "target", m.track())
    objs = [look.ground(T), target] + _screens(look, screens, sh, T)
    names = [o.name for o in objs[2:]]
    exps = _crossing_expectations(x, screens, names, names[key], size, xc, d, f_in, f_out)
    return Composition(
        objs,
        _crossing_events(coverage(x), T),
        "occlusion_start",
        exps,
        prompt="",
        outcome="",
        derived={
            "speed_m_per_s": round(v * fps, 4),
            "screen_height": round(sh, 4),
            "hidden_with_margin": [f_in, f_out],
        },
    )


def _orbit(view: dict | None, d_az: float = 0.0, d_el: float = 0.0, scale: float = 1.0):
    """The camera of a task ``view`` (keys as in :attr:`Task.view`, their defaults) with a jitter of ``d_az`` /
    ``d_el`` degrees and a distance ``scale`` (the renderer's pinhole model)."""
    from simkit.scenes.wrop.spec import orbit_camera

    v0 = view or {}
    return orbit_camera(
        v0.get("target", (0.0, 0.0, 0.5)),
        v0.get("distance", 7.0) * scale,
        np.radians(v0.get("azimuth_deg", 0.0) + d_az),
        np.radians(v0.get("elevation_deg", 14.0) + d_el),
        v0.get("lens_mm", 35.0),
    )


def _nominal_camera(view: dict | None):
    """The task's camera without surface jitter (the renderer's pinhole model)."""
    return _orbit(view)


def jitter_cameras(view: dict | None) -> list:
    """The nominal camera of ``view`` (first) and the 8 extreme cameras of the surface camera jitter (azimuth,
    elevation and distance scale at the ends of their :data:`~simkit.generators.wrop.base.SURFACE` ranges):
    a label that holds for all nine holds for every look a sample can draw."""
    from simkit.generators.wrop.base import SURFACE
    from simkit.scenes.wrop.params import Uniform

    az, el, ds = (
        SURFACE[k]
        for k in ("camera_azimuth_jitter_deg", "camera_elevation_jitter_deg", "camera_distance_scale")
    )
    assert isinstance(az, Uniform) and isinstance(el, Uniform) and isinstance(ds, Uniform)
    corners = itertools.product((az.lo, az.hi), (el.lo, el.hi), (ds.lo, ds.hi))
    return [_orbit(view)] + [_orbit(view, a, e, d) for a, e, d in corners]


def _screen_coverage(kind: str, size: float, cam, xc: float, w: float, sh: float):
    """A function x-centres (n,) -> (partly covered (n,) bool, fully covered (n,) bool) of the target by the
    screen of width ``w`` and height ``sh`` at x = ``xc``, in the image of the nominal camera ``cam``."""
    hh = half_height(kind, size)
    box = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (0, 1)], float)
    su = _image_x(cam, box * [w / 2, SCREEN_T / 2, sh] + [xc, 0.0, 0.0])
    s_lo, s_hi = su.min(), su.max()
    outline = _outline(kind, size)

    def coverage(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pts = (
            outline[None, :, :] + np.stack([xs, np.full_like(xs, DEPTH), np.full_like(xs, hh)], 1)[:, None, :]
        )
        u = _image_x(cam, pts.reshape(-1, 3)).reshape(len(xs), -1)
        lo, hi = u.min(1), u.max(1)
        return (hi > s_lo) & (lo < s_hi), (lo >= s_lo) & (hi <= s_hi)

    return coverage


def _crossing_timing(s: dict, clip: Clip, coverage, xc: float, d: int, cover: float, clear_half: float):
    """(f_in, k, v): first frame inside the margin-covered span, frames inside it, speed (m per frame).

    Raises:
        ValueError: the clip is too short for this occlusion.
    """
    T, cut = clip.frames, clip.cut
    # distance (m) from the first partly covered centre position to the start of the margin-covered span,
    # with 0.03 m to spare for the camera jitter
    xs = xc - d * (cover + np.linspace(0.0, 3.0, 3001))
    partly, _ = coverage(xs)
    lead = float(np.abs(xs[partly] - xc).max() - cover) + 0.03 if partly.any() else 0.0
    # k frames behind the margin-covered span (shortened when the clip is short); the target must also clear
    # the screen before the end: f_in + k + (clear_half - cover) / v <= T - 3 with v = 2 cover / k
    for k in range(max(2, clip.at(s["hide_for"])), 1, -1):
        v = 2 * cover / k  # m per frame
        f_in = max(clip.at(s["hide_at"], lo=cut), cut + int(np.ceil(lead / v)))
        if f_in + k + (clear_half - cover) / v <= T - 3:
            return f_in, k, v
    raise ValueError("the clip is too short for this occlusion")


def _screens(look: Look, screens: list[tuple[float, float]], sh: float, T: int) -> list:
    """The static screens [(centre x, width)] at y = 0, ``sh`` tall."""
    return [
        screen(
            f"screen{i + 1}" if len(screens) > 1 else "screen",
            look,
            "screen" if len(screens) == 1 else f"screen{i + 1}",
            Track.static(T, (cx, 0.0, sh / 2)),
            cw,
            sh,
        )
        for i, (cx, cw) in enumerate(screens)
    ]


def _crossing_expectations(x, screens, names, key_name, size, xc, d, f_in, f_out) -> list:
    """hidden behind each screen, visible when clear and in view, on either side of the key screen.

    Raises:
        ValueError: no visible frame before or after the occlusion.
    """
    T = len(x)
    exps = []
    clear = np.ones(T, bool)
    for (cx, cw), _nm in zip(screens, names):
        hid, _ = Task.occlusion_frames(x, cx, cw / 2 - size - COVER_MARGIN, cw / 2 + size + CLEAR_MARGIN)
        clear &= np.abs(x - cx) >= cw / 2 + size + CLEAR_MARGIN
        if hid:
            exps.append(X.hidden("target", hid))
    vis = [f for f in range(T) if clear[f] and in_view(x[f])]
    before = [f for f in vis if f < f_in and np.sign(x[f] - xc) == -d]
    after = [f for f in vis if f > f_out and np.sign(x[f] - xc) == d]
    if not before or not after:
        raise ValueError("choreography leaves no visible frame before or after the occlusion")
    return exps + [
        X.visible("target", vis),
        X.side("target", key_name, before, -d),
        X.side("target", key_name, after, d),
    ]


def _crossing_events(covered: tuple[np.ndarray, np.ndarray], T: int) -> dict[str, int]:
    """Event frames from the (partly, fully) covered masks (see :func:`cross_behind`)."""
    part, full = covered
    span = np.arange(T)
    f_start, f_end = int(span[full].min()), int(span[full].max())
    later = span[(span > f_end) & ~full]
    return {
        "occlusion_onset": int(span[part].min()),
        "occlusion_start": f_start,
        "occlusion_end": f_end,
        "reappearance": int(later.min()),
    }


# -- OP-2: a moving screen covers static objects -------------------------------------------------------
def sweep_over(
    clip: Clip,
    look: Look,
    items: list[tuple[str, float, float]],
    sx: np.ndarray,
    sz: np.ndarray,
    width: float,
    height: float,
) -> tuple[list[SceneObject], list[X.Expectation], list[int]]:
    """Static ``items`` [(kind, size, x)] at y = DEPTH; a screen of ``width`` x ``height`` with centre x ``sx`` (T,)
    and bottom z ``sz`` (T,) passes in front. Returns (objects, expectations, frames where any item is hidden)."""
    T = clip.frames
    m = Motion(T, clip.fps, (sx[0], 0.0, sz[0] + height / 2))
    m.pos[:, 0] = sx
    m.pos[:, 2] = sz + height / 2
    objs = [look.ground(T), screen("screen", look, "screen", m.track(), width, height)]
    exps, any_hidden = [], []
    for i, (kind, size, x) in enumerate(items):
        nm = f"object{i + 1}"
        hh = half_height(kind, size)
        objs.append(body(nm, "target", kind, size, look, nm, Track.static(T, (x, DEPTH, hh))))
        dx = np.abs(sx - x)
        hid = [f for f in range(T) if dx[f] <= width / 2 - size - COVER_MARGIN and sz[f] <= 0.01]
        clr = [f for f in range(T) if (dx[f] >= width / 2 + size + CLEAR_MARGIN or sz[f] >= 2 * hh + 0.35)]
        if hid:
            exps.append(X.hidden(nm, hid))
        exps += [X.visible(nm, clr), X.same_place(nm, list(range(T)))]
        any_hidden += hid
    return objs, exps, sorted(set(any_hidden))


def row_positions(n: int, spacing: float) -> list[float]:
    return [(i - (n - 1) / 2) * spacing for i in range(n)]


# -- OP-3: cups over a ball -----------------------------------------------------------------------------
CUP_R, CUP_H = 0.36, 0.62


def cup(name: str, look: Look, slot: str, track: Track) -> SceneObject:
    return SceneObject(name, "container", "cup", (CUP_R, CUP_H), look.mat(slot), track)


def lifted(z_ground: float = 0.0) -> float:
    """Centre z of a cup lifted clear of a ball (bottom 1.0 m above the ground)."""
    return z_ground + 1.0 + CUP_H / 2


# -- OS: contact helpers --------------------------------------------------------------------------------
__all__ = [
    "CLEAR_MARGIN",
    "COVER_MARGIN",
    "CUP_H",
    "CUP_R",
    "DEPTH",
    "NOUN",
    "OS1_APPROACH",
    "SCREEN_T",
    "VIEW_X",
    "WALL_T",
    "Composition",
    "G",
    "Motion",
    "SceneObject",
    "Track",
    "X",
    "body",
    "clear",
    "collide_1d",
    "cross_behind",
    "cup",
    "fall_frames",
    "fall_height",
    "half_height",
    "in_view",
    "lifted",
    "listing",
    "row_positions",
    "screen",
    "sweep_over",
]


def cup_timeline(clip: Clip) -> dict[str, int]:
    """Frames of the OP-3 choreography: lowering ``lower0..lower1`` in the input half, the key manipulation
    ``move0..move1`` from the cut, and the reveal ``lift0..lift1`` ending two frames before the last frame."""
    T, cut = clip.frames, clip.cut
    lift = max(2, (T - cut) // 6)
    lower0 = max(1, cut // 4)
    lower1 = lower0 + max(2, cut // 3)
    lift1 = T - 3
    lift0 = lift1 - lift
    return {
        "lower0": lower0,
        "lower1": min(lower1, cut - 2),
        "move0": cut,
        "move1": lift0 - 2,
        "lift0": lift0,
        "lift1": lift1,
    }


def cups_and_ball(
    clip: Clip,
    look: Look,
    radius: float,
    cups: dict[str, Motion],
    holder: str,
    ball: Motion,
    floor_z: float = 0.0,
) -> tuple[list[SceneObject], list[X.Expectation], list[int]]:
    """Objects and expectations of a ball (``radius``) hidden under cup ``holder`` among ``cups``.

    Hidden: frames where the holder's rim is on the floor (bottom z <= floor + 1 cm). Visible: frames where every
    cup's rim is at least 2r + 0.5 m above the floor. Bound: the ball keeps its offset from its cup while the cup rests on the floor (hidden).
    """
    T = clip.frames
    objs = [cup(n, look, n, m.track()) for n, m in cups.items()]
    objs.append(SceneObject("target", "target", "sphere", (radius,), look.mat("target"), ball.track()))
    bottom = {n: m.pos[:, 2] - CUP_H / 2 for n, m in cups.items()}
    hid = [f for f in range(T) if bottom[holder][f] <= floor_z + 0.01]
    vis = [f for f in range(T) if all(b[f] >= floor_z + 2 * radius + 0.5 for b in bottom.values())]
    resting = [f for f in hid if abs(bottom[holder][f] - floor_z) < 1e-6]
    exps = [X.hidden("target", hid), X.visible("target", vis), X.bound("target", holder, resting)]
    return objs, exps, hid


# -- OS-1: a mover runs at a barrier ---------------------------------------------------------------------
OS1_VIEW = {"target": (0.0, 0.0, 0.4), "distance": 6.5, "azimuth_deg": -38.0, "elevation_deg": 18.0}
#: the farthest (m) an OS-1 mover starts from its event position, so it is in view for most of the input half
OS1_APPROACH = 2.0


def wall_part(name: str, look: Look, T: int, lo, hi) -> SceneObject:
    """A static wall block spanning world corners ``lo``..``hi`` (m)."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return SceneObject(
        name,
        "wall",
        "box",
        tuple((hi - lo).tolist()),
        look.mat("wall"),
        Track.static(T, ((lo + hi) / 2).tolist()),
    )


def barrier_run(
    clip: Clip,
    look: Look,
    mover: SceneObject,
    m: Motion,
    half_x: float,
    parts: list[SceneObject],
    passes: bool,
    x_contact: float,
    speed: float,
    restitution: float,
    contact_at: float,
    blocker: str,
) -> Composition:
    """``mover`` (track built here from ``m``) runs along +x toward wall ``parts`` at x = 0, from frame 0 at a
    constant speed: ``speed`` m/s, or slower when that would start it more than ``OS1_APPROACH`` m before its
    event position (out of view): then the speed is ``OS1_APPROACH / t_event`` (recorded as
    ``derived['speed_m_per_s']``), so the mover is in view for most of the input half at any clip length.

    Passing: its centre crosses x = 0 on the event frame. Blocked: it touches ``blocker`` on the event frame
    (centre at ``x_contact``) and rebounds at ``restitution`` times its speed, slowing at 1.5 m/s^2 (rolling
    friction). Claims (``claims``): passing, the centre ends beyond the wall's far face x = ``WALL_T`` / 2;
    blocked, it never gets 1 mm past its contact position (what it does next: ``kit_os1.back_off``).
    """
    T, fps = clip.frames, clip.fps
    f_c = clip.at(contact_at, lo=clip.cut)
    x_event = 0.0 if passes else x_contact
    speed = min(speed, OS1_APPROACH * fps / f_c)
    x0 = x_event - speed * f_c / fps
    m.pos[:, 0] = x0
    m.velocity(0, (speed, 0, 0), f_c)
    if passes:
        m.velocity(f_c, (speed, 0, 0))
    else:
        m.decelerate(f_c, (-restitution * speed, 0, 0), 1.5)
    if mover.kind == "sphere":
        m.roll(mover.dims[0])
    mover.track = m.track()
    exps = [X.no_penetration(mover.name, p.name) for p in parts]
    exps.append(X.no_penetration(mover.name, "ground"))
    x = m.pos[:, 0]
    claim: C.Claim
    if passes:
        beyond = [f for f in range(T) if x[f] - half_x > WALL_T / 2 + 0.01]
        exps.append(X.side(mover.name, blocker, beyond, 1, space="world"))
        key, claim = "crossing", C.Passes("passes", mover.name, 0, WALL_T / 2, 1)
    else:
        exps.append(X.contact(mover.name, blocker, f_c))
        exps.append(X.side(mover.name, blocker, list(range(T)), -1, space="world"))
        key, claim = "contact", C.Blocked("is stopped", mover.name, 0, x_contact + 0.001, 1)
    return Composition(
        [look.ground(T), mover, *parts],
        {key: f_c},
        key,
        exps,
        prompt="",
        outcome="",
        derived={"start_x": round(x0, 4), "speed_m_per_s": round(speed, 4)},
        claims=[claim],
    )


# -- OS-2: a support is removed --------------------------------------------------------------------------
def drop_run(
    clip: Clip,
    look: Look,
    riders: list[SceneObject],
    rider_z: list[float],
    support_size,
    axis: int,
    direction: int,
    pull_frames: int,
    release_offset: float,
    move_at: float,
    height: float,
) -> tuple[list[SceneObject], list[X.Expectation], dict, dict]:
    """``riders`` (stacked, first = lowest, centres at x = y = 0 and heights ``rider_z`` above the support top)
    rest on a support block of ``support_size`` (sx, sy) and height chosen so that the fall takes a whole number
    of frames near ``height`` m. From frame ``at(move_at)`` the support slides along ``axis`` by ``direction``
    at constant speed; the riders lose support when its trailing edge passes ``release_offset`` (0 for a ball:
    its centre; the rider's half-width for a block) after ``pull_frames`` frames, then fall freely
    (z = z0 - g t^2/2) and land on the floor on a whole frame. Returns (objects, expectations, events, derived)."""
    T, fps = clip.frames, clip.fps
    f_m = clip.at(move_at, lo=clip.cut)
    f_rel = f_m + pull_frames
    k = min(fall_frames(height, fps), T - 3 - f_rel)
    if k < 2:
        raise ValueError("clip too short for the drop")
    H = fall_height(k, fps)
    f_land = f_rel + k
    half = support_size[axis] / 2
    travel = half + release_offset  # centre displacement when the trailing edge reaches the release point
    sup = Motion(T, fps, (0, 0, H / 2))
    v = np.zeros(3)
    v[axis] = direction * travel / pull_frames * fps
    sup.velocity(f_m, v)
    support = SceneObject(
        "support", "support", "box", (support_size[0], support_size[1], H), look.mat("support"), sup.track()
    )
    objs, exps = [look.ground(T), support], []
    for _i, (o, dz) in enumerate(zip(riders, rider_z)):
        m = Motion(T, fps, (0, 0, H + dz))
        m.fall(f_rel, f_land, dz)
        o.track = m.track()
        objs.append(o)
        exps.append(X.no_penetration(o.name, "support"))
        exps.append(X.no_penetration(o.name, "ground"))
    low = riders[0].name
    exps += [X.touching(low, "support", list(range(f_rel + 1))), X.contact(low, "ground", f_land)]
    for a, b in itertools.pairwise(riders):
        exps.append(X.touching(b.name, a.name, list(range(T))))
    return (
        objs,
        exps,
        {"support_lost": f_rel, "landing": f_land},
        {"support_height": round(H, 4), "fall_frames": k},
    )


# -- OS-3: 1-D collisions ---------------------------------------------------------------------------------
def collision_line(
    clip: Clip,
    look: Look,
    bodies: list[SceneObject],
    masses: list[float],
    x_contact: list[float],
    v_before: list[float],
    v_after: list[float],
    contact_at: float,
    hit: tuple[str, str],
    decel: float = 0.3,
) -> tuple[list[X.Expectation], dict]:
    """Bodies on the x axis: positions ``x_contact`` (m) at the contact frame ``at(contact_at)`` (>= cut),
    velocities ``v_before``/``v_after`` (m/s) on either side (after: slowing at ``decel`` m/s^2). Sets the tracks;
    returns (expectations, events): contact of the ``hit`` pair, no interpenetration, momentum conservation."""
    T, fps = clip.frames, clip.fps
    f_c = clip.at(contact_at, lo=clip.cut)
    for o, x, vb, va in zip(bodies, x_contact, v_before, v_after):
        z = o.half_extent()[2]
        m = Motion(T, fps, (x - vb * f_c / fps, 0, z))
        m.velocity(0, (vb, 0, 0), f_c)
        m.decelerate(f_c, (va, 0, 0), decel)
        if o.kind == "sphere":
            m.roll(o.dims[0])
        o.track = m.track()
    names = [o.name for o in bodies]
    exps = [X.contact(hit[0], hit[1], f_c), X.momentum(names, masses, f_c)]
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            exps.append(X.no_penetration(names[i], names[j]))
    for n in names:  # count conservation: every body is in view just before and just after the impact
        exps.append(X.visible(n, [f_c - 1, f_c + 1], 0.3))
    return exps, {"impact": f_c}
