"""Target-fit metrics of predicted continuations against the exam's target videos.

Protocol (spec ``wrop``, "Evaluation side"): the prediction is resampled to the target's frame count,
prediction and target are scaled to 320 x 192 (:data:`~simkit.eval.wrop.video.EVAL_SIZE`) and compared;
the final frames are also compared at 1280 x 720. Pixel values are RGB in [0, 1] (uint8 / 255).

=================== ===================================================================================
``mse``, ``mae``     mean squared / absolute error over frames, pixels and channels
``psnr``             mean over frames of 10 log10(1 / MSE_t) dB, each frame capped at :data:`PSNR_CAP`
``ssim``             mean over frames of SSIM (Wang et al. 2004, IEEE TIP 13(4): Gaussian window 11, sigma
                     1.5, K1 0.01, K2 0.03, data range 1), torchmetrics' implementation
``ms_ssim``          mean over frames of MS-SSIM (Wang, Simoncelli & Bovik 2003: 5 scales, the paper's
                     weights), torchmetrics' implementation
``td_l1``            temporal-difference L1: mean |(P[t+1] - P[t]) - (G[t+1] - G[t])|
``final_*``          MSE and SSIM of the last frame at 320 x 192, and at 1280 x 720 (``*_720p``)
=================== ===================================================================================

LPIPS, CLIP similarity and FID need pretrained networks (AlexNet/VGG, CLIP ViT, Inception-v3) whose
weights no package on the registry ships (``lpips``, ``piq``, ``torchmetrics``, ``open_clip_torch`` and
``torch-fidelity`` download them at run time, and torchvision, which their backbones need, does not
import beside the pinned CPU torch): they are skipped with :data:`SKIPPED` as the note.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import InputError, require
from simkit.eval import PSNR_CAP_DB
from simkit.eval.wrop.video import EVAL_SIZE, FINAL_SIZE, ExamSample, resize, score_predictions

PSNR_CAP = PSNR_CAP_DB  # dB: identical frames (MSE 0) score this instead of +inf
METRICS = (
    "mse",
    "mae",
    "psnr",
    "ssim",
    "ms_ssim",
    "td_l1",
    "final_mse",
    "final_ssim",
    "final_mse_720p",
    "final_ssim_720p",
)
#: metric -> why it is not computed
SKIPPED = {
    "lpips": "skipped: LPIPS needs AlexNet/VGG weights that no registry package ships (lpips, piq and "
    "torchmetrics download them through torchvision at run time)",
    "clip": "skipped: CLIP similarity needs CLIP weights that no registry package ships (open_clip_torch "
    "and transformers download them at run time)",
    "fid": "skipped: FID needs Inception-v3 weights that no registry package ships (torch-fidelity, "
    "pytorch-fid and clean-fid download them at run time)",
}
CHUNK = 16  # frames per SSIM / MS-SSIM call (bounds memory at 720p)


def _tensor(frames: np.ndarray):
    """uint8 (T, H, W, 3) -> float32 torch tensor (T, 3, H, W) in [0, 1]."""
    import torch

    return torch.from_numpy(np.ascontiguousarray(frames)).permute(0, 3, 1, 2).float().div_(255.0)


def _per_frame(fn: Callable, p, g) -> np.ndarray:
    out = [fn(p[i : i + CHUNK], g[i : i + CHUNK]) for i in range(0, p.shape[0], CHUNK)]
    return np.concatenate([np.atleast_1d(o.detach().cpu().numpy()) for o in out])


def _ssim(p, g) -> np.ndarray:
    tm = require("torchmetrics.functional.image", "eval")
    return _per_frame(
        lambda a, b: tm.structural_similarity_index_measure(a, b, data_range=1.0, reduction="none"), p, g
    )


def _ms_ssim(p, g) -> np.ndarray:
    tm = require("torchmetrics.functional.image", "eval")
    return _per_frame(
        lambda a, b: tm.multiscale_structural_similarity_index_measure(
            a, b, data_range=1.0, reduction="none"
        ),
        p,
        g,
    )


def video_metrics(pred: np.ndarray, target: np.ndarray, final_720p: bool = True) -> dict[str, float]:
    """Target-fit metrics (module table) of two clips of the same frame count.

    Args:
        pred, target: uint8 (T, H, W, 3) RGB, T >= 2, any size (each is scaled to 320 x 192 and its last
            frame to 1280 x 720).

        final_720p: also compare the last frames at 1280 x 720 (``final_*_720p``; NaN when False).

    Returns:
        {metric: value} for every name in :data:`METRICS`.

    Raises:
        InputError: the frame counts differ or are below 2.
    """
    if pred.shape[0] != target.shape[0] or pred.shape[0] < 2:
        raise InputError(
            None, f"need two clips of equal length >= 2, got {pred.shape[0]} and {target.shape[0]}"
        )
    p, g = _tensor(resize(pred, EVAL_SIZE)), _tensor(resize(target, EVAL_SIZE))
    err = p - g
    mse_t = err.pow(2).mean(dim=(1, 2, 3)).numpy().astype(np.float64)
    psnr_t = np.minimum(10.0 * np.log10(1.0 / np.maximum(mse_t, 1e-300)), PSNR_CAP)
    dp, dg = p[1:] - p[:-1], g[1:] - g[:-1]
    out = {
        "mse": float(mse_t.mean()),
        "mae": float(err.abs().mean()),
        "psnr": float(psnr_t.mean()),
        "ssim": float(_ssim(p, g).mean()),
        "ms_ssim": float(_ms_ssim(p, g).mean()),
        "td_l1": float((dp - dg).abs().mean()),
        "final_mse": float(mse_t[-1]),
        "final_ssim": float(_ssim(p[-1:], g[-1:])[0]),
        "final_mse_720p": float("nan"),
        "final_ssim_720p": float("nan"),
    }
    if final_720p:
        pf, gf = _tensor(resize(pred[-1:], FINAL_SIZE)), _tensor(resize(target[-1:], FINAL_SIZE))
        out["final_mse_720p"] = float((pf - gf).pow(2).mean())
        out["final_ssim_720p"] = float(_ssim(pf, gf)[0])
    return out


@dataclass
class FitReport:
    """Per-sample rows (key, generator_id, family, metrics...), the problems met (one line each) and
    the metrics skipped with their notes."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=lambda: dict(SKIPPED))

    def table(self, by: str) -> list[dict[str, Any]]:
        """Mean of each metric per ``by`` (``"generator_id"`` or ``"family"``), plus an ``all`` row."""
        return group_means(self.rows, by, METRICS)


