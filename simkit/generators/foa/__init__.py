"""FOA generators: ``foa-qa`` (:mod:`~simkit.generators.foa.generator`) and its audio scene director
(:mod:`~simkit.generators.foa.director`), which draws scenes with the FOA renderer's trajectories and
renders them with :mod:`simkit.renderers.foa` (so it sits on the generator floor, above the renderer)."""
