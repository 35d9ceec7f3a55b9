"""Image helpers shared by contact sheets, heightmap strips and ``simkit inspect``: RGB conversion,
grid tiling, captions and PNG saving.

Images are numpy arrays, rows first: (H, W) or (H, W, C), pixel (0, 0) at the top left.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def as_rgb(img: np.ndarray) -> np.ndarray | None:
    """An image as uint8 (H, W, 3), or ``None`` when it is not an image.

    Grey (H, W) is repeated over 3 channels, alpha is dropped, and non-uint8 values are stretched
    linearly from their min..max to 0..255.
    """
    a = np.asarray(img)
    if a.ndim == 2:
        a = np.repeat(a[:, :, None], 3, axis=2)
    if a.ndim != 3 or a.shape[2] not in (3, 4):
        return None
    a = a[:, :, :3]
    if a.dtype != np.uint8:
        a = a.astype(np.float64)
        lo, hi = float(np.nanmin(a)), float(np.nanmax(a))
        a = ((a - lo) / (hi - lo if hi > lo else 1.0) * 255).astype(np.uint8)
    return a


def tile(images: list[np.ndarray], cols: int, pad: int = 4, bg: int = 255) -> np.ndarray:
    """Tile RGB uint8 images into one grid, ``cols`` per row (at most ``len(images)`` columns).

    Every cell is as large as the largest image; images sit at their cell's top left, ``pad`` pixels
    of colour ``bg`` around and between cells. Returns uint8 (rows*(h+pad)+pad, cols*(w+pad)+pad, 3).

    Raises:
        ValueError: ``images`` is empty.
    """
    if not images:
        raise ValueError("no images to tile")
    h = max(i.shape[0] for i in images)
    w = max(i.shape[1] for i in images)
    cols = max(1, min(cols, len(images)))
    rows = (len(images) + cols - 1) // cols
    sheet = np.full((rows * (h + pad) + pad, cols * (w + pad) + pad, 3), bg, np.uint8)
    for k, img in enumerate(images):
        r, c = divmod(k, cols)
        y, x = pad + r * (h + pad), pad + c * (w + pad)
        sheet[y : y + img.shape[0], x : x + img.shape[1]] = img
    return sheet


def captioned(img: np.ndarray, caption: str, size: int = 12) -> np.ndarray:
    """``img`` (uint8 (H, W, 3)) under a white strip with ``caption`` in black (PIL's default font at
    ``size`` px, clipped to the image width): uint8 (H + size + 6, W, 3)."""
    from PIL import Image as PILImage
    from PIL import ImageDraw, ImageFont

    strip = PILImage.new("RGB", (img.shape[1], size + 6), "white")
    ImageDraw.Draw(strip).text((3, 2), caption, fill=(0, 0, 0), font=ImageFont.load_default(size))
    return np.concatenate([np.asarray(strip, np.uint8), img], axis=0)


def save_png(arr: np.ndarray, path: Path) -> Path:
    """Write ``arr`` (uint8 (H, W) or (H, W, 3|4)) as a PNG at ``path`` (parents created); returns ``path``."""
    from PIL import Image as PILImage

    path.parent.mkdir(parents=True, exist_ok=True)
    PILImage.fromarray(arr).save(path)
    return path


def default_contact_sheet(samples: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Tile the first image-like field (PNG, or 2-D/3-D arrays) of each sample into ``contact_sheet.png``."""
    images = []
    for s in samples:
        for name in sorted(k for k in s if not k.startswith("__")):
            v = s[name]
            if isinstance(v, np.ndarray) and v.ndim in (2, 3) and min(v.shape[:2]) >= 8:
                rgb = as_rgb(v)
                if rgb is not None:
                    images.append(rgb)
                    break
    if not images:
        return []
    return [save_png(tile(images, cols=min(8, len(images))), Path(out_dir) / "contact_sheet.png")]
