"""Pair consistency evaluation (:mod:`~simkit.eval.pairs.evaluate`)."""
