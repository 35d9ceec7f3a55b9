"""Packing physics (pybullet, :mod:`~simkit.sims.packing.physics`) and the closed-loop packing episode
that the ``simkit/Packing-v0`` env and the evaluation both run (:mod:`~simkit.sims.packing.episode`)."""
