"""OP-1 language beyond constant-speed crossings: line-of-sight planning of any keyed scene.

:func:`simkit.generators.wrop.kit.cross_behind` covers one target at constant speed behind static screens.
The tasks built on this module have targets that bounce, slow down, reverse, orbit or ride on trays, and
occluders that move, turn, are lowered, or have windows. :func:`sight` works for all of them: it
casts rays from the camera to points on the target's outline through the keyed boxes that can block
it, on every frame and for the nominal camera plus the eight extreme corners of the surface jitter
(``SURFACE`` azimuth, elevation and distance ranges), so what it calls hidden or clear holds for every
look a sample can draw.

* hidden (robust): every ray to the target's outline, inflated by ``HIDE_MARGIN`` m, passes through a
  blocker before reaching the target, for all nine cameras;
* clear (robust): for all nine cameras the target's image rectangle (widened by ``CLEAR_MARGIN_IMG``)
  is inside the frame and disjoint from the image rectangle of every blocker in front of it;
* covered / touched (nominal camera, no margin): every ray blocked / the image rectangles overlap; these
  give the event frames (``occlusion_onset``, ``occlusion_start``, ``occlusion_end``, ``reappearance``,
  the same names and meaning as :func:`~simkit.generators.wrop.kit.cross_behind`).

Blockers are boxes (the ray test is exact for a keyed, rotated cuboid: the slab method, Kay and Kajiya,
"Ray tracing complex scenes", SIGGRAPH 1986). Images use the renderer's pinhole model (horizontal sensor
fit, ``u = 1/2 + (lens/sensor) x / -z``, ``v`` likewise scaled by the 16:9 aspect of every WROP preset).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.core.rotations import quaternion_to_matrix
from simkit.generators.wrop.base import Clip, Composition
from simkit.generators.wrop.kit import jitter_cameras
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.spec import Camera, SceneObject, look_at_quaternion

#: world margin (m) added around the target's outline before it may count as hidden: the renderer's
#: polygonal sphere (24 x 12 segments) and the visibility sampler's quantisation stay inside it
HIDE_MARGIN = 0.03
#: image margin (share of the image width, about 0.03 m at 7 m) between the rectangles of a clear target
#: and of any blocker
CLEAR_MARGIN_IMG = 0.005
#: image height / width of the WROP presets (320 x 180, 64 x 36, 1280 x 720)
ASPECT = 9 / 16


def project(cam: Camera, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(image coordinates (N, 2): u right, v up, 0..1 inside the frame; depth (N,) m along the view) of world
    points ``pts`` (N, 3) seen by ``cam`` (the renderer's ``image_xy`` model)."""
    loc = np.asarray(cam.location, float)
    R = quaternion_to_matrix(look_at_quaternion(loc, np.asarray(cam.look_at, float)))
    pc = (np.asarray(pts, float) - loc) @ R  # camera coordinates, -z forward
    depth = -pc[:, 2]
    k = cam.lens_mm / cam.sensor_mm
    uv = np.stack([0.5 + k * pc[:, 0] / depth, 0.5 + k * pc[:, 1] / depth / ASPECT], 1)
    return uv, depth


def outline(obj: SceneObject, margin: float = 0.0) -> np.ndarray:
    """Local points (N, 3) whose convex hull contains ``obj`` grown by ``margin`` m: a sphere's 256
    Fibonacci points (scaled to r + margin), a cylinder's two rims (32 points each), and for the other kinds
    seven points on each edge of the local bounding box."""
    h = obj.half_extent()
    if obj.kind == "sphere":
        i = np.arange(256) + 0.5
        zc = 1 - 2 * i / 256
        ph = np.pi * (1 + 5**0.5) * i
        r = np.sqrt(1 - zc * zc)
        return (h[0] + margin) * np.stack([r * np.cos(ph), r * np.sin(ph), zc], 1)
    if obj.kind in ("cylinder", "cup"):
        a = np.linspace(0, 2 * np.pi, 32, endpoint=False)
        ring = (h[0] + margin) * np.stack([np.cos(a), np.sin(a)], 1)
        zz = h[2] + margin
        return np.concatenate([np.c_[ring, np.full(32, -zz)], np.c_[ring, np.full(32, zz)]])
    g = h + margin
    t = np.linspace(-1.0, 1.0, 7)
    edges = []
    for ax in range(3):
        o1, o2 = [a for a in range(3) if a != ax]
        for s1 in (-1, 1):
            for s2 in (-1, 1):
                p = np.zeros((7, 3))
                p[:, ax], p[:, o1], p[:, o2] = t * g[ax], s1 * g[o1], s2 * g[o2]
                edges.append(p)
    return np.concatenate(edges)


