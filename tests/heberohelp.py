"""A ``hebero-demos`` generator that also records camera fields, for the export tests.

The camera fields carry the names and shapes ``hebero-demos`` records with cameras on
(``agentview_rgb``, ``eye_in_hand_rgb``: uint8 (T1, H, W, 3) mp4, row 0 = top;
``agentview_depth``: float32 (T1, H, W) metres), with synthetic pictures: smooth colour ramps
that move with the step and the gripper height, so H.264 keeps them within a few grey levels
and every frame differs. Registered under the name ``hebero-demos`` through $SIMKIT_GENERATORS.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from simkit.core.episode import Episode, Video
from simkit.core.fields import FieldSpec
from simkit.generators.hebero.generator import HeberoDemosGenerator

H, W = 32, 48


def camera_frames(ee_pos: np.ndarray, phase: float) -> np.ndarray:
    """uint8 (T1, H, W, 3): row 0 dark red at the top, brighter downwards; colours follow ee z and the step."""
    t = np.arange(len(ee_pos))[:, None, None]
    y = np.arange(H)[None, :, None] / (H - 1)
    x = np.arange(W)[None, None, :] / (W - 1)
    z = np.asarray(ee_pos)[:, 2][:, None, None]
    r = 40 + 180 * y + 0 * x + 0 * t
    g = 120 + 80 * np.sin(2 * np.pi * (x + 0.02 * t + phase))
    b = 60 + 150 * np.clip(z - 0.8, 0, 1) + 20 * x
    return np.clip(np.stack(np.broadcast_arrays(r, g, b), -1), 0, 255).round().astype(np.uint8)


class CameraDemos(HeberoDemosGenerator):
    fields: ClassVar[tuple[FieldSpec, ...]] = (
        *HeberoDemosGenerator.fields,
        FieldSpec("agentview_rgb", "mp4", "uint8", ("T1", H, W, 3), "", "image, row 0 = top", "front camera"),
        FieldSpec(
            "eye_in_hand_rgb", "mp4", "uint8", ("T1", H, W, 3), "", "image, row 0 = top", "wrist camera"
        ),
        FieldSpec(
            "agentview_depth", "npy", "float32", ("T1", H, W), "m", "image, row 0 = top", "front depth"
        ),
    )
    required_fields = tuple(f.name for f in fields)

    def generate(self, index: int, rng: np.random.Generator) -> Episode:
        ep = super().generate(index, rng)
        ee = ep.fields["ee_pos"]
        ep.fields["agentview_rgb"] = Video(camera_frames(ee, 0.0), fps=20)
        ep.fields["eye_in_hand_rgb"] = Video(camera_frames(ee, 0.5), fps=20)
        depth = 1.0 + np.arange(H, dtype=np.float32)[:, None] / H + np.zeros((len(ee), 1, W), np.float32)
        ep.fields["agentview_depth"] = depth
        return ep
