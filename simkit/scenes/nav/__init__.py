"""Navigation scenes: procedural floor plans (:mod:`~simkit.scenes.nav.floorplan`) and the loader of
user-supplied scene meshes (:mod:`~simkit.scenes.nav.meshes`)."""
