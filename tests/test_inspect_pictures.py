"""Pictures of ``simkit inspect`` a person can read: captioned pair panels."""

from __future__ import annotations

import numpy as np
from PIL import Image

from simkit.core.images import captioned


def test_captioned_puts_dark_text_on_a_white_strip_above_the_image():
    img = np.full((20, 120, 3), 7, np.uint8)
    out = captioned(img, "A (view 1)", size=12)
    assert out.shape == (38, 120, 3) and out.dtype == np.uint8
    assert np.array_equal(out[18:], img)  # the image itself is untouched, under the strip
    strip = out[:18]
    assert (strip == 255).mean() > 0.7 and (strip.min(axis=2) < 100).sum() > 20  # white, with dark glyphs
    assert not np.array_equal(strip, captioned(img, "B (view 2)", size=12)[:18])


def test_pairs_panels_carry_a_b_m_and_flow_captions(tmp_path):
    from simkit.generators.pairs.generator import PANEL_CAPTIONS, PairsGenerator

    h, w = 24, 160
    ys, xs = np.mgrid[0:h, 0:w]
    sample = {
        "__key__": "pairs_00000000",
        "image_a": np.full((h, w, 3), 90, np.uint8),
        "image_b": np.full((h, w, 3), 160, np.uint8),
        "covisibility": (xs < w // 2).astype(np.uint8),
        "correspondence": np.stack([xs + 3.0, ys + 0.0], -1).astype(np.float32),
    }
    paths = PairsGenerator().inspect([sample], tmp_path)
    assert [p.name for p in paths] == ["pair_pairs_00000000.png", "pairs_sheet.png"]
    row = np.asarray(Image.open(paths[0]).convert("RGB"))
    pad, strip = 4, 12 + 6
    assert row.shape == (pad + strip + h + pad, pad + 4 * (w + pad), 3)
    panels = [row[pad : pad + strip, pad + k * (w + pad) : pad + k * (w + pad) + w] for k in range(4)]
    for k, (got, text) in enumerate(zip(panels, PANEL_CAPTIONS, strict=True)):
        want = captioned(np.zeros((1, w, 3), np.uint8), text)[:strip]
        assert np.array_equal(got, want), f"panel {k} is not captioned {text!r}"
    assert [c.split(" ")[0] for c in PANEL_CAPTIONS] == ["A", "B", "M:", "flow"]
