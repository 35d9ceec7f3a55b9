"""``simkit assets scan DIR`` (mesh source index and filter report) and ``simkit eval pairs`` (consistency).

Top-level imports stay light (typer, pathlib); the work loads inside the commands.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import typer

from simkit.commands import check_out, fail, say, strict_json
from simkit.core.extras import needs_extra


def _track(description: str):
    """A progress wrapper for iterables (:func:`simkit.core.progress.track`)."""
    from simkit.core.progress import track

    return lambda xs: track(xs, description)


#: summary names as the paper writes them (Ref-* on the shared reference mask, Full-* on the whole image)
_LABELS = {
    f"{v}_{m}": f"{v.capitalize()}-{m.upper()}" for v in ("ref", "full") for m in ("mse", "psnr", "lpips")
}


def register(groups: dict) -> None:
    """Add ``assets scan`` and ``eval pairs``."""

    @groups["assets"].command("scan")
    @needs_extra("blender")
    def assets_scan(
        source: str = typer.Argument(
            ...,
            help="A mesh folder (Objaverse glbs/<shard>/<uid>.glb or any "
            "GLB/GLTF/OBJ/PLY files) or 'embedded'.",
        ),
        out: Path | None = typer.Option(
            None, "--out", help="Write the index JSON here (use with --set assets=FILE)."
        ),
    ) -> None:
        """Read every mesh, apply the FreeMatching filter (bounding-box diagonal 2.0, aspect ratio <= 3.0,
        silhouette hull/box area >= 0.2, no empty/non-finite/degenerate mesh) and print each rejection with
        its reason, then 'accepted N of M'."""
        from simkit.assets.meshes import SUFFIXES, save_index, scan
        from simkit.core.errors import SimkitError

        check_out(out)  # before a scan that may take long
        if out is not None and out.suffix.lower() in SUFFIXES:
            fail(
                f"--out {out}: a mesh file name ({out.suffix}); the index is JSON and would replace the "
                "mesh there, give a .json path"
            )
        try:
            records = scan(source, progress=_track("scanning meshes"))
        except SimkitError as exc:
            fail(str(exc))
            return
        for r in records:
            if not r.accepted:
                typer.echo(f"rejected {r.asset_id}: {r.reason}")
        if out is not None:
            try:
                out.parent.mkdir(parents=True, exist_ok=True)
                save_index(records, out, str(source))
            except OSError as exc:
                fail(f"--out {out}: cannot write ({exc.strerror or exc})")
            say(f"wrote {out}")
        ok = sum(r.accepted for r in records)
        typer.echo(f"accepted {ok} of {len(records)} meshes in {source}")
        if ok == 0:
            raise typer.Exit(1)

    @groups["eval"].command("pairs")
    @needs_extra("blender")
    def eval_pairs(
        gt: Path = typer.Option(..., "--gt", help="A pairs corpus (ground truth)."),
        pred: Path | None = typer.Option(
            None,
            "--pred",
            help="Folder of predicted maps <key>.npy / <key>.exr (H x W x 2, u v in source "
            "pixels); without it the ground truth itself is scored (the floor).",
        ),
        lpips: bool = typer.Option(
            False, "--lpips", help="Also report LPIPS (needs the lpips extra and weights)."
        ),
        out: Path | None = typer.Option(None, "--out", help="Write per-pair rows and the summary as JSON."),
    ) -> None:
        """Warp A by C, compare with B: MSE, PSNR (and LPIPS) in the Ref (shared reference mask = ground-truth
        covisibility) and Full (whole image) variants, each reported separately. Last line: the summary."""
        from simkit.core.errors import SimkitError
        from simkit.eval.pairs.evaluate import evaluate_corpus, lpips_distance

        if pred is not None and not pred.is_dir():
            fail(f"--pred {pred}: not a folder")
        check_out(out, corpora=(gt,))
        try:
            fn = lpips_distance() if lpips else None
            ev = evaluate_corpus(gt, pred, fn, progress=_track("scoring pairs"))
        except SimkitError as exc:
            fail(str(exc))
            return
        summary = ev.summary
        for row in ev.rows:
            typer.echo(row["key"] + "  " + "  ".join(f"{k}={v:.6g}" for k, v in row.items() if k != "key"))
        if out is not None:
            try:
                out.parent.mkdir(parents=True, exist_ok=True)
                doc = strict_json({"rows": ev.rows, "summary": summary})
                out.write_text(json.dumps(doc, indent=1, default=float, allow_nan=False))
            except OSError as exc:
                fail(f"--out {out}: cannot write ({exc.strerror or exc})")
            say(f"wrote {out}")
        what = "ground truth" if pred is None else str(pred)
        parts = [f"{_LABELS.get(k, k)} {v:.6g}" for k, v in summary.items() if not math.isnan(v)]
        typer.echo(f"pairs consistency ({what}, {len(ev.rows)} pairs): " + ", ".join(parts))
