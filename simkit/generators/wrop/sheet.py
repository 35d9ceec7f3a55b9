"""Contact sheets for ``simkit inspect``: input frames | cut | target frames, the key event frame marked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def _pick(n_frames: int, k: int) -> list[int]:
    return sorted({int(round(x)) for x in np.linspace(0, n_frames - 1, min(k, n_frames))})


def contact_sheet(
    inp: np.ndarray, tgt: np.ndarray, event_frame: int | None, title: str, per_half: int = 6
) -> np.ndarray:
    """One RGB uint8 sheet: ``per_half`` input frames, a red cut bar, ``per_half`` target frames (the key event
    frame, given in absolute frame numbers, always among them and framed in red); frame numbers under tiles."""
    from PIL import Image, ImageDraw

    cut = len(inp)
    fi = _pick(len(inp), per_half)
    ft = _pick(len(tgt), per_half)
    if event_frame is not None and cut <= event_frame < cut + len(tgt) and event_frame - cut not in ft:
        ft = sorted(ft[:-1] + [event_frame - cut]) if len(ft) > 1 else [event_frame - cut]
    h, w = inp.shape[1:3]
    scale = max(1, int(np.ceil(160 / w)))
    tw, th = w * scale, h * scale
    pad, bar, label = 4, 8, 14
    n = len(fi) + len(ft)
    sheet = Image.new("RGB", (n * (tw + pad) + pad + bar + pad, th + 2 * pad + label + 16), "white")
    draw = ImageDraw.Draw(sheet)
    draw.text((pad, 2), title, fill=(0, 0, 0))
    x = pad
    y = 16 + pad
    for j, f in enumerate(fi + ft):
        is_t = j >= len(fi)
        if is_t and j == len(fi):
            draw.rectangle([x, y - 2, x + bar - 3, y + th + 2], fill=(220, 0, 0))
            x += bar
        arr = (tgt if is_t else inp)[f]
        tile = Image.fromarray(np.asarray(arr)).resize((tw, th), Image.NEAREST)
        sheet.paste(tile, (x, y))
        absf = f + cut if is_t else f
        if event_frame is not None and absf == event_frame:
            draw.rectangle([x - 2, y - 2, x + tw + 1, y + th + 1], outline=(220, 0, 0), width=2)
        draw.text((x, y + th + 2), f"{absf}" + (" event" if absf == event_frame else ""), fill=(0, 0, 0))
        x += tw + pad
    return np.asarray(sheet)


def contact_sheets(samples: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Write ``contact_<key>.png`` per sample and ``contact_sheet.png`` stacking them; return the paths."""
    from simkit.core.images import save_png, tile

    out_dir = Path(out_dir)
    paths, sheets = [], []
    for s in samples:
        if "input_video" not in s or "target_video" not in s:
            continue
        meta = s.get("meta") or {}
        ev = (meta.get("event_frames") or {}).get(meta.get("key_event"))
        title = f"{meta.get('generator_id', '?')}  cut={meta.get('cut_frame')}  {meta.get('key_event')}={ev}"
        sh = contact_sheet(np.asarray(s["input_video"]), np.asarray(s["target_video"]), ev, title)
        sheets.append(sh)
        paths.append(save_png(sh, out_dir / f"contact_{s.get('__key__', len(paths))}.png"))
    if sheets:
        paths.append(save_png(tile(sheets, cols=1), out_dir / "contact_sheet.png"))
    return paths
