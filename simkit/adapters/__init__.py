"""Thin adapters that hand simkit corpora and environments to training code.

Adapters read corpora (never import backends): ``simkit.adapters.torch``
(IterableDataset over shards), ``simkit.adapters.gym`` (Gymnasium envs).
"""
