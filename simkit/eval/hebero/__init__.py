"""Hebero evaluation: success rates of a policy over the LIBERO tasks (:mod:`~simkit.eval.hebero.evaluate`)."""
