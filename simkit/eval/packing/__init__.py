"""Closed-loop packing evaluation: policies, the evaluation loop over cases, BR loader, bench builder.

Entry points: :func:`simkit.eval.packing.evaluate.evaluate`, :func:`simkit.eval.packing.br.load_thpack`,
:func:`simkit.eval.packing.bench.build_bench`, :func:`simkit.eval.packing.policies.make_policy`. The
case type, candidates and the shipped bench reader (:mod:`simkit.scenes.packing`) and the
physics-in-the-loop episode (:func:`simkit.sims.packing.episode.run_episode`) live below this
package, because the ``simkit/Packing-v0`` env runs them too. Heavy backends (pybullet, scipy) load lazily.
"""
