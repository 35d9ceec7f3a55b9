"""Packing scene compiler: box geometry, layout-first cases, support rules, candidates, metrics, checker.

- :mod:`~simkit.scenes.packing.geometry` (boxes, containers, placements), :mod:`~simkit.scenes.packing.layout`
  (layout-first case compiler and the difficulty tiers), :mod:`~simkit.scenes.packing.support` (support rules),
  :mod:`~simkit.scenes.packing.candidates` (feasible, supported placements on a heightmap),
  :mod:`~simkit.scenes.packing.metrics` and :mod:`~simkit.scenes.packing.checker` (geometric verification).
- :mod:`~simkit.scenes.packing.case` (the evaluation case: items, actions, expert placements) and
  :mod:`~simkit.scenes.packing.bench` (the shipped bench cases).
"""
