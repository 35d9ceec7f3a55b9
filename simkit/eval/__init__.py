"""simkit.eval: benchmark harnesses and metrics.

Constants shared by more than one metric module live here.
"""

#: dB: PSNR reported for an exact reconstruction (MSE 0) instead of +inf, so that means over samples stay
#: finite; used by the pair-consistency means (:mod:`simkit.eval.pairs.evaluate`) and per frame by wrop-fit
#: (:mod:`simkit.eval.wrop.fit`)
PSNR_CAP_DB = 100.0
