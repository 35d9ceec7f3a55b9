"""``simkit/FoaNav-v0``: sound-guided navigation (:mod:`~simkit.envs.nav.env`)."""