def placed(obj: SceneObject, f: int, local: np.ndarray) -> np.ndarray:
    """``local`` points (N, 3) of ``obj`` in world coordinates at frame ``f`` (its track's matrix)."""
    M = obj.pose.matrix(f)
    return local @ M[:3, :3].T + M[:3, 3]


def ray_blocked(origins: np.ndarray, pts: np.ndarray, box: SceneObject, f: int) -> np.ndarray:
    """(C, N) bool: the segment from each of ``origins`` (C, 3) to each of ``pts`` (N, 3) enters the cuboid
    ``box`` (its keyed pose at frame ``f``) before reaching the point (slab method)."""
    M = np.linalg.inv(box.pose.matrix(f))
    o = (origins @ M[:3, :3].T + M[:3, 3])[:, None, :]  # (C, 1, 3) in the box frame
    d = (pts @ M[:3, :3].T + M[:3, 3])[None, :, :] - o  # (C, N, 3) segment vectors
    h = box.half_extent()
    with np.errstate(divide="ignore", invalid="ignore"):
        t1, t2 = (-h - o) / d, (h - o) / d
    lo, hi = np.minimum(t1, t2), np.maximum(t1, t2)
    par = d == 0  # parallel to a slab: inside it for all t, or never
    inside = np.broadcast_to(np.abs(o) <= h, d.shape)
    lo = np.where(par, np.where(inside, -np.inf, np.inf), lo)
    hi = np.where(par, np.where(inside, np.inf, -np.inf), hi)
    t_in, t_out = lo.max(-1), hi.min(-1)
    return (t_out >= np.maximum(t_in, 0.0)) & (t_in < 1.0 - 1e-9)


@dataclass
class Sight:
    """Per-frame line-of-sight masks of one target (each (T,) bool; see the module docstring)."""

    hidden: np.ndarray
    clear: np.ndarray
    covered: np.ndarray
    touched: np.ndarray


