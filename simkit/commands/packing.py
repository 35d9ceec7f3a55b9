"""``simkit export packing-sft``: step-level multimodal chat records from a ``packing`` corpus.

One record per expert step (PackLab-VLM's training data, spec packing.md "Policy input";
paper eq. 4 and 9): system prompt, the history heightmaps as images, the history buffers
and executed actions as text, the current heightmap and buffer, and the expert action as
structured text (the assistant turn). The layout is the ``messages`` + ``images`` JSON
Lines form that LLaMA-Factory (sharegpt format with ``messages``/``images`` columns) and
ms-swift read: each ``<image>`` placeholder in the user turn is replaced, in order, by the
next path of ``images``; paths are relative to the JSONL file's folder (or absolute with
``--absolute-paths``). The heightmap PNGs are written once per episode beside the JSONL, in
``<stem>_images/<episode key>/h<t>.png`` (``<stem>_images/corpus<k>/<episode key>/...`` when
several corpora are exported into one file, since their keys may repeat).

Top-level imports stay light (typer, pathlib): the CLI loads this module on every call.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import typer

from simkit.commands import fail
from simkit.core.extras import needs_extra

#: largest ``--px`` (pixels per grid cell), the same bound as the generator's ``heightmap_px_per_cell``
MAX_PX = 64

SYSTEM_PROMPT = (
    "You are a robot packing planner. Boxes arrive in a queue; you see the first few (the buffer). "
    "At each step choose one box from the buffer, an orientation (0 = as listed, 1 = rotated 90 degrees "
    "about the vertical, swapping its length and width) and the grid cell (x, y) of the minimum corner of "
    "its footprint. The box drops straight down onto the highest point under its footprint. "
    "Grid cells are {res_cm:g} cm. A heightmap image shows the container from above: image rows are x "
    "(top row x = 0), columns are y (left column y = 0), {px} pixels per cell; colour encodes height "
    "from dark purple (floor) to yellow (container top). Pack every box inside the container as compactly "
    "as possible. Answer with one JSON object: "
    '{{"slot": buffer slot, "box_id": id, "orientation": 0 or 1, "x": x cell, "y": y cell}}.'
)


#: the file an export writes into its image folder, so the next export to the same --out may replace it
IMAGES_MARK = ".simkit-packing-sft"


def _buffer_text(buf: list[int], sizes: list[list[int]]) -> str:
    return "; ".join(
        f"slot {k}: box {i} size (l={s[0]}, w={s[1]}, h={s[2]})" for k, (i, s) in enumerate(zip(buf, sizes))
    )


def _action_text(a: dict[str, Any]) -> str:
    return json.dumps(
        {"slot": a["slot"], "box_id": a["box_id"], "orientation": a["orientation"], "x": a["x"], "y": a["y"]}
    )


def episode_records(
    sample: dict[str, Any], image_paths: list[str], history: int, px: int, with_meta: bool = False
) -> list[dict[str, Any]]:
    """The chat records of one decoded ``packing`` episode.

    Args:
        sample: decoded episode (``case``, ``steps`` and ``meta`` fields are read).
        image_paths: path strings of the heightmap pictures before each step (length T).
        history: how many previous steps to include (-1 = all).
        px: pixels per cell of those pictures (stated in the system prompt).
        with_meta: add ``"meta": {"episode", "step", "tier"}`` to each record (an extra column
            that fine-tuning tools ignore or may reject; off by default).
    Returns:
        T dicts ``{"messages": [system, user, assistant], "images": [...]}`` where the user turn
        holds exactly ``len(images)`` ``<image>`` placeholders.
    """
    case, steps = sample["case"], sample["steps"]
    L, W, H = case["container"]["size"]
    res = float(case["container"]["resolution"])
    system = SYSTEM_PROMPT.format(res_cm=res * 100, px=px)
    n = len(steps)
    key = sample.get("__key__", "")
    records = []
    for t, step in enumerate(steps):
        first = 0 if history < 0 else max(0, t - history)
        lines = [f"Container: L={L}, W={W}, H={H} cells. Boxes in total: {n}; placed so far: {t}."]
        images = []
        if first < t:
            lines.append("History:")
        for k in range(first, t):
            lines.append(f"Step {k}: heightmap <image>")
            lines.append(f"Buffer: {_buffer_text(steps[k]['buffer'], steps[k]['buffer_sizes'])}")
            lines.append(f"Action: {_action_text(steps[k]['action'])}")
            images.append(image_paths[k])
        lines.append(f"Current step {t}: heightmap <image>")
        lines.append(f"Buffer: {_buffer_text(step['buffer'], step['buffer_sizes'])}")
        lines.append("Choose the next action.")
        images.append(image_paths[t])
        records.append(
            {
                "messages": [
                    {"role": "system", "content": system},
                    {"role": "user", "content": "\n".join(lines)},
                    {"role": "assistant", "content": _action_text(step["action"])},
                ],
                "images": images,
            }
        )
        if with_meta:
            records[-1]["meta"] = {"episode": key, "step": t, "tier": case["tier"]}
    return records


def export_sft(
    corpus: Path | list[Path],
    out: Path,
    history: int = 4,
    px: int = 8,
    limit: int | None = None,
    absolute_paths: bool = False,
    with_meta: bool = False,
) -> dict[str, int]:
    """Write the SFT JSONL of a ``packing`` corpus to ``out`` and its heightmap PNGs beside it.

    Returns:
        counts ``{"episodes": ..., "records": ..., "images": ...}``.
    Raises:
        SimkitError: ``corpus`` is not a corpus of the ``packing`` generator, or an episode lacks a field.
        SimkitError: ``out`` is a directory (or not a regular file), a parent of it is a file, or
            the export cannot be written; nothing is left behind then (no ``.tmp`` file, no images).
        InputError: ``history`` < -1 or ``px`` outside 1..:data:`MAX_PX`.

    The images are written to a temporary ``<stem>_images.tmp/`` folder and moved to
    ``<stem>_images/`` (replacing the folder of an earlier export to the same file) only when
    the whole export succeeded, together with the JSONL.
    """
    import numpy as np

    from simkit.core.errors import InputError, SimkitError
    from simkit.core.images import save_png
    from simkit.episodes.reader import corpus_info, iter_corpus
    from simkit.generators.packing.generator import render_heightmap

    if history < -1:
        raise InputError(None, f"--history must be -1 (all) or >= 0, got {history}")
    if not 1 <= px <= MAX_PX:
        raise InputError(None, f"--px must be between 1 and {MAX_PX} pixels per cell, got {px}")
    roots = corpus if isinstance(corpus, list) else [corpus]
    for r in roots:
        gen = corpus_info(r).get("generator")
        if gen != "packing":
            raise SimkitError(f"{r}: a corpus of generator {gen!r}; packing-sft needs a 'packing' corpus")
    out = Path(out)
    img_root = out.parent / f"{out.stem}_images"
    _check_out(out, img_root, roots)
    counts = {"episodes": 0, "records": 0, "images": 0}
    tmp = out.with_name(out.name + ".tmp")
    img_tmp = out.parent / f"{out.stem}_images.tmp"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(img_tmp, ignore_errors=True)
        img_tmp.mkdir()
        (img_tmp / IMAGES_MARK).write_text(
            "images of a simkit export packing-sft; replaced by the next one\n"
        )
        with tmp.open("w", encoding="utf-8") as fh:
            # several corpora may hold the same episode keys: one image folder per corpus then
            sources = [
                (root, Path() if len(roots) == 1 else Path(f"corpus{k}")) for k, root in enumerate(roots)
            ]
            for root, sub in sources:
                for sample in iter_corpus(root):
                    if limit is not None and counts["episodes"] >= limit:
                        break
                    key = sample["__key__"]
                    missing = [f for f in ("case", "steps", "heightmaps") if f not in sample]
                    if missing:
                        raise SimkitError(f"{key}: missing field(s) {', '.join(missing)}")
                    hms = np.asarray(sample["heightmaps"])
                    H = int(sample["case"]["container"]["size"][2])
                    paths = []
                    for t in range(len(sample["steps"])):
                        rel = sub / key / f"h{t:03d}.png"
                        save_png(
                            render_heightmap(hms[t], H, px), img_tmp / rel
                        )  # moved to img_root at the end
                        p = img_root / rel
                        counts["images"] += 1
                        paths.append(
                            str(p.resolve()) if absolute_paths else p.relative_to(out.parent).as_posix()
                        )
                    for rec in episode_records(sample, paths, history, px, with_meta):
                        fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                        counts["records"] += 1
                    counts["episodes"] += 1
        if img_root.exists():
            shutil.rmtree(img_root)  # the images of an earlier export to the same file (its mark checked)
        img_tmp.rename(img_root)
        tmp.replace(out)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        shutil.rmtree(img_tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            raise SimkitError(f"{out}: cannot write the export ({exc})") from None
        raise
    return counts


def _check_out(out: Path, img_root: Path, roots: list[Path]) -> None:
    """Refuse an output path that cannot be written, before any work (SimkitError naming the path): ``out``
    cannot be written (:func:`simkit.core.paths.out_fault`), it or its image folder lies in one of the
    corpora's own files or any corpus's (:func:`simkit.episodes.corpus.inside_corpus_fault`), or the image folder exists and is not
    one an earlier export wrote (no :data:`IMAGES_MARK` in it: a user's folder is never replaced)."""
    from simkit.core.errors import SimkitError
    from simkit.core.paths import out_fault
    from simkit.episodes.corpus import inside_corpus_fault

    why = out_fault(out)
    if why is not None:
        raise SimkitError(f"--out {out}: {why}")
    inside = inside_corpus_fault(out, tuple(roots)) or inside_corpus_fault(img_root, tuple(roots))
    if inside is not None:
        raise SimkitError(f"--out {out}: {inside}")
    if img_root.exists() and not img_root.is_dir():
        raise SimkitError(f"--out {out}: the image folder {img_root} exists and is not a directory")
    if img_root.is_dir() and not (img_root / IMAGES_MARK).is_file():
        raise SimkitError(
            f"--out {out}: the image folder {img_root} exists and no earlier export wrote it (no {IMAGES_MARK} "
            "in it); move it away or choose another --out"
        )


def register(groups: dict[str, typer.Typer]) -> None:
    """Add ``simkit export packing-sft``."""

    @groups["export"].command("packing-sft")
    @needs_extra("packing")
    def packing_sft(
        corpus: list[Path] = typer.Argument(..., help="packing corpus directory (or several)."),
        out: Path = typer.Option(
            ..., "--out", help="Output JSONL file; PNGs go to <stem>_images/ beside it."
        ),
        history: int = typer.Option(4, "--history", help="Previous steps per record (-1 = all)."),
        px: int = typer.Option(8, "--px", help="Pixels per grid cell in the heightmap images."),
        limit: int = typer.Option(0, "--limit", help="Export at most this many episodes (0 = all)."),
        absolute_paths: bool = typer.Option(False, "--absolute-paths", help="Write absolute image paths."),
        with_meta: bool = typer.Option(False, "--with-meta", help="Add a meta column (episode, step, tier)."),
    ) -> None:
        """Step-level multimodal SFT records (messages + images JSONL, LLaMA-Factory / ms-swift layout)."""
        from simkit.core.errors import SimkitError

        if limit < 0:
            fail(f"--limit must be >= 0, got {limit}")
        try:
            counts = export_sft(
                list(corpus),
                out,
                history=history,
                px=px,
                limit=limit or None,
                absolute_paths=absolute_paths,
                with_meta=with_meta,
            )
        except SimkitError as exc:
            fail(str(exc))
        typer.echo(
            f"wrote {out}: {counts['records']} records from {counts['episodes']} episodes, "
            f"{counts['images']} heightmap images"
        )
