"""The pair consistency evaluation (FreeMatching, Sec. 5 "consistency evaluation protocol").

Warp the source by a correspondence map, ``I^_b = I_a(C)`` (bilinear, :func:`simkit.renderers.pairs.correspondence.
warp`), and compare it with the target ``I_b``. Each distance is reported on its own, never merged:

* ``mse``: mean squared error of intensities in [0, 1] (all three channels) over the mask;
* ``psnr``: ``10 log10(1 / mse)`` dB (peak 1);
* ``lpips``: LPIPS (Zhang et al. 2018, AlexNet features), the spatial map averaged over the mask; only with
  the optional ``lpips`` package and its weights already on the machine (``pip install 'simkit[lpips]'``).

Two variants: ``ref`` uses a shared, frozen reference mask (the ground-truth covisibility M of the pair,
the same for every method scored on the corpus); ``full`` uses the whole image (M = 1). On labelled pairs
the reconstruction error is a proxy for correspondence error; scoring the ground truth C itself gives the
floor a perfect matcher reaches (shading changes between the views keep it above zero).

Prediction folders (``simkit eval pairs --pred DIR``): one file per episode key, ``DIR/<key>.npy`` (float
array (H, W, 2), absolute source-pixel coordinates (u, v), pixel centres at integers) or ``DIR/<key>.exr``
(channels ``u``, ``v``, or ``R``, ``G`` for u, v). A missing or misshaped file is one clear error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import InputError, SimkitError
from simkit.eval import PSNR_CAP_DB
from simkit.renderers.pairs.correspondence import warp

METRICS = ("mse", "psnr")
VARIANTS = ("ref", "full")


def consistency_scores(
    image_a: np.ndarray,
    image_b: np.ndarray,
    correspondence: np.ndarray,
    reference_mask: np.ndarray,
    lpips_fn: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> dict[str, float]:
    """Scores of one pair: ``{"ref_mse", "ref_psnr", "full_mse", "full_psnr"[, "ref_lpips", "full_lpips"]}``.

    Args:
        image_a, image_b: uint8 (H, W, 3) source and target images.
        correspondence: float (H, W, 2) C, absolute source-pixel coordinates of each target pixel.
        reference_mask: (H, W) in [0, 1], the shared reference mask (weights) of the ``ref`` variant.
        lpips_fn: optional ``(warped, target) -> (H, W)`` LPIPS distance map (images float in [0, 1]).

    MSE is in [0, 1], PSNR in dB (peak 1; ``inf`` when the warp is exact). An empty reference mask gives
    ``nan`` for every ``ref`` score.

    Raises:
        ValueError: shapes disagree.
    """
    a, b = np.asarray(image_a, np.float64) / 255.0, np.asarray(image_b, np.float64) / 255.0
    c, m = np.asarray(correspondence, np.float64), np.asarray(reference_mask, np.float64)
    if a.shape != b.shape or c.shape != (*b.shape[:2], 2) or m.shape != b.shape[:2]:
        raise ValueError(f"shapes disagree: A {a.shape}, B {b.shape}, C {c.shape}, mask {m.shape}")
    warped = warp(a, c)
    sq = ((warped - b) ** 2).mean(-1)
    lp = lpips_fn(warped, b) if lpips_fn is not None else None
    out: dict[str, float] = {}
    for variant, w in (("ref", m), ("full", np.ones_like(m))):
        total = float(w.sum())
        mse = float((sq * w).sum() / total) if total > 0 else float("nan")
        out[f"{variant}_mse"] = mse
        if total == 0:
            psnr = float("nan")  # empty mask: undefined, like the MSE
        else:
            psnr = float(10 * np.log10(1.0 / mse)) if mse > 0 else float("inf")  # exact warp: +inf dB
        out[f"{variant}_psnr"] = psnr
        if lp is not None:
            out[f"{variant}_lpips"] = float((lp * w).sum() / total) if total > 0 else float("nan")
    return out


def lpips_distance(net: str = "alex") -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """An LPIPS spatial distance map function ``(x, y) -> (H, W)`` for float images in [0, 1].

    Raises:
        SimkitError: the ``lpips`` package (or torch, or its cached weights) is not available.
    """
    try:
        import lpips
        import torch

        model = lpips.LPIPS(net=net, spatial=True, verbose=False).eval()
    except Exception as exc:  # missing package or weights that would need a download
        raise SimkitError(
            f"LPIPS is unavailable ({type(exc).__name__}: {exc}); install it with: pip install 'simkit[lpips]'"
            " (its network weights must already be on this machine)"
        ) from exc

    def fn(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        tx = torch.from_numpy(x.transpose(2, 0, 1)[None]).float() * 2 - 1
        ty = torch.from_numpy(y.transpose(2, 0, 1)[None]).float() * 2 - 1
        with torch.no_grad():
            return model(tx, ty)[0, 0].numpy().astype(np.float64)

    return fn


def read_prediction(folder: Path, key: str, shape: tuple[int, int]) -> np.ndarray:
    """The predicted C of episode ``key`` from a prediction folder (see the module docstring).

    Raises:
        InputError: the file is missing, unreadable, or not (H, W, 2) finite.
    """
    from simkit.episodes.codecs import decode

    npy, exr = folder / f"{key}.npy", folder / f"{key}.exr"
    path = npy if npy.is_file() else exr
    if not path.is_file():
        raise InputError(folder, f"no prediction for episode {key} (expected {key}.npy or {key}.exr)")
    try:
        arr = np.load(path) if path.suffix == ".npy" else np.asarray(decode("exr", path.read_bytes()))
    except Exception as exc:  # any reader failure of a user file becomes one line
        raise InputError(path, f"cannot be read ({type(exc).__name__}: {exc})") from exc
    arr = np.asarray(arr, np.float64)
    if path.suffix == ".exr" and arr.ndim == 3 and arr.shape[2] > 2:
        arr = arr[..., :2]  # an RGB(A) EXR: R, G carry u, v; a .npy must be exactly (H, W, 2)
    if arr.shape != (*shape, 2):
        raise InputError(path, f"shape {arr.shape}, expected {(*shape, 2)} (H, W, 2: u, v source pixels)")
    if not np.all(np.isfinite(arr)):
        raise InputError(path, "holds non-finite values")
    return arr


@dataclass
class PairsEvaluation:
    """Per-pair rows (``key`` + scores) and their means (``summary``): NaN scores are left out of the means,
    an exact pair's +inf PSNR counts as :data:`PSNR_CAP_DB`."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def summary(self) -> dict[str, float]:
        keys = [k for k in (self.rows[0] if self.rows else {}) if k != "key"]
        out = {}
        for k in keys:
            v = np.array([r[k] for r in self.rows], float)
            if k.endswith("_psnr"):  # an exact warp (+inf dB) counts at the cap, not left out of the mean
                v = np.where(np.isposinf(v), PSNR_CAP_DB, v)
            v = v[np.isfinite(v)]
            out[k] = float(v.mean()) if len(v) else float("nan")
        return out


def evaluate_corpus(
    gt: str | Path,
    pred: str | Path | None = None,
    lpips_fn: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    progress: Callable[[Iterable], Iterable] | None = None,
) -> PairsEvaluation:
    """Score the pairs of corpus ``gt`` with their ground-truth C (``pred`` None) or a prediction folder.

    Raises:
        InputError: the corpus holds no pairs, or a prediction is missing or malformed.
    """
    from simkit.episodes.reader import iter_corpus

    ev = PairsEvaluation()
    samples: Iterable = iter_corpus(gt)
    if progress is not None:
        samples = progress(samples)
    for s in samples:
        if "image_a" not in s or "correspondence" not in s:
            continue
        b = np.asarray(s["image_b"])
        hw = (int(b.shape[0]), int(b.shape[1]))
        c = read_prediction(Path(pred), s["__key__"], hw) if pred is not None else s["correspondence"]
        scores = consistency_scores(s["image_a"], b, c, np.asarray(s["covisibility"], np.float64), lpips_fn)
        ev.rows.append({"key": s["__key__"], **scores})
    if not ev.rows:
        raise InputError(gt, "no pairs in this corpus (fields image_a, image_b, correspondence)")
    return ev
