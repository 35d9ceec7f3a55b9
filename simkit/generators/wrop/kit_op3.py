"""Shared choreography of the OP-3 (container permanence) tasks beyond the cups of :mod:`.kit`.

Containers of this family (ground top at z = 0, metres, camera on the -y side):

* an upturned ``cup`` (:func:`simkit.generators.wrop.kit.cup`) or an upturned crate (an ``open_box``
  turned 180 deg about x, so its open face is at the bottom, :func:`crate`) put over an object on the floor;
  it hides the object while its rim rests on the floor and reveals it when lifted or tipped over;
* a lidded box (an upright ``open_box`` plus a flat ``box`` lid, :func:`lidded_box`) seen from the raised
  :data:`BOX_VIEW`, so the contents are hidden while the lid is on and seen from above once it is off.

Helpers: :func:`hinge` (rotation about a horizontal axis through a pivot: lids that swing open, containers
that tip over), :func:`swap_arc` (two containers exchange places on curved paths), :func:`shuffle_pairs`
(a sequence of swaps decoded from a structural integer), :func:`rising_column` (a lift column that grows
from the floor, carrying what stands on it) and :func:`cover_expectations` (hidden / visible / bound
expectations of a covered object for any set of covers).
"""

from __future__ import annotations

import itertools

import numpy as np

from simkit.generators.wrop.base import Clip, Look
from simkit.scenes.wrop import expect as X
from simkit.scenes.wrop.motion import Motion, ease
from simkit.scenes.wrop.spec import SceneObject, Track

#: raised camera of the lidded-box tasks: 6 m from (0, 0, 0.3), 40 deg above the horizon, so an opened
#: box shows its contents from above
BOX_VIEW = {"target": (0.0, 0.0, 0.3), "distance": 6.0, "elevation_deg": 40.0}
#: lid thickness (m)
LID_T = 0.05
#: clearance (m) between a contained object and the lid or the walls
BOX_CLEAR = 0.06


def crate(name: str, look: Look, slot: str, track: Track, size: tuple[float, float, float]) -> SceneObject:
    """An upturned crate: an ``open_box`` of ``size`` (sx, sy, sz) turned 180 deg about x (open face down).

    ``track`` must carry the rotation (pi, 0, 0) (use ``Motion(..., rotation=CRATE_ROT)``).
    """
    return SceneObject(name, "container", "open_box", size, look.mat(slot), track)


#: Euler rotation (rad) of an upturned crate
CRATE_ROT = (np.pi, 0.0, 0.0)


def lidded_box(
    look: Look, box: Motion, lid: Motion, size: tuple[float, float, float], prefix: str = ""
) -> list[SceneObject]:
    """An upright ``open_box`` named ``{prefix}box`` of ``size`` (m) and its flat lid ``{prefix}lid``
    (``size[0] + 0.04`` x ``size[1] + 0.04`` x :data:`LID_T`), colours from the slots of the same names."""
    sx, sy, _ = size
    return [
        SceneObject(f"{prefix}box", "container", "open_box", size, look.mat(f"{prefix}box"), box.track()),
        SceneObject(
            f"{prefix}lid", "lid", "box", (sx + 0.04, sy + 0.04, LID_T), look.mat(f"{prefix}lid"), lid.track()
        ),
    ]


def box_pair(
    clip: Clip, xa: float, xb: float, width: float, height: float, close_from: int
) -> tuple[dict[str, Motion], dict[str, Motion]]:
    """(boxes, lids): motions of two open boxes ``"a_"`` and ``"b_"`` (walls ``height`` m) standing at
    x = ``xa`` and ``xb`` (m) on y = 0, and of their lids, held at y = ``width`` + 0.3 m and ``height`` + 0.9 m
    up, which close them on an arc (0.2 m bulge) from frame ``close_from`` to the frame two before the cut."""
    T, fps = clip.frames, clip.fps
    boxes = {"a_": Motion(T, fps, (xa, 0, height / 2)), "b_": Motion(T, fps, (xb, 0, height / 2))}
    lids = {k: Motion(T, fps, (m.at(0)[0], width + 0.3, height + 0.9)) for k, m in boxes.items()}
    for k, lid in lids.items():
        lid.arc(close_from, clip.cut - 2, (boxes[k].at(0)[0], 0, height + LID_T / 2), 0.2)
    return boxes, lids


