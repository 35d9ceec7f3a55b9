"""Corpus storage: codecs, shard writer/reader, manifest, validation, inspection."""
