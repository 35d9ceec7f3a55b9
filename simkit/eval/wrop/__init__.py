"""Evaluation of video continuations on the wrop exam (spec ``wrop``, "Evaluation side").

Modules:

- :mod:`simkit.eval.wrop.elo`: pairwise human preference votes -> Bradley-Terry ratings on an Elo scale
  (mean 1500, ties as half a win), rater-clustered bootstrap CIs and top-1 probabilities, forest plot.
- :mod:`simkit.eval.wrop.video`: reading predicted videos (``{key}.mp4`` or frame folders) and resampling
  them to the target's frame count and size.
- :mod:`simkit.eval.wrop.fit`: target-fit metrics (MSE, MAE, PSNR, SSIM, MS-SSIM, temporal-difference L1,
  final-frame metrics; LPIPS, CLIP similarity and FID only with locally available weights).
- :mod:`simkit.eval.wrop.check`: the generator-aware OP/OS checker (object evidence inside each object's
  projected box at the frames where the exam's trajectory says it must be visible) and the corruptions
  (object deleted, teleported, passed through, frozen) that validate it.
- :mod:`simkit.eval.wrop.pairs`: a static, blind pairwise-rating page (``simkit export wrop-pairs``)
  whose saved votes are the CSV :mod:`~simkit.eval.wrop.elo` reads.

Exam corpora are read through :mod:`simkit.episodes.reader`; nothing here imports a backend.
"""