def lids_ride_then_lift(
    clip: Clip, boxes: dict[str, Motion], lids: dict[str, Motion], until: int, width: float, height: float
) -> None:
    """Each lid of :func:`box_pair` rides on its box from the cut to frame ``until``, then is lifted off on an
    arc (0.2 m bulge) back to where it was held, by frame ``T - 3``."""
    for k, lid in lids.items():
        lid.follow(boxes[k], clip.cut, until)
        lid.arc(until + 1, clip.frames - 3, (boxes[k].at(until)[0], width + 0.3, height + 0.9), 0.2)


def box_pair_objects(
    look: Look,
    boxes: dict[str, Motion],
    lids: dict[str, Motion],
    width: float,
    height: float,
    r: float,
    ball: Motion,
) -> list[SceneObject]:
    """The scene objects of :func:`box_pair` (:func:`lidded_box` ``a_`` and ``b_``, ``width`` x ``width`` x
    ``height`` m) and the ball ``"target"`` of radius ``r`` (m) on ``ball``."""
    objs = lidded_box(look, boxes["a_"], lids["a_"], (width, width, height), "a_")
    objs += lidded_box(look, boxes["b_"], lids["b_"], (width, width, height), "b_")
    objs.append(SceneObject("target", "target", "sphere", (r,), look.mat("target"), ball.track()))
    return objs


def box_height(content_height: float) -> float:
    """Wall height (m) of a box holding an object ``content_height`` m tall: the height plus ``BOX_CLEAR``."""
    return content_height + BOX_CLEAR


def lid_closed(box: Motion, lid: Motion, height: float) -> np.ndarray:
    """Frames (bool (T,)) on which the lid rests on the box rim: lid centre within 1 mm of the rim top
    (``height / 2 + LID_T / 2`` above the box centre) and within 1 cm of the box axis horizontally."""
    d = lid.pos - box.pos
    return (np.abs(d[:, 2] - (height / 2 + LID_T / 2)) < 1e-3) & (np.linalg.norm(d[:, :2], axis=1) < 0.01)


def lid_open(box: Motion, lid: Motion, height: float, width: float, rise: float = 0.5) -> np.ndarray:
    """Frames (bool (T,)) on which the lid is clear of the box's opening: at least ``rise`` m above its closed
    height over the box, or at least ``width`` m aside of the box axis in depth (y)."""
    d = lid.pos - box.pos
    return (d[:, 2] - (height / 2 + LID_T / 2) >= rise) | (np.abs(d[:, 1]) >= width)


def hinge(m: Motion, f0: int, f1: int, pivot, angle: float, axis: int = 1, easing: str = "smooth") -> Motion:
    """Rotate ``m`` rigidly by ``angle`` rad about the world ``axis`` (0 = x, 1 = y) through ``pivot`` (3,)
    over ``f0 .. f1`` (right-hand rule; ``f1 == f0`` turns at once) and hold the end pose: position ``p = c + R(a u)(p0 - c)`` with
    ``u = ease((f - f0)/(f1 - f0))``, and ``a u`` added to the Euler angle of that axis. The Euler addition
    is exact when the Euler z angle is 0 and, for ``axis`` 0, the Euler y angle is 0 too (upright or upturned
    containers and flat lids).

    Raises:
        ValueError: frames outside the track, or ``axis`` not 0 or 1.
    """
    if axis not in (0, 1):
        raise ValueError(f"hinge axis must be 0 (x) or 1 (y), got {axis}")
    fr = np.arange(f0, f1 + 1)
    if not (0 <= f0 <= f1 < m.frames):
        raise ValueError(f"frames {f0}..{f1} outside 0..{m.frames - 1}")
    c = np.asarray(pivot, float)
    p0 = m.pos[f0] - c
    a = angle * (np.ones(1) if f1 == f0 else ease((fr - f0) / (f1 - f0), easing))
    ca, sa = np.cos(a), np.sin(a)
    i, j = (1, 2) if axis == 0 else (2, 0)  # rotation in the (i, j) plane: i' = c i - s j, j' = s i + c j
    m.pos[fr, axis] = c[axis] + p0[axis]
    m.pos[fr, i] = c[i] + ca * p0[i] - sa * p0[j]
    m.pos[fr, j] = c[j] + sa * p0[i] + ca * p0[j]
    m.pos[f1 + 1 :] = m.pos[f1]
    r0 = m.rot[f0, axis]
    m.rot[fr, axis] = r0 + a
    m.rot[f1 + 1 :, axis] = m.rot[f1, axis]
    return m