class _Rig:
    """The nine cameras of :func:`jitter_cameras` as arrays: locations (C, 3), rotations (C, 3, 3), lens/sensor."""

    def __init__(self, view: dict | None):
        cams = jitter_cameras(view)
        self.loc = np.array([c.location for c in cams], float)
        self.R = np.stack(
            [
                quaternion_to_matrix(
                    look_at_quaternion(np.asarray(c.location, float), np.asarray(c.look_at, float))
                )
                for c in cams
            ]
        )
        self.k = cams[0].lens_mm / cams[0].sensor_mm

    def rects(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(image rectangles (C, 4) u0 v0 u1 v1, nearest depth (C,), farthest depth (C,)) of ``pts`` (N, 3)."""
        pc = np.einsum("cnj,cjk->cnk", pts[None, :, :] - self.loc[:, None, :], self.R)
        depth = -pc[..., 2]
        u = 0.5 + self.k * pc[..., 0] / depth
        v = 0.5 + self.k * pc[..., 1] / depth / ASPECT
        r = np.stack([u.min(1), v.min(1), u.max(1), v.max(1)], 1)
        return r, depth.min(1), depth.max(1)


def _overlap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(C,) bool: rectangles (C, 4) ``a`` and ``b`` overlap."""
    return (a[:, 0] < b[:, 2]) & (b[:, 0] < a[:, 2]) & (a[:, 1] < b[:, 3]) & (b[:, 1] < a[:, 3])


def _frame_sight(target: SceneObject, blockers: list[SceneObject], rig: _Rig, f: int):
    """(hidden, clear, covered, touched) booleans of ``target`` at frame ``f`` (see :func:`sight`)."""
    tight = placed(target, f, outline(target))
    wide = placed(target, f, outline(target, HIDE_MARGIN))
    r_t, _, far_t = rig.rects(tight)
    grown = r_t + np.array([-1, -1, 1, 1]) * CLEAR_MARGIN_IMG
    clear = (grown[:, 0] >= 0) & (grown[:, 1] >= 0) & (grown[:, 2] <= 1) & (grown[:, 3] <= 1)
    blocked = np.zeros((len(rig.loc), len(wide)), bool)
    blocked_tight = np.zeros(len(tight), bool)
    touched = False
    for b in blockers:
        blocked |= ray_blocked(rig.loc, wide, b, f)
        blocked_tight |= ray_blocked(rig.loc[:1], tight, b, f)[0]
        r_b, near_b, _ = rig.rects(placed(b, f, outline(b)))
        in_front = near_b < far_t
        clear &= ~(_overlap(grown, r_b) & in_front)
        touched |= bool(_overlap(r_t[:1], r_b[:1])[0] and in_front[0])
    return bool(blocked.all()), bool(clear.all()), bool(blocked_tight.all()), touched


def sight(target: SceneObject, blockers: list[SceneObject], view: dict | None) -> Sight:
    """Line-of-sight masks of ``target`` behind the box ``blockers`` (all with tracks) for a task ``view``.

    Raises:
        ValueError: a blocker is not a box (the ray test is exact for cuboids only).
    """
    for b in blockers:
        if b.kind != "box":
            raise ValueError(f"blocker {b.name!r} is a {b.kind}; sight() needs boxes")
    rig = _Rig(view)
    rows = [_frame_sight(target, blockers, rig, f) for f in range(target.pose.frames)]
    a = np.array(rows, bool).reshape(-1, 4)
    return Sight(a[:, 0], a[:, 1], a[:, 2], a[:, 3])


def occlusion_events(sg: Sight, cut: int, after: int | None = None) -> dict[str, int]:
    """Event frames of the first full occlusion (nominal camera) starting at or after ``after`` (default:
    the cut): ``occlusion_onset`` (first frame of the partly covered run that contains it),
    ``occlusion_start`` (first fully covered frame), ``occlusion_end`` (last one) and ``reappearance`` (the
    next frame). When nothing covers the target before the last frame, ``reappearance`` is omitted.

    Raises:
        ValueError: no full occlusion starts at or after ``after``, or its onset lies before the cut.
    """
    T = len(sg.covered)
    start_from = cut if after is None else after
    full = [f for f in range(start_from, T) if sg.covered[f]]
    if not full:
        raise ValueError("the target is never fully covered in the target half")
    f0 = full[0]
    f1 = f0
    while f1 + 1 < T and sg.covered[f1 + 1]:
        f1 += 1
    onset = f0
    while onset - 1 >= 0 and sg.touched[onset - 1]:
        onset -= 1
    if onset < cut:
        raise ValueError(f"the occlusion begins at frame {onset}, before the cut {cut}")
    ev = {"occlusion_onset": onset, "occlusion_start": f0, "occlusion_end": f1}
    if f1 + 1 < T:
        ev["reappearance"] = f1 + 1
    return ev


def sight_expectations(name: str, sg: Sight, need_after: int | None = None) -> list[X.Expectation]:
    """``hidden`` on the robustly hidden frames and ``visible`` on the robustly clear ones.

    Raises:
        ValueError: no hidden frame, or (with ``need_after``) no clear frame after that frame.
    """
    hid = [int(f) for f in np.nonzero(sg.hidden)[0]]
    vis = [int(f) for f in np.nonzero(sg.clear)[0]]
    if not hid:
        raise ValueError(f"{name} is never hidden for every camera jitter")
    if need_after is not None and not any(f > need_after for f in vis):
        raise ValueError(f"{name} is never clearly visible after frame {need_after}")
    return [X.hidden(name, hid), X.visible(name, vis)]


def occlusion_composition(
    clip: Clip,
    objects: list[SceneObject],
    target: SceneObject,
    blockers: list[SceneObject],
    view: dict | None,
    after: int | None = None,
    need_clear: bool = True,
) -> tuple[Composition, Sight]:
    """A composition whose key event is the first full occlusion of ``target`` by ``blockers`` at or after
    the cut (or ``after``), with ``hidden``/``visible`` expectations from :func:`sight`; the prompt and
    outcome are left for the task. ``derived['hidden_with_margin']`` lists the robustly hidden frames.
    ``need_clear=False`` allows a target that stays hidden to the end (no clear frame after the occlusion).

    Raises:
        ValueError: see :func:`occlusion_events` and :func:`sight_expectations` (the engine redraws).
    """
    sg = sight(target, blockers, view)
    ev = occlusion_events(sg, clip.cut, after)
    exps = sight_expectations(target.name, sg, ev["occlusion_end"] if need_clear else None)
    hid = [int(f) for f in np.nonzero(sg.hidden)[0]]
    comp = Composition(
        objects,
        ev,
        "occlusion_start",
        exps,
        prompt="",
        outcome="",
        derived={"hidden_with_margin": hid},
    )
    return comp, sg


def clear_frames(sg: Sight, lo: int = 0, hi: int | None = None) -> list[int]:
    """Robustly clear frames in ``lo .. hi`` (inclusive; default: to the end)."""
    last = len(sg.clear) - 1 if hi is None else hi
    return [f for f in range(max(lo, 0), last + 1) if sg.clear[f]]


# -- scene pieces ---------------------------------------------------------------------------------------
def panel(name: str, look, slot: str, T: int, lo, hi, role: str = "occluder") -> SceneObject:
    """A static box spanning world corners ``lo`` .. ``hi`` (m), coloured by ``slot`` of ``look``."""
    from simkit.scenes.wrop.spec import Track

    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return SceneObject(
        name,
        role,
        "box",
        tuple((hi - lo).tolist()),
        look.mat(slot),
        Track.static(T, ((lo + hi) / 2).tolist()),
    )


def probe(target: SceneObject, z_lo: float, z_hi: float) -> SceneObject:
    """A box (not rendered) covering the part of an upright box or cylinder ``target`` between heights
    ``z_lo`` .. ``z_hi`` (m, world) on every frame; :func:`sight` on it tells when that part is in view."""
    from simkit.scenes.wrop.spec import Track

    h = target.half_extent()
    pos = target.pose.position.copy()
    pos[:, 2] = (z_lo + z_hi) / 2
    return SceneObject(
        f"{target.name}_part",
        "probe",
        "box",
        (2 * h[0], 2 * h[1], z_hi - z_lo),
        None,
        Track(pos, target.pose.rotation.copy(), np.ones_like(pos)),
        measure=False,
    )


def steady_x(clip: Clip, x_c: float, c_at: float, direction: int, span: float = 4.4) -> np.ndarray:
    """x (T,) of a constant-velocity path along ``direction`` that covers ``span`` m over the clip and is at
    ``x_c`` on frame ``at(c_at)``."""
    v = span / (clip.frames - 1)
    return x_c + direction * v * (np.arange(clip.frames) - clip.at(c_at))


def sightline_z(z_edge: float, behind: float, view: dict | None = None) -> float:
    """Height (m) at ``behind`` m behind an edge at height ``z_edge`` (on y = 0) where the nominal camera's
    sightline over that edge passes (similar triangles, camera on the -y side)."""
    cam = jitter_cameras(view)[0]
    cy, cz = -cam.location[1], cam.location[2]
    return z_edge - (cz - z_edge) * behind / cy


def passage_events(sg: Sight, cut: int) -> dict[str, int]:
    """Event frames of a passage that need not hide the target fully (nominal camera): ``occlusion_onset``
    (first frame at or after the cut on which a blocker overlaps the target's image) and ``uncovered`` (the
    first later frame with no overlap).

    Raises:
        ValueError: the overlap begins before the cut, or no overlap starts and ends in the target half.
    """
    T = len(sg.touched)
    if sg.touched[cut - 1]:
        raise ValueError("a blocker already overlaps the target at the cut")
    on = [f for f in range(cut, T) if sg.touched[f]]
    if not on:
        raise ValueError("nothing passes in front of the target in the target half")
    off = [f for f in range(on[0], T) if not sg.touched[f]]
    if not off:
        raise ValueError("the target is still behind a blocker on the last frame")
    return {"occlusion_onset": on[0], "uncovered": off[0]}


def ball_on_path(name: str, look, slot: str, clip: Clip, radius: float, xyz: np.ndarray) -> SceneObject:
    """A sphere of ``radius`` whose centre follows ``xyz`` (T, 3) and rolls without slipping along it (its
    horizontal displacement; :meth:`~simkit.scenes.wrop.motion.Motion.roll`)."""
    from simkit.scenes.wrop.motion import Motion

    m = Motion(clip.frames, clip.fps, xyz[0])
    m.pos[:] = xyz
    m.roll(radius)
    return SceneObject(name, "target", "sphere", (radius,), look.mat(slot), m.track())


def line_xyz(x: np.ndarray, y: float, z: float) -> np.ndarray:
    """(T, 3) points with x ``x`` (T,) at constant ``y`` and ``z``."""
    return np.stack([x, np.full_like(x, y), np.full_like(x, z)], 1)


def hop_z(t: np.ndarray, apex: float, phase: float) -> np.ndarray:
    """Height (m) above the resting height of a body bouncing elastically to ``apex`` m: free flights of
    period tau = 2 sqrt(2 apex / g) (z = g t'(tau - t') / 2, t' = (t + phase tau) mod tau) at times ``t`` s."""
    from simkit.scenes.wrop.motion import G

    tau = 2 * np.sqrt(2 * apex / G)
    tp = np.mod(t + phase * tau, tau)
    return 0.5 * G * tp * (tau - tp)


def side_frames(sg: Sight, x: np.ndarray, ref: float, sign: int, lo: int = 0) -> list[int]:
    """Clear frames from ``lo`` on where ``sign (x - ref) > 0`` (for ``side`` expectations).

    Raises:
        ValueError: there is none (an expectation on no frame would check nothing).
    """
    out = [f for f in clear_frames(sg, lo) if np.sign(x[f] - ref) == sign]
    if not out:
        raise ValueError(f"no clear frame from {lo} on the {'right' if sign > 0 else 'left'} of x = {ref}")
    return out
