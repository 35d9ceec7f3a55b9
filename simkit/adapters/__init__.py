"""Thin adapters that hand simkit corpora to training code.

Adapters read corpora (never import backends): ``simkit.adapters.reader`` (plain verified
reader, no torch), ``simkit.adapters.torch`` (IterableDatasets split by episode, ragged
collate, step view), ``simkit.adapters.webdataset`` (decoder for webdataset pipelines),
``simkit.adapters.hf`` (Hugging Face ``datasets`` typed from the declared field schema).
Interactive environments live in :mod:`simkit.envs`.
"""
