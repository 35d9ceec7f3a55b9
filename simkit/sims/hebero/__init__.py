"""Hebero physics on MuJoCo: task scenes, goal predicates, batched tasks and the GPU layout groups.

- :mod:`~simkit.sims.hebero.scene`: one compiled task descriptor -> a MuJoCo model and data (CPU).
- :mod:`~simkit.sims.hebero.goal_geometry` (the predicates' geometric tests, numpy or torch),
  :mod:`~simkit.sims.hebero.predicates` (contact-scan goal predicates),
  :mod:`~simkit.sims.hebero.batched_tasks` (the goal formulas as arrays over worlds),
  :mod:`~simkit.sims.hebero.batch_predicates` (their numpy evaluation).
- :mod:`~simkit.sims.hebero.layout_groups`, :mod:`~simkit.sims.hebero.layout_models`: the 40
  tasks as union models with parked entities; :mod:`~simkit.sims.hebero.warp_batch`: MuJoCo
  Warp batches of those models (GPU backend).
"""