def group_means(rows: list[dict[str, Any]], by: str, metrics: Iterable[str]) -> list[dict[str, Any]]:
    """Rows grouped by the value of ``by`` (sorted), each metric averaged over the group's rows where it
    is present and finite; ``n`` = rows in the group; a last row ``all`` over every row."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[str(r[by])].append(r)
    out = []
    for name, rs in [*sorted(groups.items()), ("all", rows)]:
        if not rs:
            continue
        row: dict[str, Any] = {by: name, "n": len(rs)}
        for m in metrics:
            vals = [float(r[m]) for r in rs if r.get(m) is not None and np.isfinite(r[m])]
            row[m] = float(np.mean(vals)) if vals else float("nan")
        out.append(row)
    return out


def evaluate_fit(
    samples: Iterable[ExamSample], pred_dir: str | Path, on_sample: Callable[[str], None] | None = None
) -> FitReport:
    """Score each exam sample's prediction in ``pred_dir`` (layout: :mod:`simkit.eval.wrop.video`).

    A missing or malformed prediction is one problem line (``FILE: reason``) and that sample is left out;
    the rest is scored.

    Raises:
        ExtraMissing: torch / torchmetrics are not installed (extra ``eval``).
    """
    require("torch", "eval")
    require("torchmetrics", "eval")

    def score(s: ExamSample, pred: np.ndarray) -> dict[str, Any]:
        return {
            "key": s.key,
            "generator_id": s.generator_id,
            "family": s.family,
            **video_metrics(pred, s.target_video),
        }

    rows, problems = score_predictions(samples, pred_dir, score, on_sample)
    return FitReport(rows, problems)
