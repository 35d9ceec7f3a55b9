"""Scene director of the FOA corpora: sources, loudness, timing, trajectories and the camera.

The director plays the role of the OmniEcho "LLM director" (seed notes, "training data
synthesis") with explicit random draws: it emits a structured, JSON-serialisable scene with
N foreground sources plus one ambient bed, each source with a semantic label, a target
loudness (LUFS, measured on the dry stem, i.e. the level at 1 m), an onset/offset and a full
trajectory; off-screen sources (``n_offscreen``) forced outside the camera's field of view at every
instant; and a camera yaw trajectory (the audio rotates with the camera because the listener is the
camera). It then renders the scene with :mod:`simkit.renderers.foa`.

Frames (see also ``docs/foa.md``):

- world: right-handed, z up, metres; the listener/camera sits at the world origin.
- camera/listener frame: +x ahead (optical axis), +y left, +z up; the camera's yaw is the
  counter-clockwise angle from world +x to its optical axis (0 at t = 0).
- source keyframes ``[t, az_deg, el_deg, dist_m]`` are polar coordinates around the listener in
  *world* axes (so a static source keeps its keyframes while the camera turns); the per-source
  ``track`` (10 Hz) gives the same trajectory in the *listener* frame, where
  ``az_listener = az_world - yaw(t)``.
- pinhole image coordinates (pixels, origin top-left, x right, y down) of a listener-frame
  direction (az, el) with focal length ``f = (W / 2) / tan(fov / 2)`` (square pixels)::

      u = tan(az),  v = tan(el) sqrt(1 + u^2),  c_x = W/2 - f u,  c_y = H/2 - f v

  the inverse of the OmniEcho back-projection ``u = (W/2 - c_x)/f, v = (H/2 - c_y)/f_v,
  theta = atan2(u, 1), phi = atan2(v, sqrt(1 + u^2))`` (seed notes); see :func:`project` and
  :func:`backproject`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

TRACK_RATE_HZ = 10.0
MOTIONS = ("static", "lateral", "radial")


# -- pinhole camera ------------------------------------------------------------------------------
def focal_px(fov_deg: float, width: int) -> float:
    """Focal length in pixels of a pinhole camera with horizontal field of view ``fov_deg``."""
    return (width / 2.0) / np.tan(np.radians(fov_deg) / 2.0)


def project(az_deg, el_deg, fov_deg: float, width: int, height: int):
    """Pixel coordinates of listener-frame directions (module docstring).

    Args:
        az_deg, el_deg: arrays (same shape) in degrees, listener frame.
        fov_deg: horizontal field of view; width, height: image size in pixels.

    Returns:
        ``(c_x, c_y, visible)``: float arrays in pixels and a bool array (in front of the camera and
        inside ``[0, W] x [0, H]``). Coordinates behind the camera are NaN.
    """
    az = np.radians(np.asarray(az_deg, dtype=np.float64))
    el = np.radians(np.asarray(el_deg, dtype=np.float64))
    f = focal_px(fov_deg, width)
    front = np.cos(az) > 1e-6
    with np.errstate(invalid="ignore", divide="ignore"):
        u = np.where(front, np.tan(az), np.nan)
        v = np.tan(el) * np.sqrt(1.0 + u**2)
    cx = width / 2.0 - f * u
    cy = height / 2.0 - f * v
    with np.errstate(invalid="ignore"):
        visible = front & (cx >= 0) & (cx <= width) & (cy >= 0) & (cy <= height)
    return cx, cy, visible


def backproject(cx, cy, fov_deg: float, width: int, height: int, focal_v: float | None = None):
    """Listener-frame (az_deg, el_deg) of pixel centres (OmniEcho's pinhole back-projection).

    ``u = (W/2 - c_x)/f, v = (H/2 - c_y)/f_v, az = atan2(u, 1), el = atan2(v, sqrt(1 + u^2))``;
    ``f_v`` defaults to ``f`` (square pixels).
    """
    f = focal_px(fov_deg, width)
    fv = f if focal_v is None else focal_v
    u = (width / 2.0 - np.asarray(cx, dtype=np.float64)) / f
    v = (height / 2.0 - np.asarray(cy, dtype=np.float64)) / fv
    return np.degrees(np.arctan2(u, 1.0)), np.degrees(np.arctan2(v, np.sqrt(1.0 + u**2)))


# -- direction vocabulary ------------------------------------------------------------------------
DIRECTIONS_8 = ("front", "front-left", "left", "back-left", "back", "back-right", "right", "front-right")


def direction8(az_deg: float) -> str:
    """The 8-way direction token of a listener-frame azimuth (45-degree sectors centred on
    0 = front, 45 = front-left, 90 = left, ..., -45 = front-right), built from the four axis
    tokens front/back/left/right as the OmniEcho scoring rules use them."""
    k = int(np.floor(((az_deg + 22.5) % 360.0) / 45.0)) % 8
    return DIRECTIONS_8[k]


def wrap_deg(a):
    """Wrap degrees to [-180, 180)."""
    return (np.asarray(a, dtype=np.float64) + 180.0) % 360.0 - 180.0


# -- scene description ---------------------------------------------------------------------------
@dataclass
class DirectorParams:
    """What the director may draw (the ``foa-qa`` config fills these in).

    Ranges are inclusive ``(low, high)``; angles in degrees, distances in metres, levels in LUFS.
    """

    mode: str = "qa"  # "qa" or "foa-static"
    duration_s: float = 3.0
    static_duration_s: tuple[float, float] = (2.0, 8.0)
    n_sources: tuple[int, int] = (1, 4)
    n_offscreen: tuple[int, int] = (2, 4)
    distance_m: tuple[float, float] = (1.0, 6.0)
    elevation_deg: tuple[float, float] = (-20.0, 30.0)
    lufs: tuple[float, float] = (-32.0, -20.0)
    ambient: bool = True
    ambient_lufs: tuple[float, float] = (-48.0, -38.0)
    fov_deg: float = 90.0
    image_size: tuple[int, int] = (640, 360)
    camera_turn_prob: float = 0.6
    turn_deg: tuple[float, float] = (30.0, 75.0)
    offscreen_margin_deg: float = 10.0
    motion_probs: tuple[float, float, float] = (0.4, 0.3, 0.3)  # static, lateral, radial
    room: bool = True
    image_order: int = 1
    rt60_s: tuple[float, float] = (0.2, 0.6)
    tail: bool = True
    n_interferers: tuple[int, int] = (0, 0)
    snr_choices_db: tuple[float, ...] = (20.0, 15.0, 10.0, 5.0, 0.0)
    labels: list[str] = field(default_factory=list)
    ambient_labels: list[str] = field(default_factory=list)
    # audibility (None = off: the room is drawn around the sources and every source gets questions)
    max_distance_rc: float | None = None
    materials: bool = False
    dominance_db: float | None = None
    max_concurrent: int | None = None
    room_size_m: tuple[tuple[float, float], ...] = ((5.0, 10.0), (4.5, 8.0), (2.7, 3.6))


class DirectorFailed(Exception):
    """The director could not satisfy its constraints with this random stream (the sample is redrawn)."""


def _r(x, nd=4):
    return float(round(float(x), nd))


def _track(keyframes: np.ndarray, yaw_kf: np.ndarray, duration: float, cam) -> dict:
    """The 10 Hz listener-frame track of world-polar keyframes under a yaw trajectory."""
    from simkit.renderers.foa import PolarTrajectory

    t = np.round(np.arange(0.0, duration + 1e-9, 1.0 / TRACK_RATE_HZ), 6)
    kf = np.asarray(keyframes, dtype=np.float64)
    traj = PolarTrajectory(kf[:, 0], np.radians(kf[:, 1]), np.radians(kf[:, 2]), kf[:, 3])
    p = traj.positions(t)
    yaw = np.interp(t, yaw_kf[:, 0], yaw_kf[:, 1]) if len(yaw_kf) > 1 else np.full(t.shape, yaw_kf[0, 1])
    az_w = np.degrees(np.arctan2(p[:, 1], p[:, 0]))
    el = np.degrees(np.arctan2(p[:, 2], np.hypot(p[:, 0], p[:, 1])))
    dist = np.linalg.norm(p, axis=1)
    az = wrap_deg(az_w - yaw)
    cx, cy, vis = project(az, el, cam["fov_deg"], *cam["image_size"])
    return {
        "time_s": [_r(x, 3) for x in t],
        "azimuth_deg": [_r(x) for x in az],
        "elevation_deg": [_r(x) for x in el],
        "distance_m": [_r(x) for x in dist],
        "on_screen": [bool(v) for v in vis],
        "x_px": [_r(x, 2) if v else None for x, v in zip(cx, vis)],
        "y_px": [_r(y, 2) if v else None for y, v in zip(cy, vis)],
    }


def track_from_scene(source: dict, scene: dict) -> dict:
    """Recompute a source's 10 Hz track from its keyframes and the camera (used by checks)."""
    cam = scene["camera"]
    return _track(
        np.asarray(source["keyframes"]),
        np.asarray(cam["yaw_keyframes"], dtype=np.float64),
        scene["duration_s"],
        cam,
    )


def _camera(rng: np.random.Generator, p: DirectorParams, duration: float, static: bool) -> dict:
    w, h = p.image_size
    kf = [[0.0, 0.0]]
    turn = {"direction": "none", "angle_deg": 0.0, "t_start_s": None, "t_end_s": None}
    if not static and rng.random() < p.camera_turn_prob and duration >= 1.0:
        ang = float(rng.uniform(*p.turn_deg)) * (1 if rng.random() < 0.5 else -1)
        dur = float(rng.uniform(0.4, 0.7)) * duration
        t0 = float(rng.uniform(0.1 * duration, duration - dur - 0.05 * duration))
        t0, t1 = _r(t0, 2), _r(t0 + dur, 2)
        ang = _r(ang, 1)
        kf = [[0.0, 0.0], [t0, 0.0], [t1, ang], [_r(duration, 3), ang]]
        turn = {
            "direction": "left" if ang > 0 else "right",
            "angle_deg": abs(ang),
            "t_start_s": t0,
            "t_end_s": t1,
        }
    return {
        "fov_deg": float(p.fov_deg),
        "image_size": [int(w), int(h)],
        "focal_px": _r(focal_px(p.fov_deg, w), 3),
        "yaw_keyframes": kf,
        "turn": turn,
    }


def _yaw_at(cam: dict, t: np.ndarray) -> np.ndarray:
    kf = np.asarray(cam["yaw_keyframes"], dtype=np.float64)
    return np.interp(t, kf[:, 0], kf[:, 1]) if len(kf) > 1 else np.full(np.shape(t), kf[0, 1])


#: the smallest distance span (m) that allows a radial (approaching/receding) motion
RADIAL_MIN_SPAN_M = 1.5
#: shortest activity (s) of a source in mode qa (a motion needs time to be heard)
MIN_ACTIVE_S = 1.0
#: proposals of one source's activity that must leave room for the sources after it (mode qa)
TIMING_DRAWS = 40
#: the room left for each later source, in units of MIN_ACTIVE_S
TIMING_SLACK = 1.25


def foreground_elevation_limit(fov_deg: float, width: int, height: int) -> float:
    """Largest |elevation| (degrees) at which a foreground source is on screen at its onset.

    Foreground azimuths lie within +-0.8 of the half field of view around the camera axis; at
    that azimuth ``u = tan(az)`` the pinhole model puts a source on screen while
    ``tan(el) sqrt(1 + u^2) <= (H/2) / f``. A 0.1 degree margin absorbs the rounding of stored
    keyframes.
    """
    u = np.tan(np.radians(0.8 * fov_deg / 2.0))
    v_max = (height / 2.0) / focal_px(fov_deg, width)
    return float(np.degrees(np.arctan(v_max / np.sqrt(1.0 + u * u)))) - 0.1


def feasible_motions(p: DirectorParams, dist_range=None) -> tuple[float, float, float]:
    """Motion probabilities (static, lateral, radial) usable with ``dist_range`` (default
    ``p.distance_m``): a radial motion needs a distance span of at least :data:`RADIAL_MIN_SPAN_M`,
    so it is dropped otherwise."""
    probs = np.asarray(p.motion_probs, dtype=np.float64)
    lo, hi = dist_range or p.distance_m
    if hi - lo < RADIAL_MIN_SPAN_M:
        probs[2] = 0.0
    s, la, ra = (float(x) for x in probs / probs.sum())
    return s, la, ra


def _draw_keyframes(
    rng,
    p: DirectorParams,
    onset: float,
    offset: float,
    motion: str,
    az_range,
    static: bool,
    el_range=None,
    dist_range=None,
):
    """World-polar keyframes [t, az, el, r] for one source; az_range limits the azimuth and
    el_range (default ``p.elevation_deg``) the elevation (degrees). Distances stay in ``dist_range``
    (default ``p.distance_m``)."""
    lo_r, hi_r = dist_range or p.distance_m
    el = float(rng.uniform(*(el_range or p.elevation_deg))) if not static else float(rng.uniform(-30.0, 60.0))
    az0 = float(rng.uniform(*az_range))
    if motion == "static":
        r = float(rng.uniform(lo_r, hi_r))
        return [[0.0, _r(az0, 2), _r(el, 2), _r(r, 3)]]
    if motion == "lateral":
        r = float(rng.uniform(min(lo_r + 0.5, hi_r), hi_r))
        span = float(rng.uniform(35.0, 70.0)) * (1 if rng.random() < 0.5 else -1)
        az1 = az0 + span
        return [
            [_r(onset, 3), _r(az0, 2), _r(el, 2), _r(r, 3)],
            [_r(offset, 3), _r(az1, 2), _r(el, 2), _r(r, 3)],
        ]
    # radial: approach or recede by at least 1.5 m (feasible_motions drops it for narrower ranges)
    d = float(rng.uniform(RADIAL_MIN_SPAN_M, hi_r - lo_r))
    near = float(rng.uniform(lo_r, hi_r - d))
    r0, r1 = (near + d, near) if rng.random() < 0.5 else (near, near + d)
    return [
        [_r(onset, 3), _r(az0, 2), _r(el, 2), _r(r0, 3)],
        [_r(offset, 3), _r(az0, 2), _r(el, 2), _r(r1, 3)],
    ]


def motion_of(source: dict, scene: dict) -> dict:
    """Classify a source's own motion over its active interval (world frame, seen from the camera's
    initial orientation, i.e. camera rotation excluded).

    With ``dy`` the change of the lateral coordinate y = r cos(el) sin(az) (metres, + = to the left)
    and ``dr`` the change of distance between onset and offset: ``stationary`` when both are below
    0.5 m; else ``left-to-right`` / ``right-to-left`` when |dy| > |dr| (sign of dy: y decreasing =
    moving from left to right), else ``approaching`` / ``receding`` (sign of dr).

    Returns:
        ``{"motion": str, "delta_y_m": float, "delta_distance_m": float}``.
    """
    from simkit.renderers.foa import PolarTrajectory

    kf = np.asarray(source["keyframes"], dtype=np.float64)
    traj = PolarTrajectory(kf[:, 0], np.radians(kf[:, 1]), np.radians(kf[:, 2]), kf[:, 3])
    p = traj.positions([source["onset_s"], source["offset_s"]])
    dy = float(p[1, 1] - p[0, 1])
    dr = float(np.linalg.norm(p[1]) - np.linalg.norm(p[0]))
    if max(abs(dy), abs(dr)) < 0.5:
        m = "stationary"
    elif abs(dy) > abs(dr):
        m = "left-to-right" if dy < 0 else "right-to-left"
    else:
        m = "approaching" if dr < 0 else "receding"
    return {"motion": m, "delta_y_m": _r(dy, 3), "delta_distance_m": _r(dr, 3)}


def direct_scene(rng: np.random.Generator, p: DirectorParams) -> dict:
    """Draw one scene description (JSON-serialisable dict; see ``docs/foa.md`` for every key).

    With ``p.max_distance_rc`` set, the room is drawn first (:func:`_draw_room`: realistic size,
    RT60, octave-band absorption) and every source stays within ``max_distance_rc`` critical
    distances of the listener and inside the room; otherwise the room is drawn around the sources
    afterwards (:func:`_room`). The source counts are drawn to fit the timeline
    (:func:`_draw_counts`).

    Raises:
        DirectorFailed: constraints (off-screen placement, distinct motion labels, the room) not met
            after many attempts with this random stream.
    """
    static = p.mode == "foa-static"
    duration = _r(rng.uniform(*p.static_duration_s), 2) if static else float(p.duration_s)
    cam = _camera(rng, p, duration, static)
    room_first = p.room and p.max_distance_rc is not None
    room = _draw_room(rng, p) if room_first else None
    dist_range = _distance_range(p, room)
    n_fg, n_off = _draw_counts(rng, p, duration, static)
    labels = list(p.labels)
    n_total = n_fg + n_off
    picked = list(rng.choice(labels, size=n_total, replace=n_total > len(labels)))
    sources: list[dict] = []
    for i in range(n_total):
        role = "source" if static else "foreground" if i < n_fg else "offscreen"
        src = _draw_source(
            rng, p, i, role, str(picked[i]), cam, duration, dist_range, room, sources, n_total - i - 1
        )
        sources.append(src)
    scene = {
        "mode": p.mode,
        "duration_s": duration,
        "frames": {
            "world": "right-handed, z up, metres; listener at the origin",
            "listener": "+x ahead, +y left, +z up (AmbiX); azimuth counter-clockwise from ahead",
            "keyframes": "[t_s, azimuth_deg, elevation_deg, distance_m], world axes around the listener",
            "track": "listener frame at 10 Hz: azimuth = world azimuth - camera yaw",
        },
        "listener": {"position_m": [0.0, 0.0, 0.0]},
        "camera": cam,
        "sources": sources,
    }
    if p.ambient and p.ambient_labels:
        scene["ambient"] = {
            "label": str(rng.choice(p.ambient_labels)),
            "lufs": _r(rng.uniform(*p.ambient_lufs), 2),
        }
    else:
        scene["ambient"] = None
    n_int = int(rng.integers(p.n_interferers[0], p.n_interferers[1] + 1))
    scene["interferers"] = [
        {
            "label": str(rng.choice(labels)),
            "azimuth_deg": _r(rng.uniform(-180, 180), 2),
            "elevation_deg": _r(rng.uniform(-10, 30), 2),
            "snr_db": float(rng.choice(p.snr_choices_db)),
        }
        for _ in range(n_int)
    ]
    if room is None and p.room:
        room = _room(rng, p, sources)
    scene["room"] = room
    return scene


def _distance_range(p: DirectorParams, room: dict | None) -> tuple[float, float]:
    """Source distance range (m): ``p.distance_m`` capped at ``p.max_distance_rc`` critical distances
    of ``room`` (when both are set); the lower end follows a cap below it."""
    lo, hi = p.distance_m
    if room is not None and p.max_distance_rc is not None:
        hi = min(hi, p.max_distance_rc * room["critical_distance_m"])
        lo = min(lo, hi)
    return float(lo), float(hi)


#: the timing grid of mode qa (s): onsets and offsets are rounded to it
TIMELINE_STEP_S = 0.01
#: activity length (units of MIN_ACTIVE_S) by which source counts are drawn: one grid step over the shortest
COUNT_SLACK = 1.0 + TIMELINE_STEP_S / MIN_ACTIVE_S


def timeline_capacity(p: DirectorParams, duration: float, slack: float = COUNT_SLACK) -> int | None:
    """How many activities of ``slack * MIN_ACTIVE_S`` fit an empty clip of ``duration`` seconds with at
    most ``p.max_concurrent`` at once (:func:`_timing_capacity`, counted up to the most sources a scene
    can have); None without a concurrency limit (mode foa-static or ``max_concurrent`` null)."""
    if p.mode == "foa-static" or p.max_concurrent is None:
        return None
    t = np.round(np.arange(0.0, duration + 1e-9, TIMELINE_STEP_S), 2)
    most = p.n_sources[1] + p.n_offscreen[1]
    return _timing_capacity(t, np.zeros(t.size, dtype=int), p, most, slack)


def _draw_counts(rng, p: DirectorParams, duration: float, static: bool) -> tuple[int, int]:
    """The numbers of foreground and off-screen sources, uniform over the configured ranges.

    From foa-qa v7, in mode qa with ``max_concurrent`` and activities of varied length (the longest,
    half the clip, at least ``TIMING_SLACK * MIN_ACTIVE_S``): a pair whose sources cannot all sound
    for ``COUNT_SLACK * MIN_ACTIVE_S`` (one grid step over the shortest activity) within the limit
    (:func:`timeline_capacity`) is drawn again, when some configured pair can (else every pair is
    kept). Such a pair fits only an exact tiling of the clip by activities of ``MIN_ACTIVE_S``, which
    the sequential timing of :func:`_draw_timing` almost never draws: with the defaults (3 s, at most
    2 at once, capacity 4) not one of the 3 + 2 scenes drawn by v6 was placed, each costing ~0.2 s of
    CPU before the sample was redrawn (numbers in docs/foa.md).
    """

    def draw() -> tuple[int, int]:
        n_fg = int(rng.integers(p.n_sources[0], p.n_sources[1] + 1))
        return n_fg, 0 if static else int(rng.integers(p.n_offscreen[0], p.n_offscreen[1] + 1))

    n_fg, n_off = draw()
    cap = timeline_capacity(p, duration)  # None in mode foa-static
    varied = 0.5 * duration >= TIMING_SLACK * MIN_ACTIVE_S
    if cap is None or not varied or p.n_sources[0] + p.n_offscreen[0] > cap:
        return n_fg, n_off
    while n_fg + n_off > cap:  # rejection: uniform over the pairs that fit
        n_fg, n_off = draw()
    return n_fg, n_off


def _timing_capacity(t: np.ndarray, busy: np.ndarray, p: DirectorParams, need: int, slack: float) -> int:
    """How many more activities of ``slack * MIN_ACTIVE_S`` (counting up to ``need``) fit the timeline (10 ms
    grid ``t``, ``busy`` = sources sounding per grid point) with at most ``max_concurrent`` at once,
    each placed at the earliest window that fits (greedy; optimal for activities of equal length)."""
    width = int(round(slack * MIN_ACTIVE_S / 0.01)) + 1  # slack > 1: random draws rarely pack tightly
    busy = busy.copy()
    for k in range(need):
        fits = busy < int(p.max_concurrent or 1)
        ok = np.convolve(fits.astype(int), np.ones(width, dtype=int), mode="valid") == width
        if not ok.any():
            return k
        start = int(np.argmax(ok))
        busy[start : start + width - 1] += 1
    return need


def _draw_timing(
    rng, p: DirectorParams, duration: float, placed: list[dict], n_after: int = 0
) -> tuple[float, float] | None:
    """Onset and offset (s) of a source in mode qa, or None when ``p.max_concurrent`` is exceeded.

    Without ``max_concurrent``: onset in the first quarter, offset after 70 % of the clip (long,
    overlapping activities). With it: an activity of at least ``MIN_ACTIVE_S`` and at most 50 % of
    the clip inside a stretch of time (10 ms grid) where fewer than ``max_concurrent`` sources
    already sound (stretches chosen in proportion to their usable length), so that no more than
    ``max_concurrent`` sources (this one included) sound at any instant. With ``n_after`` sources
    still to be placed, an activity that leaves them less than ``TIMING_SLACK * MIN_ACTIVE_S`` each
    (:func:`_timing_capacity`) is drawn again (up to ``TIMING_DRAWS`` times; the last draw needs only
    ``MIN_ACTIVE_S`` each; foa-qa v6), so that scenes seldom fail later for want of time.
    """
    if p.max_concurrent is None:
        onset = _r(rng.uniform(0.0, min(0.25 * duration, duration - MIN_ACTIVE_S)), 2)
        offset = _r(rng.uniform(min(max(onset + MIN_ACTIVE_S, 0.7 * duration), duration), duration), 2)
        return onset, offset
    t = np.round(np.arange(0.0, duration + 1e-9, 0.01), 2)
    busy = np.zeros(t.size, dtype=int)
    for s in placed:
        busy += (t >= s["onset_s"]) & (t < s["offset_s"])
    free = np.concatenate([[False], busy < p.max_concurrent, [False]])
    edges = np.flatnonzero(np.diff(free.astype(int)))
    runs = [(t[a], t[b - 1]) for a, b in zip(edges[::2], edges[1::2]) if t[b - 1] - t[a] >= MIN_ACTIVE_S]
    if not runs:
        return None
    lengths = np.array([b - a - MIN_ACTIVE_S for a, b in runs]) + 1e-3
    longest = max(MIN_ACTIVE_S, 0.5 * duration)
    draws = TIMING_DRAWS if n_after > 0 else 1
    for k in range(draws):
        a, b = runs[int(rng.choice(len(runs), p=lengths / lengths.sum()))]
        onset = _r(rng.uniform(a, b - MIN_ACTIVE_S), 2)
        if min(b, onset + longest) < onset + MIN_ACTIVE_S:  # the onset rounded past b - MIN_ACTIVE_S
            return None
        offset = _r(rng.uniform(onset + MIN_ACTIVE_S, min(b, onset + longest)), 2)
        if offset - onset < MIN_ACTIVE_S - 1e-9:
            return None
        after = busy + ((t >= onset) & (t < offset))
        if n_after == 0 or _timing_capacity(t, after, p, n_after, TIMING_SLACK) >= n_after:
            return onset, offset
        if k == draws - 1 and _timing_capacity(t, after, p, n_after, 1.0) >= n_after:
            return onset, offset  # a timeline too tight for the slack: room without it is enough
    return None


def _draw_source(
    rng, p: DirectorParams, i: int, role: str, label: str, cam, duration, dist_range, room, placed, n_after=0
):
    """One source (timing, motion, keyframes, track) meeting its role's constraints (60 attempts);
    ``n_after`` sources are still to be placed after it (its timing leaves them room).

    Raises:
        DirectorFailed: no attempt met the constraints.
    """
    static = role == "source"
    half = p.fov_deg / 2.0
    motion_p = feasible_motions(p, dist_range)
    el_lim = foreground_elevation_limit(p.fov_deg, *p.image_size)
    for _attempt in range(60):
        if static:
            onset, offset, motion = 0.0, duration, "static"
        else:
            timing = _draw_timing(rng, p, duration, placed, n_after)
            if timing is None:
                continue
            onset, offset = timing
            motion = str(rng.choice(MOTIONS, p=motion_p))
        el_range = None
        if static:
            az_range = (-180.0, 180.0)
        elif role == "foreground":
            yaw_on = float(_yaw_at(cam, np.array([onset]))[0])
            az_range = (yaw_on - 0.8 * half, yaw_on + 0.8 * half)
            el_range = (max(p.elevation_deg[0], -el_lim), min(p.elevation_deg[1], el_lim))
            if el_range[0] > el_range[1]:
                raise DirectorFailed(
                    f"elevation_deg {list(p.elevation_deg)} lies outside the camera's "
                    f"vertical view (|elevation| <= {el_lim:.1f} deg)"
                )
        else:
            az_range = (half + p.offscreen_margin_deg, 360.0 - half - p.offscreen_margin_deg)
        kf = _draw_keyframes(rng, p, onset, offset, motion, az_range, static, el_range, dist_range)
        src = {
            "id": f"s{i}",
            "label": label,
            "role": role,
            "lufs": _r(rng.uniform(*p.lufs), 2),
            "onset_s": onset,
            "offset_s": offset,
            "keyframes": kf,
        }
        if room is not None and not _inside_room(kf, room):
            continue
        tr = _track(np.asarray(kf), np.asarray(cam["yaw_keyframes"], dtype=np.float64), duration, cam)
        az_t = np.asarray(tr["azimuth_deg"])
        if role == "offscreen" and np.any(np.abs(az_t) <= half + p.offscreen_margin_deg):
            continue
        if role == "foreground":
            k_on = int(round(onset * TRACK_RATE_HZ))
            if not tr["on_screen"][min(k_on, len(az_t) - 1)]:
                continue
        mot = motion_of(src, {"duration_s": duration})
        if not static and not _clear_motion(mot):
            continue
        src["motion"] = mot["motion"]
        src["track"] = tr
        return src
    raise DirectorFailed(f"could not place source {i} ({role}) after 60 attempts")


def _inside_room(keyframes, room: dict, margin: float = 0.3) -> bool:
    """Whether a trajectory (world-polar keyframes) stays ``margin`` metres inside the room's walls."""
    from simkit.renderers.foa import PolarTrajectory

    kf = np.asarray(keyframes, dtype=np.float64)
    traj = PolarTrajectory(kf[:, 0], np.radians(kf[:, 1]), np.radians(kf[:, 2]), kf[:, 3])
    pts = traj.positions(np.linspace(kf[0, 0], kf[-1, 0], 17))
    lo = np.asarray(room["origin_m"]) + margin
    hi = np.asarray(room["origin_m"]) + np.asarray(room["size_m"]) - margin
    return bool(np.all((pts > lo) & (pts < hi)))


#: wall materials the director draws from (names of pyroomacoustics' materials database, octave-band
#: absorption coefficients 125 Hz - 4 kHz from Vorlaender, *Auralization*, 2008, appendix A)
WALL_MATERIALS = ("plasterboard", "brickwork", "wooden_lining", "glass_window", "wood_16mm", "rough_concrete")
FLOOR_MATERIALS = ("carpet_cotton", "concrete_floor", "linoleum_on_concrete", "carpet_thin", "wood_16mm")
CEILING_MATERIALS = ("ceiling_plasterboard", "ceiling_fissured_tile", "ceiling_perforated_gypsum_board")


def material_absorption(name: str) -> np.ndarray:
    """(6,) octave-band (125 Hz - 4 kHz) energy absorption coefficients of a named material from
    pyroomacoustics' materials database (tabulated values; Vorlaender, *Auralization*, 2008).

    Raises:
        KeyError: unknown material name.
    """
    from pyroomacoustics.parameters import materials_data

    for group in materials_data["absorption"].values():
        if name in group:
            return np.asarray(group[name]["coeffs"][:6], dtype=np.float64)
    raise KeyError(f"unknown material {name!r}")


def _scaled_absorption(spectra: np.ndarray, areas: np.ndarray, target_area: float) -> np.ndarray:
    """Absorption ``clip(s * spectra, 0.01, 0.95)`` (walls x bands) with the common factor s found by
    bisection so that the mid-band equivalent absorption area ``sum_w S_w alpha_w,mid`` (mean of the
    500 Hz and 1 kHz bands) equals ``target_area`` (m^2), as far as the clipping allows."""

    def mid_area(scale: float) -> float:
        return float(areas @ np.clip(spectra * scale, 0.01, 0.95)[:, 2:4].mean(axis=1))

    lo, hi = 0.0, 1.0
    while mid_area(hi) < target_area and hi < 1e4:
        hi *= 2.0
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if mid_area(mid) < target_area else (lo, mid)
    return np.clip(spectra * hi, 0.01, 0.95)


def _draw_room(rng: np.random.Generator, p: DirectorParams) -> dict:
    """A realistic shoebox room drawn before the sources (listener at the world origin inside it).

    Size from ``p.room_size_m``; the listener 35-65 % along each horizontal side and 1.2-1.7 m above
    the floor. The mid-band (mean of 500 Hz and 1 kHz) RT60 is drawn from ``p.rt60_s``. With
    ``p.materials`` the walls, floor and ceiling get materials whose octave-band absorption spectra
    (:func:`material_absorption`) are scaled by one common factor (:func:`_scaled_absorption`) so that
    Sabine's formula
    ``RT60_b = 0.161 V / sum_w S_w alpha_w,b`` gives the drawn mid-band RT60; ``rt60_bands_s`` holds
    the six band values (the diffuse tail decays band by band). The specular image sources use
    the area-weighted mean mid-band coefficient on every wall (furniture and diffuse scattering,
    which spread the reflections of real rooms, are not modelled; per-wall specular reflections
    off hard walls would overstate them). Without materials every wall gets Sabine's broadband
    ``alpha = 0.161 V / (S RT60)``.
    """
    size = np.array([rng.uniform(lo, hi) for lo, hi in p.room_size_m])
    lis = np.array(
        [rng.uniform(0.35, 0.65) * size[0], rng.uniform(0.35, 0.65) * size[1], rng.uniform(1.2, 1.7)]
    )
    rt60 = float(rng.uniform(*p.rt60_s))
    vol = float(np.prod(size))
    lx, ly, lz = size
    areas = np.array([ly * lz, ly * lz, lx * lz, lx * lz, lx * ly, lx * ly])
    out: dict[str, Any] = {"size_m": [_r(x, 3) for x in size], "origin_m": [_r(-x, 3) for x in lis]}
    if p.materials:
        names = [str(rng.choice(WALL_MATERIALS)) for _ in range(4)]
        names += [str(rng.choice(FLOOR_MATERIALS)), str(rng.choice(CEILING_MATERIALS))]
        spectra = np.stack([material_absorption(n) for n in names])  # (6 walls, 6 bands)
        alpha = _scaled_absorption(spectra, areas, 0.161 * vol / rt60)
        bands = 0.161 * vol / (areas @ alpha)
        out["materials"] = dict(zip(("x0", "x1", "y0", "y1", "floor", "ceiling"), names))
        mid_alpha = alpha[:, 2:4].mean(axis=1)
        out["absorption"] = _r(float(areas @ mid_alpha / areas.sum()), 4)
        out["rt60_bands_s"] = [_r(b, 3) for b in bands] if p.tail else None
        rt60 = float(np.mean(bands[2:4]))
    else:
        out["absorption"] = _r(float(np.clip(0.161 * vol / (float(areas.sum()) * rt60), 0.05, 0.95)), 4)
    out["rt60_s"] = _r(rt60, 3) if p.tail else None
    out["image_order"] = int(p.image_order)
    out["critical_distance_m"] = _r(np.sqrt(0.161 * vol / rt60 / (16.0 * np.pi)), 3)
    return out


def _clear_motion(m: dict) -> bool:
    """Reject motions whose class is ambiguous (near a decision boundary of :func:`motion_of`)."""
    dy, dr = abs(m["delta_y_m"]), abs(m["delta_distance_m"])
    if m["motion"] == "stationary":
        return max(dy, dr) < 0.05
    big, small = max(dy, dr), min(dy, dr)
    return big >= 0.9 and big >= 1.5 * small


def _room(rng: np.random.Generator, p: DirectorParams, sources: list[dict]) -> dict:
    """A shoebox room around the listener (origin) that contains every source keyframe with a margin.

    Wall absorption follows from the drawn RT60 through Sabine's formula
    ``alpha = 0.161 V / (S RT60)`` (clipped to [0.05, 0.95]).
    """
    from simkit.renderers.foa import PolarTrajectory

    parts = [np.zeros((1, 3))]
    for s in sources:
        kf = np.asarray(s["keyframes"], dtype=np.float64)
        traj = PolarTrajectory(kf[:, 0], np.radians(kf[:, 1]), np.radians(kf[:, 2]), kf[:, 3])
        parts.append(traj.positions(np.linspace(kf[0, 0], kf[-1, 0], 33)))
    pts = np.concatenate(parts)
    lis_h = float(rng.uniform(1.2, 1.7))  # listener height above the floor
    lo = pts.min(axis=0) - rng.uniform(0.5, 2.0, 3)
    hi = pts.max(axis=0) + rng.uniform(0.5, 2.0, 3)
    lo[2] = min(-lis_h, pts[:, 2].min() - 0.3)
    hi[2] = max(hi[2], lo[2] + 2.5)
    size = hi - lo
    rt60 = float(rng.uniform(*p.rt60_s))
    vol = float(np.prod(size))
    surf = 2.0 * (size[0] * size[1] + size[0] * size[2] + size[1] * size[2])
    alpha = float(np.clip(0.161 * vol / (surf * rt60), 0.05, 0.95))
    return {
        "size_m": [_r(x, 3) for x in size],
        "origin_m": [_r(x, 3) for x in lo],
        "absorption": _r(alpha, 4),
        "rt60_s": _r(rt60, 3) if p.tail else None,
        "image_order": int(p.image_order),
        "critical_distance_m": _r(np.sqrt(0.161 * vol / rt60 / (16.0 * np.pi)), 3),
    }


# -- rendering ---------------------------------------------------------------------------------------
def _stems(scene: dict, bank, sr: int, rng: np.random.Generator) -> list[np.ndarray]:
    """The dry stem of every source: drawn for [onset, offset], loudness-normalised to its LUFS,
    gated and faded (10 ms)."""
    from simkit.assets.sounds import gate, normalise_loudness

    fade = int(0.01 * sr)
    stems = []
    for s in scene["sources"]:
        m = max(1, int(round((s["offset_s"] - s["onset_s"]) * sr)))
        stem = bank.draw(s["label"], m, sr, rng)
        stem = gate(normalise_loudness(stem, sr, s["lufs"]), sr)
        if m > 2 * fade:
            ramp = np.linspace(0.0, 1.0, fade)
            stem[:fade] *= ramp
            stem[-fade:] *= ramp[::-1]
        stems.append(stem)
    return stems


def scene_room(scene: dict):
    """The :class:`~simkit.renderers.foa.ShoeboxRoom` of a scene's ``room`` entry (None without one)."""
    from simkit.renderers.foa import ShoeboxRoom

    rm = scene.get("room")
    if not rm:
        return None
    absorption = tuple(rm["absorption"]) if isinstance(rm["absorption"], list) else rm["absorption"]
    bands = rm.get("rt60_bands_s")
    return ShoeboxRoom(
        tuple(rm["size_m"]),
        absorption,
        rm["image_order"],
        rm["rt60_s"],
        tuple(rm["origin_m"]),
        tuple(bands) if bands else None,
    )


def render_scene(
    scene: dict,
    bank,
    sr: int,
    rng: np.random.Generator,
    *,
    delay: bool = True,
    block: int = 32,
    r_min: float = 0.3,
) -> tuple[np.ndarray, dict]:
    """Synthesise the stems of ``scene`` from ``bank`` and render them to FOA.

    Stems are drawn for [onset, offset], loudness-normalised to the source's LUFS, gated and faded
    (10 ms); the ambient bed is normalised to its LUFS and rendered as a diffuse bed; interferers
    are plane waves scaled to their SNR against the rendered sources (W-channel power). The mix is
    scaled down (never up) to a 0.99 peak.

    Returns:
        ``(foa float64 (n, 4) ACN/SN3D in [-0.99, 0.99], info)`` with ``info["mix_gain_db"]`` (the
        peak-limiting gain, <= 0 dB), ``info["snr_db_measured"]`` per interferer, and
        ``info["stems"]`` (the dry stems) and ``info["background_w"]`` ((n,) W channel of the
        ambient bed plus interferers, before peak limiting) for :func:`measure_audibility`.
    """
    from simkit.assets.sounds import normalise_loudness
    from simkit.renderers.foa import (
        ListenerPose,
        PolarTrajectory,
        Source,
        Trajectory,
        ambient_bed,
        direction_to_unit,
        peak_normalise,
        render_foa,
        scale_to_snr,
        snr_db,
    )

    n = int(round(scene["duration_s"] * sr))
    ykf = np.asarray(scene["camera"]["yaw_keyframes"], dtype=np.float64)
    listener = (
        ListenerPose(yaw_times=ykf[:, 0], yaw=np.radians(ykf[:, 1]))
        if len(ykf) > 1
        else ListenerPose(yaw=np.radians(ykf[:, 1]))
    )
    stems = _stems(scene, bank, sr, rng)
    srcs = []
    for s, stem in zip(scene["sources"], stems):
        kf = np.asarray(s["keyframes"], dtype=np.float64)
        traj = PolarTrajectory(kf[:, 0], np.radians(kf[:, 1]), np.radians(kf[:, 2]), kf[:, 3])
        srcs.append(Source(stem, traj, 1.0, s["onset_s"]))
    foa = render_foa(srcs, sr, n, listener, scene_room(scene), delay=delay, r_min=r_min, block=block, rng=rng)
    info: dict = {"snr_db_measured": [], "stems": stems, "background_w": np.zeros(n)}
    target = foa.copy()
    if scene.get("ambient"):
        amb = scene["ambient"]
        x = normalise_loudness(bank.draw(amb["label"], n, sr, rng), sr, amb["lufs"])
        bed = ambient_bed(x, n, rng)
        foa += bed
        info["background_w"] += bed[:, 0]
    for itf in scene.get("interferers", []):
        x = bank.draw(itf["label"], n, sr, rng)
        u = direction_to_unit(np.radians(itf["azimuth_deg"]), np.radians(itf["elevation_deg"]))
        pw = render_foa([Source(x, Trajectory.static(u), plane_wave=True)], sr, n, listener)
        if np.any(target) and np.any(pw):
            pw, _ = scale_to_snr(target, pw, itf["snr_db"])
            info["snr_db_measured"].append(_r(snr_db(target, pw), 3))
            foa += pw
            info["background_w"] += pw[:, 0]
    foa, g = peak_normalise(foa, 0.99)
    info["mix_gain_db"] = _r(20 * np.log10(g), 3)
    return foa, info


# -- audibility --------------------------------------------------------------------------------------
#: window (s) over which audibility levels are summed around a question time; the label-audibility
#: check estimates the direction over the same window (``foa_qa``)
AUDIBILITY_HALF_WINDOW_S = 0.2
#: frames at the start and end of a source's activity where no question is placed (s)
QUESTION_EDGE_S = 0.2


def _frame_energy(x: np.ndarray, start: int, sr: int, times: np.ndarray) -> np.ndarray:
    """Mean square of ``x`` (placed at output sample ``start``) in 0.1 s frames centred on ``times``."""
    half = int(round(0.5 * sr / TRACK_RATE_HZ))
    out = np.zeros(times.size)
    csum = np.concatenate([[0.0], np.cumsum(np.asarray(x, dtype=np.float64) ** 2)])
    for k, t in enumerate(times):
        c = int(round(t * sr)) - start
        lo, hi = min(max(c - half, 0), x.size), min(max(c + half, 0), x.size)
        out[k] = (csum[hi] - csum[lo]) / (2 * half)
    return out


def _reverb_factor(room, pos: np.ndarray, c: float = 343.0, r_min: float = 0.3) -> tuple[float, float]:
    """(direct, reverberant) energy gains of a source at world ``pos`` heard at the origin: ``1/r^2``
    and the image sources' ``sum amp^2 / r_m^2`` plus the diffuse tail's energy (as rendered)."""
    r0 = max(float(np.linalg.norm(pos)), r_min)
    if room is None:
        return 1.0 / r0**2, 0.0
    img, amp, _ = room.image_sources(pos)
    r = np.maximum(np.linalg.norm(img, axis=1), r_min)
    rev = float(np.sum(amp[1:] ** 2 / r[1:] ** 2))
    if room.rt60 is not None:
        rev += room.tail_energy(float(r.max()) / c, r0 / c)
    return 1.0 / r0**2, rev


def measure_audibility(
    scene: dict,
    stems: list[np.ndarray],
    background_w: np.ndarray,
    sr: int,
    dominance_db: float | None,
    min_drr_db: float = -3.0,
) -> dict:
    """Per-source audibility quantities and the time of its direction questions (docs/foa.md).

    On the 10 Hz track grid, per source i: the direct-sound energy at the listener
    ``D_i = e_i / r_i^2`` (``e_i`` = mean square of the dry stem, ``r_i`` = distance), its
    reverberant energy ``R_i`` (image sources and diffuse tail as rendered, with the exponential
    energy decay of the room's RT60 spreading it over later frames), and the background ``B``
    (ambient bed and interferers, W channel). Summed over +-``AUDIBILITY_HALF_WINDOW_S``:

    * ``drr_db = 10 log10(D_i / R_i)`` (direct-to-reverberant ratio at the listener),
    * ``level_re_others_db = 10 log10(D_i / sum_j!=i (D_j + R_j))``,
    * ``level_re_ambient_db = 10 log10(D_i / B)``,
    * ``sir_db = 10 log10(D_i / (sum_j!=i (D_j + R_j) + B))`` (the source against the other sources
      and the ambient bed: its dominance),
    * ``der_db = 10 log10(D_i / (R_i + sum_j!=i (D_j + R_j) + B))`` (direct sound against everything
      else).

    The question time is the track time within the activity (``QUESTION_EDGE_S`` from its ends)
    where ``der_db`` is largest; with ``dominance_db`` None it is the middle of the activity and
    every source is ``answerable``, else a source is answerable when ``sir_db >= dominance_db``
    and ``drr_db >= min_drr_db`` there.
    ``overlap_s`` = time during which at least one other source sounds too.

    Returns:
        ``{"sources": [per-source dicts in scene order], "max_concurrent_sources": int}``.
    """
    from simkit.renderers.foa import PolarTrajectory

    srcs = scene["sources"]
    t = np.asarray(srcs[0]["track"]["time_s"]) if srcs else np.zeros(0)
    room = scene_room(scene)
    q = np.exp(-13.8155 / TRACK_RATE_HZ / room.rt60) if room is not None and room.rt60 else 0.0
    direct, rev = np.zeros((len(srcs), t.size)), np.zeros((len(srcs), t.size))
    for i, (s, stem) in enumerate(zip(srcs, stems)):
        e = _frame_energy(stem, int(round(s["onset_s"] * sr)), sr, t)
        kf = np.asarray(s["keyframes"], dtype=np.float64)
        pos = PolarTrajectory(kf[:, 0], np.radians(kf[:, 1]), np.radians(kf[:, 2]), kf[:, 3]).positions(t)
        uniq, inv = np.unique(pos, axis=0, return_inverse=True)  # a static source: one position
        gains = np.array([_reverb_factor(room, pk) for pk in uniq])[inv.reshape(-1)]
        direct[i] = e * gains[:, 0]
        decayed = np.zeros_like(e)
        acc = 0.0
        for k in range(e.size):  # energy-preserving exponential decay over later frames
            acc = acc * q + e[k] * (1.0 - q)
            decayed[k] = acc
        rev[i] = decayed * gains[:, 1]
    bg = _frame_energy(background_w, 0, sr, t)
    w = int(round(AUDIBILITY_HALF_WINDOW_S * TRACK_RATE_HZ))
    kern = np.ones(2 * w + 1)

    def win(x):
        return np.convolve(x, kern, mode="same")

    dw, rw, bw = np.array([win(x) for x in direct]), np.array([win(x) for x in rev]), win(bg)
    total = dw + rw
    tiny = 1e-20
    active = (
        np.array([(t >= s["onset_s"]) & (t <= s["offset_s"]) for s in srcs]) if srcs else np.zeros((0, 0))
    )
    out = []
    for i, s in enumerate(srcs):
        others = total.sum(axis=0) - total[i]
        der = 10 * np.log10((dw[i] + tiny) / (rw[i] + others + bw + tiny))
        sir = 10 * np.log10((dw[i] + tiny) / (others + bw + tiny))
        drr = 10 * np.log10((dw[i] + tiny) / (rw[i] + tiny))
        on, off = s["onset_s"], s["offset_s"]
        ok = (t >= on + QUESTION_EDGE_S - 1e-9) & (t <= off - QUESTION_EDGE_S + 1e-9)
        if dominance_db is None or not np.any(ok):
            k = int(np.argmin(np.abs(t - 0.5 * (on + off))))
        else:
            k = int(np.flatnonzero(ok)[np.argmax(der[ok])])
        answerable = dominance_db is None or bool(sir[k] >= dominance_db and drr[k] >= min_drr_db)
        out.append(
            {
                "question_time_s": _r(t[k], 3),
                "drr_db": _r(drr[k], 2),
                "level_re_others_db": _r(10 * np.log10((dw[i, k] + tiny) / (others[k] + tiny)), 2),
                "level_re_ambient_db": _r(10 * np.log10((dw[i, k] + tiny) / (bw[k] + tiny)), 2),
                "sir_db": _r(sir[k], 2),
                "der_db": _r(der[k], 2),
                "overlap_s": _r(_overlap_s(srcs, i), 2),
                "answerable": answerable,
            }
        )
    return {"sources": out, "max_concurrent_sources": int(active.sum(axis=0).max()) if srcs else 0}


def _overlap_s(srcs: list[dict], i: int) -> float:
    """Seconds of source i's activity during which at least one other source is active."""
    on, off = srcs[i]["onset_s"], srcs[i]["offset_s"]
    spans = sorted(
        (max(on, s["onset_s"]), min(off, s["offset_s"]))
        for j, s in enumerate(srcs)
        if j != i and min(off, s["offset_s"]) > max(on, s["onset_s"])
    )
    total, end = 0.0, on
    for a, b in spans:
        a = max(a, end)
        if b > a:
            total += b - a
            end = b
    return total
