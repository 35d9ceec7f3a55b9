"""Import of VLN-CE episode files (R2R-CE, RxR-CE): scene id, start pose, goal, reference path.

VLN-CE (Krantz et al., "Beyond the Nav-Graph", ECCV 2020) stores a dataset split as JSON, usually
gzipped: ``{"episodes": [{"episode_id", "scene_id", "start_position": [x, y, z],
"start_rotation": [x, y, z, w], "goals": [{"position": [x, y, z], "radius"}], "reference_path":
[[x, y, z], ...], "instruction": {"instruction_text", ...}, "info": {"geodesic_distance"}}, ...]}``
in Habitat's frame (y up; an agent with identity rotation looks along -z).

Frame change to simkit's world (z up, yaw counter-clockwise from +x): a Habitat point
``(hx, hy, hz)`` is ``(x, y, z) = (hx, -hz, hy)`` (the inverse of the glTF export's
``(x, y, z) -> (x, z, -y)``), and the heading is the direction of the rotated -z axis,
``yaw = atan2(-f_z, f_x)`` with ``f = R(q) (0, 0, -1)``.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.core.errors import InputError


@dataclass(frozen=True)
class VlnceEpisode:
    """One imported episode (metres, radians; simkit's world frame).

    Attributes:
        episode_id: as in the file. scene_id: the Habitat scene path (e.g. ``mp3d/X/X.glb``).
        start: (2,) start (x, y). start_yaw: heading. floor_z: the start's height (the floor).
        goal: (2,) goal (x, y). goal_radius: metres (VLN-CE: 3.0).
        reference_path: (K, 2) the dataset's path. instruction: the text (may be empty).
    """

    episode_id: str
    scene_id: str
    start: np.ndarray
    start_yaw: float
    floor_z: float
    goal: np.ndarray
    goal_radius: float
    reference_path: np.ndarray
    instruction: str


def habitat_to_world(p) -> np.ndarray:
    """Habitat (x, y up, z) -> simkit (x, y, z up): ``(hx, -hz, hy)``, float64 (..., 3)."""
    p = np.asarray(p, dtype=np.float64)
    return np.stack([p[..., 0], -p[..., 2], p[..., 1]], axis=-1)


def habitat_yaw(q) -> float:
    """simkit yaw (rad, in [-pi, pi], counter-clockwise from world +x) of a Habitat rotation quaternion
    ``[x, y, z, w]`` (module docstring).

    Raises:
        ValueError: the quaternion is zero.
    """
    x, y, z, w = (float(v) for v in q)
    n = np.sqrt(x * x + y * y + z * z + w * w)
    if n == 0:
        raise ValueError("zero quaternion")
    x, y, z, w = x / n, y / n, z / n, w / n
    # third column of R(q), negated: f = R (0, 0, -1)
    fx = -(2 * (x * z + w * y))
    fz = -(1 - 2 * (x * x + y * y))
    return float(np.arctan2(-fz, fx))


def _episode(e: dict) -> VlnceEpisode:
    start = habitat_to_world(e["start_position"])
    goal = habitat_to_world(e["goals"][0]["position"])
    ref = e.get("reference_path") or [e["start_position"], e["goals"][0]["position"]]
    instr = e.get("instruction") or {}
    return VlnceEpisode(
        episode_id=str(e["episode_id"]),
        scene_id=str(e["scene_id"]),
        start=start[:2],
        start_yaw=habitat_yaw(e["start_rotation"]),
        floor_z=float(start[2]),
        goal=goal[:2],
        goal_radius=float(e["goals"][0].get("radius", 3.0) or 3.0),
        reference_path=habitat_to_world(ref)[:, :2],
        instruction=str(instr.get("instruction_text", "")) if isinstance(instr, dict) else str(instr),
    )


def load_vlnce(path: str | Path) -> list[VlnceEpisode]:
    """Read a VLN-CE episode file (``.json`` or ``.json.gz``).

    Raises:
        InputError: missing or unreadable file, bad JSON, or an episode lacking a required key
            (names the file and the episode index).
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "VLN-CE episode file not found")
    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        data = json.loads(raw)
    except (OSError, ValueError, EOFError) as exc:
        raise InputError(path, f"not a VLN-CE episode JSON file ({type(exc).__name__}: {exc})") from None
    eps = data.get("episodes") if isinstance(data, dict) else None
    if not isinstance(eps, list):
        raise InputError(path, 'expected a JSON object with an "episodes" list')
    out = []
    for i, e in enumerate(eps):
        try:
            out.append(_episode(e))
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise InputError(path, f"episode {i}: missing or malformed {exc}") from None
    return out


def resolve_scene(scene_id: str, scenes_dir: str | Path) -> Path | None:
    """The scene mesh for ``scene_id`` under ``scenes_dir`` (``DIR/scene_id``, or ``DIR/<name>/<name>.glb``
    / ``DIR/<file name>``), or None when absent."""
    root = Path(scenes_dir)
    sid = Path(scene_id)
    for cand in (root / sid, root / sid.parent.name / sid.name, root / sid.name):
        if cand.is_file():
            return cand
    return None
