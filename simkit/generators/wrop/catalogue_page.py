"""The WROP catalogue page (``simkit list wrop --catalogue docs/wrop_catalogue.md``).

Per task generator: family, one-line summary, structural parameters with their ranges, the key event (and
the other events, with frames at the paper's clip of 120 frames at 24 fps), the outcomes, and a
contact-sheet thumbnail ``input | cut | target``: a small PNG beside the markdown, in
``<markdown stem>/<FAMILY>_<name>.png``, rendered with Workbench at low resolution (first and last input
frame, a red cut bar, the key-event frame and the last target frame). The outcomes listed are the distinct
ones over the structural seeds 0..7 under one surface look (seed 0), wordings that differ only in their
numbers counted once, so a generator whose outcome depends on its structure (an object that passes or is
blocked) shows each; the several legal outcomes of one sample are joined by *or*.

Thumbnails are rendered in worker processes (``workers``), each with its own Blender session; PNGs are
quantised to a 64-colour palette so each stays a few KB.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from simkit.generators.wrop.base import FAMILIES, FAMILY_TITLES, Task, select
from simkit.generators.wrop.recipe import RECIPE_CLIP, compose_fixed

#: generators per family in the paper (spec ``wrop``, "Families")
PAPER_COUNTS = {"OP-1": 26, "OP-2": 29, "OP-3": 35, "OS-1": 20, "OS-2": 21, "OS-3": 19}
#: thumbnail render settings: clip length (frames), tile size (px)
THUMB_FRAMES, THUMB_W, THUMB_H = 48, 128, 72
#: structural seeds whose outcomes the legal-outcome list gathers
OUTCOME_SEEDS = range(8)


def row(task_cls: type[Task]) -> dict[str, Any]:
    """The catalogue entry of one generator (no rendering): ``id``, ``family``, ``summary``, ``params``
    (name -> range text), ``key_event``, ``events`` (name -> frame at 120 frames, 24 fps), ``outcomes``: one
    list per distinct structure (module docstring) of the legal outcomes of a sample of that structure.
    """
    _, _, comp = compose_fixed(task_cls, RECIPE_CLIP)
    task = task_cls()
    look = task.sample_surface(0)
    outcomes: dict[str, list[str]] = {}  # legal outcomes with their numbers masked -> first wording seen
    for seed in OUTCOME_SEEDS:
        try:
            c = task.compose(task.sample_structural(seed), RECIPE_CLIP, look)
        except ValueError:  # this draw does not fit the clip (the engine would redraw it)
            continue
        legal = list(c.legal_outcomes or [c.outcome])
        outcomes.setdefault(re.sub(r"\d+(\.\d+)?", "#", " | ".join(legal)), legal)
    return {
        "id": task_cls.id(),
        "family": task_cls.family,
        "summary": task_cls.summary,
        "params": {k: v.describe() for k, v in task_cls.structural.items()},
        "key_event": comp.key_event,
        "events": dict(comp.events),
        "outcomes": list(outcomes.values()),
    }


def thumbnail_name(task_id: str) -> str:
    """``OP-1/ball_behind_screen`` -> ``OP-1_ball_behind_screen.png``."""
    return task_id.replace("/", "_") + ".png"


def strip(inp: np.ndarray, tgt: np.ndarray, event: int) -> np.ndarray:
    """The thumbnail image (uint8 (h, w, 3)): input frames 0 and last | a red bar | target frames ``event``
    (absolute frame number, clamped into the target half) and last, 2-pixel white gaps."""
    cut = len(inp)
    e = min(max(event - cut, 0), len(tgt) - 1)
    h = inp.shape[1]
    gap = np.full((h, 2, 3), 255, np.uint8)
    bar = np.zeros((h, 4, 3), np.uint8)
    bar[..., 0] = 220
    return np.concatenate([inp[0], gap, inp[-1], gap, bar, gap, tgt[e], gap, tgt[-1]], axis=1)


def render_thumbnail(task_id: str, path: str) -> str:
    """Render one sample of ``task_id`` (Workbench, :data:`THUMB_FRAMES` frames at :data:`THUMB_W` x
    :data:`THUMB_H`, master seed 0, episode 0, redrawn as the engine does on rejection) and write its
    :func:`strip` to ``path`` as a 64-colour PNG; returns ``path``.

    Raises:
        SampleRejected: every redraw was rejected.
    """
    from PIL import Image

    from simkit.core.errors import SampleRejected
    from simkit.core.seeding import episode_rng
    from simkit.generators.wrop import WropConfig, WropGenerator

    g = WropGenerator()
    g.setup(
        WropConfig(
            generator=task_id, frames=THUMB_FRAMES, width=THUMB_W, height=THUMB_H, visibility_points=32
        )
    )
    last: Exception | None = None
    for redraw in range(g.max_redraws + 1):
        try:
            ep = g.generate(0, episode_rng(0, "wrop", 0, redraw))
            break
        except SampleRejected as exc:
            last = exc
    else:
        raise SampleRejected(f"{task_id}: no thumbnail sample passed its checks ({last})")
    meta = ep.meta
    img = strip(
        ep.fields["input_video"].frames,
        ep.fields["target_video"].frames,
        int(meta["event_frames"][meta["key_event"]]),
    )
    pal = Image.fromarray(img).quantize(colors=64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pal.save(path, optimize=True)
    return path


def markdown(rows: list[dict[str, Any]], thumbs: dict[str, str]) -> str:
    """The catalogue page for ``rows`` (see :func:`row`); ``thumbs``: generator id -> thumbnail path
    relative to the page (generators without one get no image)."""
    counts = {f: sum(1 for r in rows if r["family"] == f) for f in FAMILIES}
    out = [
        "# WROP task generator catalogue",
        "",
        "<!-- generated by `simkit list wrop --catalogue`; do not edit by hand -->",
        "",
        f"{len(rows)} generators. Event frames are those of the first structural seed that composes at "
        f"{RECIPE_CLIP.frames} frames, {RECIPE_CLIP.fps:g} fps (the cut is frame {RECIPE_CLIP.cut}). "
        f"Thumbnails: input frames 0 and {THUMB_FRAMES // 2 - 1} | red cut bar | the key-event frame and the "
        f"last frame of a {THUMB_FRAMES}-frame {THUMB_W}x{THUMB_H} Workbench render. Outcomes: the distinct "
        "outcomes over structural seeds 0..7 (one per structure class; several legal outcomes of one sample "
        "joined by *or*).",
        "",
        "| family | title | generators | paper |",
        "| --- | --- | ---: | ---: |",
        *[f"| {f} | {FAMILY_TITLES[f]} | {counts[f]} | {PAPER_COUNTS[f]} |" for f in FAMILIES],
        "",
    ]
    for fam in FAMILIES:
        fam_rows = [r for r in rows if r["family"] == fam]
        if fam_rows:
            out += [f"## {fam}: {FAMILY_TITLES[fam]}", ""]
        for r in fam_rows:
            out += _entry(r, thumbs.get(r["id"]))
    return "\n".join(out).rstrip() + "\n"


def _entry(r: dict[str, Any], thumb: str | None) -> list[str]:
    params = ", ".join(f"`{k}` {v}" for k, v in r["params"].items()) or "none"
    others = ", ".join(f"`{k}` {v}" for k, v in r["events"].items() if k != r["key_event"])
    lines = [f"### `{r['id']}`", "", r["summary"], ""]
    if thumb is not None:
        lines += [f"![{r['id']}: input | cut | target]({thumb})", ""]
    lines += [
        f"- structural parameters: {params}",
        f"- key event: `{r['key_event']}` at frame {r['events'][r['key_event']]}"
        + (f" (other events: {others})" if others else ""),
        "- outcomes: " + "; ".join(" *or* ".join(legal) for legal in r["outcomes"]),
        "",
    ]
    return lines


def entry(task_id: str, png: str | None) -> tuple[dict[str, Any], str | None]:
    """(:func:`row`, problem) of one generator, rendering its thumbnail to ``png`` unless ``None``; problem is
    ``None`` or names why the thumbnail failed (the row is kept)."""
    r = row(select(task_id)[0])
    if png is None:
        return r, None
    try:
        render_thumbnail(task_id, png)
    except Exception as exc:  # one bad generator must not lose the other entries
        return r, f"{task_id}: thumbnail failed ({type(exc).__name__}: {exc})"
    return r, None


def write_catalogue(
    path: Path,
    spec: str = "all",
    thumbnails: bool = True,
    workers: int = 1,
    on_done: Callable[[str], None] | None = None,
) -> tuple[Path, list[str]]:
    """Write the catalogue page of the generators selected by ``spec`` (``all``, a family or one id) to
    ``path``, with thumbnails in ``<path stem>/`` unless ``thumbnails`` is false. ``workers`` processes
    compose the entries and render the thumbnails (with ``workers=1`` and no thumbnails everything runs in
    this process); ``on_done(id)`` is called once per finished generator. Returns (path, problems): a
    generator whose thumbnail cannot be rendered is listed without one and named in ``problems``.

    Raises:
        ValueError: ``spec`` selects nothing.
        ExtraMissing: thumbnails are asked for and Blender (``bpy``) is not installed.
    """
    import multiprocessing as mp

    from simkit.core.errors import require_installed

    ids = [t.id() for t in select(spec)]
    if thumbnails:
        require_installed("bpy", "blender")  # before any worker starts: not one failed thumbnail each
    path = Path(path)
    pngs = {gid: str(path.parent / path.stem / thumbnail_name(gid)) if thumbnails else None for gid in ids}
    done: dict[str, tuple[dict[str, Any], str | None]] = {}
    if workers == 1 and not thumbnails:
        for gid in ids:
            done[gid] = entry(gid, None)
            if on_done is not None:
                on_done(gid)
    else:
        with ProcessPoolExecutor(max(1, workers), mp_context=mp.get_context("spawn")) as pool:
            futures = {pool.submit(entry, gid, pngs[gid]): gid for gid in ids}
            for fut in as_completed(futures):
                done[futures[fut]] = fut.result()
                if on_done is not None:
                    on_done(futures[fut])
    rows = [done[gid][0] for gid in ids]
    problems = sorted(p for _, p in done.values() if p is not None)
    made = {gid: f"{path.stem}/{thumbnail_name(gid)}" for gid in ids if thumbnails and done[gid][1] is None}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(markdown(rows, made))
    return path, problems
