"""Contact sheets for ``simkit inspect``: one PNG per sample, input frames | cut | target frames.

Layout (top to bottom): a title line (generator, cut frame, key event); the input frames in rows of
``per_row`` tiles; a red bar labelled with the cut frame; the target frames in rows of ``per_row``
tiles. Tiles are scaled (nearest neighbour) to at least :data:`TILE_WIDTH` pixels wide so small
renders stay legible; each tile carries its absolute frame number, and the key event's frame is
framed in red and always shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

#: least tile width (pixels) on a contact sheet
TILE_WIDTH = 256


def _pick(n_frames: int, k: int) -> list[int]:
    return sorted({int(round(x)) for x in np.linspace(0, n_frames - 1, min(k, n_frames))})


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: the fixed bitmap font
        return ImageFont.load_default()


def sheet_layout(n_input: int, n_target: int, per_row: int) -> tuple[int, int]:
    """(rows of input tiles, rows of target tiles) for ``per_row`` tiles per row."""
    return -(-n_input // per_row), -(-n_target // per_row)


def contact_sheet(
    inp: np.ndarray,
    tgt: np.ndarray,
    event_frame: int | None,
    title: str,
    per_half: int = 8,
    per_row: int = 4,
) -> np.ndarray:
    """One RGB uint8 sheet (module docstring): up to ``per_half`` input and ``per_half`` target frames
    ((T, H, W, 3) uint8 each; the key event frame, in absolute frame numbers, always among the targets)."""
    from PIL import Image, ImageDraw

    cut = len(inp)
    fi = _pick(len(inp), per_half)
    ft = _pick(len(tgt), per_half)
    if event_frame is not None and cut <= event_frame < cut + len(tgt) and event_frame - cut not in ft:
        ft = sorted(ft[:-1] + [event_frame - cut]) if len(ft) > 1 else [event_frame - cut]
    h, w = inp.shape[1:3]
    scale = max(1, int(np.ceil(TILE_WIDTH / w)))
    tw, th = w * scale, h * scale
    pad, label, head, bar = 8, 20, 30, 26
    rows_i, rows_t = sheet_layout(len(fi), len(ft), per_row)
    cols = min(per_row, max(len(fi), len(ft)))
    width = cols * (tw + pad) + pad
    height = head + (rows_i + rows_t) * (th + label + pad) + bar + 2 * pad
    sheet = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(sheet)
    font, small = _font(16), _font(13)
    draw.text((pad, 6), title, fill=(0, 0, 0), font=font)

    def block(frames: list[int], video: np.ndarray, offset: int, y0: int) -> int:
        for j, f in enumerate(frames):
            r, c = divmod(j, per_row)
            x, y = pad + c * (tw + pad), y0 + r * (th + label + pad)
            sheet.paste(
                Image.fromarray(np.asarray(video[f])).resize((tw, th), Image.Resampling.NEAREST), (x, y)
            )
            absf = f + offset
            is_event = event_frame is not None and absf == event_frame
            if is_event:
                draw.rectangle([x - 3, y - 3, x + tw + 2, y + th + 2], outline=(220, 0, 0), width=3)
            draw.text(
                (x, y + th + 3),
                f"frame {absf}" + ("  (event)" if is_event else ""),
                fill=(0, 0, 0),
                font=small,
            )
        return y0 + -(-len(frames) // per_row) * (th + label + pad)

    y = block(fi, inp, 0, head)
    draw.rectangle([pad, y, width - pad, y + 6], fill=(220, 0, 0))
    draw.text((pad, y + 8), f"cut: target frames from {cut}", fill=(160, 0, 0), font=small)
    block(ft, tgt, cut, y + bar)
    return np.asarray(sheet)


def contact_sheets(samples: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Write one ``contact_<key>.png`` per sample (each key once); return the paths."""
    from simkit.core.images import save_png

    out_dir = Path(out_dir)
    paths: list[Path] = []
    seen: set[str] = set()
    for s in samples:
        key = str(s.get("__key__", len(paths)))
        if "input_video" not in s or "target_video" not in s or key in seen:
            continue
        seen.add(key)
        meta = s.get("meta") or {}
        ev = (meta.get("event_frames") or {}).get(meta.get("key_event"))
        title = f"{key}: {meta.get('generator_id', '?')}  cut={meta.get('cut_frame')}  {meta.get('key_event')}={ev}"
        sh = contact_sheet(np.asarray(s["input_video"]), np.asarray(s["target_video"]), ev, title)
        paths.append(save_png(sh, out_dir / f"contact_{key}.png"))
    return paths
