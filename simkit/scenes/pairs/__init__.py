"""Pairs scene compiler: 2-3 meshes under independent rigid motions, seen from two viewpoints
(:mod:`~simkit.scenes.pairs.compile`)."""
