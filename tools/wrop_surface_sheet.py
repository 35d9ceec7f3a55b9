"""Contact sheet of the WROP surface variety (docs/wrop_surface.png): one structural draw per row, surface
seeds along the row, the centre of one frame each rendered with Cycles; each panel is labelled with its lighting set-up,
the target's pattern and its prop. Usage::

    python tools/wrop_surface_sheet.py --out docs/wrop_surface.png
"""

from __future__ import annotations

import argparse

import numpy as np
from PIL import Image, ImageDraw

from simkit.generators.wrop import WropConfig, WropGenerator, catalogue
from simkit.renderers.blender import RenderSettings
from simkit.scenes.wrop import Scene

#: (task, labelled slot, surface seeds): seeds picked to show every lighting set-up, patterns and props
ROWS = (
    ("OP-1/block_behind_wall", "target", (46, 44, 45, 47, 50)),
    ("OP-2/screen_sweeps_row", "object1", (43, 51, 48, 53, 55)),
)


def panel(gen: WropGenerator, gid: str, slot: str, s_seed: int, u_seed: int, frame: int, a) -> Image.Image:
    task, _, look, comp = gen.compose(catalogue()[gid], s_seed, u_seed)
    sun, world, lamps = look.lights()
    cfg = gen.config
    scene = Scene(
        cfg.frames, cfg.fps, comp.objects, look.camera(task.view), sun, look.background(), world_strength=world,
        lamps=lamps,
    )  # fmt: skip
    ses = gen.session()
    ses.reset()
    ses.configure(RenderSettings("cycles", a.width, a.height, a.samples), cfg.frames, cfg.fps)
    ses.build(scene)
    ses.scene.frame_start = ses.scene.frame_end = frame
    full = ses.render(1)[0]  # the centre of the frame, where the objects are
    y0, x0 = (a.height - a.crop[1]) // 2, (a.width - a.crop[0]) // 2
    im = Image.fromarray(np.ascontiguousarray(full[y0 : y0 + a.crop[1], x0 : x0 + a.crop[0]]))
    props = [p for p in look.props.values() if p != "none"]
    pat = look.patterns.get(slot, {}).get("pattern", "plain")
    text = f"{look.values['lighting']} | {pat}" + (f" | {props[0]}" if props else "")
    d = ImageDraw.Draw(im)
    d.rectangle((0, 0, a.crop[0], 11), fill=(0, 0, 0))
    d.text((3, 0), text, fill=(255, 255, 255))
    return im


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/wrop_surface.png")
    ap.add_argument("--width", type=int, default=320)
    ap.add_argument("--height", type=int, default=180)
    ap.add_argument("--crop", type=int, nargs=2, default=(224, 126), help="centre crop (w h) of each frame")
    ap.add_argument("--samples", type=int, default=16)
    a = ap.parse_args()
    rows = []
    for gid, slot, seeds in ROWS:
        gen = WropGenerator()
        gen.setup(WropConfig(generator=gid, frames=24))
        panels = [panel(gen, gid, slot, 3, u, 10, a) for u in seeds]
        rows.append(np.concatenate([np.asarray(p) for p in panels], 1))
    sheet = Image.fromarray(np.concatenate(rows, 0)).quantize(256, method=Image.Quantize.MEDIANCUT)
    sheet.save(a.out, optimize=True)  # a 256-colour palette keeps the file small
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
