"""Packing generators: ``packing`` (:mod:`~simkit.generators.packing.generator`)."""
