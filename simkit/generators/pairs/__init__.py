"""Pairs generators: ``pairs`` (:mod:`~simkit.generators.pairs.generator`)."""
