"""Hebero generators: ``hebero-demos`` (:mod:`~simkit.generators.hebero.generator`)."""
