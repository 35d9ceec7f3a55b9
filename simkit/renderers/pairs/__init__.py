"""Pairs labels: exact dense correspondence and covisibility of two views of rigidly moving meshes
(:mod:`~simkit.renderers.pairs.correspondence`, on the shared ray caster :mod:`simkit.renderers.raster`)."""
