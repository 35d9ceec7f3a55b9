"""Executors: run the episodes of a corpus plan in-process, on a local process pool, or on Ray."""