def rising_column(T: int, fps: float, xy, h0: float, h1: float, f0: int, f1: int) -> Motion:
    """Track of a lift column: a ``box`` of unit height (dims ``(sx, sy, 1.0)``) whose height (z scale) goes
    from ``h0`` to ``h1`` m over ``f0 .. f1`` (smoothstep) with its bottom on the floor (centre z = h / 2),
    so whatever rests on its top rises by ``h1 - h0``. ``column_top(m)`` gives the top height per frame.

    Raises:
        ValueError: a height <= 0 or frames outside the track.
    """
    if min(h0, h1) <= 0:
        raise ValueError(f"column heights must be > 0, got {h0}, {h1}")
    m = Motion(T, fps, (xy[0], xy[1], h0 / 2))
    m.move(f0, f1, (xy[0], xy[1], h1 / 2), "smooth")
    m.scl[:, 2] = 2 * m.pos[:, 2]
    return m


def column_top(m: Motion) -> np.ndarray:
    """Top height (m, (T,)) of a :func:`rising_column` track: its z scale (unit-height box on the floor)."""
    return m.scl[:, 2].copy()


def swap_arc(a: Motion, b: Motion, f0: int, f1: int, bulge: float) -> None:
    """Containers ``a`` and ``b`` exchange their positions at ``f0`` over ``f0 .. f1`` on eased arcs that bow
    ``bulge`` m apart in depth (``a`` toward -y, ``b`` toward +y), so they pass without touching when
    ``bulge`` exceeds their radius."""
    pa, pb = a.at(f0), b.at(f0)
    a.arc(f0, f1, pb, bulge, direction=(0, -1, 0))
    b.arc(f0, f1, pa, bulge, direction=(0, 1, 0))


def shuffle_pairs(code: int, n_items: int, n_swaps: int) -> list[tuple[int, int]]:
    """The ``n_swaps`` place swaps (pairs of slot indices) encoded by ``code``: digit k (base = number of
    pairs of ``n_items`` slots) of ``code`` picks the k-th swap; consecutive equal swaps are replaced by the
    next pair so that every swap changes the layout relative to the previous one."""
    pairs = list(itertools.combinations(range(n_items), 2))
    out: list[tuple[int, int]] = []
    for _ in range(n_swaps):
        p = pairs[code % len(pairs)]
        code //= len(pairs)
        if out and p == out[-1]:
            p = pairs[(pairs.index(p) + 1) % len(pairs)]
        out.append(p)
    return out


def cover_expectations(
    T: int,
    target: str,
    height: float,
    bottoms: dict[str, np.ndarray],
    holder: str,
    floor_z: float = 0.0,
    clear: float = 0.5,
) -> tuple[list[X.Expectation], list[int], list[int]]:
    """Expectations of an object ``height`` m tall covered by ``holder`` among covers with rim heights
    ``bottoms`` (name -> (T,) z of the open face): hidden where the holder's rim is on the floor (within
    1 cm of ``floor_z``), visible where every rim is ``height + clear`` m above the floor, and bound to the
    holder while its rim rests exactly on the floor. Returns (expectations, hidden frames, visible frames)."""
    hid = [f for f in range(T) if bottoms[holder][f] <= floor_z + 0.01]
    vis = [f for f in range(T) if all(b[f] >= floor_z + height + clear for b in bottoms.values())]
    resting = [f for f in hid if abs(bottoms[holder][f] - floor_z) < 1e-6]
    exps = [X.hidden(target, hid), X.visible(target, vis)]
    if resting:
        exps.append(X.bound(target, holder, resting))
    return exps, hid, vis


__all__ = [
    "BOX_CLEAR",
    "BOX_VIEW",
    "CRATE_ROT",
    "LID_T",
    "box_height",
    "column_top",
    "cover_expectations",
    "crate",
    "hinge",
    "lid_closed",
    "lid_open",
    "lidded_box",
    "rising_column",
    "shuffle_pairs",
    "swap_arc",
]
