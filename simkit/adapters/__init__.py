"""Thin adapters that hand simkit corpora to training code.

Adapters read corpora (never import backends): ``simkit.adapters.torch`` (IterableDataset over
shards). Interactive environments live in :mod:`simkit.envs`.
"""
