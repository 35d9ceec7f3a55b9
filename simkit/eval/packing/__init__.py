"""Closed-loop packing evaluation: cases, policies, physics-in-the-loop runner, metrics, checker, BR loader, bench.

Entry points: :func:`simkit.eval.packing.runner.run_episode`, :func:`simkit.eval.packing.evaluate.evaluate`,
:func:`simkit.eval.packing.br.load_thpack`, :func:`simkit.eval.packing.bench.load_bench`,
:func:`simkit.eval.packing.policies.make_policy`. Heavy backends (pybullet, scipy) load lazily.
"""
