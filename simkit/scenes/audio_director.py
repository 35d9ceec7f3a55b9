"""Scene director of the FOA corpora: sources, loudness, timing, trajectories and the camera.

The director plays the role of the OmniEcho "LLM director" (seed notes, "training data
synthesis") with explicit random draws: it emits a structured, JSON-serialisable scene with
N foreground sources plus one ambient bed, each source with a semantic label, a target
loudness (LUFS, measured on the dry stem, i.e. the level at 1 m), an onset/offset and a full
trajectory; 2-4 off-screen sources forced outside the camera's field of view at every instant;
and a camera yaw trajectory (the audio rotates with the camera because the listener is the
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


def feasible_motions(p: DirectorParams) -> tuple[float, float, float]:
    """Motion probabilities (static, lateral, radial) usable with ``p.distance_m``: a radial motion
    needs a distance span of at least :data:`RADIAL_MIN_SPAN_M`, so it is dropped otherwise."""
    probs = np.asarray(p.motion_probs, dtype=np.float64)
    if p.distance_m[1] - p.distance_m[0] < RADIAL_MIN_SPAN_M:
        probs[2] = 0.0
    return tuple(float(x) for x in probs / probs.sum())


def _draw_keyframes(
    rng, p: DirectorParams, onset: float, offset: float, motion: str, az_range, static: bool, el_range=None
):
    """World-polar keyframes [t, az, el, r] for one source; az_range limits the azimuth and
    el_range (default ``p.elevation_deg``) the elevation (degrees). Distances stay in ``p.distance_m``."""
    lo_r, hi_r = p.distance_m
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

    Raises:
        DirectorFailed: constraints (off-screen placement, distinct motion labels) not met after
            many attempts with this random stream.
    """
    static = p.mode == "foa-static"
    duration = _r(rng.uniform(*p.static_duration_s), 2) if static else float(p.duration_s)
    cam = _camera(rng, p, duration, static)
    half = p.fov_deg / 2.0

    n_fg = int(rng.integers(p.n_sources[0], p.n_sources[1] + 1))
    n_off = 0 if static else int(rng.integers(p.n_offscreen[0], p.n_offscreen[1] + 1))
    labels = list(p.labels)
    n_total = n_fg + n_off
    picked = list(rng.choice(labels, size=n_total, replace=n_total > len(labels)))
    motion_p = feasible_motions(p)
    el_lim = foreground_elevation_limit(p.fov_deg, *p.image_size)
    sources = []
    for i in range(n_total):
        role = "source" if static else "foreground" if i < n_fg else "offscreen"
        for _attempt in range(60):
            if static:
                onset, offset, motion = 0.0, duration, "static"
            else:
                onset = _r(rng.uniform(0.0, min(0.25 * duration, duration - MIN_ACTIVE_S)), 2)
                offset = _r(
                    rng.uniform(min(max(onset + MIN_ACTIVE_S, 0.7 * duration), duration), duration), 2
                )
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
            kf = _draw_keyframes(rng, p, onset, offset, motion, az_range, static, el_range)
            src = {
                "id": f"s{i}",
                "label": str(picked[i]),
                "role": role,
                "lufs": _r(rng.uniform(*p.lufs), 2),
                "onset_s": onset,
                "offset_s": offset,
                "keyframes": kf,
            }
            tr = _track(np.asarray(kf), np.asarray(cam["yaw_keyframes"], dtype=np.float64), duration, cam)
            az_t = np.asarray(tr["azimuth_deg"])
            if role == "offscreen" and np.any(np.abs(az_t) <= half + p.offscreen_margin_deg):
                continue
            if role == "foreground" and not static:
                k_on = int(round(onset * TRACK_RATE_HZ))
                if not tr["on_screen"][min(k_on, len(az_t) - 1)]:
                    continue
            mot = motion_of(src, {"duration_s": duration})
            if not static and not _clear_motion(mot):
                continue
            src["motion"] = mot["motion"]
            src["track"] = tr
            sources.append(src)
            break
        else:
            raise DirectorFailed(f"could not place source {i} ({role}) after 60 attempts")
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
    scene["room"] = _room(rng, p, sources) if p.room else None
    return scene


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

    pts = [np.zeros((1, 3))]
    for s in sources:
        kf = np.asarray(s["keyframes"], dtype=np.float64)
        traj = PolarTrajectory(kf[:, 0], np.radians(kf[:, 1]), np.radians(kf[:, 2]), kf[:, 3])
        pts.append(traj.positions(np.linspace(kf[0, 0], kf[-1, 0], 33)))
    pts = np.concatenate(pts)
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
    }


# -- rendering ---------------------------------------------------------------------------------------
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
        peak-limiting gain, <= 0 dB) and ``info["snr_db_measured"]`` per interferer.
    """
    from simkit.assets.sounds import gate, normalise_loudness
    from simkit.renderers.foa import (
        ListenerPose,
        PolarTrajectory,
        ShoeboxRoom,
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
    cam = scene["camera"]
    ykf = np.asarray(cam["yaw_keyframes"], dtype=np.float64)
    listener = (
        ListenerPose(yaw_times=ykf[:, 0], yaw=np.radians(ykf[:, 1]))
        if len(ykf) > 1
        else ListenerPose(yaw=np.radians(ykf[:, 1]))
    )
    fade = int(0.01 * sr)
    srcs = []
    for s in scene["sources"]:
        m = max(1, int(round((s["offset_s"] - s["onset_s"]) * sr)))
        stem = bank.draw(s["label"], m, sr, rng)
        stem = gate(normalise_loudness(stem, sr, s["lufs"]), sr)
        if m > 2 * fade:
            ramp = np.linspace(0.0, 1.0, fade)
            stem[:fade] *= ramp
            stem[-fade:] *= ramp[::-1]
        kf = np.asarray(s["keyframes"], dtype=np.float64)
        traj = PolarTrajectory(kf[:, 0], np.radians(kf[:, 1]), np.radians(kf[:, 2]), kf[:, 3])
        srcs.append(Source(stem, traj, 1.0, s["onset_s"]))
    room = None
    if scene.get("room"):
        rm = scene["room"]
        room = ShoeboxRoom(
            tuple(rm["size_m"]), rm["absorption"], rm["image_order"], rm["rt60_s"], tuple(rm["origin_m"])
        )
    foa = render_foa(srcs, sr, n, listener, room, delay=delay, r_min=r_min, block=block, rng=rng)
    info: dict = {"snr_db_measured": []}
    target = foa.copy()
    if scene.get("ambient"):
        amb = scene["ambient"]
        x = normalise_loudness(bank.draw(amb["label"], n, sr, rng), sr, amb["lufs"])
        foa += ambient_bed(x, n, rng)
    for itf in scene.get("interferers", []):
        x = bank.draw(itf["label"], n, sr, rng)
        u = direction_to_unit(np.radians(itf["azimuth_deg"]), np.radians(itf["elevation_deg"]))
        pw = render_foa([Source(x, Trajectory.static(u), plane_wave=True)], sr, n, listener)
        if np.any(target) and np.any(pw):
            pw, _ = scale_to_snr(target, pw, itf["snr_db"])
            info["snr_db_measured"].append(_r(snr_db(target, pw), 3))
            foa += pw
    foa, g = peak_normalise(foa, 0.99)
    info["mix_gain_db"] = _r(20 * np.log10(g), 3)
    return foa, info
