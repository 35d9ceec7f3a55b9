"""``simkit/Packing-v0``: closed-loop box packing (:mod:`~simkit.envs.packing.env`)."""
